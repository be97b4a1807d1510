"""Undo and redo of a compression, and what the last one changed: real files, summaries from the fake server."""

from __future__ import annotations

import json
import threading

import pytest

from okbot.core.compression.compressor import session_lock
from okbot.core.compression.history import SummaryHistory, history_path
from okbot.core.compression.undo import describe_last, describe_text, redo_last, summary_diff, undo_last
from okbot.core.context import build_context
from okbot.core.items import user_message
from okbot.core.summary import SummaryStore
from okbot.storage.errors import OkBotError
from tests.unit.core.compression.test_compressor import CONSTRAINT, fill

NEW_GOAL = "Goal: also archive the logs table before the end of the week."


def lines(target):
    return history_path(target.summary_path).read_bytes().splitlines()


def compress_twice(env):
    target, sources, compressor, _events = env
    fill(sources, target, 12)
    first = compressor.compress_now(target)
    assert first.ok
    after_first = SummaryStore(target.summary_path).load()
    sources.session(target).append(user_message(NEW_GOAL))  # the second compression adds a goal line
    fill(sources, target, 12)
    second = compressor.compress_now(target)
    assert second.ok
    return after_first, SummaryStore(target.summary_path).load()


def test_each_compression_is_one_history_line_with_what_it_found_and_wrote(env):
    target, _sources, _compressor, _events = env
    after_first, after_second = compress_twice(env)
    records = [json.loads(line) for line in lines(target)]
    assert [(r["seq"], r["type"], r["trigger"]) for r in records] == [(1, "compression", "manual")] * 1 + [
        (2, "compression", "manual")
    ]
    assert records[0]["before"]["coveredThroughId"] == 0 and records[0]["before"]["summary"] == ""
    assert records[0]["after"]["coveredThroughId"] == after_first.covered_through_id
    assert records[1]["before"]["summary"] == after_first.summary
    assert records[1]["after"]["summary"] == after_second.summary
    first, last = records[1]["newIds"][0][0], records[1]["newIds"][-1][1]
    assert first == after_first.covered_through_id + 1 and last == after_second.covered_through_id
    assert "health" not in records[0]["after"]


def test_undo_goes_back_step_by_step_and_then_says_there_is_nothing_to_undo(env):
    target, sources, _compressor, _events = env
    after_first, after_second = compress_twice(env)
    restored = undo_last(target)
    now = SummaryStore(target.summary_path).load()
    assert restored.kind == "undo" and restored.step.seq == 2
    assert (now.covered_through_id, now.summary, now.kept_user_ids) == (
        after_first.covered_through_id,
        after_first.summary,
        after_first.kept_user_ids,
    )
    assert f"#{after_second.covered_through_id} → #{after_first.covered_through_id}" in restored.message
    assert build_context(target, sources=sources).covered_through_id == after_first.covered_through_id
    undo_last(target)
    empty = SummaryStore(target.summary_path).load()
    assert empty.covered_through_id == 0 and empty.summary == "" and empty.kept_user_ids == []
    with pytest.raises(OkBotError, match="Nothing to undo"):
        undo_last(target)
    records = [json.loads(line) for line in lines(target)]
    assert [(r["type"], r.get("of")) for r in records] == [
        ("compression", None),
        ("compression", None),
        ("undo", 2),
        ("undo", 1),
    ]
    assert records[0]["after"]["summary"] == after_first.summary  # nothing rewritten, nothing removed


def test_redo_brings_the_undone_compression_back_until_a_new_one_comes(env):
    target, sources, compressor, _events = env
    _after_first, after_second = compress_twice(env)
    undo_last(target)
    redone = redo_last(target)
    now = SummaryStore(target.summary_path).load()
    assert redone.step.seq == 2 and now.summary == after_second.summary
    assert now.covered_through_id == after_second.covered_through_id
    with pytest.raises(OkBotError, match="Nothing to redo"):
        redo_last(target)
    undo_last(target)
    fill(sources, target, 12)
    assert compressor.compress_now(target).ok
    with pytest.raises(OkBotError, match="Nothing to redo"):
        redo_last(target)
    assert undo_last(target).step.seq == 6  # the new compression is what an undo takes back now


