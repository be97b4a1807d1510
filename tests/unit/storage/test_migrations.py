"""Upgrade safety: every file OkBot writes has a schema version; older files are migrated by named
migrations after a ``.v<N>.bak`` copy; a newer OkBot's file is read-only and its bytes never change.

Real files in tmp dirs, the real stores; the end-to-end cases use the fake OpenAI server.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from okbot.config.schema import SettingError
from okbot.config.settings import Settings
from okbot.core import trash
from okbot.core.memory.store import MemoryStore
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.turn.request import Send
from okbot.core.workspace import Workspace
from okbot.storage import migrations
from okbot.storage.errors import OkBotError
from okbot.storage.migrations import CURRENT, MIGRATIONS, NewerVersion


def write_json(path: Path, obj: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(obj).encode("utf-8")
    path.write_bytes(raw)
    return raw


def v0_bak(path: Path) -> Path:
    return path.with_name(path.name + ".v0.bak")


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` (the lock files the stores create are left out)."""
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


# --- the registry -----------------------------------------------------------------------------------------------
def test_every_kind_has_a_current_version_and_ordered_uniquely_named_migrations() -> None:
    assert (
        set(CURRENT)
        == set(MIGRATIONS)
        == {"settings", "summary", "assistant", "squad", "memories", "memory-recall", "extraction", "as-sent"}
        | {"evolution-log", "evolution-pending", "evolution-state", "summary-history", "pending-approvals", "schedules"}
    )
    names = [m.name for steps in MIGRATIONS.values() for m in steps]
    assert len(names) == len(set(names))
    for kind, steps in MIGRATIONS.items():
        assert [m.from_version for m in steps] == sorted({m.from_version for m in steps})
        assert all(m.from_version < CURRENT[kind] for m in steps)


def test_upgrade_applies_named_steps_in_memory_and_leaves_newer_objects_alone() -> None:
    up = migrations.upgrade("settings", {"developerMode": True}, 0)
    assert up.data == {"version": 2, "developerMode": True}
    assert up.applied == ["settings-v0-add-version", "settings-v1-providers"]
    newer = migrations.upgrade("settings", {"version": 7, "x": 1}, 7)
    assert newer.newer and newer.data == {"version": 7, "x": 1} and newer.applied == []
    assert migrations.version_of({}) == 0 and migrations.version_of({"version": "1"}) is None
    assert migrations.version_of({"version": True}) is None and migrations.version_of({"version": -1}) is None


def test_newer_version_is_a_user_facing_error() -> None:
    err = NewerVersion(Path("/x/settings.json"), 4, 1, action="save the settings")
    assert isinstance(err, OkBotError)
    assert "settings.json" in str(err) and "newer" in str(err) and "read-only" in str(err)


def test_an_old_copy_is_never_overwritten_by_a_different_one(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"first")
    assert migrations.keep_old_copy(path, 0) == v0_bak(path)
    assert migrations.keep_old_copy(path, 0) == v0_bak(path)  # identical: reused
    path.write_bytes(b"second")
    other = migrations.keep_old_copy(path, 0)
    assert other is not None and other.name == "f.json.v0.2.bak"
    assert v0_bak(path).read_bytes() == b"first" and other.read_bytes() == b"second"
    assert migrations.keep_old_copy(tmp_path / "missing.json", 0) is None


# --- settings.json ----------------------------------------------------------------------------------------------
def test_settings_v0_is_migrated_on_the_next_save_after_a_backup(tmp_path: Path, caplog) -> None:
    path = tmp_path / "settings.json"
    raw = write_json(path, {"developerMode": True, "contextCompression.ratio": 0.7})
    s = Settings.load(path)
    assert s.get("developerMode") is True and s.problems == [] and s.read_only == ""
    assert path.read_bytes() == raw and not v0_bak(path).exists()  # reading never writes
    with caplog.at_level(logging.INFO, logger="okbot.migrations"):
        s.set("tools.maxRounds", 20)
    assert v0_bak(path).read_bytes() == raw
    stored = json.loads(path.read_text("utf-8"))
    assert stored["version"] == 2 and stored["developerMode"] is True and stored["tools.maxRounds"] == 20
    assert "settings-v0-add-version" in caplog.text
    s.set("tools.maxRounds", 21)  # already current: no second backup
    assert sorted(p.name for p in tmp_path.glob("*.v*.bak")) == ["settings.json.v0.bak"]


