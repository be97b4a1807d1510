"""The summarizer's edits: read from JSON or lines, each checked on its own, applied by the app."""

import json
import time

import pytest

from okbot.core.compression import edits, structure
from okbot.core.compression.edits import Edits, NewGoal, apply_edits, numbered_view, parse_answer

PREV = structure.render(
    {
        "Goals": "- [active] migrate the billing tables (#3)\n- [done] set up CI (#1)",
        "Agreements": "- report after each table; never drop data",
        "Decisions": "- use pg_dump — it keeps constraints",
        "Progress and next steps": "- invoices table migrated\n- next: payments table",
        "References": "- PR #4417, db/schema.sql, port 5432",
    }
)
USER = "#21 Goal: also archive the 2019 invoices to cold storage, report each in one line."
CITABLE = {21: USER}
SOURCES = ["#21 user: " + USER, "#22 okbot: archived batch 7 of the 2019 invoices, see ops/archive.log"]
COVERED = {21: USER, 22: "archived batch 7 of the 2019 invoices, see ops/archive.log; billing tables all migrated"}


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def test_a_json_answer_and_the_same_edits_as_lines_give_the_same_summary():
    answer = {
        "new_goals": [{"goal": "archive the 2019 invoices to cold storage", "set_by": 21}],
        "goal_status": [{"goal": 1, "status": "done", "because": 22}],
        "agreements": ["report each archive in one line"],
        "decisions": [],
        "progress": ["archived batch 7 (ops/archive.log)"],
        "drop_progress": [2],
        "references": ["ops/archive.log"],
        "keep": [21],
        "release": [],
    }
    text = """Here are the edits:
GOAL: archive the 2019 invoices to cold storage #21
GOAL 1: done #22
AGREEMENT: report each archive in one line
PROGRESS: archived batch 7 (ops/archive.log)
DROP PROGRESS: 2
REFERENCE: ops/archive.log
KEEP: 21
RELEASE: none"""
    from_json, problems = parse_answer("```json\n" + json.dumps(answer) + "\n```", max_chars=2000)
    from_text, text_problems = parse_answer(text, max_chars=2000)
    assert not problems and not text_problems
    assert from_json == from_text
    summary, refused = apply_edits(PREV, from_json, citable=CITABLE, sources=SOURCES, covered=COVERED)
    assert refused == []
    sections, _ = structure.parse_sections(summary)
    assert sections["Goals"].splitlines() == [
        "- [done] migrate the billing tables (#3)",
        "- [done] set up CI (#1)",
        "- [active] archive the 2019 invoices to cold storage (#21)",
    ]
    assert sections["Progress and next steps"] == "- invoices table migrated\n- archived batch 7 (ops/archive.log)"
    assert sections["References"].endswith("\n- ops/archive.log")


def test_prose_around_json_and_headings_with_bullets_are_read():
    obj = {"progress": ["payments table migrated"], "keep": []}
    parsed, problems = parse_answer(f"Sure! {json.dumps(obj)} Hope this helps.", max_chars=2000)
    assert not problems and parsed.lines == {"Progress and next steps": ["payments table migrated"]}
    parsed, problems = parse_answer("## Decisions\n- keep the old ids — clients cache them\nKEEP: 4, 9", max_chars=2000)
    assert not problems and parsed.lines == {"Decisions": ["keep the old ids — clients cache them"]}
    assert parsed.keep == [4, 9]


def test_an_echoed_summary_adds_nothing_and_changes_no_line():
    parsed, problems = parse_answer(PREV, max_chars=2000)
    assert not problems
    summary, refused = apply_edits(PREV, parsed, citable=CITABLE, sources=SOURCES)
    assert summary == PREV and refused == []


