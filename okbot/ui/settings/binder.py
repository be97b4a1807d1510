"""Connects setting fields to the live :class:`~okbot.config.settings.Settings` of an ``AppContext``.

A value the user chose goes straight to ``Settings.set`` (validated, saved atomically,
subscribers notified), so changes apply without a restart and there is no OK button. A value
the store refuses leaves the setting untouched: the field shows the stored value again and
``refused`` carries the store's message (it names the key, the value and what is allowed).

The binder looks ``ctx.settings`` up on every use and moves its subscription if the object was
replaced. Notifications may come from any thread and are delivered on the GUI thread.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from okbot.config.schema import SettingError
from okbot.config.settings import Settings
from okbot.ui.settings.fields import SettingField

log = logging.getLogger("okbot.ui.settings")


class SettingsBinder(QObject):
    """Keeps a set of :class:`SettingField` and the settings store in step.

    ``changed(key)`` fires after a change was saved (made here or elsewhere through the same
    ``Settings`` object); ``refused(key, message)`` when the store refused a value.
    """

    changed = Signal(str)
    refused = Signal(str, str)
    # Settings notifies on whatever thread reloaded it (a turn or the token gauge on a pool
    # thread may be first to see a changed file); an auto connection brings it to the GUI thread.
    _settings_changed = Signal(str)

    def __init__(self, ctx: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._fields: dict[str, SettingField] = {}
        self._subscribed: Settings | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._applying = False
        self._settings_changed.connect(self._on_settings_changed)
        self.settings()

    # ------------------------------------------------------------------ public
    def settings(self) -> Settings:
        """The live settings object (re-subscribing when the context replaced it)."""
        current = self._ctx.settings
        if current is not self._subscribed:
            self._drop_subscription()
            self._unsubscribe = _subscribe_weakly(current, self)
            self._subscribed = current
        return current

    def bind(self, field: SettingField) -> None:
        """Show the stored value in ``field`` and save what the user chooses there."""
        self._fields[field.key] = field
        field.edited.connect(lambda value, key=field.key: self._on_field_edited(key, value))
        self._refresh_field(self.settings(), field)

    def field(self, key: str) -> SettingField:
        """The bound field for ``key`` (KeyError when there is none)."""
        return self._fields[key]

    def fields(self) -> dict[str, SettingField]:
        """Every bound field by key."""
        return dict(self._fields)

    def apply(self, key: str, value: Any) -> bool:
        """``Settings.set(key, value)``; on refusal emit ``refused`` and show the stored value again."""
        settings = self.settings()
        self._applying = True
        try:
            settings.set(key, value)
        except SettingError as exc:
            log.info("setting refused: %s", exc)
            self.refused.emit(key, str(exc))
            self.refresh()
            return False
        finally:
            self._applying = False
        self.refresh()
        self.changed.emit(key)
        return True

    def refresh(self) -> None:
        """Show the stored (or environment-overridden) value of every field."""
        settings = self.settings()
        for field in self._fields.values():
            self._refresh_field(settings, field)

    # ------------------------------------------------------------------ slots
    def _on_field_edited(self, key: str, value: Any) -> None:
        self.apply(key, value)

    def _on_settings_changed(self, key: str) -> None:
        """A change made through the same Settings object elsewhere (or a follow-up key of ours)."""
        if self._applying:
            return  # apply() refreshes and announces its own change
        self.refresh()
        self.changed.emit(key)

    # --------------------------------------------------------------- internals
    def _refresh_field(self, settings: Settings, field: SettingField) -> None:
        var = settings.env_override(field.key)
        field.set_value(settings.get(field.key))
        field.set_locked(f"Set by {var} for this run; not saved" if var else "")

    def _drop_subscription(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = None
        self._subscribed = None


def _subscribe_weakly(settings: Settings, binder: SettingsBinder) -> Callable[[], None]:
    """Subscribe ``binder`` to ``settings`` without keeping it alive; the entry removes itself once it is gone."""
    ref = weakref.ref(binder)
    remover: list[Callable[[], None]] = []

    def notify(key: str) -> None:
        alive = ref()
        if alive is None or not shiboken6.isValid(alive):
            for off in remover:
                off()
            return
        alive._settings_changed.emit(key)

    remover.append(settings.subscribe(notify))
    return remover[0]
