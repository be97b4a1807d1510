"""build_context: the one projection of what the model sees."""

import os

import pytest

from okbot.config.settings import Settings
from okbot.core.context import build_context
from okbot.core.items import new_item, notice, user_message
from okbot.core.sources import ContextSources
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.workspace import Workspace
from okbot.storage.errors import NotFound, OkBotError


@pytest.fixture
def env():
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    return ws, target, sources


def reply(text, **fields):
    return new_item("assistant", author="okbot", source="app", content=text, **fields)


def call(call_id, name="search_history"):
    return new_item("tool_call", author="okbot", source="app", call_id=call_id, name=name, arguments='{"query":"x"}')


def result(call_id, name="search_history"):
    return new_item("tool_result", author="okbot", source="tool", call_id=call_id, name=name, content="found", ok=True)


def fill(sources, target, n_turns):
    session = sources.session(target)
    ids = []
    for i in range(n_turns):
        ids.append(session.append(user_message(f"question {i}"))["id"])
        session.append(reply(f"answer {i}"))
    return ids


def test_fresh_session_projection_has_instructions_and_every_item(env):
    _, target, sources = env
    fill(sources, target, 3)
    proj = build_context(target, sources=sources)
    names = [b.name for b in proj.blocks]
    assert names[:3] == ["role", "roster", "soul"]
    assert [it["type"] for it in proj.items] == ["user", "assistant"] * 3
    assert proj.covered_through_id == 0 and proj.at is None
    assert all(b.tokens > 0 for b in proj.blocks)
    assert proj.total_tokens == proj.instruction_tokens + proj.items_tokens + proj.overhead_tokens
    assert not proj.approximate
    assert proj.window == 128000  # gpt-4o-mini from the model facts
    assert proj.threshold == int(128000 * 0.6)


def test_messages_are_exactly_system_plus_items(env):
    _, target, sources = env
    fill(sources, target, 2)
    proj = build_context(target, sources=sources)
    msgs = proj.to_messages()
    assert msgs[0] == {"role": "system", "content": proj.system_text()}
    assert [m["content"] for m in msgs[1:]] == [it["content"] for it in proj.items]


def test_covered_items_are_left_out_and_summary_block_has_kept_words(env):
    _, target, sources = env
    ids = fill(sources, target, 6)
    SummaryStore(target.summary_path).save(
        SessionSummary(
            summary="## Goals\n- [active] finish",
            covered_through_id=ids[3] + 1,
            kept_user_ids=[ids[1]],
            trigger="ratio",
        )
    )
    proj = build_context(target, sources=sources)
    assert proj.covered_through_id == ids[3] + 1
    assert [it["id"] for it in proj.items] == [ids[4], ids[4] + 1, ids[5], ids[5] + 1]
    summary = next(b for b in proj.blocks if b.name == "summary").text
    assert "[active] finish" in summary
    assert f"[#{ids[1]}] question 1" in summary  # copied from the record, verbatim


def test_coverage_pointing_at_missing_id_means_nothing_covered(env):
    _, target, sources = env
    fill(sources, target, 2)
    SummaryStore(target.summary_path).save(SessionSummary(summary="x", covered_through_id=999))
    proj = build_context(target, sources=sources)
    assert proj.covered_through_id == 0 and len(proj.items) == 4
    assert any("#999" in n for n in proj.notices)
    assert all(b.name != "summary" for b in proj.blocks)


def test_tool_call_is_never_split_from_its_result(env):
    _, target, sources = env
    session = sources.session(target)
    session.append(user_message("find it"))
    c = session.append(call("c1"))
    session.append(result("c1"))
    session.append(reply("here"))
    SummaryStore(target.summary_path).save(SessionSummary(summary="s", covered_through_id=c["id"]))
    proj = build_context(target, sources=sources)
    assert [it["type"] for it in proj.items] == ["tool_call", "tool_result", "assistant"]
    assert proj.to_messages()[1]["tool_calls"][0]["id"] == "c1"


def test_at_truncates_to_that_user_message(env):
    _, target, sources = env
    ids = fill(sources, target, 4)
    proj = build_context(target, at=ids[1], sources=sources)
    assert proj.items[-1]["id"] == ids[1] and len(proj.items) == 3
    assert proj.at == ids[1]


def test_at_rejects_unknown_and_non_user_ids(env):
    _, target, sources = env
    ids = fill(sources, target, 2)
    with pytest.raises(NotFound):
        build_context(target, at=ids[-1] + 50, sources=sources)
    with pytest.raises(OkBotError, match="not a user message"):
        build_context(target, at=ids[0] + 1, sources=sources)


def test_at_a_covered_message_is_flagged(env):
    _, target, sources = env
    ids = fill(sources, target, 3)
    SummaryStore(target.summary_path).save(SessionSummary(summary="s", covered_through_id=ids[1]))
    proj = build_context(target, at=ids[0], sources=sources)
    assert proj.at_covered and proj.items == []


def test_notices_are_never_sent_to_the_model(env):
    _, target, sources = env
    session = sources.session(target)
    session.append(user_message("hi"))
    session.append(notice("something happened", "warning"))
    proj = build_context(target, sources=sources)
    assert [it["type"] for it in proj.items] == ["user"]


def test_soul_edits_show_up_in_the_next_projection(env):
    _, target, sources = env
    build_context(target, sources=sources)
    target.soul_path.write_text("You speak like a pirate.", encoding="utf-8")
    st = target.soul_path.stat()
    os.utime(target.soul_path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    soul = next(b for b in build_context(target, sources=sources).blocks if b.name == "soul")
    assert "pirate" in soul.text


def test_missing_soul_is_a_notice_not_a_crash(env):
    _, target, sources = env
    target.soul_path.unlink()
    proj = build_context(target, sources=sources)
    assert all(b.name != "soul" for b in proj.blocks)
    assert any("SOUL.md" in n for n in proj.notices)


def test_settings_changed_by_another_process_are_seen(env):
    _, target, sources = env
    other = Settings.load()
    other.set("model.contextWindow", 32000)
    other.set("contextCompression.ratio", 0.5)
    proj = build_context(target, sources=sources)
    assert proj.window == 32000 and proj.threshold == 16000
    same = sources.settings
    sources.settings.set("developerMode", True)  # our own save: same object, subscribers kept
    assert sources.settings is same


def test_consecutive_requests_share_the_instruction_prefix(env):
    _, target, sources = env
    fill(sources, target, 2)
    first = build_context(target, sources=sources).to_messages()
    fill(sources, target, 1)
    second = build_context(target, sources=sources).to_messages()
    assert second[: len(first)] == first


def test_squad_projection_lists_members(env):
    ws, _, sources = env
    ws.create_assistant("Bob", role="writes code")
    squad = ws.create_squad("Crew", [("okbot", "lead"), ("Bob", "coder")], description="ships")
    proj = build_context(squad, sources=sources)
    roster = next(b for b in proj.blocks if b.name == "roster").text
    assert "Bob (coder): writes code" in roster
