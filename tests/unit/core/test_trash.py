"""Tests for okbot.core.trash: delete moves a whole directory aside, restore puts it (and its squads) back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from okbot.core import trash
from okbot.core.workspace import Workspace
from okbot.storage.errors import NotFound, OkBotError


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws")


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes, keyed by relative path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _dirs(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir()}


def test_delete_moves_to_trash_and_restore_is_identical(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    session = b'{"id":1,"type":"user","content":"h\xc3\xa9"}\n{"id":2,"type":"assist'  # torn tail kept
    bob.session_path.write_bytes(session)
    (bob.memory_dir / "note.md").write_text("remember", "utf-8")
    skill = bob.skills_dir / "greet" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text("# greet", "utf-8")
    before, before_dirs = _tree(bob.dir), _dirs(bob.dir)

    trash_id = trash.delete(ws, "Bob")
    assert not bob.dir.exists()
    moved = ws.trash_root / trash_id / "bob"
    assert (moved / "session.jsonl").read_bytes() == session
    assert _tree(moved) == before
    assert "-assistant-bob" in trash_id
    [entry] = trash.entries(ws)
    assert entry["id"] == trash_id and entry["kind"] == "assistant" and entry["name"] == "Bob"
    assert entry["deletedAt"].endswith("Z")
    with pytest.raises(NotFound):
        ws.resolve("bob")

    restored = trash.restore(ws, trash_id)
    assert restored.id == "bob" and restored.name == "Bob" and restored.dir == bob.dir
    assert _tree(bob.dir) == before and _dirs(bob.dir) == before_dirs
    assert trash.entries(ws) == []
    assert not (ws.trash_root / trash_id).exists()


def test_delete_and_restore_squad(ws: Workspace) -> None:
    ws.create_assistant("a")
    ws.create_assistant("b")
    squad = ws.create_squad("S", [("a", "x"), ("b", "y")])
    squad.session_path.write_bytes(b'{"id":1}\n')
    before = _tree(squad.dir)
    trash_id = trash.delete(ws, "s")
    assert ws.squads() == [] and "-squad-s" in trash_id
    restored = trash.restore(ws, trash_id)
    assert restored.kind == "squad" and _tree(restored.dir) == before


def test_delete_assistant_updates_squads_and_restore_readds(ws: Workspace) -> None:
    for n in ("a", "b", "c"):
        ws.create_assistant(n)
    ws.create_squad("Trio", [("a", "lead"), ("b", "middle"), ("c", "tail")])
    ws.create_squad("Duo", [("b", "one"), ("c", "two")])
    ws.create_squad("Other", [("a", ""), ("c", "")])

    trash_id = trash.delete(ws, "b")
    assert ws.resolve("trio").members == [
        {"assistant": "a", "role": "lead"},
        {"assistant": "c", "role": "tail"},
    ]
    assert ws.resolve("duo").members == [{"assistant": "c", "role": "two"}]
    assert [t.id for t in ws.squads_below_minimum()] == ["duo"]
    manifest = json.loads((ws.trash_root / trash_id / "manifest.json").read_text("utf-8"))
    assert {m["squad"] for m in manifest["squadMemberships"]} == {"trio", "duo"}

    trash.restore(ws, trash_id)
    assert ws.resolve("trio").members == [
        {"assistant": "a", "role": "lead"},
        {"assistant": "b", "role": "middle"},
        {"assistant": "c", "role": "tail"},
    ]
    assert ws.resolve("duo").members == [{"assistant": "b", "role": "one"}, {"assistant": "c", "role": "two"}]
    assert ws.resolve("other").members == [{"assistant": "a", "role": ""}, {"assistant": "c", "role": ""}]
    assert ws.squads_below_minimum() == []
    assert ws.problems == []


def test_restore_when_squad_gone_reports_problem(ws: Workspace) -> None:
    ws.create_assistant("a")
    ws.create_assistant("b")
    ws.create_squad("Duo", [("a", ""), ("b", "")])
    assistant_trash = trash.delete(ws, "a")
    trash.delete(ws, "duo")
    restored = trash.restore(ws, assistant_trash)
    assert restored.id == "a"
    assert any("duo" in p for p in ws.problems)


def test_restore_refuses_taken_id(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    trash_id = trash.delete(ws, "bob")
    os.mkdir(bob.dir)  # something took the id again (by hand)
    with pytest.raises(OkBotError):
        trash.restore(ws, trash_id)
    assert (ws.trash_root / trash_id / "bob" / "assistant.json").is_file()
    assert [e["id"] for e in trash.entries(ws)] == [trash_id]


def test_restore_unknown_trash_id(ws: Workspace) -> None:
    with pytest.raises(NotFound):
        trash.restore(ws, "nope")
    with pytest.raises(NotFound):
        trash.restore(ws, "../assistants")


def test_delete_unknown(ws: Workspace) -> None:
    with pytest.raises(NotFound):
        trash.delete(ws, "ghost")


def test_two_deletes_of_same_id_get_distinct_trash_ids(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    first = trash.delete(ws, "bob")
    os.rename(ws.trash_root / first / "bob", bob.dir)  # pretend it came back by hand
    (ws.trash_root / first / "bob").mkdir()
    second = trash.delete(ws, "bob")
    assert first != second
    assert len(trash.entries(ws)) == 2


def test_corrupt_squad_listed_and_skipped_by_delete(ws: Workspace) -> None:
    ws.create_assistant("a")
    ws.create_assistant("b")
    squad = ws.create_squad("S", [("a", ""), ("b", "")])
    (squad.dir / "squad.json").write_bytes(b"oops")
    assert [t.problem is not None for t in ws.squads()] == [True]
    trash.delete(ws, "a")  # must not crash on the unreadable squad
    assert (squad.dir / "squad.json").read_bytes() == b"oops"
    assert ws.squads_below_minimum() == []


@pytest.mark.parametrize("bad_id", ["../escape", "..", "", 7])
def test_restore_refuses_tampered_manifest(ws: Workspace, bad_id: object) -> None:
    ws.create_assistant("Bob")
    trash_id = trash.delete(ws, "bob")
    manifest_path = ws.trash_root / trash_id / "manifest.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    manifest["id"] = bad_id
    manifest_path.write_text(json.dumps(manifest), "utf-8")
    with pytest.raises(OkBotError):
        trash.restore(ws, trash_id)
    assert (ws.trash_root / trash_id / "bob" / "SOUL.md").is_file()
    assert not (ws.root / "escape").exists()


@pytest.mark.parametrize("bad_kind", ["robot", "Squad", "", None, 7])
def test_restore_refuses_a_hand_edited_kind_and_keeps_the_entry(ws: Workspace, bad_kind: object) -> None:
    ws.create_assistant("Bob")
    trash_id = trash.delete(ws, "bob")
    entry = ws.trash_root / trash_id
    manifest = json.loads((entry / "manifest.json").read_text("utf-8"))
    manifest["kind"] = bad_kind
    (entry / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    before = _tree(entry)
    with pytest.raises(OkBotError, match="no readable manifest") as raised:
        trash.restore(ws, trash_id)
    assert str(entry) in str(raised.value)
    assert _tree(entry) == before and ws.list() == []
    assert [e["id"] for e in trash.entries(ws)] == [trash_id]  # still listed, as it was written
    assert trash.entries(ws)[0]["kind"] == bad_kind
