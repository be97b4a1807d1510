"""A recorded request read back whole (issue 19): every block and item it held, its own numbers, each attempt.

Real turns through the real openai SDK against the local fake server, a real compression, real files.
"""

from __future__ import annotations

import json

import pytest

from okbot.app.wiring import make_compressor
from okbot.config.settings import Settings
from okbot.core.assent import AsSentStore, compare_blocks
from okbot.core.context import build_context
from okbot.core.items import user_message
from okbot.core.render import as_sent_json, as_sent_markdown, render_markdown
from okbot.core.sent_request import load_sent
from okbot.core.sources import ContextSources
from okbot.core.turn.request import Edit, Regenerate, Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from okbot.storage.errors import NotFound
from tests.helpers.fake_openai import Reply, tool_call
from tests.helpers.fake_summarizer import faithful
from tests.helpers.sessions import run_retried_turns


@pytest.fixture
def env(server):
    settings = Settings.load()
    for key, value in {
        "provider.baseUrl": server.base_url,
        "provider.keySource": "none",
        "contextCompression.keepRecentMin": 2,
        "contextCompression.keepRecentMax": 4,
    }.items():
        settings.set(key, value)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    from tests.helpers.env import provider_for
    from tests.helpers.patience import PATIENT_SECONDS

    provider = provider_for(server, max_reply_seconds=PATIENT_SECONDS)
    return target, sources, TurnRunner(sources, provider), provider


def user_ids(sources, target):
    return [it["id"] for it in sources.session(target).iter_items() if it["type"] == "user"]


def retried_turn_then_covered(env, server):
    """Turn 1 answered; turn 2: a tool round, then a stream cut (error), then Retry answers; more turns;
    then a real compression covers turn 2. Returns turn 2's user id and the chat requests the server saw."""
    target, sources, runner, provider = env
    chats = run_retried_turns(runner, target, server)
    server.set_default(faithful)
    report = make_compressor(sources, provider).compress_now(target)
    assert report.ok, report.message
    turn2 = user_ids(sources, target)[1]
    summary, _ = sources.summary(target)
    assert summary.covered_through_id > turn2  # the message is now covered by the summary
    return turn2, chats


def test_a_covered_retried_message_reads_back_exactly_what_each_request_sent(env, server):
    target, sources, _, _ = env
    turn2, chats = retried_turn_then_covered(env, server)
    sent = load_sent(sources, target, turn2)
    assert [r.label() for r in sent.choices] == [
        "Attempt 1 of 2 — asked for tools · round 1 of 2",
        "Attempt 1 of 2 — failed · round 2 of 2",
        "Attempt 2 of 2 — produced the reply · round 1 of 1",
    ]
    assert sent.request is sent.choices[2]  # the default: the request the answer came from
    # chats: turn 1, then turn 2's three requests in order
    for request, body in zip(sent.choices, chats[1:4], strict=True):
        loaded = load_sent(sources, target, turn2, request.id)
        assert loaded.to_messages() == body["messages"]  # every block and item, byte for byte
        assert not loaded.missing_ids and loaded.exact
    ids = [s.id for s in sent.items]
    session = sources.session(target)
    assert [session.get(i)["type"] for i in ids][-4:] == ["user", "tool_call", "tool_result", "assistant"]
    assert session.get(ids[-1])["status"] == "error"  # the cut reply of attempt 1 went out with the Retry
    # today's projection for that message holds none of them; the record's numbers are its own
    live = build_context(target, turn2, sources=sources)
    assert live.at_covered and live.items == []
    assert sent.request.prompt_tokens is not None and sent.total_tokens == sent.request.prompt_tokens
    assert sent.total_tokens != live.calibrated_tokens
    text = as_sent_markdown(sent, live, compare_blocks(sent.request, live), body_limit=None)
    assert "## session items\n(none)" not in text
    assert "Look up what we said about step one." in text and "Found it" not in text
    assert f"Tokens: {sent.request.prompt_tokens:,} prompt tokens reported" in text
    assert "### summary" in text.split("## changed since sent")[1]  # the summary came after: a diff, not sent
    assert "### summary" not in text.split("## changed since sent")[0]


def test_an_unknown_request_of_the_turn_is_refused(env, server):
    target, sources, _, _ = env
    turn2, _ = retried_turn_then_covered(env, server)
    with pytest.raises(NotFound, match="was not sent for message"):
        load_sent(sources, target, turn2, 1)
    assert load_sent(sources, target, 99_999) is None


def test_an_item_set_aside_since_is_said_where_it_was(env, server):
    target, sources, runner, _ = env
    server.enqueue(Reply(text="First answer."), Reply(text="Second answer."))
    runner.run(target, Send("first"))
    runner.run(target, Send("second"))
    second = user_ids(sources, target)[1]
    # damage the first reply's line in place (same length), as a bad disk sector would
    path = target.session_path
    raw = path.read_bytes()
    start = raw.index(b"First answer.")
    path.write_bytes(raw[:start] + b"\x00" * len(b"First answer.") + raw[start + len(b"First answer.") :])
    fresh = ContextSources(sources.workspace)
    sent = load_sent(fresh, target, second)
    assert len(sent.missing_ids) == 1
    live = build_context(target, second, sources=fresh)
    text = as_sent_markdown(sent, live, compare_blocks(sent.request, live))
    assert f"### [2] missing item — #{sent.missing_ids[0]}" in text
    assert "no longer holds it" in text and "Notice: 1 item of this request is no longer in session.jsonl" in text
    data = json.loads(as_sent_json(sent, []))
    assert {"id": sent.missing_ids[0], "missing": True} in data["items"]


