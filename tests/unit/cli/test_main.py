"""The headless CLI, run in-process through main() and once as a real process."""

import json
import os
import subprocess
import sys

import pytest

from okbot.__main__ import main
from okbot.core.items import new_item, user_message
from okbot.core.session import SessionStore
from okbot.core.turn.request import Retry, Send
from okbot.core.workspace import Workspace


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def seed_session():
    target = Workspace().ensure_default()
    store = SessionStore(target.session_path)
    ids = []
    for i in range(3):
        ids.append(store.append(user_message(f"question {i} " + "x" * (3000 if i == 1 else 0)))["id"])
        store.append(new_item("assistant", author=target.id, source="app", content=f"answer {i}"))
    return target, ids


def test_context_json_has_blocks_items_tokens_window_threshold(capsys):
    target, ids = seed_session()
    code, out, _ = run(capsys, "context", target.name, "--json")
    assert code == 0
    data = json.loads(out)
    assert [b["name"] for b in data["blocks"]][:3] == ["role", "roster", "soul"]
    assert [it["id"] for it in data["items"]] == list(range(1, 7))
    assert data["window"] == 128000 and data["threshold"] == 76800
    assert data["coveredThroughId"] == 0
    assert (
        data["tokens"]["total"]
        == sum(b["tokens"] for b in data["blocks"])
        + sum(it["tokens"] for it in data["items"])
        + data["tokens"]["overhead"]
    )


def test_context_markdown_layout_and_cut_bodies(capsys):
    target, ids = seed_session()
    code, out, _ = run(capsys, "context", target.id, "--at", str(ids[1]))
    assert code == 0
    assert f"Cut-off: user message #{ids[1]}" in out
    assert "Coverage: none" in out
    assert "## instructions" in out and "## session items" in out
    assert out.index("## instructions") < out.index("## session items")
    assert "### [1] user · user" in out and "### [2] assistant · OkBot" in out
    assert "### [4]" not in out  # cut at the second question
    assert "full length 3,011 chars" in out


def test_unknown_target_and_bad_ids_fail_clearly(capsys):
    seed_session()
    code, _, err = run(capsys, "context", "nobody")
    assert code == 1 and "nobody" in err
    code, _, err = run(capsys, "context", "okbot", "--at", "999")
    assert code == 1 and "#999" in err
    code, _, err = run(capsys, "context", "okbot", "--at", "2")
    assert code == 1 and "not a user message" in err
    with pytest.raises(SystemExit) as exc:
        main(["context", "okbot", "--at", "abc"])
    assert exc.value.code == 2


def test_list_new_rm_restore(capsys):
    code, out, _ = run(capsys, "new", "assistant", "Bob the Builder", "--role", "builds")
    assert code == 0 and "bob-the-builder" in out
    code, out, _ = run(capsys, "new", "squad", "Crew", "--member", "okbot:lead", "--member", "bob-the-builder:coder")
    assert code == 0
    code, out, _ = run(capsys, "list", "--json")
    rows = json.loads(out)
    assert {(r["kind"], r["name"]) for r in rows} >= {
        ("assistant", "OkBot"),
        ("assistant", "Bob the Builder"),
        ("squad", "Crew"),
    }
    code, out, err = run(capsys, "rm", "Bob the Builder")
    assert code == 0 and "okbot restore" in out and "fewer than two members" in err
    trash_id = out.rsplit("okbot restore ", 1)[1].strip()
    code, out, _ = run(capsys, "restore", trash_id)
    assert code == 0
    code, out, _ = run(capsys, "list")
    assert "Bob the Builder" in out


def test_new_assistant_with_soul_file(capsys, tmp_path):
    soul = tmp_path / "soul.md"
    soul.write_text("Speak softly.", encoding="utf-8")
    assert run(capsys, "new", "assistant", "Quiet", "--soul", str(soul))[0] == 0
    code, out, _ = run(capsys, "context", "Quiet")
    assert "Speak softly." in out
    code, _, err = run(capsys, "new", "assistant", "Loud", "--soul", str(tmp_path / "missing.md"))
    assert code == 1 and "missing.md" in err


