"""A hostile ``keys.json`` and unexpected failures, through the real ``okbot`` command in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from okbot.cli.chat import _run_turn
from okbot.llm.provider import CancelToken
from tests.helpers.fake_openai import FakeOpenAIServer

WAIT = 120  # a chat that refuses a key file answers in about a second; this is only for when it hangs


def okbot(home: Path, *argv: str, script: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m okbot ARGV`` (or ``python -c SCRIPT``) with ``home`` as the data dir and no system keyring."""
    env = {
        **os.environ,
        "OKBOT_HOME": str(home),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "LANGUAGE": "en",
    }
    command = [sys.executable, "-c", script] if script else [sys.executable, "-m", "okbot", *argv]
    try:
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=WAIT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"okbot {' '.join(argv)} did not finish in {WAIT} s")


@pytest.fixture
def keyring_home(okbot_home: Path, server: FakeOpenAIServer) -> Path:
    """A data dir whose default provider is ``server`` and reads its key from the keyring (here: keys.json)."""
    for key, value in (("provider.baseUrl", server.base_url), ("provider.keySource", "keyring")):
        assert okbot(okbot_home, "config", "set", key, value).returncode == 0
    return okbot_home


def plant(home: Path, data: bytes) -> Path:
    key_file = home / "keys.json"
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, data)
    os.close(fd)
    return key_file


def test_a_key_file_nested_100000_deep_makes_chat_say_so_not_exit_130(keyring_home, server):
    key_file = plant(keyring_home, b'{"version": 1, "keys": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    proc = okbot(keyring_home, "chat", "OkBot", "-m", "hello")
    assert proc.returncode == 1, proc.stderr
    assert f"OkBot's key file {key_file} is damaged" in proc.stderr
    assert not server.chat_requests()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_place_of_the_key_file_makes_chat_say_so_at_once(keyring_home, server):
    key_file = keyring_home / "keys.json"
    os.mkfifo(key_file, 0o600)
    proc = okbot(keyring_home, "chat", "OkBot", "-m", "hello")
    assert proc.returncode == 1, proc.stderr
    assert f"OkBot did not read its key file {key_file}: it is not a regular file" in proc.stderr


@pytest.mark.parametrize("key", ["sk-abcdef\u00e9ghij", "sk-abcdef\u4e2dghij", "sk-abcdef\r\nghij", "sk-abc\x01ghij"])
def test_a_saved_key_no_header_can_carry_is_named_with_its_file_not_could_not_reach(keyring_home, server, key):
    key_file = plant(keyring_home, json.dumps({"version": 1, "keys": {"default": key}}).encode())
    proc = okbot(keyring_home, "chat", "OkBot", "-m", "hello")
    assert proc.returncode == 1, proc.stderr
    assert f"The API key saved for provider default in {key_file} cannot be used" in proc.stderr
    assert "ghij" not in proc.stderr + proc.stdout
    assert not server.chat_requests()


def test_a_failure_on_the_turns_thread_is_raised_on_the_main_thread_not_taken_for_ctrl_c():
    def job(callbacks, cancel):
        raise RecursionError("maximum recursion depth exceeded")

    outcome = _run_turn(job, None, CancelToken())
    assert isinstance(outcome.get("error"), RecursionError)


CRASHING = textwrap.dedent(
    """
    import sys
    from okbot import __main__
    from okbot.cli import targets

    def crash(args, out, err):
        raise RecursionError("maximum recursion depth exceeded")

    targets.cmd_list = crash  # a bug in a command
    sys.exit(__main__.main(["list"]))
    """
)


def test_an_unexpected_failure_is_a_crash_with_a_report_and_its_own_exit_code(okbot_home):
    proc = okbot(okbot_home, script=CRASHING)
    assert proc.returncode == 70, proc.stderr
    [report] = (okbot_home / "logs").glob("crash-*.txt")
    assert f"the crash report is {report}" in proc.stderr and "RecursionError" in proc.stderr
    assert "Traceback" not in proc.stderr
    text = report.read_text(encoding="utf-8")
    assert "RecursionError: maximum recursion depth exceeded" in text and "in crash" in text


@pytest.mark.parametrize(
    "key", ["sk-abcdef\u00e9ghij", "sk-abcdef\r\nghij", "sk-abc\x01ghij"], ids=["latin-1", "crlf", "ctrl"]
)
def test_a_key_in_the_environment_no_header_can_carry_is_named_not_sent(okbot_home, server, key, monkeypatch):
    assert okbot(okbot_home, "config", "set", "provider.baseUrl", server.base_url).returncode == 0
    proc = okbot(okbot_home, "provider", "add", "work", "--base-url", server.base_url, "--key-env", "WORK_KEY")
    assert proc.returncode == 0, proc.stderr
    assert okbot(okbot_home, "new", "assistant", "Bob", "--model", "work/m1").returncode == 0
    monkeypatch.setenv("OKBOT_API_KEY", key)
    monkeypatch.setenv("WORK_KEY", key)
    for target, provider, var in (("OkBot", "default", "OKBOT_API_KEY"), ("Bob", "work", "WORK_KEY")):
        proc = okbot(okbot_home, "chat", target, "-m", "hello")
        assert proc.returncode == 1, proc.stderr
        assert f"The API key for provider {provider} in {var}" in proc.stderr and "cannot be sent" in proc.stderr
        assert "ghij" not in proc.stderr + proc.stdout
    assert not server.chat_requests()