def test_unchanged_lines_stay_byte_identical_over_ten_rounds():
    summary = PREV
    originals = lines_of(PREV)
    for round_ in range(10):
        change = Edits(
            lines={"Decisions": [f"round {round_}: keep going — nothing blocks"]},
            status=[(2, "done", 22)],
            drop_progress=[1] if round_ % 3 == 2 else [],
        )
        change.add_line("Progress and next steps", f"round {round_} done")
        summary, refused = apply_edits(summary, change, citable=CITABLE, sources=SOURCES, covered=COVERED)
        assert refused == []
        current = lines_of(summary)
        for line in originals:
            if "invoices table migrated" in line or line == "- next: payments table":
                continue  # progress lines dropped by name
            assert line in current  # byte for byte, never retyped
        assert current.index("- [active] migrate the billing tables (#3)") < current.index("## Agreements")
    decisions = structure.parse_sections(summary)[0]["Decisions"].splitlines()
    assert decisions[0] == "- use pg_dump — it keeps constraints" and len(decisions) == 11


@pytest.mark.parametrize(
    "cited, why",
    [
        (22, "not a message the user typed"),  # the assistant's reply
        (23, "not a message the user typed"),  # a tool result
        (None, "cites no message"),
    ],
)
def test_a_goal_must_cite_the_users_own_message(cited, why):
    change = Edits(goals=[NewGoal("archive the 2019 invoices", cited)], lines={"Decisions": ["archive first"]})
    summary, refused = apply_edits(PREV, change, citable=CITABLE, sources=SOURCES)
    assert len(refused) == 1 and why in refused[0]
    assert "archive the 2019" not in summary and "- archive first" in summary  # only that edit is refused


def test_a_goal_must_not_name_what_its_message_does_not():
    """A 1.5B model turned "triage the queue, report each in one line" into "close BUG-101, close BUG-102"."""
    said = {5: "#5 We are triaging the bug queue. Report each in one line."}
    sources = [*said.values(), "#6 okbot: BUG-101 and BUG-102 are stale."]
    bad = Edits(goals=[NewGoal("close BUG-101, close BUG-102", 5)])
    summary, refused = apply_edits(PREV, bad, citable=said, sources=sources)
    assert refused and "BUG-101" in refused[0] and "BUG-101" not in summary
    good = Edits(goals=[NewGoal("triage the bug queue", 5)])
    summary, refused = apply_edits(PREV, good, citable=said, sources=sources)
    assert refused == [] and "- [active] triage the bug queue (#5)" in summary


def test_invented_references_in_new_lines_are_refused_line_by_line():
    change = Edits(lines={"References": ["PR #4418", "ops/archive.log"], "Decisions": ["port 5433 from now on"]})
    summary, refused = apply_edits(PREV, change, citable=CITABLE, sources=SOURCES)
    assert len(refused) == 2 and "#4418" in refused[0] + refused[1] and "5433" in refused[0] + refused[1]
    assert "- ops/archive.log" in summary and "#4418" not in summary and "5433" not in summary


def test_bad_numbers_are_refused_and_a_repeated_line_is_not_added_twice():
    change = Edits(status=[(7, "done", 22), (1, "finished", 22)], drop_progress=[9])
    change.add_line("Decisions", "Use pg_dump — it keeps constraints")
    summary, refused = apply_edits(PREV, change, citable=CITABLE, sources=SOURCES)
    assert summary == PREV and len(refused) == 3


@pytest.mark.parametrize(
    ("status", "refused_because"),
    [
        ((1, "done", None), "cites no item"),
        ((1, "done", 99), "#99 is not one of the newly covered items"),
        ((1, "withdrawn", 22), "only the user withdraws a goal"),
        ((1, "withdrawn", None), "only the user withdraws a goal"),
    ],
)
def test_closing_a_goal_needs_the_item_that_shows_it(status, refused_because):
    """A 1.5B model closed "triage BUG-101 to BUG-140" after BUG-106, citing nothing: the goal stays active."""
    summary, refused = apply_edits(PREV, Edits(status=[status]), citable=CITABLE, sources=SOURCES, covered=COVERED)
    assert summary == PREV and len(refused) == 1 and refused_because in refused[0]


