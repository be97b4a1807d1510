"""Settings → Models, Context compression, Tools, Advanced: built from ``okbot.config.schema.SETTINGS``.

Public API: :class:`SettingsDialog` (``open_page(name)``, ``set_current_target(target)``,
signals ``compress_finished(object)`` and ``setting_changed(str)``).
"""

from __future__ import annotations

from okbot.ui.settings.dialog import PAGE_KEYS, SettingsDialog
from okbot.ui.settings.provider_setup import KeyStore

__all__ = ["PAGE_KEYS", "KeyStore", "SettingsDialog"]