def test_a_damaged_history_line_is_skipped_with_a_notice_and_left_as_it_is(env):
    target, _sources, _compressor, _events = env
    after_first, _after_second = compress_twice(env)
    path = history_path(target.summary_path)
    good = path.read_bytes().splitlines()
    damaged = [good[0], b'{"v": 1, "seq": "two", "type": "compression"', good[1]]
    path.write_bytes(b"\n".join(damaged) + b"\n")
    history = SummaryHistory(target.summary_path).read()
    assert len(history.steps) == 2 and len(history.problems) == 1
    assert "line 2" in history.problems[0] and "left as it is" in history.problems[0]
    assert undo_last(target).step.seq == 2
    assert SummaryStore(target.summary_path).load().summary == after_first.summary
    assert path.read_bytes().splitlines()[:3] == damaged  # the damaged line is still there


def test_a_summary_changed_since_the_compression_is_not_undone(env):
    target, _sources, _compressor, _events = env
    _after_first, after_second = compress_twice(env)
    store = SummaryStore(target.summary_path)
    edited = store.load()
    edited.summary = after_second.summary + "\n- a line the user added by hand"
    store.save(edited)
    with pytest.raises(OkBotError, match="cannot be undone: the session summary was changed after compression #2"):
        undo_last(target)
    assert store.load().summary == edited.summary  # the hand edit is kept
    assert len(lines(target)) == 2
    last = describe_last(target)
    assert last is not None and not last.undoable and "changed after" in last.why_not


def test_an_undo_waits_for_no_one_while_a_compression_or_a_turn_runs(env):
    target, _sources, _compressor, _events = env
    compress_twice(env)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with session_lock(target):
            held.set()
            release.wait()

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(30)
        with pytest.raises(OkBotError, match="A compression of .* is running; nothing was undone"):
            undo_last(target)
    finally:
        release.set()
        thread.join()
    with pytest.raises(OkBotError, match="A reply is being written"):
        undo_last(target, turn_running=True)
    assert len(lines(target)) == 2
    assert undo_last(target).step.seq == 2


def test_tool_output_hidden_after_the_compression_stays_hidden_after_its_undo(env):
    target, _sources, _compressor, _events = env
    after_first, after_second = compress_twice(env)
    store = SummaryStore(target.summary_path)
    now = store.load()
    later = after_second.covered_through_id + 1
    now.hidden_item_ids = [later]
    store.save(now)
    undo_last(target)
    assert store.load().hidden_item_ids == sorted({*after_first.hidden_item_ids, later})


def test_describe_last_shows_the_summary_diff_the_items_covered_and_the_words_kept(env):
    target, sources, _compressor, _events = env
    after_first, after_second = compress_twice(env)
    session = sources.session(target)
    last = describe_last(target, item_text=lambda i: (session.get(i) or {}).get("content"))
    assert last is not None and last.seq == 2 and last.trigger == "manual" and last.undoable
    assert (last.covered_before, last.covered_after) == (
        after_first.covered_through_id,
        after_second.covered_through_id,
    )
    assert last.new_count == after_second.covered_through_id - after_first.covered_through_id
    added = [d.text for d in last.diff if d.op == "+"]
    assert any(NEW_GOAL[6:40] in line for line in added)
    assert all(line in after_second.summary.splitlines() for line in added)
    assert "\n".join(d.text for d in last.diff if d.op != "+") == after_first.summary
    text = describe_text(last)
    assert "Compression #2" in text and f"#{after_first.covered_through_id + 1}" in text
    first_words = describe_last(target, item_text=lambda i: (session.get(i) or {}).get("content"))
    undo_last(target)
    undo_last(target)
    assert describe_last(target) is None
    assert first_words is not None
    # the first compression kept the user's constraint verbatim: the description names it and quotes it
    redo_last(target)
    first = describe_last(target, item_text=lambda i: (session.get(i) or {}).get("content"))
    assert first is not None and first.seq == 1 and first.redoable == 2
    assert first.kept_new and CONSTRAINT[:40] in first.previews[first.kept_new[0]]


def test_summary_diff_marks_added_and_removed_lines():
    diff = summary_diff("a\nb\nc", "a\nB\nc\nd")
    assert [(d.op, d.text) for d in diff] == [(" ", "a"), ("-", "b"), ("+", "B"), (" ", "c"), ("+", "d")]