def test_new_assistant_reads_its_soul_from_stdin_with_a_dash(capsys, monkeypatch):
    """Issue 34, item 18: `--soul -` looked for a file called '-'."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("Answer in haiku.\n"))
    assert run(capsys, "new", "assistant", "Poet", "--soul", "-")[0] == 0
    assert "Answer in haiku." in (Workspace().resolve("Poet").dir / "SOUL.md").read_text("utf-8")


def test_config_get_set_validates(capsys):
    assert run(capsys, "config", "get", "contextCompression.ratio")[1].strip() == "0.6"
    code, out, _ = run(capsys, "config", "set", "contextCompression.ratio", "0.7")
    assert code == 0
    assert run(capsys, "config", "get", "contextCompression.ratio")[1].strip() == "0.7"
    code, _, err = run(capsys, "config", "set", "contextCompression.ratio", "2")
    assert code == 1 and "contextCompression.ratio" in err
    code, _, err = run(capsys, "config", "set", "contextCompression.ratoi", "0.5")
    assert code == 1 and "contextCompression.ratio" in err  # suggestion
    code, out, _ = run(capsys, "config", "get", "--json")
    assert json.loads(out)["developerMode"] is False


def test_env_overrides_model(capsys, monkeypatch):
    seed_session()
    monkeypatch.setenv("OKBOT_MODEL", "gpt-3.5-turbo")
    data = json.loads(run(capsys, "context", "okbot", "--json")[1])
    assert data["model"] == "gpt-3.5-turbo" and data["encoding"] == "cl100k_base" and data["window"] == 16385


def test_python_dash_m_okbot_runs_as_a_real_process(okbot_home):
    env = {**os.environ, "OKBOT_HOME": str(okbot_home)}
    proc = subprocess.run(
        [sys.executable, "-m", "okbot", "--help"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0
    for command in ("context", "list", "config", "new", "rm"):
        assert command in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "okbot", "list"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0 and "OkBot" in proc.stdout


@pytest.mark.slow
def test_context_never_shows_the_configured_key_an_old_record_holds(okbot_home):
    """A reply that echoed the key, stored by a version that did not redact it: shown as [redacted]."""
    secret = "Zq7-configured-key-4711"  # not shaped like a key: only knowing it can hide it
    target = Workspace().ensure_default()
    lines = [
        {
            "id": 1,
            "v": 1,
            "ts": "2026-01-01T00:00:00.000Z",
            "type": "user",
            "author": "user",
            "source": "user",
            "content": "what is my key?",
        },
        {
            "id": 2,
            "v": 1,
            "ts": "2026-01-01T00:00:01.000Z",
            "type": "assistant",
            "author": "okbot",
            "source": "app",
            "content": f"Your key is {secret}.",
            "status": "complete",
        },
    ]
    target.session_path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    env = {**os.environ, "OKBOT_HOME": str(okbot_home), "OKBOT_API_KEY": secret}
    for extra in ([], ["--json"], ["--at", "1"]):
        proc = subprocess.run(
            [sys.executable, "-m", "okbot", "context", "okbot", *extra],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert secret not in proc.stdout + proc.stderr
        if extra != ["--at", "1"]:
            assert "Your key is [redacted]." in proc.stdout


def test_config_get_hides_a_password_in_the_base_url(capsys, monkeypatch):
    monkeypatch.setenv("OKBOT_BASE_URL", "https://bob:hunter2@llm.example.com/v1?api_key=abc123&region=eu")
    shown = "https://[redacted]@llm.example.com/v1?api_key=[redacted]&region=eu"
    code, out, _ = run(capsys, "config", "get", "provider.baseUrl")
    assert code == 0 and out.strip() == shown
    code, out, _ = run(capsys, "config", "get")
    assert f"provider.baseUrl = {json.dumps(shown)}" in out and "hunter2" not in out
    code, out, _ = run(capsys, "config", "get", "--json")
    assert json.loads(out)["provider.baseUrl"] == shown
    monkeypatch.delenv("OKBOT_BASE_URL")
    code, out, err = run(capsys, "config", "set", "provider.baseUrl", "https://u:pw-9@host.example/v1")
    assert code == 1 and "pw-9" not in err and "//[redacted]@host.example" in err  # refused: no secret in settings
    assert "user name or password" in err
    code, out, err = run(capsys, "config", "set", "provider.baseUrl", "ftp://u:pw-9@host.example/v1")
    assert code == 1 and "pw-9" not in err and "//[redacted]@" in err


def test_context_as_sent_prints_each_request_of_a_retried_turn(capsys, server):
    from okbot.config.settings import Settings
    from okbot.core.sources import ContextSources
    from okbot.core.turn.runner import TurnRunner
    from tests.helpers.env import provider_for
    from tests.helpers.fake_openai import Reply, tool_call
    from tests.helpers.patience import PATIENT_SECONDS

    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    ws = Workspace()
    target = ws.ensure_default()
    runner = TurnRunner(ContextSources(ws), provider_for(server, max_reply_seconds=PATIENT_SECONDS))
    server.enqueue(
        Reply(tool_calls=[tool_call("search_history", {"query": "plan"})]),
        Reply(text="The plan is", chunk_chars=4, cut_after_chunks=1),
        Reply(text="The plan is to ship on Friday."),
    )
    assert runner.run(target, Send("What was the plan?")).status == "error"
    assert runner.run(target, Retry()).status == "complete"
    chats = server.chat_requests()
    at = "1"
    code, out, _ = run(capsys, "context", target.id, "--at", at, "--as-sent", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["attempt"], data["round"], data["outcome"]) == (2, 1, "produced the reply")
    assert data["messages"] == chats[2]["messages"]
    assert [t["label"] for t in data["turn"]] == [
        "Attempt 1 of 2 — asked for tools · round 1 of 2",
        "Attempt 1 of 2 — failed · round 2 of 2",
        "Attempt 2 of 2 — produced the reply · round 1 of 1",
    ]
    code, out, _ = run(
        capsys, "context", target.id, "--at", at, "--as-sent", "--attempt", "1", "--round", "2", "--json"
    )
    assert code == 0 and json.loads(out)["messages"] == chats[1]["messages"]
    code, out, _ = run(capsys, "context", target.id, "--at", at, "--as-sent", "--attempt", "1")
    assert code == 0 and out.startswith("# As sent · request #2 · Attempt 1 of 2 — failed · round 2 of 2")
    assert "## session items\n### [1] user · user — #1" in out and "tool_result · search_history" in out
    for argv, message in (
        (["--as-sent"], "--as-sent needs --at"),
        (["--at", at, "--attempt", "1"], "choose a request of --as-sent"),
        (["--at", at, "--as-sent", "--attempt", "3"], "there is no attempt 3"),
        (["--at", at, "--as-sent", "--attempt", "2", "--round", "2"], "attempt 2 has no round 2"),
    ):
        code, _, err = run(capsys, "context", target.id, *argv)
        assert code == 1 and message in err, err
    never = SessionStore(target.session_path).append(user_message("never sent"))["id"]
    code, _, err = run(capsys, "context", target.id, "--at", str(never), "--as-sent")
    assert code == 1 and f"no as-sent record for message #{never}" in err


@pytest.fixture
def ui_language():
    """Write ``ui.language`` into settings.json; English again afterwards (the language is process-wide)."""
    from okbot import i18n
    from okbot.storage import paths

    def choose(value: str) -> None:
        paths.settings_file().write_text(json.dumps({"ui.language": value}), encoding="utf-8")

    if not i18n.catalogue_file("zh_CN").is_file():
        pytest.skip("the zh_CN catalogue is not built (make)")
    yield choose
    i18n.set_language(i18n.SOURCE_LANGUAGE)


def help_text(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def test_the_cli_speaks_the_language_of_ui_language(capsys, ui_language):
    ui_language("zh_CN")
    out = help_text(capsys)
    assert out.startswith("用法：okbot") and "显示此帮助信息并退出" in out and "命令行命令" in out
    assert "将对话导出为 Markdown 或 JSON" in out  # a subcommand's help
    code, _, err = run(capsys, "search", "words", "--limit", "0")
    assert (code, err) == (1, "okbot: --limit 至少为 1\n")
    with pytest.raises(SystemExit):
        main(["chat"])  # argparse's own error
    assert "okbot chat: 错误：缺少以下必需参数：TARGET" in capsys.readouterr().err

    ui_language("en")
    out = help_text(capsys)
    assert out.startswith("usage: okbot") and "show this help message and exit" in out and "用法" not in out
    code, _, err = run(capsys, "search", "words", "--limit", "0")
    assert (code, err) == (1, "okbot: --limit must be at least 1\n")


def test_the_system_language_when_the_settings_say_so_or_cannot_be_read(capsys, ui_language, monkeypatch):
    from okbot.storage import paths

    monkeypatch.setenv("LANGUAGE", "zh_CN:en")
    ui_language("system")
    assert "显示此帮助信息并退出" in help_text(capsys)
    paths.settings_file().write_text("{not json", encoding="utf-8")
    assert "显示此帮助信息并退出" in help_text(capsys)
    monkeypatch.setenv("LANGUAGE", "en_GB")
    assert "show this help message and exit" in help_text(capsys)


@pytest.mark.parametrize(
    "argv",
    [["export", "OkBot"], ["search", "ACK"], ["mcp", "list", "--no-start"]],
    ids=["export", "search", "mcp-list"],
)
def test_a_reader_that_closes_early_ends_the_command_quietly(okbot_home, argv):
    """Issue 34, 17: `okbot export OkBot | head -1` said "cannot access the data dir: Broken pipe" and exited 1.
    The reader here has closed before the command writes anything: every write meets a closed pipe."""
    target, _ = seed_session()
    SessionStore(target.session_path).append(user_message("ACK " * 20))
    assert main(["mcp", "add", "time", "--command", "mcp-server-time"]) == 0
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "OKBOT_HOME": str(okbot_home)}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "okbot", *argv], stdout=write_end, stderr=subprocess.PIPE, env=env, timeout=60
        )
    finally:
        os.close(write_end)
    assert proc.stderr == b"" and proc.returncode == 141  # 128 + SIGPIPE, as the shell reports `yes | head -1`


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_dash_capital_v_prints_the_version(capsys, flag):
    from okbot import __version__

    with pytest.raises(SystemExit) as exc:
        main([flag])
    assert exc.value.code == 0 and capsys.readouterr().out == f"okbot {__version__}\n"


def test_a_compression_that_changes_nothing_exits_1_with_or_without_json(capsys):
    """Issue 34, 18: `okbot compress --json` reported "ok": false and exited 0."""
    seed_session()  # six items: fewer than the newest kept (contextCompression.keepRecentMin)
    code, out, _ = run(capsys, "compress", "okbot", "--json")
    assert code == 1 and json.loads(out)["ok"] is False
    code, out, err = run(capsys, "compress", "okbot")
    assert code == 1 and out == "" and err.startswith("okbot: Nothing to compress")


def test_under_json_an_error_is_a_json_object_on_stderr(capsys):
    seed_session()
    code, out, err = run(capsys, "context", "nobody", "--json")
    assert code == 1 and out == ""
    error = json.loads(err)
    assert set(error) == {"error", "hint"} and "nobody" in error["error"]
    code, _, err = run(capsys, "search", "(*)", "--json")
    assert code == 1 and json.loads(err) == {"error": "nothing to search for", "hint": "give one or more words"}
    code, _, err = run(capsys, "context", "okbot", "--at", "999", "--json")
    assert code == 1 and json.loads(err)["error"].startswith("no item #999")
    code, _, err = run(capsys, "context", "nobody")  # without --json: the plain line
    assert code == 1 and err.startswith("okbot: ") and "nobody" in err


def test_new_rm_restore_and_config_set_under_json_print_one_object_of_what_was_done(capsys):
    """Issue 34, item 18: these commands took no --json, so a script had to parse their sentences."""
    code, out, _ = run(capsys, "new", "assistant", "Bob", "--json")
    assert code == 0 and json.loads(out) == {"kind": "assistant", "id": "bob", "name": "Bob"}
    code, out, _ = run(capsys, "new", "squad", "Crew", "--member", "okbot", "--member", "bob", "--json")
    assert code == 0 and json.loads(out) == {"kind": "squad", "id": "crew", "name": "Crew"}
    code, out, err = run(capsys, "rm", "Bob", "--json")
    removed = json.loads(out)
    [entry] = Workspace().trash_root.iterdir()
    assert code == 0 and removed == {"kind": "assistant", "id": "bob", "name": "Bob", "trashId": entry.name}
    assert "fewer than two members" in err  # the note stays a line on stderr
    code, out, _ = run(capsys, "restore", removed["trashId"], "--json")
    assert code == 0 and json.loads(out) == {"kind": "assistant", "id": "bob", "name": "Bob", "trashId": entry.name}
    code, out, _ = run(capsys, "config", "set", "contextCompression.ratio", "0.7", "--json")
    assert code == 0 and json.loads(out) == {"key": "contextCompression.ratio", "value": 0.7}
    code, out, _ = run(capsys, "config", "reset", "contextCompression.ratio", "--json")
    assert code == 0 and json.loads(out) == {"key": "contextCompression.ratio", "value": 0.6, "default": True}
    code, out, err = run(capsys, "rm", "Nobody", "--json")
    assert code == 1 and out == "" and "Nobody" in json.loads(err)["error"]
    code, out, _ = run(capsys, "config", "set", "contextCompression.ratio", "0.7")  # the text stays as it was
    assert out == "contextCompression.ratio = 0.7\n"


def test_config_set_json_never_shows_a_key_in_the_base_url(capsys):
    url = "https://llm.example/v1?api_key=abc123-secret&region=eu"
    code, out, _ = run(capsys, "config", "set", "provider.baseUrl", url, "--json")
    assert code == 0 and "abc123-secret" not in out
    assert json.loads(out) == {
        "key": "provider.baseUrl",
        "value": "https://llm.example/v1?api_key=[redacted]&region=eu",
    }
    code, out, err = run(capsys, "config", "set", "provider.baseUrl", "https://me:hunter2@llm.example/v1", "--json")
    assert code == 1 and out == "" and "hunter2" not in err and "user name or password" in json.loads(err)["error"]
