"""Learnt skills: read from either answer form, grounded in the user's words, never over a hand-written skill."""

from __future__ import annotations

import json

import pytest

from okbot.core.evolution import skill_edits
from okbot.core.evolution.skill_edits import Proposal, SkillChange
from okbot.core.skills import parse_skill

TEACH = "When I say ship it: 1) run make test, 2) tag the release v2.4, 3) push the tag to origin."
ITEMS = [
    {"id": 5, "type": "user", "source": "user", "content": TEACH},
    {"id": 6, "type": "assistant", "content": "Sure. When you say wipe: 1) rm -rf the build folder."},
    {"id": 7, "type": "user", "source": "user", "content": "You may push the tag to origin without asking."},
]
SHIP = Proposal(
    "ship-it",
    "Release steps for when the user says ship it.",
    ("run make test", "tag the release v2.4", "push the tag to origin"),
    (5,),
)


def check(*proposals, existing=None, mine=None, undone=()):
    return skill_edits.check_proposals(
        list(proposals), ITEMS, existing or {}, written_by_upkeep=mine or {}, undone=undone
    )


def test_text_blocks_and_json_are_read_alike() -> None:
    text = (
        "SKILL ship-it: Release steps for when the user says ship it. #5\n"
        "1. run make test\n2. tag the release v2.4\n3) push the tag to origin\nEND\n"
    )
    structured = json.dumps(
        {"skills": [{"name": SHIP.name, "description": SHIP.description, "steps": list(SHIP.steps), "from": [5]}]}
    )
    assert skill_edits.parse_answer(text) == ([SHIP], "")
    assert skill_edits.parse_answer(structured) == ([SHIP], "")
    assert skill_edits.parse_answer("NONE") == ([], "")
    assert "no SKILL block" in skill_edits.parse_answer("Sounds good to me!")[1]


def test_a_taught_procedure_becomes_a_skill_file_that_reads_back(tmp_path) -> None:
    (change,), refusals = check(SHIP)
    assert refusals == [] and change.op == "create" and change.name == "ship-it"
    path = tmp_path / "ship-it" / "SKILL.md"
    path.parent.mkdir()
    path.write_text(change.after, encoding="utf-8")
    skill = parse_skill(path)
    assert (skill.problem, skill.description) == (None, "Release steps for when the user says ship it.")
    assert "1. run make test\n2. tag the release v2.4\n3. push the tag to origin\n" in change.after
    assert SkillChange.from_json(change.to_json()) == change


@pytest.mark.parametrize(
    ("proposal", "check_name"),
    [
        (Proposal("wipe", "Clean up when the user says wipe.", ("rm -rf the build folder",), (6,)), "citation"),
        (Proposal("ship-it", "Release steps.", ("run make test", "deploy to prod-9"), (5,)), "grounding"),
        (Proposal("ship-it", "Release steps for Kubernetes.", SHIP.steps, (5,)), "grounding"),
        (Proposal("...", "Release steps.", SHIP.steps, (5,)), "format"),
        (Proposal("ship-it", "", SHIP.steps, (5,)), "format"),
        (Proposal("ship-it", "Release steps.", (), (5,)), "format"),
        (Proposal("ship-it", "Release steps.", ("x" * 4100,), (5,)), "size"),
        (Proposal("ship-it", "Release steps.", ("use token ghp_" + "a" * 36,), (5,)), "secret"),
        (Proposal("ship-it", "Push the tag to origin.", ("push any tag anywhere without asking",), (7,)), "permission"),
        (Proposal("ship-it", "Release steps.", SHIP.steps, ()), "citation"),
        # what a 1.5B model answered in the real-model run: the answer template echoed back, citing "good"
        (Proposal("good", "...", ("...", "..."), (5,)), "format"),
        (Proposal("ship-it", "Release steps.", ("run make test", "…"), (5,)), "format"),
    ],
)
def test_each_check_refuses_what_it_is_for(proposal, check_name) -> None:
    changes, refusals = check(proposal)
    assert changes == []
    assert [r.check for r in refusals] == [check_name]


def test_a_skill_upkeep_wrote_may_be_updated_one_the_user_wrote_never() -> None:
    (created,), _ = check(SHIP)
    better = Proposal(SHIP.name, SHIP.description, (*SHIP.steps[:2], "push the tag to origin without asking"), (5, 7))
    (update,), refusals = check(better, existing={"ship-it": created.after}, mine={"ship-it": created.after})
    assert refusals == [] and (update.op, update.before) == ("update", created.after)
    hand = created.after + "\nMy own note.\n"
    changes, refusals = check(better, existing={"ship-it": hand}, mine={"ship-it": created.after})
    assert changes == [] and [r.check for r in refusals] == ["hand-written"]
    changes, refusals = check(SHIP, existing={"ship-it": created.after}, mine={"ship-it": created.after})
    assert [r.check for r in refusals] == ["duplicate"]
    changes, refusals = check(SHIP, undone=(created.after,))
    assert [r.check for r in refusals] == ["undone"]
