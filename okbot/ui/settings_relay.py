"""Settings changes as Qt signals: :func:`subscribe_weakly` relays ``Settings`` notifications to a QObject
(or those of anything else that reports through ``subscribe(callback)``, such as the MCP hub).

Kept apart from the Settings dialog so that the start-up path (the theme) can use it without loading
the dialog's modules.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Protocol

import shiboken6
from PySide6.QtCore import QObject


class Reporter(Protocol):
    """What reports changes: ``subscribe(callback)`` calls ``callback(key)`` and returns the unsubscribe function."""

    def subscribe(self, callback: Callable[[str], None]) -> Callable[[], None]: ...


def subscribe_weakly(settings: Reporter, owner: QObject, relay: str) -> Callable[[], None]:
    """Re-emit each change of ``settings`` as ``owner``'s signal ``relay(key)``; returns the unsubscribe function.

    ``owner`` is not kept alive; the entry removes itself once it is gone. Connect ``relay`` with an
    auto connection and the key arrives on ``owner``'s (the GUI) thread, whichever thread reported it.
    """
    ref = weakref.ref(owner)
    remover: list[Callable[[], None]] = []

    def notify(key: str) -> None:
        alive = ref()
        if alive is None or not shiboken6.isValid(alive):
            for off in remover:
                off()
            return
        getattr(alive, relay).emit(key)

    remover.append(settings.subscribe(notify))
    return remover[0]
