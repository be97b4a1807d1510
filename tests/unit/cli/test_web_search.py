"""``okbot web-search …`` run as real processes: the service chosen in settings.json, the key read from stdin
into the key file (no keyring here), never printed, logged or written to settings.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from okbot.config.settings import Settings
from okbot.core.local_tools.web.search_setup import key_name, ready
from okbot.llm.keystore import KeyStore
from tests.helpers.keyrings import no_keyring, system_keyring

ROOT = Path(__file__).resolve().parents[3]
KEY = "tvly-cli-0123456789abcdefXYZ"


@pytest.fixture
def okbot(okbot_home: Path):
    env = {
        **os.environ,
        "OKBOT_HOME": str(okbot_home),
        "PYTHONPATH": str(ROOT),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",  # never the machine's own keyring
    }
    shown: list[str] = []

    def run(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        argv = ("web-search", *argv)
        proc = subprocess.run(
            [sys.executable, "-m", "okbot", *argv], input=stdin, capture_output=True, text=True, env=env, timeout=60
        )
        shown.append(proc.stdout + proc.stderr)
        return proc

    yield run
    logs = [p.read_text() for p in (okbot_home / "logs").glob("*.log*")] if (okbot_home / "logs").exists() else []
    for text in [*shown, *logs]:
        assert KEY not in text
    settings = okbot_home / "settings.json"
    assert not settings.exists() or KEY not in settings.read_text()


def test_set_a_hosted_service_with_its_key_from_stdin(okbot):
    assert okbot("status").stdout.strip() == "web search: off (okbot web-search set SERVICE to turn it on)"
    proc = okbot("set", "tavily", "--key-stdin", stdin=KEY + "\n")
    assert proc.returncode == 0, proc.stderr
    key_file = KeyStore().key_file
    assert proc.stdout.strip() == f"web search: Tavily, key in {key_file}, 5 results per search"
    with system_keyring(no_keyring()):
        assert KeyStore().get(key_name("tavily")).key == KEY
        assert ready(Settings.load(), KeyStore())
    status = json.loads(okbot("status", "--json").stdout)
    assert status == {"service": "tavily", "maxResults": 5, "ready": True, "key": "file"}
    assert okbot("rm-key", "tavily").stdout.strip() == "key for Tavily removed"
    assert json.loads(okbot("status", "--json").stdout)["ready"] is False
    assert "no key yet (okbot web-search set tavily --key-stdin)" in okbot("status").stdout


def test_set_searxng_with_its_url(okbot):
    proc = okbot("set", "searxng", "--url", "http://localhost:8888/", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "service": "searxng",
        "maxResults": 5,
        "ready": True,
        "url": "http://localhost:8888",
        "keySavedIn": None,
    }
    assert Settings.load().get("webSearch.searxngUrl") == "http://localhost:8888/"


@pytest.mark.parametrize(
    ("argv", "stdin", "words"),
    [
        (("set", "searxng", "--url", "ftp://x"), "", "must be an http:// or https:// URL"),
        (("set", "searxng", "--key-stdin"), KEY, "searxng takes no key"),
        (("set", "brave", "--url", "http://x"), "", "--url is for searxng"),
        (("set", "serper", "--key-stdin"), "\n", "no key on stdin"),
        (("set", "serper", "--key-stdin"), "has a space in it\n", "it holds a space"),
    ],
)
def test_refusals_change_nothing(okbot, argv, stdin, words):
    proc = okbot(*argv, stdin=stdin)
    assert proc.returncode != 0 and words in proc.stderr, proc.stderr
    assert Settings.load().get("webSearch.provider") == "off"
