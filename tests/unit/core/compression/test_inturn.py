"""Summary + Buffer inside one long turn (issue 32): the real runner, the real read_file tool over real files,
the fake server on 127.0.0.1 scripted as a model that reads files one by one (:mod:`tests.helpers.fake_reader`).

Requests are measured from what the fake server received, with the documented estimate of
:func:`~tests.helpers.fake_reader.estimated_tokens` (3.5 characters a token: the pessimistic side).
"""

from __future__ import annotations

import re

import pytest

from okbot.app.wiring import make_turn_runner
from okbot.core.compression.inturn import limit_of
from okbot.core.context import build_context
from okbot.core.items import user_message
from okbot.core.local_tools.guard import workspace_dir
from okbot.core.messages import PIN_MARK
from okbot.core.sent_request import load_sent
from okbot.core.sources import ContextSources
from okbot.core.summary import SummaryStore
from okbot.core.turn.request import Retry, Send
from okbot.core.workspace import Workspace
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, llama_server_rules, tool_call
from tests.helpers.fake_reader import Reader, estimated_tokens, part_text
from tests.helpers.fake_summarizer import is_summarizer_request
from tests.helpers.sessions import fill_until

WINDOW = 8000


@pytest.fixture
def server():
    """A server that holds the window too, as llama.cpp started with ``--ctx-size 8000`` does: it refuses
    any request its own count puts over the window (``tests/helpers/fake_windows.py``)."""
    with FakeOpenAIServer(rules={"gpt-4o-mini": llama_server_rules(WINDOW)}) as srv:
        yield srv


@pytest.fixture
def env(server):
    settings_for(server, {"model.contextWindow": WINDOW, "tools.maxRounds": 12})
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    runner = make_turn_runner(sources, provider_for(server, max_retries=0))
    return target, sources, runner


def test_reading_ten_files_one_by_one_never_sends_a_request_over_the_window(env, server):
    """The user's report: ten ~9 KB files, window 8,000, maxRounds 12. Before, requests grew to 160,718
    characters (~40k tokens) and nothing was said; now every request fits and the turn answers."""
    target, sources, runner = env
    folder = workspace_dir(target)
    for n in range(10):
        (folder / f"part{n}.txt").write_text(part_text(n), encoding="utf-8")
    reader = Reader(10)
    server.set_default(reader)
    result = runner.run(target, Send("read part0.txt to part9.txt one by one and list every FACT-number"))
    assert result.status == "complete", result.error
    answer = [it for it in result.items if it["type"] == "assistant"][-1]["content"]
    assert answer.startswith("FACT numbers: FACT-")
    assert "FACT-4063" in answer  # the last file's number, read in the last round
    sizes = [estimated_tokens(b) for b in server.chat_requests()]
    assert max(sizes) <= WINDOW and server.over_window() == [], sizes
    assert len(reader.chat_bodies) == 11  # ten reads and the answer: nothing was refused or repeated
    results = [it for it in result.items if it["type"] == "tool_result"]
    assert len(results) == 10 and all(it["ok"] for it in results)
    # the full results stay in session.jsonl; the requests carried the older ones as digests
    assert all(len(it["content"]) > 8000 for it in results)
    sent = sources.as_sent(target).turn(result.user_id)
    assert [r.round_in_attempt for r in sent] == list(range(1, 12))  # every round recorded, one attempt
    assert set(sent[-1].hidden_ids) == {it["id"] for it in results[:-1]}
    last = reader.chat_bodies[-1]["messages"]
    digests = [m["content"] for m in last if m["role"] == "tool" and "output hidden" in m["content"]]
    assert len(digests) == 9 and "part0.txt (lines 1–" in digests[0] and "or run the tool again" in digests[0]
    notes = [it["content"] for it in result.items if it["type"] == "notice"]
    assert len(notes) == 1 and "one-line digests" in notes[0]  # one quiet line for the whole turn


def test_a_longer_turn_compresses_inside_itself_and_keeps_its_request_word_for_word(env, server):
    """Thirty files: digests alone no longer fit, so the summarizer runs inside the turn; the user's message
    stays in every request, pinned at the head of the tail with the app's mark, and the turn answers."""
    target, sources, runner = env
    sources.settings.set("tools.maxRounds", 40)
    folder = workspace_dir(target)
    for n in range(30):
        (folder / f"part{n}.txt").write_text(part_text(n), encoding="utf-8")
    reader = Reader(30)
    server.set_default(reader)
    request = "read part0.txt to part29.txt one by one and list every FACT-number"
    result = runner.run(target, Send(request))
    assert result.status == "complete", result.error
    assert [it for it in result.items if it["type"] == "assistant"][-1]["content"].startswith("FACT numbers: FACT-")
    sizes = [estimated_tokens(b) for b in server.chat_requests()]
    assert max(sizes) <= WINDOW and server.over_window() == [], sizes
    assert len(reader.chat_bodies) == 31
    assert any(is_summarizer_request(b) for b in server.chat_requests())
    summary = SummaryStore(target.summary_path).load()
    assert summary.trigger == "turn" and summary.covered_through_id > result.user_id
    assert summary.current_request_ids == [result.user_id] and result.user_id in summary.kept_user_ids
    for body in reader.chat_bodies:  # the request in every request, once, word for word
        users = [m["content"] for m in body["messages"] if m["role"] == "user"]
        assert len(users) == 1 and users[0].endswith(request)
    pinned = reader.chat_bodies[-1]["messages"][1]
    assert pinned["content"] == PIN_MARK.format(id=result.user_id) + "\n" + request
    system = reader.chat_bodies[-1]["messages"][0]["content"]
    assert f"[#{result.user_id}] {request}" not in system  # pinned in the items, not repeated among the kept words
    notes = [it["content"] for it in result.items if it["type"] == "notice"]
    assert any("inside the turn" in n for n in notes)


