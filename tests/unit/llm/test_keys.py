"""Where the key comes from, and redaction. The optional keyring package is replaced by a stand-in module."""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
import types
from pathlib import Path

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


# -- the key leaves the process environment ------------------------------------------------------
CANARY = "sk-canary-environ-0123456789"


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """An empty store of taken keys (and of remembered secrets) for this test only."""
    taken: dict[str, str] = {}
    monkeypatch.setattr(keys, "_taken", taken)
    monkeypatch.setattr(keys, "_remembered", set())
    return taken


def test_taken_key_leaves_os_environ_and_is_still_the_key(monkeypatch: pytest.MonkeyPatch, fresh_cache) -> None:
    monkeypatch.setenv("OKBOT_API_KEY", CANARY)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-too-0000")
    assert keys.take_from_environment() == ["OKBOT_API_KEY", "OPENAI_API_KEY"]
    assert "OKBOT_API_KEY" not in os.environ and "OPENAI_API_KEY" not in os.environ
    assert keys.env_api_key() == CANARY
    assert resolve_api_key("env") == CANARY
    assert resolve_api_key("env") == CANARY  # asked again: still there
    assert keys.env_key("OPENAI_API_KEY") == "sk-openai-too-0000"
    assert keys.scrub(f"echo {CANARY}") == "echo [redacted]"


def test_a_key_set_after_the_take_wins(monkeypatch: pytest.MonkeyPatch, fresh_cache) -> None:
    monkeypatch.setenv("OKBOT_API_KEY", CANARY)
    keys.take_from_environment()
    monkeypatch.setenv("OKBOT_API_KEY", " sk-newer-0000 ")
    assert keys.env_api_key() == "sk-newer-0000"
    monkeypatch.delenv("OKBOT_API_KEY")
    assert keys.env_api_key() == CANARY


def test_nothing_to_take(fresh_cache) -> None:
    assert keys.take_from_environment() == []
    assert keys.env_api_key() is None and keys.env_key("OKBOT_API_KEY") is None


_CHILD = """
import hashlib, subprocess, sys
from okbot.llm import keys
assert keys.take_from_environment() == list(keys.ENV_VARS[:1])  # (no key name in this process's argv)
print("ready", flush=True)
sys.stdin.readline()  # the test reads /proc and ps meanwhile
shell = "tr '\\\\0' '\\\\n' < /proc/$PPID/environ; ps eww -o command= -p $PPID; env"
print(subprocess.run(["sh", "-c", shell], capture_output=True, text=True).stdout)
print("key", hashlib.sha256(keys.env_api_key().encode()).hexdigest())  # the key itself is not in argv
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/<pid>/environ is Linux's")
def test_a_started_process_shows_the_key_to_no_one(tmp_path) -> None:
    """What another process sees: /proc/<pid>/environ, `ps e`, and a child's environment."""
    env = {**os.environ, "OKBOT_API_KEY": CANARY, "OKBOT_HOME": str(tmp_path)}
    with subprocess.Popen(
        [sys.executable, "-c", _CHILD], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline() == "ready\n"
        environ = Path(f"/proc/{child.pid}/environ").read_bytes()
        listed = subprocess.run(["ps", "eww", "-o", "command=", "-p", str(child.pid)], capture_output=True, text=True)
        out, _ = child.communicate("go\n", timeout=30)
    assert b"OKBOT_HOME=" in environ  # the rest of the environment is untouched
    assert CANARY.encode() not in environ and b"OKBOT_API_KEY" not in environ
    assert CANARY not in listed.stdout
    assert CANARY not in out and "OKBOT_API_KEY" not in out and "PATH=" in out
    assert out.rstrip().endswith("key " + hashlib.sha256(CANARY.encode()).hexdigest())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/environ is Linux's")
def test_the_app_entry_takes_the_key(tmp_path) -> None:
    """`okbot …` (okbot.__main__.main) moves the key out of its environment as it starts."""
    child = (
        "import os\n"
        "from pathlib import Path\n"
        "from okbot.__main__ import main\n"
        "from okbot.llm import keys\n"
        "main(['config', 'get', 'provider.model'])\n"
        "name = keys.ENV_VARS[0].encode()\n"
        "print(name in Path('/proc/self/environ').read_bytes(), keys.ENV_VARS[0] in os.environ)\n"
        "print(keys.env_api_key() is not None)\n"
    )
    env = {**os.environ, "OKBOT_API_KEY": CANARY, "OKBOT_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["False False", "True"]
