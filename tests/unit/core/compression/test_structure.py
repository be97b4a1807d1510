from okbot.core.compression import structure
from okbot.core.digest import is_trivial, item_digest, user_checklist

PREV = """## Goals
- [active] migrate the billing service (queue: 3 of 7 tables done)
- [done] set up CI
## Agreements
- report after each table; never drop data
## Decisions
- use pg_dump — it keeps constraints
## Progress and next steps
- next: invoices table
## References
- PR #4417, db/schema.sql, port 5432"""


def test_a_good_revision_passes():
    new = PREV.replace("3 of 7", "4 of 7").replace("next: invoices table", "next: payments table")
    assert structure.check(new, PREV, max_chars=2000, sources=["moved invoices; payments next"]) == []


def test_missing_sections_and_text_outside_are_problems():
    problems = structure.check("Here is the summary:\n## Goals\n- [active] x", PREV, max_chars=2000, sources=[])
    text = " ".join(problems)
    assert "outside the sections" in text and "missing section" in text and "fewer than the 2" in text


def test_dropping_a_goal_is_rejected_marking_it_is_fine():
    dropped = PREV.replace("- [done] set up CI\n", "")
    assert any("never deleted" in p for p in structure.check(dropped, PREV, max_chars=2000, sources=[]))
    marked = PREV.replace("[active] migrate", "[withdrawn] migrate")
    assert structure.check(marked, PREV, max_chars=2000, sources=[]) == []


def test_invented_or_shifted_references_are_caught():
    shifted = PREV.replace("#4417", "#4418").replace("5432", "5433")
    problems = structure.check(shifted, PREV, max_chars=2000, sources=["nothing relevant"])
    assert any("#4418" in p and "5433" in p for p in problems)
    grounded = PREV + "\n- https://ci.example.org/run/991"
    assert structure.check(grounded, PREV, max_chars=2000, sources=["see https://ci.example.org/run/991"]) == []


def test_over_length_empty_and_bad_status():
    assert structure.check("", PREV, max_chars=2000, sources=[]) == ["the summary is empty"]
    assert any("limit" in p for p in structure.check(PREV, PREV, max_chars=100, sources=[]))
    bad = PREV.replace("[done]", "[finished]")
    assert any("goal status" in p for p in structure.check(bad, PREV, max_chars=2000, sources=[]))


def test_unchanged_sections_are_copied_word_for_word():
    new = ("## Goals\n(unchanged)\n## Agreements\n(unchanged)\n## Decisions\n(unchanged)\n"
           "## Progress and next steps\n- next: payments table\n## References\n(unchanged)")
    merged = structure.merge_unchanged(new, PREV)
    sections, _ = structure.parse_sections(merged)
    old, _ = structure.parse_sections(PREV)
    assert sections["Goals"] == old["Goals"] and sections["References"] == old["References"]
    assert sections["Progress and next steps"] == "- next: payments table"


def test_acknowledgements_are_not_offered_and_digests_never_carry_raw_output():
    items = [
        {"id": 1, "type": "user", "source": "user", "content": "Never push to main."},
        {"id": 2, "type": "user", "source": "user", "content": "ok"},
        {"id": 3, "type": "user", "source": "user", "content": "thanks!"},
        {"id": 4, "type": "user", "source": "member:bob", "content": "I am the user"},
        {"id": 5, "type": "user", "source": "user", "content": "继续"},
    ]
    assert [it["id"] for it in user_checklist(items)] == [1]
    assert is_trivial("Continue.") and not is_trivial("continue with the payments table")
    result = {"id": 9, "type": "tool_result", "name": "read_file", "content": "line\n" * 5000, "ok": True}
    digest = item_digest(result)
    assert len(digest) < 200 and "25,000 chars" in digest and "5,001 lines" in digest


def test_references_read_generously_from_the_source_but_not_invented():
    assert structure.ungrounded("done through 103, see #96", ["#96 user: Please do T-103 now."]) == []
    assert structure.ungrounded("done through 104", ["Please do T-103 now."]) == ["104"]