def test_an_older_record_reads_its_range_and_splits_attempts_by_how_they_ended(env):
    target, sources, _, _ = env
    session = sources.session(target)
    user = session.append(user_message("hello"))
    proj = build_context(target, sources=sources)
    store = AsSentStore(target.dir / "as-sent")
    first = store.record(proj, user_id=user["id"], tools=[])
    second = store.record(proj, user_id=user["id"], tools=[])
    lines = [json.loads(x) for x in store.log_path.read_text("utf-8").splitlines()]
    for line in lines:  # what format 1 wrote
        for key in ("ids", "round", "window", "ratio", "itemTokens", "overhead"):
            line.pop(key, None)
        line["v"] = 1
    store.log_path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    store.record_usage(first, None, "interrupted")
    store.record_usage(second, {"prompt_tokens": 50}, "complete")
    sent = load_sent(sources, target, user["id"])
    assert [r.label() for r in sent.choices] == [
        "Attempt 1 of 2 — interrupted · round 1 of 1",
        "Attempt 2 of 2 — produced the reply · round 1 of 1",
    ]
    assert not sent.exact and [s.item["content"] for s in sent.items] == ["hello"]
    text = as_sent_markdown(sent, proj, [])
    assert "an older OkBot recorded only the range" in text
    assert "(today's: not recorded then)" in text


def test_a_tool_output_hidden_to_fit_reads_back_as_the_stub_that_was_sent(env, server):
    from okbot.core.summary import SessionSummary, SummaryStore

    target, sources, runner, _ = env
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "x"})]), Reply(text="Done."))
    runner.run(target, Send("search for x"))
    result = next(it for it in sources.session(target).iter_items() if it["type"] == "tool_result")
    SummaryStore(target.summary_path).save(SessionSummary(hidden_item_ids=[result["id"]]))
    server.enqueue(Reply(text="Again."))
    runner.run(target, Send("and again"))
    again = user_ids(sources, target)[-1]
    sent = load_sent(sources, target, again)
    assert sent.request.hidden_ids == [result["id"]]
    assert sent.to_messages() == server.chat_requests()[-1]["messages"]
    stub = next(s.item for s in sent.items if s.id == result["id"])
    assert stub["hidden"] and "output hidden to fit the context window" in stub["content"]


def test_a_regenerated_reply_is_a_second_attempt_that_never_held_the_first_reply(env, server):
    target, sources, runner, _ = env
    server.enqueue(Reply(text="First."), Reply(text="Second reply."))
    runner.run(target, Send("one"))
    runner.run(target, Send("two"))
    two = user_ids(sources, target)[-1]
    server.enqueue(Reply(text="Second version."))
    assert runner.run(target, Regenerate(two)).status == "complete"
    sent = load_sent(sources, target, two)
    assert [r.label() for r in sent.choices] == [
        "Attempt 1 of 2 — produced the reply · round 1 of 1",
        "Attempt 2 of 2 — produced the reply · round 1 of 1",
    ]
    chats = server.chat_requests()
    assert sent.to_messages() == chats[-1]["messages"]
    assert load_sent(sources, target, two, sent.choices[0].id).to_messages() == chats[1]["messages"]


def test_an_edited_message_reads_back_the_branch_it_was_sent_on(env, server):
    target, sources, runner, _ = env
    server.enqueue(Reply(text="First."), Reply(text="Old answer."), Reply(text="New answer."))
    runner.run(target, Send("one"))
    runner.run(target, Send("two"))
    runner.run(target, Edit(user_ids(sources, target)[-1], "two, edited"))
    edited = max(user_ids(sources, target))
    sent = load_sent(sources, target, edited)
    ids = [s.id for s in sent.items]
    assert ids[:2] == [1, 2] and ids[-1] == edited and len(ids) == 3  # the old message and reply are not on it
    assert sent.to_messages() == server.chat_requests()[-1]["messages"]


def test_a_message_with_a_file_reads_back_the_file_text_it_sent(env, server, tmp_path):
    """As sent rebuilds the request with the attached file's text, as the server received it."""
    target, sources, runner, _provider = env
    notes = tmp_path / "notes.md"
    notes.write_text("Deadline: Friday 14:00.\nOwner: Mia.\n", encoding="utf-8")
    server.enqueue(Reply(text="Mia, Friday."))
    assert runner.run(target, Send("Who and when?", attachments=[notes])).status == "complete"
    sent = load_sent(sources, target, user_ids(sources, target)[0])
    assert sent is not None
    assert sent.to_messages() == server.chat_requests()[-1]["messages"]
    assert "Owner: Mia." in sent.to_messages()[-1]["content"]


def test_okbot_context_shows_the_file_text_a_message_goes_with(env, server, tmp_path):
    """View context and `okbot context` show what the model reads: the attached file's text too."""
    target, sources, runner, _provider = env
    notes = tmp_path / "notes.md"
    notes.write_text("Owner: Mia.\n", encoding="utf-8")
    server.enqueue(Reply(text="Mia."))
    assert runner.run(target, Send("Who?", attachments=[notes])).status == "complete"
    shown = render_markdown(build_context(target, sources=sources))
    assert "    [source: attached file notes.md · text · 12 B — " in shown
    assert "included]\n    Owner: Mia.\n    [end of attached file notes.md · " in shown
    sent = load_sent(sources, target, user_ids(sources, target)[0])
    assert "    Owner: Mia." in as_sent_markdown(sent, build_context(target, sources=sources), [])
