"""An assistant works in its workspace through the real runner and the fake server: it inspects and
edits files and runs a command with the user's approval; long output reaches the summarizer as a digest."""

from __future__ import annotations

import pytest

from okbot.core.compression.compressor import Compressor
from okbot.core.local_tools.guard import workspace_dir
from okbot.core.sources import ContextSources
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import Reply, tool_call
from tests.helpers.fake_summarizer import faithful, is_summarizer_request


@pytest.fixture
def env(server):
    settings_for(server)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    provider = provider_for(server, max_retries=0)
    return target, sources, provider


def test_inspect_edit_and_run_in_the_workspace_with_approval(env, server):
    target, sources, provider = env
    folder = workspace_dir(target)
    (folder / "notes.md").write_text("# Plan\n- ship on Friday\n", encoding="utf-8")
    server.enqueue(
        Reply(tool_calls=[tool_call("list_dir", {"path": "."})]),
        Reply(tool_calls=[tool_call("read_file", {"path": "notes.md"})]),
        Reply(tool_calls=[tool_call("edit_file", {"path": "notes.md", "old": "Friday", "new": "Monday"})]),
        Reply(tool_calls=[tool_call("run_shell", {"command": "grep -n Monday notes.md"})]),
        Reply(text="Moved the ship date to Monday."),
    )
    asked = []

    def approve(name, args):
        asked.append(name)
        return True

    runner = TurnRunner(sources, provider)
    result = runner.run(target, Send("move the ship date to Monday"), callbacks=TurnCallbacks(ask_approval=approve))
    assert result.status == "complete" and result.reply_text == "Moved the ship date to Monday."
    assert asked == ["edit_file", "run_shell"]  # read-only tools are allowed; writing and running ask
    outputs = {it["name"]: it for it in result.items if it["type"] == "tool_result"}
    assert all(it["ok"] for it in outputs.values())
    assert "notes.md" in outputs["list_dir"]["content"] and "ship on Friday" in outputs["read_file"]["content"]
    assert "2:- ship on Monday" in outputs["run_shell"]["content"]
    assert (folder / "notes.md").read_text(encoding="utf-8") == "# Plan\n- ship on Monday\n"


def test_denied_edits_change_nothing_and_the_model_hears_why(env, server):
    target, sources, provider = env
    folder = workspace_dir(target)
    (folder / "a.txt").write_text("keep me\n", encoding="utf-8")
    server.enqueue(
        Reply(tool_calls=[tool_call("write_file", {"path": "a.txt", "content": "gone"})]),
        Reply(text="I did not change it."),
    )
    result = TurnRunner(sources, provider).run(
        target, Send("overwrite a.txt"), callbacks=TurnCallbacks(ask_approval=lambda n, a: False)
    )
    (denied,) = [it for it in result.items if it["type"] == "tool_result"]
    assert not denied["ok"] and "did not approve" in denied["content"]
    assert (folder / "a.txt").read_text(encoding="utf-8") == "keep me\n"


def test_long_tool_output_reaches_the_summarizer_as_a_digest_and_stays_searchable(env, server):
    target, sources, provider = env
    sources.settings.set("model.contextWindow", 4000)
    sources.settings.set("tools.run_shell.approval", "allow")
    server.set_default(faithful)
    server.enqueue(Reply(tool_calls=[tool_call("run_shell", {"command": "seq 1 3000"})]), Reply(text="Counted."))
    runner = TurnRunner(sources, provider, compression=Compressor(sources, provider))
    runner.run(target, Send("count to 3000"))
    for i in range(20):
        server.enqueue(Reply(text=f"Answer {i}. " + "words " * 60))
        runner.run(target, Send(f"question {i}: " + "more context " * 40))
    summaries = [b for b in server.chat_requests() if is_summarizer_request(b)]
    assert summaries, "the session should have compressed"
    sent = "\n".join(m["content"] for b in summaries for m in b["messages"])
    assert "run_shell done · " in sent and "13,925" in sent  # the digest: tool, size, first line …
    assert "2999\n3000" not in sent and "1500\n1501" not in sent  # … never the raw output
    record = [it for it in sources.session(target).iter_items() if it["type"] == "tool_result"]
    assert "2999\n3000" in record[0]["content"]  # the full output stays in session.jsonl
