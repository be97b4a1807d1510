"""Where the key comes from, and redaction. Keyrings are set through the keyring package (tests/helpers/keyrings)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from okbot.llm import keys
from okbot.llm.key_source import resolve_api_key
from okbot.llm.keys import key_needed, redact
from okbot.llm.keystore import KeyStore, KeyStoreError
from tests.helpers.keyrings import BrokenKeyring, MemoryKeyring, no_keyring, system_keyring


@pytest.fixture(autouse=True)
def _no_system_keyring() -> Iterator[None]:
    """This machine's keyring, whatever it is, is never touched: no keyring unless a test sets one."""
    with system_keyring(no_keyring()):
        yield


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


def test_saved_key_source_falls_back_to_env_when_nothing_is_saved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert resolve_api_key("keyring") == "sk-env"


def test_saved_key_source_reads_the_keyring_before_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with system_keyring(MemoryKeyring()) as backend:
        backend.saved[("okbot", "api-key")] = "sk-kept-in-keyring"
        monkeypatch.setenv("OKBOT_API_KEY", "sk-env")
        assert resolve_api_key("keyring") == "sk-kept-in-keyring"


def test_saved_key_source_reads_the_key_file_without_a_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    KeyStore().save("sk-kept-in-a-file-0001")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert resolve_api_key("keyring") == "sk-kept-in-a-file-0001"
    assert resolve_api_key("env") == "sk-env"


def test_keyring_errors_give_none_and_a_log_line_without_the_key(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="okbot.llm")
    with system_keyring(BrokenKeyring()):
        assert resolve_api_key("keyring") is None
        with pytest.raises(KeyStoreError) as refused:
            KeyStore().save("sk-another-secret-value")
    assert "KeyringError" in caplog.text and "KeyringError" in str(refused.value)
    assert "sk-another-secret-value" not in caplog.text and "sk-another" not in str(refused.value)


@pytest.mark.parametrize(
    ("url", "source", "needed"),
    [
        ("https://api.openai.com/v1", "env", True),
        ("https://api.openai.com/v1", "keyring", True),
        ("https://api.openai.com/v1", "none", False),
        ("http://127.0.0.1:8080/v1", "env", False),
        ("http://localhost:11434/v1", "keyring", False),
        ("http://192.168.1.20:8000/v1", "env", False),
    ],
)
def test_a_key_is_needed_for_a_hosted_server_unless_the_user_said_none(url: str, source: str, needed: bool) -> None:
    assert key_needed(url, source) is needed


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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/environ is Linux's")
def test_the_app_entry_takes_the_key_variables_providers_name_too(tmp_path) -> None:
    """A provider added with --key-env ROUTER_KEY: `okbot …` moves ROUTER_KEY out of its environment too."""
    (tmp_path / "settings.json").write_text(
        json.dumps(
            {
                "version": 2,
                "providers": [
                    {"name": "router", "baseUrl": "http://127.0.0.1:9/v1", "keySource": "env", "keyEnv": "ROUTER_KEY"}
                ],
            }
        ),
        encoding="utf-8",
    )
    child = (
        "import os\n"
        "from pathlib import Path\n"
        "from okbot.__main__ import main\n"
        "from okbot.llm import keys\n"
        "main(['config', 'get', 'provider.model'])\n"
        "print(b'ROUTER_KEY' in Path('/proc/self/environ').read_bytes(), 'ROUTER_KEY' in os.environ)\n"
        "print(keys.env_key('ROUTER_KEY') is not None, keys.scrub('x ' + keys.env_key('ROUTER_KEY')))\n"
    )
    env = {**os.environ, "ROUTER_KEY": CANARY, "OKBOT_HOME": str(tmp_path)}
    env.pop("OKBOT_API_KEY", None)
    done = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["False False", "True x [redacted]"]
