"""System keyrings for tests, set through the keyring package's own ``keyring.set_keyring``.

The test machine has no system keyring (``keyring.backends.fail.Keyring``); these stand in for one
that works (:class:`MemoryKeyring`) or one that refuses every call (:class:`BrokenKeyring`). Both
are real ``KeyringBackend`` subclasses: OkBot reaches them through the keyring package unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import KeyringError, PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """A keyring that keeps passwords in a dict, ``saved[(service, user)]``."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.saved: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.saved.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.saved[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.saved.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


class BrokenKeyring(KeyringBackend):
    """A keyring that is there but refuses every call (a locked collection, D-Bus trouble)."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringError(f"locked: cannot read {service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringError(f"locked: will not keep {password}")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringError("locked")


@contextmanager
def system_keyring(backend: KeyringBackend) -> Iterator[KeyringBackend]:
    """Make ``backend`` the process's keyring for the duration (the previous one comes back after)."""
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def no_keyring() -> KeyringBackend:
    """What keyring picks on a machine without any: the ``fail`` backend."""
    return fail.Keyring()
