"""Messages said when they are shown, in the language of that moment.

``settings.json`` is read before the language (itself a setting) is applied, so what reading it found is
kept as a :data:`Said`: a callable that translates and fills in its message each time it is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from okbot.config.schema import SettingError
from okbot.i18n import translate

Said = Callable[[], str]


def said(template: str, **fields: Any) -> Said:
    """``template`` (marked ``QT_TRANSLATE_NOOP("settings", …)``) filled with ``fields`` when said; a field
    that is itself callable (another message, ``spec.allowed``) is said then too."""

    def say() -> str:
        return translate("settings", template).format(**{k: v() if callable(v) else v for k, v in fields.items()})

    return say


def refusal(check: Callable[[], Any]) -> Said:
    """The message of the :class:`SettingError` that ``check()`` raises, worked out again each time it is said."""

    def say() -> str:
        try:
            check()
        except SettingError as exc:
            return exc.message
        return ""

    return say
