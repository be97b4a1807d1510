"""Test doubles shared by the Settings and first-run tests."""

from __future__ import annotations

import socket

from okbot.ui.settings.provider_setup import KeyStore


class MemoryKeyStore(KeyStore):
    """A keyring that lives in memory (the test machine has no system keyring)."""

    def __init__(self) -> None:
        self.saved: str | None = None

    def available(self) -> bool:
        return True

    def store(self, key: str) -> bool:
        self.saved = key
        return True

    def lookup(self, key_source: str) -> str | None:
        return self.saved if key_source == "keyring" else None


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (connection refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