def test_settings_from_a_newer_okbot_are_read_only(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    raw = write_json(path, {"version": 3, "developerMode": True, "future.key": [1]})
    s = Settings.load(path)
    assert s.get("developerMode") is True and "newer" in s.read_only
    assert any("read-only" in p for p in s.problems)
    for attempt in (
        lambda: s.set("developerMode", False),
        lambda: s.reset("developerMode"),
        s.save,
        lambda: s.set_text("tools.maxRounds", "7"),
    ):
        with pytest.raises(SettingError, match="newer"):
            attempt()
        assert path.read_bytes() == raw
    assert s.get("developerMode") is True  # the refused change did not stick in memory either
    assert not list(tmp_path.glob("settings.json.*bak"))


# --- session-summary.json ---------------------------------------------------------------------------------------
def test_summary_v0_in_the_original_form_is_migrated_after_a_backup(tmp_path: Path, caplog) -> None:
    path = tmp_path / "a" / "session-summary.json"
    raw = write_json(path, {"summary": "## Mission\nShip.", "coveredThroughId": "12", "updatedAt": "2024-01-01"})
    store = SummaryStore(path)
    loaded = store.load()
    assert (loaded.summary, loaded.covered_through_id, loaded.kept_user_ids) == ("## Mission\nShip.", 12, [])
    assert store.problems == [] and store.read_only == "" and path.read_bytes() == raw
    with caplog.at_level(logging.INFO, logger="okbot.migrations"):
        store.save(loaded)
    assert v0_bak(path).read_bytes() == raw and "summary-v0-defaults" in caplog.text
    assert "summary-v1-turn-fields" in caplog.text
    assert json.loads(path.read_text("utf-8"))["version"] == 2
    assert SummaryStore(path).load().covered_through_id == 12


def test_summary_v1_gains_the_turn_fields_after_a_backup(tmp_path: Path, caplog) -> None:
    path = tmp_path / "a" / "session-summary.json"
    raw = write_json(path, {"version": 1, "summary": "s", "coveredThroughId": 4, "hiddenItemIds": [6]})
    store = SummaryStore(path)
    loaded = store.load()
    assert (loaded.current_request_ids, loaded.cut_items, loaded.hidden_item_ids) == ([], {}, [6])
    assert path.read_bytes() == raw  # reading never writes
    with caplog.at_level(logging.INFO, logger="okbot.migrations"):
        store.save(loaded)
    assert path.with_name(path.name + ".v1.bak").read_bytes() == raw
    assert "summary-v1-turn-fields" in caplog.text and "summary-v0-defaults" not in caplog.text
    data = json.loads(path.read_text("utf-8"))
    assert (data["version"], data["currentRequestIds"], data["cutItems"]) == (2, [], {})


def test_summary_from_a_newer_okbot_is_read_but_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "a" / "session-summary.json"
    write_json(path.with_name(path.name + ".bak"), {"version": 1, "summary": "old", "coveredThroughId": 3})
    write_json(path, {"version": 5, "summary": "from the future", "coveredThroughId": 9, "newField": {"x": 1}})
    before = snapshot(tmp_path)
    notices: list[str] = []
    store = SummaryStore(path, on_notice=notices.append)
    loaded = store.load()
    assert loaded.summary == "from the future" and loaded.covered_through_id == 9
    assert "newer" in store.read_only and notices and "read-only" in notices[0]
    for attempt in (loaded, SessionSummary(summary="new", covered_through_id=10)):
        with pytest.raises(NewerVersion, match="session-summary.json"):
            SummaryStore(path).save(attempt)  # a fresh store (as the compressor makes) refuses too
    assert snapshot(tmp_path) == before


def test_summary_save_refused_when_the_file_is_damaged_but_its_backup_is_newer(tmp_path: Path) -> None:
    path = tmp_path / "session-summary.json"
    path.write_bytes(b'{"version": 1, "summ')
    write_json(path.with_name(path.name + ".bak"), {"version": 3, "summary": "newer", "coveredThroughId": 4})
    before = snapshot(tmp_path)
    store = SummaryStore(path)
    assert store.load().summary == "newer" and store.read_only
    with pytest.raises(NewerVersion):
        store.save(SessionSummary(summary="x", covered_through_id=5))
    assert snapshot(tmp_path) == before


def test_a_summary_that_cannot_be_written_is_a_clear_okbot_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_bytes(b"")
    with pytest.raises(OkBotError, match="could not be saved"):
        SummaryStore(blocker / "session-summary.json").save(SessionSummary(summary="x"))


# --- assistant.json / squad.json --------------------------------------------------------------------------------
@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "data")


def test_assistant_v0_is_migrated_in_memory_and_on_rename_after_a_backup(ws: Workspace, caplog) -> None:
    meta_path = ws.assistants_root / "old" / "assistant.json"
    raw = write_json(meta_path, {"id": "old", "name": "Old One"})
    (target,) = ws.assistants()
    assert target.meta["version"] == 1 and target.meta["role"] == "" and target.meta["model"] is None
    assert ws.problems == [] and target.read_only == "" and meta_path.read_bytes() == raw
    with caplog.at_level(logging.INFO, logger="okbot.migrations"):
        ws.rename("old", "Renamed")
    assert v0_bak(meta_path).read_bytes() == raw and "assistant-v0-defaults" in caplog.text
    stored = json.loads(meta_path.read_text("utf-8"))
    assert stored["version"] == 1 and stored["name"] == "Renamed" and stored["toolPolicy"] == {}


