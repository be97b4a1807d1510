"""Where the key comes from, and redaction. The optional keyring package is replaced by a stand-in module."""

from __future__ import annotations

import logging
import sys
import types

import pytest

from okbot.llm import keys
from okbot.llm.keys import redact, resolve_api_key, store_api_key


class FakeBackendError(Exception):
    pass


def install_keyring(monkeypatch: pytest.MonkeyPatch, *, usable: bool = True, fail: bool = False) -> dict:
    """Put a stand-in ``keyring`` package into sys.modules (the real one is an optional dependency)."""
    store: dict = {}
    module = types.ModuleType("keyring")
    backends = types.ModuleType("keyring.backends")
    fail_module = types.ModuleType("keyring.backends.fail")

    class FailKeyring:
        pass

    class WorkingKeyring:
        pass

    fail_module.Keyring = FailKeyring  # type: ignore[attr-defined]
    backends.fail = fail_module  # type: ignore[attr-defined]
    module.backends = backends  # type: ignore[attr-defined]
    module.get_keyring = lambda: WorkingKeyring() if usable else FailKeyring()  # type: ignore[attr-defined]

    def get_password(service: str, user: str) -> str | None:
        if fail:
            raise FakeBackendError("dbus says no " + str(store.get((service, user))))
        return store.get((service, user))

    def set_password(service: str, user: str, value: str) -> None:
        if fail:
            raise FakeBackendError("locked")
        store[(service, user)] = value

    module.get_password = get_password  # type: ignore[attr-defined]
    module.set_password = set_password  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", module)
    monkeypatch.setitem(sys.modules, "keyring.backends", backends)
    monkeypatch.setitem(sys.modules, "keyring.backends.fail", fail_module)
    return store


def test_env_prefers_okbot_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_api_key("env") is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    assert resolve_api_key("env") == "sk-openai"
    monkeypatch.setenv("OKBOT_API_KEY", "  sk-okbot \n")
    assert resolve_api_key("env") == "sk-okbot"
    monkeypatch.setenv("OKBOT_API_KEY", "   ")
    assert resolve_api_key("env") == "sk-openai"


def test_none_means_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKBOT_API_KEY", "sk-okbot")
    assert resolve_api_key("none") is None


def test_unknown_source_is_a_bug() -> None:
    with pytest.raises(ValueError, match="unknown key source"):
        resolve_api_key("settings.json")


def test_keyring_missing_falls_back_to_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "keyring", None)  # import keyring -> ImportError
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert resolve_api_key("keyring") == "sk-env"
    assert store_api_key("sk-new") is False
    assert keys.keyring_available() is False


def test_keyring_stores_and_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    store = install_keyring(monkeypatch)
    assert keys.keyring_available()
    assert resolve_api_key("keyring") is None
    assert store_api_key(" sk-kept \n") is True
    assert store == {("okbot", "api-key"): "sk-kept"}
    monkeypatch.setenv("OKBOT_API_KEY", "sk-env")
    assert resolve_api_key("keyring") == "sk-kept"


def test_keyring_without_a_backend_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    install_keyring(monkeypatch, usable=False)
    monkeypatch.setenv("OKBOT_API_KEY", "sk-env")
    assert resolve_api_key("keyring") == "sk-env"
    assert store_api_key("sk-x") is False


def test_keyring_errors_give_none_and_a_log_line_without_the_key(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store = install_keyring(monkeypatch, fail=True)
    store[("okbot", "api-key")] = "sk-stored-secret-value"
    caplog.set_level(logging.DEBUG, logger="okbot.llm")
    assert resolve_api_key("keyring") is None
    assert store_api_key("sk-another-secret-value") is False
    assert caplog.records
    text = " ".join(r.getMessage() for r in caplog.records)
    assert "FakeBackendError" in text
    assert "sk-stored-secret-value" not in text and "sk-another-secret-value" not in text


def test_redact() -> None:
    assert redact("key abc123 and abc123", "abc123") == "key [redacted] and [redacted]"
    assert redact("nothing to hide", None, "") == "nothing to hide"
    assert redact("a b", "a") == "a b"  # too short to be a key: left alone
    assert redact("Authorization: Bearer tok.en-123") == "Authorization: Bearer [redacted]"
    assert redact("sk-proj-0123456789abcdef in text") == "[redacted] in text"
