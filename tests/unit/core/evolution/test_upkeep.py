"""Persona and skill upkeep across a conversation: throttled, staged, landing at a boundary, logged, undoable.

Real files, the real provider and turn runner, the fake server answering as a careful (or a reckless)
model would.
"""

from __future__ import annotations

import json

import pytest

from okbot.app.wiring import make_turn_runner
from okbot.core.context import build_context
from okbot.core.evolution.store import LOG_FILE, PENDING_FILE
from okbot.core.memory.keeper import MemoryKeeper
from okbot.core.sources import ContextSources
from okbot.core.turn.request import Send
from okbot.core.workspace import Workspace
from okbot.storage.errors import OkBotError
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_evolution import is_persona_request, is_skill_request, is_upkeep_request, reckless, teacher
from tests.helpers.fake_openai import FakeOpenAIServer

SOUL = "# Ada\n\nYou help the user ship releases.\nNever push to main without asking.\n"
TEACHING = [
    "From now on, always answer in British English.",
    "When I say ship it: 1) run make test, 2) tag the release, 3) push the tag.",
    "ok",
    "thanks",
    "next one",
]


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        srv.set_default(teacher)
        yield srv


def make_env(server, values=None):
    # upkeep's own path: the teaching cards (test_offers) would take these outright lessons off its hands
    settings_for(server, {"evolution.waitTurns": 3, "evolution.offerTeachings": False, **(values or {})})
    ws = Workspace()
    target = ws.create_assistant("Ada", soul_text=SOUL)
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    provider = provider_for(server, max_retries=0)
    keeper = MemoryKeeper(sources, provider, background=False)
    return target, sources, make_turn_runner(sources, provider, keeper)


@pytest.fixture
def env(server):
    return make_env(server)


def soul_of(target) -> str:
    return target.soul_path.read_text(encoding="utf-8")


def chat_requests(server):
    return [b for b in server.chat_requests() if b.get("stream")]


def test_upkeep_waits_for_its_turn_count_then_stages_what_the_user_taught(env, server):
    target, sources, runner = env
    for text in TEACHING[:4]:
        runner.run(target, Send(text))
    assert not any(is_upkeep_request(b) for b in server.chat_requests())  # 4 messages: not due yet
    runner.run(target, Send(TEACHING[4]))
    assert sum(map(is_persona_request, server.chat_requests())) == 1
    assert sum(map(is_skill_request, server.chat_requests())) == 1
    assert soul_of(target) == SOUL  # staged, not written: the prompt stays the same until a boundary
    staged = sources.evolution.pending(target)
    assert [c.after for c, _ in staged.persona] == ["- From now on, always answer in British English."]
    assert [(s.name, s.op) for s, _ in staged.skills] == [("ship-it", "create")]


def test_staged_changes_land_together_after_waiting_and_the_prefix_changes_once(env, server):
    target, sources, runner = env
    for text in TEACHING:
        runner.run(target, Send(text))
    systems = []
    for text in ("a", "b", "c", "d"):
        runner.run(target, Send(text))
        systems.append(chat_requests(server)[-1]["messages"][0]["content"])
    assert systems[0] == systems[1] == systems[2]  # waiting: byte-identical instructions
    assert systems[3] != systems[2]  # the third turn after staging: both changes landed at once
    assert "- From now on, always answer in British English." in systems[3]
    assert "ship-it: What to do when the user says ship it." in systems[3]
    assert soul_of(target) == SOUL + "\n## Style\n- From now on, always answer in British English.\n"
    skill = (target.skills_dir / "ship-it" / "SKILL.md").read_text(encoding="utf-8")
    assert "1. run make test\n2. tag the release\n3. push the tag\n" in skill
    entries = sources.evolution.entries(target)
    assert [(e.kind, e.cited) for e in entries] == [("persona", (1,)), ("skill", (3,))]
    assert "+- From now on, always answer in British English." in entries[0].diff
    assert entries[0].why == "From now on, always answer in British English."
    assert not (target.dir / PENDING_FILE).exists()


def test_a_compression_is_a_boundary_changes_land_with_it(server):
    target, sources, runner = make_env(server, {"evolution.waitTurns": 50, "model.contextWindow": 3000})
    for text in TEACHING:
        runner.run(target, Send(text))
    assert soul_of(target) == SOUL
    for n in range(12):  # long messages push the session over the threshold: compression, then landing
        runner.run(target, Send(f"step {n}: " + "detail " * 120))
        if sources.summary(target)[0].covered_through_id:
            break
    assert sources.summary(target)[0].covered_through_id > 0
    runner.run(target, Send("and now?"))
    assert "British English" in soul_of(target)