def test_one_result_too_large_for_the_window_is_cut_to_fit_and_says_so(env, server):
    """A 90 KB file read at once: the request shows its start with a note where it ends; the record holds
    it whole, and the As-sent record reads the cut request back exactly as the server received it."""
    target, sources, runner = env
    (workspace_dir(target) / "big.txt").write_text(part_text(7, size=90_000), encoding="utf-8")
    server.enqueue(Reply(tool_calls=[tool_call("read_file", {"path": "big.txt"})]), Reply(text="It is long."))
    result = runner.run(target, Send("read big.txt"))
    assert result.status == "complete", result.error
    bodies = server.chat_requests()
    assert len(bodies) == 2 and max(estimated_tokens(b) for b in bodies) <= WINDOW
    assert server.over_window() == []
    (item,) = [it for it in result.items if it["type"] == "tool_result"]
    assert len(item["content"]) > 90_000  # whole in session.jsonl
    sent_result = bodies[1]["messages"][-1]["content"]
    note = re.search(
        r"\[app note: cut to fit the window: showing the first ([\d,]+) of ([\d,]+) chars; "
        r"search_history reads item #(\d+)\]$",
        sent_result,
    )
    assert note is not None, sent_result[-300:]
    shown, total, item_id = (int(g.replace(",", "")) for g in note.groups())
    assert total == len(item["content"]) and item_id == item["id"] and 1000 < shown < total
    assert item["content"][:shown] in sent_result
    assert SummaryStore(target.summary_path).load().cut_items == {item["id"]: shown}
    notes = [it["content"] for it in result.items if it["type"] == "notice"]
    assert any(f"#{item['id']}" in n and "too large for the context window" in n for n in notes)
    request = sources.as_sent(target).turn(result.user_id)[1]
    assert request.cut_chars == {item["id"]: shown}
    loaded = load_sent(sources, target, result.user_id, request.id)
    assert loaded is not None and loaded.to_messages() == bodies[1]["messages"]


def soul_filling(sources, target, left: int) -> None:
    """Write a SOUL.md that leaves about ``left`` tokens under the limit once the user's message is in."""
    assert target.soul_path is not None
    low, high = 0, 6000
    while low < high:  # the most words that still leave ``left`` tokens
        words = (low + high + 1) // 2
        target.soul_path.write_text("Be thorough. " + "steady " * words, encoding="utf-8")
        proj = build_context(target, sources=sources)
        if limit_of(proj) - proj.calibrated_tokens >= left:
            low = words
        else:
            high = words - 1
    target.soul_path.write_text("Be thorough. " + "steady " * low, encoding="utf-8")


def test_when_nothing_more_can_move_out_the_turn_ends_with_one_plain_message(env, server):
    """SOUL.md fills the window so a tool result leaves no room even cut: no second request goes out,
    the turn ends with one plain message naming what is too large, and everything so far is kept."""
    target, sources, runner = env
    server.rules.clear()  # OkBot's own limit is the point here ("steady " counts double by the fake's rule)
    sources.session(target).append(user_message("read part0.txt"))  # the message, measured where it will be
    soul_filling(sources, target, 60)
    (workspace_dir(target) / "part0.txt").write_text(part_text(0), encoding="utf-8")
    server.enqueue(Reply(tool_calls=[tool_call("read_file", {"path": "part0.txt"})]), Reply(text="never sent"))
    result = runner.run(target, Retry())
    assert result.status == "error" and result.error is not None
    assert len(server.chat_requests()) == 1  # no request over the window, and no raw 400 either
    error = [it for it in result.items if it["type"] == "assistant"][-1]
    assert error["status"] == "error" and error["content"] == "" and error["error"] == str(result.error)
    text = str(result.error)
    assert (
        "the instructions' SOUL.md block" in text and "window is 8,000" in text and "everything so far is kept" in text
    )
    (kept,) = [it for it in sources.session(target).iter_items() if it["type"] == "tool_result"]
    assert kept["ok"] and "FACT-4000" in kept["content"]  # nothing lost


def test_a_failing_summarizer_inside_the_turn_moves_older_items_out_plainly_and_the_turn_goes_on(env, server):
    """Earlier turns fill the window short of the threshold; the turn's first file makes its next request
    too large, the summarizer's answer is unusable: the earlier turns move out as a plain digest (said in
    the chat), the turn goes on and its request stays word for word."""
    target, sources, runner = env
    fill_until(sources, target, lambda p: p.calibrated_tokens >= 3600)
    (workspace_dir(target) / "part0.txt").write_text(part_text(0), encoding="utf-8")
    reader = Reader(1)
    server.set_default(
        lambda body: Reply(text="I cannot summarize that.") if is_summarizer_request(body) else reader(body)
    )
    result = runner.run(target, Send("read part0.txt and list its FACT-number"))
    assert result.status == "complete", result.error
    assert max(estimated_tokens(b) for b in server.chat_requests()) <= WINDOW and server.over_window() == []
    notes = [it["content"] for it in result.items if it["type"] == "notice"]
    assert any("could not be updated inside the turn" in n for n in notes)
    assert any(n.startswith("Moved ") and "without a summary" in n for n in notes)
    summary = SummaryStore(target.summary_path).load()
    assert summary.covered_through_id >= result.user_id - 1 and summary.health["lastFallback"]
    last = reader.chat_bodies[-1]["messages"]
    assert any(m["role"] == "user" and m["content"].endswith("read part0.txt and list its FACT-number") for m in last)
    assert "FACT-4000" in last[-1]["content"]  # the newest result whole
