"""Compression end to end: real files, the real provider, summaries from the fake server."""

from __future__ import annotations

import json
import threading

import pytest

from okbot.core.compression import structure
from okbot.core.context import build_context
from okbot.core.items import new_item, user_message
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from okbot.llm.openai_backend import OpenAIProvider
from okbot.storage.errors import OkBotError
from tests.helpers.fake_openai import Reply
from tests.helpers.fake_summarizer import faithful, faithful_edits, is_summarizer_request

CONSTRAINT = "Constraint: never run migrations on Fridays, and report progress after every table."


def fill(sources, target, turns, *, words=40):
    session = sources.session(target)
    session.append(user_message(CONSTRAINT))
    session.append(new_item("assistant", author="okbot", source="app", content="Agreed."))
    for i in range(turns):
        session.append(user_message(f"Step {i}: please handle table number {i} next. " + "detail " * words))
        session.append(
            new_item("assistant", author="okbot", source="app", content=f"Done with table {i}. " + "note " * words)
        )


def summarizer_calls(server):
    return [b for b in server.chat_requests() if is_summarizer_request(b)]


def test_ratio_trigger_covers_the_oldest_keeps_the_newest_and_the_users_words(env, server):
    target, sources, compressor, events = env
    fill(sources, target, 20)
    before = build_context(target, sources=sources)
    assert before.calibrated_tokens >= before.threshold
    report = compressor.before_run(target, "What is next?")
    assert report and report.ok and report.trigger == "ratio"
    after = build_context(target, sources=sources)
    assert 1 <= len(after.items) <= 12 and after.covered_through_id == report.new_ids[-1]
    assert after.calibrated_tokens < after.threshold
    summary_block = next(b.text for b in after.blocks if b.name == "summary")
    assert CONSTRAINT in summary_block  # byte for byte, copied from the record
    assert events == [report.new_ids]
    health = SummaryStore(target.summary_path).load().health
    assert health["count"] == 1 and health["tokensBefore"] > health["tokensAfter"] == after.calibrated_tokens
    # the next request is under the threshold: no re-compression
    assert compressor.before_run(target, "and then?") is None


@pytest.mark.parametrize(
    "garbage",
    [
        Reply(text=""),
        Reply(text="x" * 5000),
        Reply(text='{"summary": "fine"}'),
        Reply(status=500),
        Reply(text="late", first_byte_delay=3),
    ],
)
def test_a_failing_summarizer_keeps_the_previous_summary_and_coverage(env, server, garbage):
    target, sources, compressor, events = env
    compressor.provider = OpenAIProvider(server.base_url, None, sleep=lambda _s: None, max_retries=0, timeout=1)
    sources.settings.set("model.contextWindow", 4000)  # threshold 2400 < request ≈ 2500 < limit 3000
    fill(sources, target, 20)
    server.set_default(lambda body: garbage if is_summarizer_request(body) else Reply(text="no"))
    report = compressor.before_run(target, "next?")  # over the threshold but it still fits: the turn runs
    assert report is not None and not report.ok
    stored = SummaryStore(target.summary_path).load()
    assert stored.covered_through_id == 0 and stored.summary == "" and events == []
    assert stored.health["lastFailure"] and stored.health["failures"] == 1


def test_a_large_delta_is_fed_in_bounded_calls_and_coverage_stops_at_a_failed_one(env, server):
    target, sources, compressor, events = env
    sources.settings.set("model.contextWindow", 6000)
    fill(sources, target, 40, words=60)
    calls = []

    def second_fails(body):
        if not is_summarizer_request(body):
            return Reply(text="no")
        calls.append(body)
        return faithful(body) if len(calls) == 1 else Reply(text="")

    server.set_default(second_fails)
    report = compressor.compress_now(target)
    assert report.ok and len(calls) >= 2
    stored = SummaryStore(target.summary_path).load()
    first_batch_last = max(
        int(line.split()[0][1:])
        for line in calls[0]["messages"][1]["content"]
        .split("NEWLY COVERED ITEMS:\n")[1]
        .split("\n\nCHECKLIST")[0]
        .splitlines()
    )
    assert stored.covered_through_id == first_batch_last
    assert events == [report.new_ids] and report.new_ids[-1] == first_batch_last


