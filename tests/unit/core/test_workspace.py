"""Tests for okbot.core.workspace: assistants, squads, ids and lenient SOUL.md reading."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from okbot.core import trash
from okbot.core.kind import Kind
from okbot.core.workspace import (
    DEFAULT_CAPTAIN,
    Target,
    Workspace,
    read_soul,
    slugify,
    unique_id,
)
from okbot.storage import paths
from okbot.storage.errors import NotFound, OkBotError


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws")


# ------------------------------------------------------------------ default
def test_default_created_once_from_templates(ws: Workspace) -> None:
    first = ws.ensure_default()
    second = ws.ensure_default()
    assert first.id == second.id == "okbot"
    assert first.name == "OkBot"
    assert len(ws.assistants()) == 1
    template_soul = paths.resource("templates", "SOUL.md").read_bytes()
    assert first.soul_path.read_bytes() == template_soul
    template = json.loads(paths.resource("templates", "assistant.json").read_text("utf-8"))
    assert first.role_line == template["role"]
    meta = json.loads((first.dir / "assistant.json").read_text("utf-8"))
    assert meta["version"] == 1 and meta["id"] == "okbot" and meta["model"] is None
    assert meta["toolPolicy"] == {} and meta["createdAt"].endswith("Z")
    assert first.memory_dir.is_dir() and first.skills_dir.is_dir()


def test_default_returns_first_existing_assistant(ws: Workspace) -> None:
    ws.create_assistant("Zed")
    ws.create_assistant("alpha")
    assert ws.ensure_default().name == "alpha"
    assert len(ws.assistants()) == 2


def test_templates_are_sane() -> None:
    soul = paths.resource("templates", "SOUL.md").read_text("utf-8")
    assert 8 <= len(soul.splitlines()) <= 25
    assert "20" not in soul  # no timestamps or years
    template = json.loads(paths.resource("templates", "assistant.json").read_text("utf-8"))
    assert template["name"] == "OkBot" and template["version"] == 1


def test_default_workspace_uses_paths_module(okbot_home: Path) -> None:
    target = Workspace().ensure_default()
    assert target.dir == okbot_home / "assistants" / "okbot"
    assert target.dir.parent == paths.assistants_dir()


def test_private_dir_modes(ws: Workspace) -> None:
    if os.name != "posix":
        pytest.skip("POSIX modes only")
    target = ws.create_assistant("Bob")
    for d in (ws.assistants_root, target.dir, target.memory_dir, target.skills_dir):
        assert stat.S_IMODE(d.stat().st_mode) & 0o077 == 0


# --------------------------------------------------------- create/list/resolve
def test_create_list_and_resolve(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob", role="Writes code", model="gpt-4o-mini", soul_text="be terse\n")
    ann = ws.create_assistant("ann")
    assert bob.id == "bob" and bob.kind == "assistant"
    assert bob.soul_path.read_text("utf-8") == "be terse\n"
    assert bob.meta["model"] == "gpt-4o-mini" and bob.role_line == "Writes code"
    assert [t.name for t in ws.list()] == ["ann", "Bob"]
    assert ws.resolve("bob").id == "bob"
    assert ws.resolve("BOB").id == "bob"
    assert ws.resolve("  Ann ").id == ann.id
    assert ws.problems == []


def test_assistants_then_squads_sorted(ws: Workspace) -> None:
    ws.create_assistant("b")
    ws.create_assistant("A")
    ws.create_squad("zz", [("a", ""), ("b", "")])
    ws.create_squad("Aa", [("a", ""), ("b", "")])
    assert [(t.kind, t.name) for t in ws.list()] == [
        ("assistant", "A"),
        ("assistant", "b"),
        ("squad", "Aa"),
        ("squad", "zz"),
    ]


def test_resolve_exact_id_beats_name(ws: Workspace) -> None:
    first = ws.create_assistant("x")  # id x
    other = ws.create_assistant("y")
    ws.rename("y", "x-other")
    ws.rename(other.id, "X")  # name X collides with id "x" case-insensitively
    assert ws.resolve("x").id == first.id


def test_resolve_unknown_lists_close_matches(ws: Workspace) -> None:
    ws.create_assistant("Researcher")
    with pytest.raises(NotFound) as info:
        ws.resolve("researchr")
    assert "researchr" in str(info.value)
    assert "Researcher" in str(info.value)


def test_resolve_empty_ref(ws: Workspace) -> None:
    with pytest.raises(NotFound):
        ws.resolve("   ")


def test_ambiguous_name_lists_ids(ws: Workspace) -> None:
    a = ws.create_assistant("Helper")
    b = ws.create_assistant("helper")
    assert a.id == "helper" and b.id == "helper-2"
    ws.rename("helper-2", "Twin")
    ws.rename("helper", "Twin")
    with pytest.raises(OkBotError) as info:
        ws.resolve("twin")
    assert not isinstance(info.value, NotFound)
    assert "helper" in str(info.value) and "helper-2" in str(info.value)
    assert ws.resolve("helper-2").id == "helper-2"


# ------------------------------------------------------------------ odd names
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a/b\\c", "a-b-c"),
        ("..", "assistant"),
        ("../../etc/passwd", "etc-passwd"),
        ("🤖🤖", "assistant"),
        ("助手", "assistant-e5ce5f"),  # a digest of the name: two such names, two ids
        ("Café Über", "cafe-uber"),
        ('He said "hi"', "he-said-hi"),
        ("مساعد", "assistant-2c3461"),
        ("CON", "con-2"),
    ],
)
def test_odd_names_give_safe_ids(ws: Workspace, name: str, expected: str) -> None:
    target = ws.create_assistant(name)
    assert target.id == expected
    assert re.fullmatch(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?", target.id)
    assert target.dir.parent == ws.assistants_root
    assert target.name == name
    assert ws.resolve(name).id == target.id
    stored = json.loads((target.dir / "assistant.json").read_text("utf-8"))
    assert stored["name"] == name


def test_long_names(ws: Workspace) -> None:
    target = ws.create_assistant("a" * 200)
    assert target.id == "a" * 40
    with pytest.raises(OkBotError):
        ws.create_assistant("b" * 300)
    assert [t.id for t in ws.assistants()] == ["a" * 40]


@pytest.mark.parametrize("bad", ["", "   ", "\t\n", "line\nbreak", "nul\x00", None, 42])
def test_bad_names_rejected_and_nothing_created(ws: Workspace, bad: object) -> None:
    with pytest.raises(OkBotError):
        ws.create_assistant(bad)  # type: ignore[arg-type]
    assert ws.assistants() == []
    assert not ws.assistants_root.exists() or not any(ws.assistants_root.iterdir())


def test_bad_model_rejected(ws: Workspace) -> None:
    with pytest.raises(OkBotError):
        ws.create_assistant("m", model="  ")
    assert ws.assistants() == []


def test_id_clashes_across_kinds_and_trash(ws: Workspace) -> None:
    ws.create_assistant("Team")
    ws.create_assistant("Other")
    squad = ws.create_squad("team", [("Team", ""), ("Other", "")])
    assert squad.id == "team-2"
    trash.delete(ws, "team-2")
    again = ws.create_assistant("Team!")
    assert again.id == "team-3"  # team-2 is in the trash and stays restorable


def test_id_suffix_respects_max_length() -> None:
    base = "x" * 40
    assert unique_id(base, {base}) == "x" * 38 + "-2"
    assert unique_id("a", {"a", "a-2"}) == "a-3"
    assert slugify("--Hello,  World!--") == "hello-world"
    assert slugify("", fallback="squad") == "squad"


# ---------------------------------------------------------------------- squads
def test_create_squad(ws: Workspace) -> None:
    ws.create_assistant("Writer")
    ws.create_assistant("Critic")
    squad = ws.create_squad("Review Desk", [("writer", "drafts"), ("Critic", "reviews")], description="d")
    assert squad.kind == "squad" and squad.id == "review-desk"
    assert squad.members == [
        {"assistant": "writer", "role": "drafts"},
        {"assistant": "critic", "role": "reviews"},
    ]
    assert squad.soul_path is None and squad.memory_dir is None and squad.skills_dir is None
    assert squad.session_path == squad.dir / "session.jsonl"
    stored = json.loads((squad.dir / "squad.json").read_text("utf-8"))
    assert stored["captain"] == DEFAULT_CAPTAIN
    assert stored["description"] == "d" and stored["version"] == 1
    assert ws.resolve("review desk").kind == "squad"
    assert ws.assistants()[0].members == []


@pytest.mark.parametrize(
    "members",
    [
        [],
        [("writer", "")],
        [("writer", ""), ("writer", "again")],
        [("writer", ""), ("nobody", "")],
        [("writer", ""), ("squad-a", "")],
        [("writer",)],
    ],
)
def test_bad_squads_rejected(ws: Workspace, members: list) -> None:
    ws.create_assistant("Writer")
    ws.create_assistant("Critic")
    ws.create_squad("squad a", [("writer", ""), ("critic", "")])
    with pytest.raises(OkBotError):
        ws.create_squad("New", members)
    assert [t.id for t in ws.squads()] == ["squad-a"]


def test_unknown_member_error_names_it(ws: Workspace) -> None:
    ws.create_assistant("Writer")
    with pytest.raises(NotFound, match="ghost"):
        ws.create_squad("S", [("writer", ""), ("ghost", "")])


def test_create_squad_with_captain(ws: Workspace) -> None:
    ws.create_assistant("Writer")
    ws.create_assistant("Critic")
    squad = ws.create_squad("S", [("writer", ""), ("critic", "")], captain={"persona": " Calm lead \n"})
    assert squad.meta["captain"] == {**DEFAULT_CAPTAIN, "persona": "Calm lead"}
    with pytest.raises(OkBotError, match="Unknown captain"):
        ws.create_squad("T", [("writer", ""), ("critic", "")], captain={"mood": "x"})
    assert [t.id for t in ws.squads()] == ["s"]


# ---------------------------------------------------------------- update squad
@pytest.fixture
def desk(ws: Workspace) -> Target:
    for name in ("Writer", "Critic", "Editor"):
        ws.create_assistant(name)
    return ws.create_squad("Review Desk", [("writer", "drafts"), ("critic", "reviews")], description="d")


def test_update_squad_changes_only_what_is_given(ws: Workspace, desk: Target) -> None:
    (desk.dir / "session.jsonl").write_bytes(b'{"id":1}\n')
    updated = ws.update_squad("review desk", name=" Desk ", members=[("Editor", " edits "), ("writer", "drafts")])
    assert (updated.id, updated.name, updated.dir) == (desk.id, "Desk", desk.dir)
    assert updated.members == [{"assistant": "editor", "role": "edits"}, {"assistant": "writer", "role": "drafts"}]
    stored = json.loads(desk.meta_path.read_text("utf-8"))
    assert stored == {**desk.meta, "name": "Desk", "members": updated.members}  # description, captain, createdAt kept
    assert (desk.dir / "session.jsonl").read_bytes() == b'{"id":1}\n'
    assert json.loads((desk.dir / "squad.json.bak").read_text("utf-8")) == desk.meta  # atomic write with a backup

    ws.update_squad(desk.id, description="", captain={"playbook": "1. plan\n2. delegate", "maxMemberRounds": 3})
    captain = ws.resolve(desk.id).meta["captain"]
    assert captain == {**DEFAULT_CAPTAIN, "playbook": "1. plan\n2. delegate", "maxMemberRounds": 3}
    assert ws.resolve(desk.id).meta["description"] == ""
    ws.update_squad(desk.id, captain={"persona": "Calm"})  # merged: the playbook stays
    assert ws.resolve(desk.id).meta["captain"]["playbook"] == "1. plan\n2. delegate"


def test_update_squad_keeps_unknown_stored_fields(ws: Workspace, desk: Target) -> None:
    meta = {**desk.meta, "extra": [1], "captain": {**DEFAULT_CAPTAIN, "future": True}}
    desk.meta_path.write_text(json.dumps(meta), "utf-8")
    ws.update_squad(desk.id, captain={"persona": "p"})
    stored = json.loads(desk.meta_path.read_text("utf-8"))
    assert stored["extra"] == [1] and stored["captain"]["future"] is True and stored["captain"]["persona"] == "p"


@pytest.mark.parametrize(
    "change",
    [
        {"name": "  "},
        {"name": "a\nb"},
        {"name": 3},
        {"description": 5},
        {"members": []},
        {"members": [("writer", "")]},
        {"members": [("writer", ""), ("Writer", "again")]},
        {"members": [("writer", ""), ("ghost", "")]},
        {"members": [("writer", ""), ("review-desk", "")]},
        {"members": [("writer",), ("critic", "")]},
        {"captain": "x"},
        {"captain": {"mood": "x"}},
        {"captain": {"persona": 1}},
        {"captain": {"maxCaptainRounds": 0}},
        {"captain": {"maxMemberRounds": True}},
        {"name": "Fine", "members": [("writer", "")]},  # one bad field refuses the whole change
    ],
)
def test_update_squad_refuses_bad_input_and_changes_nothing(ws: Workspace, desk: Target, change: dict) -> None:
    before = desk.meta_path.read_bytes()
    with pytest.raises(OkBotError):
        ws.update_squad(desk.id, **change)
    assert desk.meta_path.read_bytes() == before
    assert not (desk.dir / "squad.json.bak").exists()


def test_update_squad_refuses_assistants_unknown_and_unreadable(ws: Workspace, desk: Target) -> None:
    with pytest.raises(OkBotError, match="not a squad"):
        ws.update_squad("writer", name="X")
    assert ws.resolve("writer").name == "Writer"
    with pytest.raises(NotFound):
        ws.update_squad("nobody", name="X")
    desk.meta_path.write_bytes(b"{broken")
    with pytest.raises(OkBotError, match="Cannot edit"):
        ws.update_squad(desk.id, name="X")
    assert desk.meta_path.read_bytes() == b"{broken"


# ---------------------------------------------------------------------- rename
def test_rename_keeps_id(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    renamed = ws.rename("bob", "Robert 🤖")
    assert renamed.id == bob.id and renamed.dir == bob.dir
    assert ws.resolve("robert 🤖").id == "bob"
    with pytest.raises(NotFound):
        ws.resolve("Bob")
    with pytest.raises(OkBotError):
        ws.rename("bob", " ")
    assert ws.resolve("bob").name == "Robert 🤖"


def test_rename_refuses_corrupt_json(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    (bob.dir / "assistant.json").write_bytes(b"{not json")
    with pytest.raises(OkBotError):
        ws.rename("bob", "New")
    assert (bob.dir / "assistant.json").read_bytes() == b"{not json"


def test_set_meta_changes_one_key_and_keeps_the_rest_as_on_disk(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob", role="Reviews code")
    on_disk = json.loads((bob.dir / "assistant.json").read_text("utf-8"))
    on_disk["custom"] = {"kept": [1, 2]}  # written by hand after bob was loaded
    (bob.dir / "assistant.json").write_text(json.dumps(on_disk), "utf-8")
    before = (bob.dir / "assistant.json").read_bytes()
    updated = ws.set_meta(bob, "evolution", False)
    written = json.loads((bob.dir / "assistant.json").read_text("utf-8"))
    assert written == {**on_disk, "evolution": False}
    assert updated.meta["evolution"] is False and updated.meta["custom"] == {"kept": [1, 2]}
    assert (bob.dir / "assistant.json.bak").read_bytes() == before
    assert not list(bob.dir.glob(".assistant.json.*.tmp"))
    assert ws.set_meta(updated, "evolution", True).meta["evolution"] is True
    with pytest.raises(ValueError):
        ws.set_meta(bob, "name", "Robert")


def test_set_meta_refuses_an_unreadable_file_and_a_newer_one(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    (bob.dir / "assistant.json").write_bytes(b"{not json")
    with pytest.raises(OkBotError, match="nothing was changed"):
        ws.set_meta(bob, "evolution", False)
    assert (bob.dir / "assistant.json").read_bytes() == b"{not json"
    newer = json.dumps({"version": 99, "name": "Bob"}).encode()
    (bob.dir / "assistant.json").write_bytes(newer)
    with pytest.raises(OkBotError):
        ws.set_meta(bob, "evolution", False)
    assert (bob.dir / "assistant.json").read_bytes() == newer


# ------------------------------------------------------------- corrupt files
@pytest.mark.parametrize("content", [b"{broken", b"[1, 2]", b"\xff\xfe", b'{"name": ""}', None])
def test_corrupt_assistant_json_listed_with_problem(ws: Workspace, content: bytes | None) -> None:
    ws.create_assistant("Good")
    bad = ws.create_assistant("Bad")
    if content is None:
        (bad.dir / "assistant.json").unlink()
    else:
        (bad.dir / "assistant.json").write_bytes(content)
    targets = ws.list()
    assert {t.id for t in targets} == {"good", "bad"}
    broken = next(t for t in targets if t.id == "bad")
    assert broken.name == "bad" and broken.problem
    assert len(ws.problems) == 1 and "bad" in ws.problems[0]
    assert bad.dir.is_dir() and (bad.dir / "SOUL.md").is_file()
    if content is not None:
        assert (bad.dir / "assistant.json").read_bytes() == content
    assert ws.resolve("bad").id == "bad"
    assert ws.ensure_default().id in {"good", "bad"}
    assert len(ws.assistants()) == 2


def test_hidden_and_stray_entries_ignored(ws: Workspace) -> None:
    ws.create_assistant("a")
    (ws.assistants_root / ".new-x-1234").mkdir()
    (ws.assistants_root / "stray.txt").write_text("x", "utf-8")
    assert [t.id for t in ws.assistants()] == ["a"]


# ------------------------------------------------------------------ read_soul
def test_read_soul_ok(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob", soul_text="\ufeffHello soul")
    assert read_soul(bob) == ("Hello soul", None)


def test_read_soul_missing(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    bob.soul_path.unlink()
    text, problem = read_soul(bob)
    assert text == "" and problem and "missing" in problem and "Bob" in problem


def test_read_soul_invalid_utf8(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    bob.soul_path.write_bytes(b"caf\xe9 ok")
    text, problem = read_soul(bob)
    assert text == "caf\ufffd ok"
    assert problem and "UTF-8" in problem


def test_read_soul_nul_bytes(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    bob.soul_path.write_bytes(b"a\x00b\x00")
    text, problem = read_soul(bob)
    assert text == "ab" and problem and "NUL" in problem


def test_read_soul_invalid_utf8_and_nul(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    bob.soul_path.write_bytes(b"\xff\x00x")
    text, problem = read_soul(bob)
    assert text == "\ufffdx" and "UTF-8" in problem and "NUL" in problem


def test_read_soul_permission_denied(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    bob.soul_path.chmod(0)
    try:
        if os.access(bob.soul_path, os.R_OK):
            pytest.skip("running with privileges that ignore file modes")
        text, problem = read_soul(bob)
        assert text == "" and problem and "cannot be read" in problem
    finally:
        bob.soul_path.chmod(0o600)


def test_read_soul_is_a_directory(ws: Workspace) -> None:
    bob = ws.create_assistant("Bob")
    bob.soul_path.unlink()
    bob.soul_path.mkdir()
    text, problem = read_soul(bob)
    assert text == "" and problem


def test_read_soul_squad_has_none(tmp_path: Path) -> None:
    squad = Target("squad", "s", "S", tmp_path, {})
    assert read_soul(squad) == ("", None)
    assert squad.role_line == ""


def test_several_workspaces_are_independent(tmp_path: Path) -> None:
    one, two = Workspace(tmp_path / "one"), Workspace(tmp_path / "two")
    one.create_assistant("Solo")
    assert two.list() == []
    assert two.ensure_default().id == "okbot"
    assert [t.id for t in one.list()] == ["solo"]


def test_slugify_gives_a_name_without_ascii_its_own_stable_id() -> None:
    first, second = slugify("小明"), slugify("小红")
    assert first.startswith("assistant-") and second.startswith("assistant-") and first != second
    assert slugify("小明") == first and slugify("开发小队", fallback="squad").startswith("squad-")
    assert slugify("   ", fallback="squad") == "squad"


def test_target_kind_is_a_kind_however_it_was_given(ws: Workspace, tmp_path: Path) -> None:
    bob = ws.create_assistant("Bob")
    ws.create_assistant("Ann")
    squad = ws.create_squad("Desk", [("bob", ""), ("ann", "")])
    assert bob.kind is Kind.ASSISTANT and bob.is_assistant and not bob.is_squad
    assert squad.kind is Kind.SQUAD and squad.is_squad and not squad.is_assistant
    assert [t.kind for t in ws.list()] == [Kind.ASSISTANT, Kind.ASSISTANT, Kind.SQUAD]
    assert ws.load("squad", squad.dir)[0].kind is Kind.SQUAD
    assert Target("assistant", "a", "A", tmp_path).kind is Kind.ASSISTANT
    with pytest.raises(ValueError):
        Target("robot", "a", "A", tmp_path)


def test_target_kind_is_written_as_the_plain_string(ws: Workspace) -> None:
    squad_dir = ws.squads_root / "desk"
    squad_dir.mkdir(parents=True)
    (squad_dir / "squad.json").write_text('{"name": "Desk", "members": []}', "utf-8")
    (target,) = ws.squads()
    assert json.dumps({"kind": target.kind}) == '{"kind": "squad"}'
    assert f"{target.id} ({target.kind})" == "desk (squad)"