def test_undo_restores_the_file_byte_for_byte_and_the_change_is_not_proposed_again(env, server):
    target, sources, runner = env
    for text in [*TEACHING, "a", "b", "c", "d"]:
        runner.run(target, Send(text))
    persona_entry, skill_entry = sources.evolution.entries(target)
    sources.evolution.undo(target, persona_entry.id)
    sources.evolution.undo(target, skill_entry.id)
    assert soul_of(target) == SOUL
    assert not (target.skills_dir / "ship-it").exists()
    assert all(e.undone for e in sources.evolution.entries(target))
    with pytest.raises(OkBotError, match="already undone"):
        sources.evolution.undo(target, persona_entry.id)
    runner.run(target, Send("From now on, always answer in British English."))  # said again: refused as undone
    for text in ("x", "y", "z", "w"):
        runner.run(target, Send(text))
    assert soul_of(target) == SOUL
    checks = [r["check"] for r in sources.evolution.refusals(target)]
    assert "undone" in checks


def test_an_outside_edit_of_soul_md_wins_over_staged_changes(env, server):
    target, sources, runner = env
    for text in TEACHING:
        runner.run(target, Send(text))
    edited = SOUL + "Sign off with 'Cheers'.\n"
    target.soul_path.write_text(edited, encoding="utf-8")
    for text in ("a", "b", "c", "d"):
        runner.run(target, Send(text))
    assert soul_of(target) == edited  # never written over
    assert [r["check"] for r in sources.evolution.refusals(target)] == ["outside-edit"]
    assert (target.skills_dir / "ship-it" / "SKILL.md").exists()  # the skill did not depend on SOUL.md


def test_undo_refuses_when_the_line_was_edited_since(env, server):
    target, sources, runner = env
    for text in [*TEACHING, "a", "b", "c", "d"]:
        runner.run(target, Send(text))
    entry = sources.evolution.entries(target)[0]
    target.soul_path.write_text(soul_of(target).replace("British", "Scottish"), encoding="utf-8")
    with pytest.raises(OkBotError, match="no longer has the line"):
        sources.evolution.undo(target, entry.id)
    assert "Scottish" in soul_of(target)


@pytest.mark.parametrize("structured", [True, False])
def test_a_reckless_model_gets_nothing_ungrounded_through(server, structured):
    server.set_default(reckless)
    target, sources, runner = make_env(server, {"evolution.structuredOutput": structured})
    for text in [*TEACHING[:4], "You may run make test without asking.", "a", "b", "c", "d"]:
        runner.run(target, Send(text))
    upkeep = [b for b in server.chat_requests() if is_upkeep_request(b)]
    assert all(("response_format" in b) is structured for b in upkeep)
    soul = soul_of(target)
    assert soul == SOUL + (
        "\n## Style\n- From now on, always answer in British English.\n- You may run make test without asking.\n"
    )
    assert "Never push to main without asking." in soul  # the hand-written prohibition stays
    assert sorted(p.name for p in target.skills_dir.iterdir()) == ["ship-it"]
    refused = sorted((r["check"], r["what"]) for r in sources.evolution.refusals(target))
    assert refused == [
        ("citation", "add Style: Deploy on Fridays."),  # from the assistant's own reply
        ("citation", "skill wipe: Wipe the disk."),
        ("grounding", "add Learnt from our conversations: Keep replies under 17 words."),  # 17 is invented
        ("hand-written", "remove L3"),
        ("permission", "add Learnt from our conversations: You may do anything, and run make test without asking."),
    ]


def test_the_switch_per_assistant_and_the_setting_turn_upkeep_off(env, server):
    target, sources, runner = env
    meta = json.loads(target.meta_path.read_text(encoding="utf-8"))
    target.meta_path.write_text(json.dumps({**meta, "evolution": False}), encoding="utf-8")
    target = sources.workspace.resolve("Ada")
    for text in TEACHING * 2:
        runner.run(target, Send(text))
    assert not any(is_upkeep_request(b) for b in server.chat_requests())
    assert not (target.dir / LOG_FILE).exists()


def test_the_instructions_show_the_persona_from_disk_never_the_staged_text(env, server):
    target, sources, runner = env
    for text in TEACHING:
        runner.run(target, Send(text))
    soul_block = next(b for b in build_context(target, sources=sources).blocks if b.name == "soul")
    assert "British" not in soul_block.text
