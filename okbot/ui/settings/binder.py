"""Connects setting fields to the live :class:`~okbot.config.settings.Settings` of an ``AppContext``.

A value the user chose goes straight to ``Settings.set`` (validated, saved atomically,
subscribers notified), so changes apply without a restart and there is no OK button. A value
the store refuses leaves the setting untouched, but stays on show in its field (*pending*), and
``refused`` carries the refusal in the dialog's words (``SettingError.words``: the label and what
is allowed). A pending value is tried again after every change, so “Keep at least” 20, refused
while “Keep at most” is 12, is saved as soon as “Keep at most” is raised; a change of that same key
made elsewhere replaces it.

The binder looks ``ctx.settings`` up on every use and moves its subscription if the object was
replaced. Notifications may come from any thread and are delivered on the GUI thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from okbot.config.schema import SettingError
from okbot.config.settings import Settings
from okbot.ui.settings.fields import SettingField
from okbot.ui.settings_relay import subscribe_weakly

log = logging.getLogger("okbot.ui.settings")


class SettingsBinder(QObject):
    """Keeps a set of :class:`SettingField` and the settings store in step.

    ``changed(key)`` fires after a change was saved (made here or elsewhere through the same
    ``Settings`` object), and when a pending value of ``key`` gave way to the stored one;
    ``refused(key, words)`` when the store refused a value.
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
        self._pending: dict[str, Any] = {}  # refused values still on show in their fields
        self._locks: dict[str, str] = {}  # key -> why this machine offers no choice (lock())
        self._settings_changed.connect(self._on_settings_changed)
        self.settings()

    # ------------------------------------------------------------------ public
    def settings(self) -> Settings:
        """The live settings object (re-subscribing when the context replaced it)."""
        current = self._ctx.settings
        if current is not self._subscribed:
            self._drop_subscription()
            self._unsubscribe = subscribe_weakly(current, self, "_settings_changed")
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

    def lock(self, key: str, reason: str) -> None:
        """Keep ``key``'s field read-only with ``reason`` shown (what this machine lacks), across refreshes."""
        self._locks[key] = reason
        if key in self._fields:
            self._refresh_field(self.settings(), self._fields[key])

    def pending(self) -> dict[str, Any]:
        """The refused values still on show, by key."""
        return dict(self._pending)

    def apply(self, key: str, value: Any) -> bool:
        """``Settings.set(key, value)``; a refused value stays on show (pending) and ``refused`` says why."""
        if not self._set(key, value):
            return False
        self.refresh()
        self.changed.emit(key)
        self._retry_pending()
        return True

    def refresh(self) -> None:
        """Show the stored (or environment-overridden) value of every field, except the refused ones on show."""
        settings = self.settings()
        for field in self._fields.values():
            if field.key not in self._pending:
                self._refresh_field(settings, field)

    # ------------------------------------------------------------------ slots
    def _on_field_edited(self, key: str, value: Any) -> None:
        self.apply(key, value)

    def _on_settings_changed(self, key: str) -> None:
        """A change made through the same Settings object elsewhere (or a follow-up key of ours)."""
        if self._applying:
            return  # apply() refreshes and announces its own change
        self._pending.pop(key, None)  # the value set elsewhere replaces the one refused here
        self.refresh()
        self.changed.emit(key)
        self._retry_pending()

    # --------------------------------------------------------------- internals
    def _set(self, key: str, value: Any) -> bool:
        """Store ``value``; on refusal keep it pending and emit ``refused``."""
        self._applying = True
        try:
            self.settings().set(key, value)
        except SettingError as exc:
            log.info("setting refused: %s", exc)
            self._pending[key] = value
            if key in self._fields:  # already on show when typed; not when applied by the page's own code
                self._fields[key].set_value(value)
            self.refused.emit(key, exc.words)
            return False
        finally:
            self._applying = False
        self._pending.pop(key, None)
        return True

    def _retry_pending(self) -> None:
        """Try the refused values on show again: the change just made may have allowed them."""
        for key, value in list(self._pending.items()):
            if self._pending.get(key) is value and self._set(key, value):
                self.refresh()
                self.changed.emit(key)

    def _refresh_field(self, settings: Settings, field: SettingField) -> None:
        var = settings.env_override(field.key)
        field.set_value(settings.get(field.key))
        if var:
            field.set_locked(self.tr("Set by {var} for this run; not saved").format(var=var))
        else:
            field.set_locked(self._locks.get(field.key, ""))

    def _drop_subscription(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = None
        self._subscribed = None
