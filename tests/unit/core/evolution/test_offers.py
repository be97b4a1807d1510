"""The card for what the user taught: offered after the reply, kept as written or waved away, never offered twice,
and upkeep leaves the message to it. Real turns against the fake server, real files."""

from __future__ import annotations

import pytest

from okbot.app.wiring import make_turn_runner
from okbot.core.evolution import offers
from okbot.core.evolution.persona import DEFAULT_SECTION
from okbot.core.items import teaching_of
from okbot.core.memory.keeper import MemoryKeeper
from okbot.core.sources import ContextSources
from okbot.core.turn.request import Regenerate, Send
from okbot.core.workspace import Workspace
from okbot.storage.errors import OkBotError
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_evolution import is_persona_request, teacher
from tests.helpers.fake_openai import FakeOpenAIServer

SOUL = "# Ada\n\nYou help the user ship releases.\n"
RULE = "Great, thanks. From now on, always answer in British English."
PROCEDURE = "When I say ship it: 1) run make test, 2) tag the release, 3) push the tag."


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        srv.set_default(teacher)
        yield srv


@pytest.fixture
def env(server):
    settings_for(server, {"evolution.everyTurns": 1})  # upkeep after every message: it must leave the card alone
    ws = Workspace()
    target = ws.create_assistant("Ada", soul_text=SOUL)
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    provider = provider_for(server, max_retries=0)
    keeper = MemoryKeeper(sources, provider, background=False)
    return target, sources, make_turn_runner(sources, provider, keeper)


def soul_of(target) -> str:
    return target.soul_path.read_text(encoding="utf-8")


def test_a_rule_gets_a_card_after_the_reply_and_upkeep_leaves_it_to_the_card(env, server):
    target, sources, runner = env
    result = runner.run(target, Send(RULE))
    card = result.items[-1]
    assert [it["type"] for it in result.items] == ["assistant", "notice"]
    assert teaching_of(card) == {"of": 1, "kind": "rule", "words": "From now on, always answer in British English."}
    assert sources.session(target).get(card["id"]) == card  # on disk, after the reply
    assert card["content"] == "Keep this as a rule? “From now on, always answer in British English.” (your message #1)"
    assert offers.offers(sources, target)[1].state == offers.OFFERED
    assert any(is_persona_request(b) for b in server.chat_requests())  # upkeep ran …
    assert sources.evolution.pending(target).empty  # … and proposed the rule, refused: the card has it
    assert [(r["check"], r["what"]) for r in sources.evolution.refusals(target)] == [
        ("teaching", "From now on, always answer in British English.")
    ]
    assert soul_of(target) == SOUL


def test_keep_writes_the_users_words_logged_with_the_message_and_undone_like_any_change(env):
    target, sources, runner = env
    runner.run(target, Send(RULE))
    [entry] = offers.keep(sources, target, 1)
    assert soul_of(target) == SOUL + f"\n## {DEFAULT_SECTION}\n- From now on, always answer in British English.\n"
    assert (entry.kind, entry.cited, entry.why) == ("persona", (1,), "From now on, always answer in British English.")
    assert [e.id for e in sources.evolution.entries(target)] == [entry.id]
    assert offers.offers(sources, target)[1] == offers.Offer(
        1,
        "rule",
        offers.KEPT,
        "From now on, always answer in British English.",
        (entry.id,),
        offers.offers(sources, target)[1].at,
        3,  # the card: after the message (#1) and the reply (#2)
    )
    with pytest.raises(OkBotError, match="kept already"):
        offers.keep(sources, target, 1)
    runner.run(target, Send("thanks"))  # upkeep reads on: nothing of #1 comes back in its words
    assert sources.evolution.pending(target).empty
    sources.evolution.undo(target, entry.id)
    assert soul_of(target) == SOUL


def test_a_procedure_becomes_a_skill_of_its_steps_as_typed(env):
    target, sources, runner = env
    result = runner.run(target, Send(PROCEDURE))
    assert teaching_of(result.items[-1])["kind"] == "procedure"
    assert result.items[-1]["content"].startswith("Keep this as a skill?")
    [entry] = offers.keep(sources, target, 1)
    assert entry.kind == "skill"
    text = (target.skills_dir / "ship-it" / "SKILL.md").read_text(encoding="utf-8")
    assert text == (
        "---\nname: ship-it\ndescription: When I say ship it\n---\n\n# ship-it\n\n"
        "1. run make test\n2. tag the release\n3. push the tag\n"
    )
    assert [s.name for s in sources.skills_of(target).skills()] == ["ship-it"]
    sources.evolution.undo(target, entry.id)
    assert not (target.skills_dir / "ship-it").exists()


def test_not_now_is_remembered_the_message_is_never_offered_again_and_can_still_be_kept(env, server):
    target, sources, runner = env
    runner.run(target, Send(RULE))
    assert offers.decline(sources, target, 1).state == offers.DECLINED
    again = runner.run(target, Regenerate(1))  # the same message answered again: no second card
    assert [it["type"] for it in again.items] == ["assistant"]
    assert offers.offers(sources, target)[1].state == offers.DECLINED
    assert sources.evolution.pending(target).empty  # upkeep does not sneak it in either
    assert len(offers.keep(sources, target, 1)) == 1  # the CLI can still keep it
    with pytest.raises(OkBotError, match="kept already"):
        offers.decline(sources, target, 1)


def test_no_card_for_chit_chat_when_learning_is_off_or_for_a_squad(env, server):
    target, sources, runner = env
    assert [it["type"] for it in runner.run(target, Send("I always forget the release steps.")).items] == ["assistant"]
    sources.settings.set("evolution.offerTeachings", False)
    assert [it["type"] for it in runner.run(target, Send("Never use emoji.")).items] == ["assistant"]
    sources.settings.set("evolution.offerTeachings", True)
    sources.settings.set("evolution.enabled", False)
    assert [it["type"] for it in runner.run(target, Send("Never use tables.")).items] == ["assistant"]
    assert offers.offers(sources, target) == {}
    rex = sources.workspace.create_assistant("Rex")
    squad = sources.workspace.create_squad("Crew", [(target.id, "writer"), (rex.id, "reviewer")])
    sources.settings.set("evolution.enabled", True)
    assert all(it["type"] != "notice" for it in runner.run(squad, Send("Never use emoji.")).items)


def test_keep_refuses_what_the_persona_already_says_and_what_was_not_offered(env):
    target, sources, runner = env
    target.soul_path.write_text(SOUL + "- Never use emoji.\n", encoding="utf-8")
    runner.run(target, Send("Never use emoji."))
    with pytest.raises(OkBotError, match="already says this"):
        offers.keep(sources, target, 1)
    with pytest.raises(OkBotError, match="was not offered"):
        offers.keep(sources, target, 2)
