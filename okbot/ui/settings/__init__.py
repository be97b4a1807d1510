"""Settings → Models, Context compression, Tools, Advanced: built from ``okbot.config.schema.SETTINGS``.

Public API: :class:`SettingsDialog` (``open_page(name)``, ``set_current_target(target)``,
signals ``compress_finished(object)`` and ``setting_changed(str)``).

The dialog loads on first use (:func:`__getattr__`): importing this package loads no page.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from okbot.ui.settings.dialog import PAGE_KEYS, SettingsDialog

_HOMES = {
    "PAGE_KEYS": "okbot.ui.settings.dialog",
    "SettingsDialog": "okbot.ui.settings.dialog",
}
__all__ = ["PAGE_KEYS", "SettingsDialog"]


def __getattr__(name: str) -> Any:
    """``SettingsDialog`` and the rest, imported when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