def test_a_goal_is_closed_on_evidence_withdrawn_by_the_user_and_reopened_freely():
    change = Edits(status=[(1, "done", 22)])
    done, refused = apply_edits(PREV, change, citable=CITABLE, sources=SOURCES, covered=COVERED)
    assert refused == [] and "- [done] migrate the billing tables (#3)" in done
    withdrawn, refused = apply_edits(
        PREV, Edits(status=[(1, "withdrawn", 21)]), citable=CITABLE, sources=SOURCES, covered=COVERED
    )
    assert refused == [] and "- [withdrawn] migrate the billing tables (#3)" in withdrawn
    reopened, refused = apply_edits(done, Edits(status=[(1, "active", None)]), citable={}, sources=[], covered={})
    assert refused == [] and "- [active] migrate the billing tables (#3)" in reopened


def test_a_line_the_summary_has_is_not_added_again_for_a_full_stop_or_spacing():
    """Seen with the real 1.5B model: every agreement added twice, once with a closing full stop."""
    change = Edits(lines={"Agreements": ["Report after each table;  never drop data."], "Decisions": ["a new one"]})
    summary, refused = apply_edits(PREV, change, citable=CITABLE, sources=SOURCES, covered=COVERED)
    assert refused == [] and summary.count("never drop data") == 1 and "- a new one" in summary


def test_the_moved_out_section_is_folded_away():
    moved = PREV + f"\n\n## {structure.FALLBACK_SECTION}\n- items #30–#31 moved out without a summary"
    summary, refused = apply_edits(moved, Edits(), citable={}, sources=[])
    assert summary == PREV and refused == []


@pytest.mark.parametrize(
    "answer, why",
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("x" * 4001, "over twice"),
        ("[" * 1000 + "]" * 1000, "no edit found"),
        ("{" * 1000 + "}" * 1000, "nests"),
        ('{"a": ' * 500 + "1" + "}" * 500, "nests"),
        ('{"summary": "all good"}', "none of the fields"),
        ("I could not summarize this conversation, sorry.", "no edit found"),
    ],
)
def test_unreadable_answers_are_rejected_cleanly(answer, why):
    parsed, problems = parse_answer(answer, max_chars=2000)
    assert parsed is None and why in problems[0]


def test_the_model_sees_goals_and_progress_numbered():
    view = numbered_view(PREV)
    assert "1. [active] migrate the billing tables (#3)\n2. [done] set up CI (#1)" in view
    assert "1. invoices table migrated\n2. next: payments table" in view
    assert "- report after each table; never drop data" in view
    assert edits.numbered_view("").startswith("## Goals\n")


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("Goal 2 is now done", Edits(status=[(2, "done", None)])),
        ("GOAL 2: done #31", Edits(status=[(2, "done", 31)])),
        (
            "1. DECISION: use {} for an empty config\n2. KEEP 4",
            Edits(lines={"Decisions": ["use {} for an empty config"]}, keep=[4]),
        ),
        ("**DROP PROGRESS:** P1, P3", Edits(drop_progress=[1, 3])),
        (
            "ADD Decisions: keep the old ids\nkeep the old ids, they said",
            Edits(lines={"Decisions": ["keep the old ids"]}),
        ),
    ],
)
def test_small_model_spellings_are_read(answer, expected):
    assert parse_answer(answer, max_chars=2000) == (expected, [])


@pytest.mark.parametrize(
    "answer",
    [
        "KEEP " + "1" * 3000 + "x",
        "DROP PROGRESS " + "1 " * 1900 + "x",
        "GOAL 2" + " " * 3900 + "x",
        "# " + " " * 3900 + "x",
        "GOAL: x " + "( from" * 600 + "x",
        "- " * 1999,
    ],
)
def test_pathological_lines_are_read_in_linear_time(answer):
    started = time.monotonic()
    parse_answer(answer, max_chars=2000)
    assert time.monotonic() - started < 0.5
