"""The timing trace of a reply (issue 36): the recorder's spans, what an item keeps, and the tooltip's lines."""

from __future__ import annotations

import threading

from okbot.core.turn import timing as t
from okbot.core.turn.timing import TurnTiming, timing_of, turn_timing
from okbot.core.turn.timing_text import timing_lines, timing_tip


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Waits:
    """What a slot scope has counted so far, moved by hand."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}

    def __call__(self) -> dict[str, float]:
        return dict(self.totals)

    def wait(self, kind: str, seconds: float, clock: Clock) -> None:
        self.totals[kind] = self.totals.get(kind, 0.0) + seconds
        clock.advance(seconds)


def test_a_reply_keeps_its_phases_in_order_and_what_no_span_covers_is_other():
    clock, waits = Clock(), Waits()
    timing = TurnTiming(clock, waits)
    clock.advance(0.1)  # reading disk, building the request
    timing.start(t.FIRST_TOKEN)
    waits.wait("server", 0.4, clock)  # queued behind another chat
    clock.advance(0.5)
    timing.switch(t.STREAMING)
    clock.advance(1.2)
    timing.stop()
    with timing.span(t.TOOL, "read_file"):
        clock.advance(0.1)
    assert timing.take() == {
        "total_ms": 2300,
        "phases": [
            {"phase": "server_wait", "ms": 400},
            {"phase": "first_token", "ms": 500},
            {"phase": "streaming", "ms": 1200},
            {"phase": "tool", "name": "read_file", "ms": 100},
            {"phase": "other", "ms": 100},
        ],
    }


def test_nested_spans_count_once_and_the_phases_never_exceed_the_total():
    clock, waits = Clock(), Waits()
    timing = TurnTiming(clock, waits)
    with timing.span(t.TOOL, "ask_ada"):
        clock.advance(1.0)
        with timing.span(t.APPROVAL):
            clock.advance(5.0)
        with timing.span(t.TOOL, "search_history"):
            waits.wait("background", 0.3, clock)
            clock.advance(0.2)
    trace = timing.take()
    phases = {(p["phase"], p.get("name")): p["ms"] for p in trace["phases"]}
    assert phases == {
        ("approval", None): 5000,
        ("background_wait", None): 300,
        ("tool", "search_history"): 200,
        ("tool", "ask_ada"): 1000,
    }
    assert trace["total_ms"] == 6500 == sum(phases.values())


def test_each_take_starts_a_new_segment():
    clock = Clock()
    timing = TurnTiming(clock)
    with timing.span(t.STREAMING):
        clock.advance(1.0)
    assert timing.take()["total_ms"] == 1000
    with timing.span(t.TOOL, "list_dir"):
        clock.advance(0.25)
    assert timing.take() == {"total_ms": 250, "phases": [{"phase": "tool", "name": "list_dir", "ms": 250}]}


def test_a_span_started_on_demand_only_counts_once_it_starts():
    clock = Clock()
    timing = TurnTiming(clock)
    with timing.on_demand(t.COMPRESSION):
        clock.advance(0.5)  # never started: the compression had nothing to do
    with timing.on_demand(t.COMPRESSION) as begin:
        clock.advance(0.2)
        begin()
        begin()  # told twice (it waited, then compressed): one span
        clock.advance(2.0)
    assert timing.take()["phases"] == [{"phase": "compression", "ms": 2000}, {"phase": "other", "ms": 700}]


def test_calls_from_another_thread_are_not_recorded_one_by_one():
    clock = Clock()
    timing = TurnTiming(clock)

    def elsewhere() -> None:
        with timing.span(t.TOOL, "search_history"):
            clock.advance(1.0)

    with timing.span(t.TOOL, "ask_ada, ask_rex"):
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join()
    assert timing.take()["phases"] == [{"phase": "tool", "name": "ask_ada, ask_rex", "ms": 1000}]


def test_an_unclosed_span_is_closed_when_the_reply_is_taken():
    clock = Clock()
    timing = TurnTiming(clock)
    timing.start(t.STREAMING)
    clock.advance(0.3)
    assert timing.take() == {"total_ms": 300, "phases": [{"phase": "streaming", "ms": 300}]}


def test_old_records_and_broken_traces_read_as_none_and_unknown_phases_as_other():
    assert timing_of({"type": "assistant", "content": "hi"}) is None
    assert timing_of({"timing": "fast"}) is None
    assert timing_of({"timing": {"total_ms": -1, "phases": []}}) is None
    assert timing_of({"timing": {"total_ms": 5, "phases": [{"phase": "tool", "ms": "x"}]}}) is None
    found = timing_of({"timing": {"total_ms": 10, "phases": [{"phase": "warp", "ms": 10}]}})
    assert found is not None and found.phases[0].phase == "other"
    assert timing_tip({"type": "assistant", "content": "hi"}) == ""


def test_the_tooltip_lines_read_as_the_issue_shows():
    item = {
        "timing": {
            "total_ms": 2300,
            "phases": [
                {"phase": "server_wait", "ms": 400},
                {"phase": "first_token", "ms": 500},
                {"phase": "streaming", "ms": 1200},
                {"phase": "tool", "name": "read_file", "ms": 100},
                {"phase": "other", "ms": 20},  # too short to be worth a line
            ],
        }
    }
    assert timing_tip(item).splitlines() == [
        "Waiting for the server 0.4 s",
        "First token 0.5 s",
        "Streaming 1.2 s",
        "read_file 0.1 s",
        "Total 2.3 s",
    ]


def test_repeated_phases_add_up_and_a_tool_called_twice_says_so():
    trace = timing_of(
        {
            "timing": {
                "total_ms": 125_000,
                "phases": [
                    {"phase": "first_token", "ms": 300},
                    {"phase": "tool", "name": "read_file", "ms": 10},
                    {"phase": "approval", "ms": 120_000},
                    {"phase": "first_token", "ms": 400},
                    {"phase": "tool", "name": "read_file", "ms": 30},
                    {"phase": "compression", "ms": 4_000},
                ],
            }
        }
    )
    assert trace is not None
    assert timing_lines(trace) == [
        "First token 0.7 s",
        "read_file ×2 0.0 s",
        "Waiting for your approval 2 min 0 s",
        "Compressing the context 4.0 s",
        "Total 2 min 5 s",
    ]


def test_a_turn_for_the_cli_adds_its_replies_up_and_stops_at_the_next_message():
    items = [
        {"id": 3, "type": "assistant", "timing": {"total_ms": 900, "phases": [{"phase": "first_token", "ms": 900}]}},
        {"id": 4, "type": "tool_call"},
        {"id": 6, "type": "assistant", "timing": {"total_ms": 100, "phases": [{"phase": "streaming", "ms": 100}]}},
        {"id": 7, "type": "user"},
        {"id": 8, "type": "assistant", "timing": {"total_ms": 5, "phases": []}},
    ]
    found = turn_timing(items)
    assert found is not None
    assert found["total_ms"] == 1000
    assert [r["id"] for r in found["replies"]] == [3, 6]
    assert found["phases"] == [{"phase": "first_token", "ms": 900}, {"phase": "streaming", "ms": 100}]
    assert turn_timing([{"id": 3, "type": "assistant", "content": "old"}]) is None


def test_a_hand_edited_trace_of_many_tools_stays_a_tooltip():
    phases = [{"phase": "tool", "name": f"tool_{i}_" + "x" * 200, "ms": 10} for i in range(40)]
    lines = timing_tip({"timing": {"total_ms": 400, "phases": phases}}).splitlines()
    assert len(lines) == 17  # sixteen phase lines, the total
    assert lines[-2] == "… and 25 more" and lines[-1] == "Total 0.4 s"
    assert all(len(line) < 80 for line in lines)


def test_a_wait_before_the_turn_began_is_the_first_replys_and_counts_in_its_total():
    clock = Clock()
    timing = TurnTiming(clock, waited=1.5)
    with timing.span(t.STREAMING):
        clock.advance(0.5)
    assert timing.take() == {
        "total_ms": 2000,
        "phases": [{"phase": "turn_wait", "ms": 1500}, {"phase": "streaming", "ms": 500}],
    }
    assert timing.take() == {"total_ms": 0, "phases": []}  # the next reply's segment starts from now
    lines = timing_tip({"timing": {"total_ms": 2000, "phases": [{"phase": "turn_wait", "ms": 1500}]}})
    assert lines.splitlines()[0] == "Waiting for other replies 1.5 s"