def test_two_compressions_racing_apply_once(env, server):
    target, sources, compressor, events = env
    fill(sources, target, 20)
    reports = []
    threads = [threading.Thread(target=lambda: reports.append(compressor.compress_now(target))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sum(r.ok for r in reports) == 1
    assert len(events) == 1
    assert SummaryStore(target.summary_path).load().health["count"] == 1


def test_compress_now_on_an_empty_session(env):
    target, _, compressor, events = env
    report = compressor.compress_now(target)
    assert not report.ok and "Nothing to compress" in report.message and events == []


def test_a_tail_of_one_giant_tool_result_is_hidden_not_lost(env, server):
    target, sources, compressor, _ = env
    session = sources.session(target)
    session.append(user_message("read the log"))
    session.append(
        new_item(
            "tool_call", author="okbot", source="app", call_id="c1", name="read_file", arguments='{"path": "app.log"}'
        )
    )
    big = "error line 42\n" * 2000
    result = session.append(
        new_item("tool_result", author="okbot", source="tool", call_id="c1", name="read_file", content=big, ok=True)
    )
    compressor.before_run(target, "what went wrong?")
    proj = build_context(target, sources=sources)
    stub = next(it for it in proj.items if it["type"] == "tool_result")
    assert stub.get("hidden") and f"#{result['id']}" in stub["content"]
    assert proj.calibrated_tokens <= proj.window
    assert session.get(result["id"])["content"] == big  # still on disk, searchable


def test_a_window_so_small_only_the_new_message_fits(env, server):
    target, sources, compressor, _ = env
    sources.settings.set("model.contextWindow", 1300)
    target.soul_path.write_text("Be brief.", encoding="utf-8")
    fill(sources, target, 6, words=70)
    server.set_default(lambda body: Reply(text="") if is_summarizer_request(body) else Reply(text="no"))
    compressor.before_run(target, "hi")
    proj = build_context(target, sources=sources)
    assert proj.items == [] and proj.covered_through_id == sources.session(target).last_id()
    assert "Moved out without summarizing" in proj.summary.summary
    assert proj.summary.health["lastFallback"] == "moved out without the model"
    assert proj.summary.kept_user_ids == [1]  # the constraint moved out without a model stays verbatim
    with pytest.raises(OkBotError, match="shorten the message"):
        compressor.before_run(target, "word " * 900)


def test_an_explicit_new_topic_covers_everything_before_the_new_message(env, server):
    target, sources, compressor, events = env
    sources.settings.set("model.contextWindow", 100000)
    fill(sources, target, 3)
    report = compressor.before_run(target, "New topic: how do I bake sourdough bread at home?")
    assert report.ok and report.trigger == "topic"
    proj = build_context(target, sources=sources)
    assert proj.items == [] and proj.summary.trigger == "topic"


def test_the_runner_compresses_before_it_sends(env, server):
    target, sources, compressor, _ = env
    runner = TurnRunner(sources, compressor.provider, compression=compressor)
    for i in range(30):
        result = runner.run(target, Send(f"Step {i}: process table {i}. " + "context " * 40))
        assert result.status == "complete"
    sent = [b for b in server.chat_requests() if not is_summarizer_request(b) and b.get("stream")]
    assert len(sent) == 30
    window = 3000
    for body in sent:
        assert sum(len(m["content"] or "") for m in body["messages"]) / 4 < window
    assert "Session summary" in sent[-1]["messages"][0]["content"]
    assert SummaryStore(target.summary_path).load().health["count"] >= 2


def test_after_a_failed_summary_the_model_is_not_asked_again_every_turn(env, server):
    target, sources, compressor, _ = env
    sources.settings.set("model.contextWindow", 4000)
    fill(sources, target, 20)
    server.set_default(lambda body: Reply(text="") if is_summarizer_request(body) else Reply(text="no"))
    assert not compressor.before_run(target, "next?").ok
    calls = len(summarizer_calls(server))
    session = sources.session(target)
    for i in range(3):  # fewer new items than keepRecentMin (8): no new attempt
        session.append(user_message(f"more {i}"))
        assert compressor.before_run(target, "and?") is None
    assert len(summarizer_calls(server)) == calls
    server.set_default(faithful)
    for i in range(6):
        session.append(user_message(f"later {i}"))
    report = compressor.before_run(target, "now?")
    assert report is not None and report.ok


def test_json_edits_from_the_server_are_applied_and_old_lines_stay_byte_for_byte(env, server):
    target, sources, compressor, events = env
    fill(sources, target, 20)

    def json_edits(body):
        if not is_summarizer_request(body):
            return Reply(text="no")
        edits = faithful_edits(body)
        edits["agreements"] = ["never run migrations on Fridays"]
        edits["references"] = [f"table {len(summarizer_calls(server))}"]
        return Reply(text=json.dumps(edits))

    server.set_default(json_edits)
    first = compressor.compress_now(target)
    assert first.ok
    body = summarizer_calls(server)[0]
    assert body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["strict"]
    stored = SummaryStore(target.summary_path).load().summary
    sections, _ = structure.parse_sections(stored)
    assert sections["Goals"].startswith("- [active] Constraint: never run migrations on Fridays") and "(#1)" in stored
    assert "- never run migrations on Fridays" in sections["Agreements"].splitlines()
    fill(sources, target, 12)
    assert compressor.compress_now(target).ok
    again = SummaryStore(target.summary_path).load().summary
    assert all(line in again.splitlines() for line in stored.splitlines() if line.strip())
    assert again.count("never run migrations on Fridays") == 2  # the goal and the agreement, not repeated


def test_an_over_long_summary_is_cut_in_the_request_and_kept_whole_on_disk(env):
    target, sources, _, _ = env
    fill(sources, target, 2)
    max_chars = sources.settings.get("contextCompression.summaryMaxChars")
    decisions = "\n".join(f"- decision {i} — because of table {i}" for i in range(150))
    text = structure.render({"Goals": "- [active] migrate every table (#1)", "Decisions": decisions})
    SummaryStore(target.summary_path).save(SessionSummary(summary=text, covered_through_id=2))
    block = next(b.text for b in build_context(target, sources=sources).blocks if b.name == "summary")
    assert "- decision 149 — because of table 149" in block and "- decision 0 — because" not in block
    assert "session-summary.json" in block and "search_history" in block
    assert len(structure.fit_sections(text, max_chars)) <= max_chars < len(text)
    assert SummaryStore(target.summary_path).load().summary == text


def test_kept_words_do_not_shrink_each_summarizer_call_to_one_item(env, server):
    """A careful model keeps every message the user typed; in a 4k window each compression then lists more kept
    messages in the summarizer's checklist. The checklist shows only what the kept words can show (directives
    first; the rest stay kept, named by id), and a call's bound is on the items it adds, so later compressions
    still cover several items per call (they took one item per call: 14 calls of ~1.8k tokens each)."""
    target, sources, compressor, events = env
    sources.settings.set("model.contextWindow", 4096)
    for _ in range(3):
        fill(sources, target, 8, words=60)
        report = compressor.compress_now(target)
        assert report.ok
    calls = summarizer_calls(server)
    last = calls[-report.summarizer_calls :]
    assert len(report.new_ids) >= 8 and len(last) <= len(report.new_ids) / 3, (len(report.new_ids), len(last))
    checklist = last[0]["messages"][1]["content"].split("CHECKLIST (messages the user typed):\n")[1]
    assert CONSTRAINT[:60] in checklist  # the directive is shown, so the model can still release it
    assert len(checklist) < 3000
    stored = SummaryStore(target.summary_path).load()
    session = sources.session(target)
    first_round = [it["id"] for it in session.iter_items(end_id=40) if it.get("type") == "user"]
    assert set(first_round) <= set(stored.kept_user_ids)  # not shown is not released: keep more, never less


def test_a_small_window_still_covers_several_items_per_summarizer_call(env, server):
    """In 2,048 tokens the summarizer's instructions, the summary and the answer room for a 2,000-character
    summary left room for one item per call (39 calls in a 14-turn chat); the limit follows the window."""
    target, sources, compressor, events = env
    sources.settings.set("model.contextWindow", 2048)
    fill(sources, target, 6, words=25)
    report = compressor.compress_now(target)
    assert report.ok
    assert len(report.new_ids) >= 6 and report.summarizer_calls <= len(report.new_ids) / 2, (
        len(report.new_ids),
        report.summarizer_calls,
    )
    asked = summarizer_calls(server)[-1]["max_tokens"]
    assert asked <= 2048 // 4  # the answer room is a quarter of the window at most
