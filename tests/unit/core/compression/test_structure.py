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
    assert structure.check(new, PREV) == []


def test_missing_sections_and_text_outside_are_problems():
    problems = structure.check("Here is the summary:\n## Goals\n- [active] x", PREV)
    text = " ".join(problems)
    assert "outside the sections" in text and "missing section" in text and "fewer than the 2" in text


def test_dropping_a_goal_is_rejected_marking_it_is_fine():
    dropped = PREV.replace("- [done] set up CI\n", "")
    assert any("never deleted" in p for p in structure.check(dropped, PREV))
    marked = PREV.replace("[active] migrate", "[withdrawn] migrate")
    assert structure.check(marked, PREV) == []


def test_invented_or_shifted_references_are_caught():
    shifted = "PR #4418 on port 5433, see BUG-102"
    assert structure.ungrounded(shifted, [PREV, "BUG-101 is open"]) == ["#4418", "5433", "BUG-102"]
    grounded = "- https://ci.example.org/run/991 and BUG-101"
    assert structure.ungrounded(grounded, ["see https://ci.example.org/run/991", "BUG-101 is open"]) == []


def test_empty_and_bad_status_and_no_length_limit_on_the_stored_text():
    assert structure.check("", PREV) == ["the summary is empty"]
    bad = PREV.replace("[done]", "[finished]")
    assert any("goal status" in p for p in structure.check(bad, PREV))
    assert structure.check(PREV + "\n- " + "long " * 2000, PREV) == []  # requests are cut, the record is whole


def long_summary() -> str:
    return structure.render(
        {
            "Goals": "\n".join(f"- [{'done' if i % 2 else 'active'}] goal {i}" for i in range(40)),
            "Agreements": "- report after each table",
            "Decisions": "\n".join(f"- decision {i} — reason {i}" for i in range(60)),
            "Progress and next steps": "- next: payments",
            "References": "- PR #4417",
        }
    )


def test_an_over_limit_section_is_cut_at_a_line_boundary_in_the_request_only():
    text = long_summary()
    fitted = structure.fit_sections(text, 1000)
    assert len(fitted) <= 1000 and len(text) > 1000
    sections, problems = structure.parse_sections(fitted)
    whole, _ = structure.parse_sections(text)
    assert not problems and list(sections) == list(whole)
    for name, body in sections.items():
        for line in body.splitlines():
            assert line in whole[name].splitlines() or line.startswith("- (… ")  # whole lines only
    decisions = sections["Decisions"].splitlines()
    assert decisions[0].startswith("- (… ") and "session-summary.json" in decisions[0]
    assert "search_history" in decisions[0] and decisions[-1] == "- decision 59 — reason 59"  # newest kept
    goals = sections["Goals"].splitlines()
    assert goals[0] == "- [active] goal 0" and "- [active] goal 36" in goals
    assert "- [done] goal 1" not in goals  # closed goals go first, the oldest first
    assert goals[-1].startswith("- (… ")
    assert sections["Agreements"] == whole["Agreements"] and sections["References"] == whole["References"]


def test_a_summary_that_fits_is_sent_as_it_is():
    text = long_summary()
    assert structure.fit_sections(text, len(text)) == text
    assert structure.fit_sections("free text, not sections " * 100, 100).startswith("free text")


def test_budgets_are_shares_of_the_limit():
    budgets = structure.section_budgets(2000)
    assert list(budgets) == [*structure.SECTIONS, *structure.APP_SECTIONS]
    assert 1800 < sum(budgets.values()) <= 2000 and budgets["Goals"] > budgets["References"]


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


def test_a_limit_too_small_for_the_notes_leaves_the_text_alone():
    text = structure.render({"Goals": "- [active] ship v2 (#2)", "Decisions": "- use pg_dump — it keeps constraints"})
    assert structure.fit_sections(text, 100) == text