def test_assistant_and_squad_from_a_newer_okbot_are_read_only(ws: Workspace) -> None:
    ws.create_assistant("Ann")
    ws.create_assistant("Bob")
    squad = ws.create_squad("Team", [("ann", "lead"), ("bob", "helper")])
    newer_a = ws.assistants_root / "ann" / "assistant.json"
    meta = json.loads(newer_a.read_text("utf-8"))
    write_json(newer_a, {**meta, "version": 2, "skin": "blue"})
    write_json(squad.meta_path, {**squad.meta, "version": 4})
    before = snapshot(ws.root)
    targets = {t.id: t for t in ws.list()}
    assert "newer" in targets["ann"].read_only and "newer" in targets["team"].read_only
    assert targets["ann"].name == "Ann" and targets["ann"].problem is None
    assert sum("read-only" in p for p in ws.problems) == 2
    with pytest.raises(NewerVersion, match="assistant.json"):
        ws.rename("ann", "Anne")
    with pytest.raises(NewerVersion, match="squad.json"):
        ws.rename("team", "Crew")
    with pytest.raises(NewerVersion, match="squad.json"):
        ws.update_squad("team", description="changed")
    assert snapshot(ws.root) == before
    trash.delete(ws, "bob")  # bob leaves the squads he is in: the newer squad.json is not touched
    assert any("could not be updated" in p and "newer" in p for p in ws.problems)
    assert squad.meta_path.read_bytes() == before["squads/team/squad.json"]


def test_squad_v0_members_edit_migrates_after_a_backup(ws: Workspace) -> None:
    ws.create_assistant("Ann")
    ws.create_assistant("Bob")
    path = ws.squads_root / "crew" / "squad.json"
    raw = write_json(
        path,
        {
            "id": "crew",
            "name": "Crew",
            "members": [{"assistant": "ann", "role": "a"}, {"assistant": "bob", "role": "b"}],
        },
    )
    crew = ws.resolve("crew")
    assert crew.meta["version"] == 1 and crew.meta["captain"] == {} and len(crew.members) == 2
    trash.delete(ws, "bob")
    assert v0_bak(path).read_bytes() == raw
    stored = json.loads(path.read_text("utf-8"))
    assert stored["version"] == 1 and [m["assistant"] for m in stored["members"]] == ["ann"]


# --- memories.jsonl ---------------------------------------------------------------------------------------------
def _line(entry_id: str, text: str) -> str:
    return json.dumps({"id": entry_id, "status": "durable", "pinned": False, "text": text})


def test_memories_without_a_header_get_one_on_the_next_write_after_a_backup(tmp_path: Path, caplog) -> None:
    path = tmp_path / "memories.jsonl"
    raw = ("\n".join([_line("m-00000001", "likes tea"), _line("m-00000002", "uses vim")]) + "\n").encode()
    path.write_bytes(raw)
    store = MemoryStore(tmp_path, "global")
    assert [e.text for e in store.entries()] == ["likes tea", "uses vim"] and store.read_only == ""
    assert path.read_bytes() == raw
    with caplog.at_level(logging.INFO, logger="okbot.migrations"):
        store.add("prefers metric")
    assert v0_bak(path).read_bytes() == raw and "memories-v0-add-header" in caplog.text
    lines = path.read_text("utf-8").splitlines()
    assert json.loads(lines[0]) == {"okbot": "memories", "version": 1} and len(lines) == 4
    store.add("one more")
    assert sorted(p.name for p in tmp_path.glob("*.v*.bak")) == ["memories.jsonl.v0.bak"]


def test_a_fresh_memory_store_makes_no_backup(tmp_path: Path) -> None:
    MemoryStore(tmp_path, "global").add("first")
    assert not list(tmp_path.glob("*.v*.bak"))


def test_memories_from_a_newer_okbot_are_read_only(tmp_path: Path) -> None:
    path = tmp_path / "memories.jsonl"
    path.write_text(
        "\n".join([json.dumps({"okbot": "memories", "version": 3}), _line("m-00000001", "likes tea"), "{torn"]) + "\n",
        "utf-8",
    )
    before = snapshot(tmp_path)
    store = MemoryStore(tmp_path, "global")
    (entry,) = store.entries()
    assert entry.text == "likes tea" and "newer" in store.read_only
    assert any("read-only" in p for p in store.problems)
    attempts = (
        lambda: store.add("new"),
        lambda: store.update(entry.id, text="changed"),
        lambda: store.delete(entry.id),
        lambda: store.restore(entry),
        lambda: store.record_hits([entry.id]),
    )
    for attempt in attempts:
        with pytest.raises(NewerVersion, match="memories.jsonl"):
            attempt()
    assert snapshot(tmp_path) == before  # not even the torn line was moved to memories.jsonl.bad


