"""``okbot provider …``, ``okbot new assistant --model`` and ``okbot set-model``, run as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from okbot.config.providers import ProviderConfig
from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.storage import paths
from tests.helpers.fake_openai import FakeOpenAIServer
from tests.helpers.processes import PeakRun

WORK_KEY = "sk-work-0123456789abcdef"
DEFAULT_KEY = "sk-default-fedcba9876543210"
STDIN_KEY = "sk-stdin-5555666677778888"


@pytest.fixture
def okbot(okbot_home: Path):
    env = {
        **os.environ,
        "OKBOT_HOME": str(okbot_home),
        "WORK_KEY": WORK_KEY,
        "OKBOT_API_KEY": DEFAULT_KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",  # never the machine's own keyring
    }
    shown: list[str] = []

    def run(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "okbot", *argv], input=stdin, capture_output=True, text=True, env=env, timeout=60
        )
        shown.append(proc.stdout + proc.stderr)
        return proc

    yield run
    for text in shown:  # no command ever prints a key
        assert WORK_KEY not in text and DEFAULT_KEY not in text and STDIN_KEY not in text


def test_a_provider_whose_key_variable_is_unset_names_that_variable(okbot):
    """Issue 34, item 19: it said "…or set OKBOT_API_KEY", which this provider never reads."""
    proc = okbot("provider", "add", "openrouter", "--base-url", "https://openrouter.example/v1", "--key-env", "OR_KEY")
    assert proc.returncode == 0, proc.stderr
    proc = okbot("provider", "models", "openrouter")
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "okbot: No API key for openrouter.example: set OR_KEY, where this provider reads its key."
    ), proc.stderr


def test_add_list_and_remove_a_provider(okbot, okbot_home):
    proc = okbot(
        "provider",
        "add",
        "work",
        "--base-url",
        "https://work.example/v1",
        "--key-env",
        "WORK_KEY",
        "--window",
        "m=9000",
    )
    assert proc.returncode == 0, proc.stderr
    assert "key: env WORK_KEY" in proc.stdout
    assert Settings.load().providers.get("work").context_windows == {"m": 9000}
    proc = okbot("provider", "add", "bad", "--base-url", "https://bad.example/v1", "--window", "m=9")
    assert proc.returncode == 1 and "at least 512 tokens" in proc.stderr
    proc = okbot("provider", "add", "vault", "--base-url", "https://vault.example/v1", "--key-stdin", stdin=STDIN_KEY)
    assert proc.returncode == 0, proc.stderr
    # Issue 34, item 19: no keyring here, so the key is in the key file, and every line says so (not "keyring").
    assert proc.stdout.splitlines() == [
        f"key for vault saved in {okbot_home / 'keys.json'} (no system keyring here; only you can read that file)",
        "provider vault: https://vault.example/v1, key: key file (vault)",
    ]
    rows = json.loads(okbot("provider", "list", "--json").stdout)
    assert [(r["name"], r["baseUrl"], r["key"]) for r in rows] == [
        ("default", "https://api.openai.com/v1", "env OKBOT_API_KEY / OPENAI_API_KEY"),
        ("work", "https://work.example/v1", "env WORK_KEY"),
        ("vault", "https://vault.example/v1", "key file (vault)"),
    ]
    assert STDIN_KEY in (okbot_home / "keys.json").read_text()  # no keyring here: the 0600 file keeps it
    text = okbot("provider", "list").stdout
    assert "default (default)  https://api.openai.com/v1" in text and "work  https://work.example/v1" in text
    assert okbot("provider", "rm", "vault").returncode == 0
    assert STDIN_KEY not in (okbot_home / "keys.json").read_text()
    assert [p.name for p in Settings.load().providers.all()] == ["default", "work"]


def test_rm_refuses_the_default_and_a_provider_in_use(okbot):
    okbot("provider", "add", "work", "--base-url", "https://work.example/v1")
    proc = okbot("new", "assistant", "Bob", "--model", "work/meta-llama/Llama-3")
    assert proc.returncode == 0, proc.stderr
    assert Workspace().resolve("Bob").meta["model"] == "work/meta-llama/Llama-3"
    proc = okbot("provider", "rm", "work")
    assert proc.returncode == 1 and "in use by Bob (bob)" in proc.stderr
    assert okbot("provider", "rm", "default").returncode == 1
    assert okbot("set-model", "Bob", "").returncode == 0
    assert Workspace().resolve("Bob").meta["model"] is None
    assert okbot("provider", "rm", "work").returncode == 0
    proc = okbot("provider", "rm", "work")
    assert proc.returncode == 1 and "no provider called 'work'" in proc.stderr


def test_set_model_notes_an_unknown_provider_and_refuses_a_squad(okbot):
    okbot("new", "assistant", "Ann")
    proc = okbot("set-model", "Ann", "nowhere/m1")
    assert proc.returncode == 0 and "no provider called 'nowhere'" in proc.stderr
    assert Workspace().resolve("Ann").meta["model"] == "nowhere/m1"
    okbot("new", "assistant", "Cy")
    okbot("new", "squad", "Team", "--member", "Ann", "--member", "Cy")
    proc = okbot("set-model", "Team", "m2")
    assert proc.returncode == 1 and "squad" in proc.stderr


def test_models_are_listed_cached_and_chat_reaches_the_assistants_provider(okbot):
    with FakeOpenAIServer() as default, FakeOpenAIServer(models=("m1", "m2"), require_key=WORK_KEY) as work:
        okbot("config", "set", "provider.baseUrl", default.base_url)
        okbot("provider", "add", "work", "--base-url", work.base_url, "--key-env", "WORK_KEY")
        proc = okbot("provider", "models", "work")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["m1", "m2"]
        assert json.loads(okbot("provider", "list", "--json").stdout)[1]["models"] == ["m1", "m2"]
        assert okbot("new", "assistant", "Bob", "--model", "work/m2").returncode == 0
        proc = okbot("chat", "Bob", "-m", "hello work")
        assert proc.returncode == 0, proc.stderr
        [body] = work.chat_requests()
        assert body["model"] == "m2" and body["messages"][-1]["content"] == "hello work"
        assert not default.chat_requests()
        proc = okbot("set-model", "Bob", "work/m3")
        assert "did not list 'm3'" in proc.stderr


def add_with_key_on_stdin(home: Path, name: str, megabytes: int) -> tuple[int, int, str]:
    """``okbot provider add NAME --key-stdin`` fed ``megabytes`` MiB of key (no newline), streamed;
    (exit code, the child's peak RSS in KiB, stderr)."""
    env = {**os.environ, "OKBOT_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    argv = ["provider", "add", name, "--base-url", "https://big.example/v1", "--key-stdin"]
    run = PeakRun(
        [sys.executable, "-m", "okbot", *argv],
        memory_cap=3 * 1024**3,  # a runaway read stops here
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc = run.proc
    chunk = b"k" * (1024 * 1024)
    try:
        proc.stdin.write(b"sk-")
        for _ in range(megabytes):
            proc.stdin.write(chunk)
        proc.stdin.close()
    except BrokenPipeError:  # it stopped reading: what a bounded reader does
        pass
    proc.stdout.read()
    err = proc.stderr.read()
    code, peak_mb = run.result()
    return code, int(peak_mb * 1024), err.decode()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="peak RSS of a child in KiB")
def test_100_mb_on_key_stdin_is_refused_without_reading_it_all(okbot_home):
    code, small_peak, _ = add_with_key_on_stdin(okbot_home, "small", 0)
    assert code == 0
    code, peak, err = add_with_key_on_stdin(okbot_home, "huge", 100)
    assert code == 1
    assert "The API key for provider huge was not saved" in err and "longer than 8192 characters" in err
    assert "kkkk" not in err
    assert peak - small_peak < 32 * 1024, f"peak RSS grew by {(peak - small_peak) // 1024} MiB"
    assert "huge" not in (okbot_home / "keys.json").read_text(encoding="utf-8")
    assert [p.name for p in Settings.load().providers.all()] == ["default", "small"]


URL_TOKEN = "tok-9f8e7d6c5b4a3210"


@pytest.mark.parametrize(
    "url", [f"http://{URL_TOKEN}@llm.example.com/v1", f"https://{URL_TOKEN}:x@llm.example.com/v1"], ids=["user", "pair"]
)
def test_provider_add_refuses_a_key_in_the_base_url_and_points_to_key_stdin(okbot, okbot_home, url):
    proc = okbot("provider", "add", "tok", "--base-url", url)
    assert proc.returncode == 1
    assert "--key-stdin" in proc.stderr and "https://[redacted]@llm.example.com/v1" in proc.stderr.replace(
        "http:", "https:"
    )
    assert URL_TOKEN not in proc.stdout + proc.stderr
    assert [p.name for p in Settings.load().providers.all()] == ["default"]
    assert not (okbot_home / "settings.json").exists()


def test_a_base_url_holding_a_token_is_never_printed(okbot, okbot_home, monkeypatch):
    settings = Settings.load()  # written before this OkBot refused it (or by hand)
    settings.providers.add(ProviderConfig("old", f"https://{URL_TOKEN}@old.example/v1"))
    settings.providers.add(ProviderConfig("pair", f"https://{URL_TOKEN}:x-oauth@pair.example/v1"))
    text = okbot("provider", "list").stdout
    assert "old  https://[redacted]@old.example/v1" in text and "pair  https://[redacted]@pair.example/v1" in text
    rows = json.loads(okbot("provider", "list", "--json").stdout)
    assert [r["baseUrl"] for r in rows[1:]] == [
        "https://[redacted]@old.example/v1",
        "https://[redacted]@pair.example/v1",
    ]
    assert URL_TOKEN not in json.dumps(rows)
    refused = okbot("config", "set", "provider.baseUrl", f"http://{URL_TOKEN}@127.0.0.1:9/v1")
    assert refused.returncode == 1 and URL_TOKEN not in refused.stderr
    saved = json.loads(paths.settings_file().read_text(encoding="utf-8"))
    saved["provider.baseUrl"] = f"http://{URL_TOKEN}@127.0.0.1:9/v1"  # by hand, or by an older OkBot
    paths.settings_file().write_text(json.dumps(saved), encoding="utf-8")
    proc = okbot("config", "get", "provider.baseUrl")
    assert proc.stdout.strip() == "http://[redacted]@127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"https://{URL_TOKEN}@host/v1", "https://[redacted]@host/v1"),
        (f"https://{URL_TOKEN}:x-oauth-basic@host/v1", "https://[redacted]@host/v1"),
        ("https://user:pass@host:8443/v1", "https://[redacted]@host:8443/v1"),
        (f"http://{URL_TOKEN}@[::1/v1", "http://[redacted]@[::1/v1"),  # not parseable, still hidden
    ],
)
def test_every_userinfo_is_hidden_wherever_a_url_is_shown(url, shown):
    from okbot.llm.openai_backend import OpenAIProvider
    from okbot.storage.redaction import redact_url

    assert redact_url(url) == shown
    if "[::1" not in url:  # the provider's own name for its server, used in its log lines
        provider = OpenAIProvider(url, None)
        try:
            assert URL_TOKEN not in repr(provider) and "pass" not in repr(provider)
        finally:
            provider.close()


