"""The user-facing error type. Anything else that escapes is a bug and should crash loudly in tests."""

from __future__ import annotations

from okbot.i18n import translate


class OkBotError(Exception):
    """An error with a message a user understands (shown by the UI, printed by the CLI)."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if not self.hint:
            return self.message
        return translate("errors", "{message} ({hint})").format(message=self.message, hint=self.hint)


class NotFound(OkBotError):
    """An assistant, squad or item that does not exist."""