# --- as-sent records --------------------------------------------------------------------------------------------
def test_as_sent_lines_carry_a_version_and_old_lines_still_read(tmp_path: Path) -> None:
    from okbot.core.assent import AS_SENT_VERSION, AsSentStore

    store = AsSentStore(tmp_path / "as-sent")
    store.dir.mkdir()
    old = {
        "id": 1,
        "ts": "t",
        "model": "m",
        "userId": 1,
        "items": [1, 1],
        "itemCount": 1,
        "coveredThroughId": 0,
        "blocks": [],
        "tools": [],
        "estimate": 5,
    }
    store.log_path.write_text(json.dumps(old) + "\n" + json.dumps({"usageFor": 1, "usage": {"a": 1}}) + "\n")
    store.record_usage(1, {"b": 2}, "complete")
    (req,) = store.requests()
    assert req.id == 1 and req.usage == {"b": 2}
    assert json.loads(store.log_path.read_text("utf-8").splitlines()[-1])["v"] == AS_SENT_VERSION == 3


# --- end to end: the compressor, memory recall and extraction with a newer OkBot's files ------------------------
@pytest.fixture
def chat(tmp_path: Path):
    from okbot.app.wiring import make_turn_runner
    from okbot.core.memory.keeper import MemoryKeeper
    from okbot.core.sources import ContextSources
    from tests.helpers.env import provider_for, settings_for
    from tests.helpers.fake_memory import with_summaries
    from tests.helpers.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        server.set_default(with_summaries)
        settings_for(server, {"model.contextWindow": 3000})
        workspace = Workspace()
        target = workspace.ensure_default()
        sources = ContextSources(workspace)
        sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
        provider = provider_for(server, max_retries=0)
        keeper = MemoryKeeper(sources, provider, background=False)
        yield target, sources, make_turn_runner(sources, provider, keeper), keeper


def test_compression_against_a_newer_summary_reports_a_clear_error_and_changes_nothing(chat) -> None:
    from okbot.core.items import new_item, user_message

    target, sources, runner, keeper = chat
    session = sources.session(target)
    for i in range(20):
        session.append(user_message(f"Step {i}: handle table {i}. " + "detail " * 40))
        session.append(new_item("assistant", author="okbot", source="app", content=f"Done {i}. " + "note " * 40))
    write_json(target.summary_path, {"version": 9, "summary": "", "coveredThroughId": 0})
    before = {p: p.read_bytes() for p in (target.summary_path, target.session_path)}
    with pytest.raises(OkBotError, match="newer version of OkBot") as err:
        runner.run(target, Send("What is next?"))  # over the threshold: the compressor must save a summary
    assert "session-summary.json" in str(err.value)
    assert {p: p.read_bytes() for p in before} == before  # refused turn: nothing appended, nothing rewritten


def test_newer_recall_cache_and_extraction_progress_are_never_rewritten(chat) -> None:
    target, sources, runner, keeper = chat
    recall = target.dir / "memory-recall.json"
    progress = target.memory_dir / "extraction.json"
    raw_recall = write_json(recall, {"version": 2, "key": {"x": 1}, "lines": ["- future"]})
    raw_progress = write_json(progress, {"version": 2, "extractedThroughId": 0, "more": True})
    runner.run(target, Send("Please remember that I deploy with Ansible to port 8443."))
    assert recall.read_bytes() == raw_recall and progress.read_bytes() == raw_progress
    assert not list(target.dir.rglob("*.v*.bak"))


def test_older_recall_cache_and_extraction_progress_are_replaced_after_a_backup(chat) -> None:
    target, sources, runner, keeper = chat
    recall = target.dir / "memory-recall.json"
    progress = target.memory_dir / "extraction.json"
    raw_recall = write_json(recall, {"key": {}, "lines": ["- stale"]})
    raw_progress = write_json(progress, {"extractedThroughId": 0})
    sources.memory.global_store().add("The user prefers metric units.", status="durable")
    runner.run(target, Send("How far is it?"))
    assert v0_bak(recall).read_bytes() == raw_recall
    assert json.loads(recall.read_text("utf-8"))["version"] == 1
    keeper._save_state(target, 4)  # what a wrap-up does once coverage advanced
    assert v0_bak(progress).read_bytes() == raw_progress
    assert json.loads(progress.read_text("utf-8")) == {"version": 1, "extractedThroughId": 4}