def test_a_providers_parallel_requests_are_set_kept_and_listed(okbot, okbot_home):
    assert okbot("provider", "add", "lab", "--base-url", "http://127.0.0.1:8080/v1", "--slots", "2").returncode == 0
    assert Settings.load().providers.get("lab").slots == 2
    again = okbot("provider", "add", "lab", "--base-url", "http://127.0.0.1:8080/v1", "--window", "m=8192")
    assert again.returncode == 0 and Settings.load().providers.get("lab").slots == 2  # kept when not named
    assert okbot("provider", "add", "default", "--base-url", "http://127.0.0.1:9/v1", "--slots", "1").returncode == 0
    assert Settings.load().get("provider.slots") == 1
    listed = {row["name"]: row["slots"] for row in json.loads(okbot("provider", "list", "--json").stdout)}
    assert listed == {"default": 1, "lab": 2}
    refused = okbot("provider", "add", "lab", "--base-url", "http://127.0.0.1:8080/v1", "--slots", "0")
    assert refused.returncode != 0 and "--slots" in refused.stderr


def test_provider_add_models_rm_and_set_model_under_json(okbot, okbot_home):
    """Issue 34, item 18: provider add/rm/models and set-model took no --json."""
    with FakeOpenAIServer(models=("m1", "m2"), require_key=STDIN_KEY) as vault:
        proc = okbot("provider", "add", "vault", "--base-url", vault.base_url, "--key-stdin", "--json", stdin=STDIN_KEY)
        assert proc.returncode == 0, proc.stderr
        added = json.loads(proc.stdout)
        [listed] = [r for r in json.loads(okbot("provider", "list", "--json").stdout) if r["name"] == "vault"]
        assert added == {**listed, "keySavedIn": "file", "keyFile": str(okbot_home / "keys.json")}
        assert STDIN_KEY not in proc.stdout + proc.stderr
        proc = okbot("provider", "models", "vault", "--json")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == {"provider": "vault", "models": ["m1", "m2"]}
    proc = okbot("provider", "add", "work", "--base-url", "https://work.example/v1", "--key-env", "WORK_KEY", "--json")
    added = json.loads(proc.stdout)
    assert added["keyEnv"] == "WORK_KEY" and added["keySavedIn"] is None and added["keyFile"] is None
    assert okbot("new", "assistant", "Bob").returncode == 0
    proc = okbot("set-model", "Bob", "vault/m2", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout) == {"id": "bob", "name": "Bob", "model": "vault/m2"}
    proc = okbot("provider", "rm", "vault", "--json")  # in use: the error is a JSON object
    assert proc.returncode == 1 and proc.stdout == "" and "in use by" in json.loads(proc.stderr)["error"]
    proc = okbot("set-model", "Bob", "", "--json")
    assert json.loads(proc.stdout) == {"id": "bob", "name": "Bob", "model": None}
    proc = okbot("provider", "rm", "vault", "--json")
    assert proc.returncode == 0, proc.stderr
    removed = json.loads(proc.stdout)
    assert removed == {**listed, "models": ["m1", "m2"], "keyDeleted": True}
    assert STDIN_KEY not in (okbot_home / "keys.json").read_text()
    proc = okbot("provider", "rm", "work", "--json")
    assert json.loads(proc.stdout)["keyDeleted"] is False
