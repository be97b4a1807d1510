"""Skills: SKILL.md front matter parsing, the catalog (cached, re-listed), bounded load, create, load_skill tool."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from okbot.core.skills import (
    LOAD_SKILL,
    MAX_SKILL_CHARS,
    SkillCatalog,
    create_skill,
    parse_skill,
)
from okbot.core.tools import ToolContext
from okbot.core.workspace import Workspace
from okbot.storage import paths
from okbot.storage.errors import OkBotError

GOOD = "---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo the thing step by step.\n"


def write_skill(root: Path, folder: str, text: str | bytes | None = None, *, description: str = "Use for X.") -> Path:
    """skills/<folder>/SKILL.md with ``text`` (a valid one by default)."""
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if text is None:
        text = GOOD.format(name=folder, description=description)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    return tmp_path / "skills"


# ------------------------------------------------------------------ parse_skill: good input
def test_parses_name_and_description(skills_dir: Path) -> None:
    skill = parse_skill(write_skill(skills_dir, "pdf-tools", description="Fill and merge PDF forms."))
    assert (skill.name, skill.description, skill.problem) == ("pdf-tools", "Fill and merge PDF forms.", None)
    assert skill.path == skills_dir / "pdf-tools" / "SKILL.md"


def test_quotes_unknown_keys_comments_crlf_bom_and_case_insensitive_name(skills_dir: Path) -> None:
    text = "\ufeff---\r\nName-ignored: 1\r\nname: 'Report'\r\n# a comment\r\n\r\nlicense: MIT\r\n"
    text += 'description: "Write: the weekly report"\r\n---  \r\nbody\r\n'
    skill = parse_skill(write_skill(skills_dir, "report", text))
    assert skill.problem is None
    assert (skill.name, skill.description) == ("report", "Write: the weekly report")


def test_value_without_space_after_colon_is_accepted(skills_dir: Path) -> None:
    skill = parse_skill(write_skill(skills_dir, "tight", "---\nname:tight\ndescription:See http://x.org\n---\n"))
    assert (skill.problem, skill.description) == (None, "See http://x.org")


# ------------------------------------------------------------------ parse_skill: bad input
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# Just a title\n\nNo front matter here.\n", "no front matter"),
        ("", "empty"),
        ("---\nname: x\ndescription: y\n\nbody without a closing line\n", "no closing '---'"),
        ("---\nname: x\nthis line has no colon\ndescription: y\n---\n", "line 3"),
        ("---\nname: x\ndescription:\n---\nbody\n", "description is empty"),
        ("---\nname: x\ndescription: '  '\n---\nbody\n", "description is empty"),
        ("---\nname: x\n---\nbody\n", "no description"),
        ("---\ndescription: y\n---\nbody\n", "no name"),
        ("---\nname: x\nname: x\ndescription: y\n---\n", "twice"),
        ("---\nname: x\ndescription: >\n  folded\n---\n", "line 4"),
    ],
)
def test_bad_front_matter_is_a_problem_and_name_falls_back_to_folder(
    skills_dir: Path, text: str, expected: str
) -> None:
    skill = parse_skill(write_skill(skills_dir, "x", text))
    assert skill.name == "x"
    assert skill.problem is not None and expected in skill.problem, skill.problem


def test_name_not_matching_folder_is_a_problem_but_keeps_folder_name(skills_dir: Path) -> None:
    skill = parse_skill(write_skill(skills_dir, "alpha", GOOD.format(name="beta", description="d")))
    assert skill.name == "alpha"
    assert skill.problem is not None and "'beta'" in skill.problem and "'alpha'" in skill.problem


def test_huge_front_matter_is_a_problem(skills_dir: Path) -> None:
    filler = "".join(f"key{i}: {'v' * 60}\n" for i in range(80))  # ~5.5 KB, then closed
    closed = parse_skill(write_skill(skills_dir, "a", f"---\nname: a\ndescription: d\n{filler}---\nbody\n"))
    assert closed.problem is not None and "4 KB" in closed.problem
    endless = "---\nname: b\ndescription: d\n" + "k: v\n" * 100_000  # never closed, 500 KB
    never = parse_skill(write_skill(skills_dir, "b", endless))
    assert never.problem is not None and "4 KB" in never.problem


def test_bad_utf8_is_a_problem(skills_dir: Path) -> None:
    skill = parse_skill(write_skill(skills_dir, "bin", b"---\nname: bin\ndescription: caf\xe9\n---\n"))
    assert skill.problem is not None and "UTF-8" in skill.problem
    assert skill.name == "bin"


def test_multibyte_character_cut_at_read_boundary_is_fine(skills_dir: Path) -> None:
    # The front matter is read from the first 8 KB only: a character split there is not "bad UTF-8".
    text = GOOD.format(name="e", description="é") + "é" * 10_000
    assert parse_skill(write_skill(skills_dir, "e", text)).problem is None


def test_unreadable_file_is_a_problem(skills_dir: Path) -> None:
    path = write_skill(skills_dir, "locked")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running with privileges that ignore file permissions (root)")
        skill = parse_skill(path)
        assert skill.name == "locked" and skill.problem is not None and "cannot read" in skill.problem
        with pytest.raises(OkBotError):
            SkillCatalog(skills_dir).load("locked")
    finally:
        path.chmod(0o600)


def test_missing_file_and_directory_in_place_of_file_never_raise(skills_dir: Path) -> None:
    missing = parse_skill(skills_dir / "gone" / "SKILL.md")
    assert missing.name == "gone" and missing.problem is not None
    (skills_dir / "dir" / "SKILL.md").mkdir(parents=True)  # unreadable as a file, even for root
    skill = parse_skill(skills_dir / "dir" / "SKILL.md")
    assert skill.name == "dir" and skill.problem is not None and "cannot read" in skill.problem


# ------------------------------------------------------------------ SkillCatalog
def test_missing_or_none_directory_is_empty(tmp_path: Path) -> None:
    for catalog in (SkillCatalog(None), SkillCatalog(tmp_path / "nope")):
        assert catalog.skills() == [] and catalog.catalog() == [] and catalog.problems() == []
        with pytest.raises(OkBotError, match="no skills"):
            catalog.load("x")


def test_lists_sorted_valid_ones_in_catalog_problems_one_line_each(skills_dir: Path) -> None:
    write_skill(skills_dir, "zeta")
    write_skill(skills_dir, "Alpha", GOOD.format(name="alpha", description="First."))
    write_skill(skills_dir, "broken", "no front matter\n")
    (skills_dir / "empty").mkdir()
    (skills_dir / ".staging").mkdir()  # hidden: ignored
    (skills_dir / "README.md").write_text("not a skill folder")
    catalog = SkillCatalog(skills_dir)
    assert [s.name for s in catalog.skills()] == ["Alpha", "broken", "empty", "zeta"]
    assert catalog.catalog() == [("Alpha", "First."), ("zeta", "Use for X.")]
    problems = catalog.problems()
    assert len(problems) == 2 and all("\n" not in p for p in problems)
    assert problems[0].startswith("skills/broken/SKILL.md: no front matter")
    assert problems[1] == "skills/empty: no SKILL.md"


def test_folder_with_lowercase_skill_md_gets_a_hint(skills_dir: Path) -> None:
    (skills_dir / "x").mkdir(parents=True)
    (skills_dir / "x" / "skill.md").write_text(GOOD.format(name="x", description="d"))
    [skill] = SkillCatalog(skills_dir).skills()
    if (skills_dir / "x" / "SKILL.md").exists():
        pytest.skip("case-insensitive filesystem")
    assert skill.problem is not None and "skill.md" in skill.problem and "SKILL.md" in skill.problem


def test_catalog_descriptions_are_one_line_and_capped(skills_dir: Path) -> None:
    write_skill(skills_dir, "long", description="word\tspaced   " + "y" * 400)
    [(name, description)] = SkillCatalog(skills_dir).catalog()
    assert name == "long" and "\t" not in description and "  " not in description
    assert len(description) == 200 and description.endswith("…") and description.startswith("word spaced y")


def test_cache_reparses_only_changed_files_and_follows_deletes(skills_dir: Path) -> None:
    a = write_skill(skills_dir, "a", description="old")
    write_skill(skills_dir, "b")
    catalog = SkillCatalog(skills_dir)
    first = {s.name: s for s in catalog.skills()}
    assert catalog.parse_count == 2
    again = {s.name: s for s in catalog.skills()}
    assert catalog.parse_count == 2 and again["a"] is first["a"]  # unchanged: served from the cache
    a.write_text(GOOD.format(name="a", description="new and longer"))
    assert dict(catalog.catalog())["a"] == "new and longer"
    assert catalog.parse_count == 3
    (skills_dir / "b" / "SKILL.md").unlink()
    (skills_dir / "b").rmdir()
    assert [s.name for s in catalog.skills()] == ["a"]
    assert catalog.parse_count == 3
    write_skill(skills_dir, "c")
    assert [s.name for s in catalog.skills()] == ["a", "c"]


def test_skills_dir_deleted_entirely_is_just_empty(skills_dir: Path) -> None:
    path = write_skill(skills_dir, "a")
    catalog = SkillCatalog(skills_dir)
    assert len(catalog.skills()) == 1
    path.unlink()
    path.parent.rmdir()
    skills_dir.rmdir()
    assert catalog.skills() == [] and catalog.problems() == []


# ------------------------------------------------------------------ load
def test_load_returns_full_text_case_insensitively(skills_dir: Path) -> None:
    path = write_skill(skills_dir, "pdf-tools")
    catalog = SkillCatalog(skills_dir)
    assert catalog.load("pdf-tools") == path.read_text()
    assert catalog.load(" PDF-Tools ") == path.read_text()


def test_load_unknown_names_available_skills(skills_dir: Path) -> None:
    write_skill(skills_dir, "one")
    write_skill(skills_dir, "two")
    with pytest.raises(OkBotError) as err:
        SkillCatalog(skills_dir).load("three")
    assert "three" in str(err.value) and "one, two" in str(err.value)


def test_load_of_a_skill_with_a_problem_says_the_problem(skills_dir: Path) -> None:
    write_skill(skills_dir, "bad", "no front matter\n")
    write_skill(skills_dir, "good")
    with pytest.raises(OkBotError) as err:
        SkillCatalog(skills_dir).load("bad")
    assert "no front matter" in str(err.value) and "good" in str(err.value)


def test_folder_deleted_between_listing_and_load(skills_dir: Path) -> None:
    path = write_skill(skills_dir, "temp")
    write_skill(skills_dir, "stays")
    catalog = SkillCatalog(skills_dir)
    assert len(catalog.catalog()) == 2
    path.unlink()
    path.parent.rmdir()
    with pytest.raises(OkBotError) as err:
        catalog.load("temp")
    assert "temp" in str(err.value) and "stays" in str(err.value)


def test_bad_utf8_in_the_body_is_refused_on_load(skills_dir: Path) -> None:
    head = GOOD.format(name="late", description="d").encode()
    write_skill(skills_dir, "late", head + b"x" * 9000 + b"\xff\xfe tail\n")
    catalog = SkillCatalog(skills_dir)
    assert catalog.catalog() == [("late", "d")]  # the header (first 8 KB) is fine
    with pytest.raises(OkBotError, match="UTF-8"):
        catalog.load("late")


def test_load_of_a_5mb_skill_is_bounded_and_reports_the_full_size(skills_dir: Path) -> None:
    head = GOOD.format(name="big", description="Huge.")
    body = ("lorem ipsum dolor sit amet " * 40 + "\n") * 4900
    path = write_skill(skills_dir, "big", head + body)
    size = path.stat().st_size
    assert size > 5_000_000
    text = SkillCatalog(skills_dir).load("big")
    assert len(text) < MAX_SKILL_CHARS + 300
    assert text.startswith(head)
    assert f"{size:,} bytes" in text and f"{MAX_SKILL_CHARS:,}" in text


def test_load_exactly_at_the_limit_is_not_truncated(skills_dir: Path) -> None:
    head = GOOD.format(name="edge", description="d")
    text = head + "z" * (MAX_SKILL_CHARS - len(head))
    write_skill(skills_dir, "edge", text)
    assert SkillCatalog(skills_dir).load("edge") == text


# ------------------------------------------------------------------ create_skill
def test_create_skill_from_template_is_valid_and_loadable(skills_dir: Path) -> None:
    path = create_skill(skills_dir, "weekly-report", "Write the weekly report\nfrom my notes.")
    assert path == skills_dir / "weekly-report" / "SKILL.md"
    skill = parse_skill(path)
    assert skill.problem is None
    assert (skill.name, skill.description) == ("weekly-report", "Write the weekly report from my notes.")
    assert "{{" not in path.read_text()
    assert SkillCatalog(skills_dir).catalog() == [("weekly-report", "Write the weekly report from my notes.")]


def test_create_skill_round_trips_awkward_descriptions(skills_dir: Path) -> None:
    for i, description in enumerate(['"quoted"', "'single'", "a: b # c", "ünïcödé —"]):
        skill = parse_skill(create_skill(skills_dir, f"s{i}", description))
        assert (skill.problem, skill.description) == (None, description)


def test_create_skill_without_description_asks_for_one(skills_dir: Path) -> None:
    skill = parse_skill(create_skill(skills_dir, "todo"))
    assert skill.problem is not None and "description is empty" in skill.problem


def test_template_ships_with_front_matter() -> None:
    text = paths.resource("skill_template", "SKILL.md").read_text(encoding="utf-8")
    assert text.startswith("---\n") and "name: {{name}}" in text and "description: {{description}}" in text


@pytest.mark.parametrize("taken", ["report", "REPORT"])
def test_create_skill_with_a_taken_name_is_refused_and_loses_nothing(skills_dir: Path, taken: str) -> None:
    path = write_skill(skills_dir, "report", description="mine")
    before = path.read_bytes()
    with pytest.raises(OkBotError, match="already"):
        create_skill(skills_dir, taken, "other")
    assert path.read_bytes() == before
    assert sorted(p.name for p in skills_dir.iterdir()) == ["report"]


@pytest.mark.parametrize("name", ["../x", "a/b", "", " ", "a\\b", ".", "..", ".hidden", "con", "x" * 65, "a\nb", "a:b"])
def test_create_skill_with_an_invalid_name_is_refused(tmp_path: Path, skills_dir: Path, name: str) -> None:
    with pytest.raises(OkBotError, match="skill name"):
        create_skill(skills_dir, name)
    assert not (tmp_path / "x").exists()
    assert not skills_dir.exists() or list(skills_dir.iterdir()) == []


# ------------------------------------------------------------------ load_skill tool
def tool_ctx() -> ToolContext:
    return ToolContext(target=Workspace().ensure_default(), session=None)


def test_tool_declaration() -> None:
    assert LOAD_SKILL.name == "load_skill" and LOAD_SKILL.approval_key is None
    assert "\n" not in LOAD_SKILL.note
    assert LOAD_SKILL.parameters["required"] == ["name"]


def test_tool_loads_with_a_one_line_header() -> None:
    ctx = tool_ctx()
    path = create_skill(ctx.target.skills_dir, "greet", "Greet people.")
    out = LOAD_SKILL.run({"name": "greet"}, ctx)
    assert out.ok
    header, rest = out.content.split("\n", 1)
    assert "greet" in header
    assert rest == path.read_text()


def test_tool_unknown_name_lists_available() -> None:
    ctx = tool_ctx()
    create_skill(ctx.target.skills_dir, "greet", "Greet people.")
    out = LOAD_SKILL.run({"name": "nope"}, ctx)
    assert not out.ok and "nope" in out.content and "greet" in out.content


@pytest.mark.parametrize("args", [{}, {"name": ""}, {"name": 3}, {"name": ["a"]}])
def test_tool_bad_arguments(args: dict) -> None:
    out = LOAD_SKILL.run(args, tool_ctx())
    assert not out.ok and "name" in out.content


def test_tool_for_a_squad_has_no_skills() -> None:
    workspace = Workspace()
    a = workspace.ensure_default()
    b = workspace.create_assistant("Second")
    squad = workspace.create_squad("Team", [(a.id, "lead"), (b.id, "helper")])
    out = LOAD_SKILL.run({"name": "x"}, ToolContext(target=squad, session=None))
    assert not out.ok and "no skills" in out.content
