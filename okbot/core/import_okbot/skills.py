"""The original's skills brought into an assistant's ``skills/``: its own, and the global ones it enables.

Its own are ``<bot>/skills/<slug>/SKILL.md``. Global skills are the Agent Skills in ``~/.agents/skills``
(``FileStorage.globalAgentsSkillsDir``); a bot uses one when its ``bot.json`` has ``useGlobalSkills`` on and
names the slug in ``enabledGlobalSkills``, and its own skill of the same slug wins
(``FileStorage.resolveEnabledSkill``, ``skills/catalog.ts``). Here an assistant has one ``skills/``
folder, so each global skill a bot uses is copied into it. Both are copied the same way: regular files
only (no link followed), each under :data:`MAX_SKILL_FILE_BYTES`, at most :data:`MAX_SKILL_FILES` per
skill and :data:`MAX_SKILL_DEPTH` folders deep; what is left out is named.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from okbot.core.import_okbot.records import text_of
from okbot.core.import_okbot.source import SourceFolder, child, open_source, read_file
from okbot.core.local_tools.safe_open import PathChanged
from okbot.core.skills import SKILL_FILE, parse_skill, quote
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.storage.atomic import atomic_write_bytes
from okbot.storage.paths import ensure_private_dir

MAX_SKILL_FILE_BYTES = 4 * 1024 * 1024
MAX_SKILL_FILES = 200  # per skill folder
MAX_SKILL_DEPTH = 8  # folders inside a skill folder


def default_global_skills_dir() -> Path:
    """Where the original reads global skills: ``~/.agents/skills`` (``FileStorage.globalAgentsSkillsDir``)."""
    return Path.home() / ".agents" / "skills"


def open_global_skills(directory: Path) -> SourceFolder:
    """The global skills folder, reached without following links (one that holds nothing when it is not there)."""
    path = Path(directory).expanduser()
    try:
        return open_source(path.resolve()) if path.is_dir() else SourceFolder(None, str(path))
    except (OSError, PathChanged):
        return SourceFolder(None, str(path))


def import_skills(folder: SourceFolder, target: Target, notes: list[str]) -> int:
    """Copy the bot's own ``skills/<slug>/`` folders into ``target``'s skills; how many came over."""
    count = 0
    if target.skills_dir is None:
        return 0
    with child(folder, "skills", notes) as skills:
        for slug in skills.names():
            if slug.startswith("."):
                continue
            with child(skills, slug, notes) as skill:
                if skill.exists and _import_one(skill, slug, target.skills_dir, notes):
                    count += 1
    return count


def import_global_skills(root: SourceFolder, config: dict[str, Any], target: Target, notes: list[str]) -> int:
    """Copy the global skills ``config`` (the bot's ``bot.json``) enables into ``target``'s skills.

    A slug that is not in ``root`` (nor usable as a folder name) is named; one the bot has a skill of
    its own by is left alone, as the original lets its own win.
    """
    enabled = config.get("enabledGlobalSkills")
    if config.get("useGlobalSkills") is not True or not isinstance(enabled, list) or target.skills_dir is None:
        return 0
    count = 0
    for slug in dict.fromkeys(text_of(s) for s in enabled):
        if not slug:
            continue
        if _plain(slug) and (target.skills_dir / slug).exists():
            continue  # its own skill of that slug wins
        if not _plain(slug) or not root.kind(slug):  # a link or a file there: child() names why not
            text = translate("import_okbot", "global skill {name} is enabled but not found in {path}; not imported")
            notes.append(text.format(name=repr(slug)[:80], path=root.rel))
            continue
        with child(root, slug, notes) as skill:
            if skill.exists and _import_one(skill, slug, target.skills_dir, notes):
                text = translate("import_okbot", "global skill {name} (from {path}) came over into its skills")
                notes.append(text.format(name=slug, path=root.rel))
                count += 1
    return count


def _plain(slug: str) -> bool:
    """Whether ``slug`` can name one folder (no path in it, not hidden)."""
    return not slug.startswith(".") and not any(ch in "/\\\0" for ch in slug)


def _import_one(skill: SourceFolder, slug: str, skills_dir: Path, notes: list[str]) -> bool:
    """Copy one skill folder to ``skills_dir/<slug>``; False (and a note) when it has no SKILL.md."""
    kind = skill.kind(SKILL_FILE)
    if kind != "file":
        text = translate("import_okbot", "skill folder {name} has no SKILL.md; not imported")
        notes.append(str(skill.refusal(SKILL_FILE, kind)) if kind else text.format(name=slug))
        return False
    dest = skills_dir / slug
    _copy_skill(skill, dest, slug, notes, [MAX_SKILL_FILES], 0)
    _add_front_matter(dest / SKILL_FILE, slug, notes)
    problem = parse_skill(dest / SKILL_FILE).problem
    if problem:
        notes.append(translate("import_okbot", "skill {name}: {problem}").format(name=slug, problem=problem))
    return True


_TITLE = re.compile(r"^#[ \t]+(.+)$", re.MULTILINE)


def _add_front_matter(path: Path, slug: str, notes: list[str]) -> None:
    """Give a copied SKILL.md without front matter the one this app's loader needs.

    The original loads such a file (``parse.ts`` ``parseSkillMarkdown``): its name is the folder's,
    its description the first ``# title`` (or the name). The same two lines go in front here; the
    text stays as it was below them.
    """
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return  # not copied, or not text: the loader's own problem names it
    if text.split("\n", 1)[0].rstrip() == "---":
        return
    title = _TITLE.search(text)
    description = " ".join(title.group(1).split()) if title else slug
    head = f"---\nname: {quote(slug)}\ndescription: {quote(description)}\n---\n\n"
    atomic_write_bytes(path, (head + text).encode("utf-8"))
    note = translate("import_okbot", "skill {name} had no front matter; name and description were added from its title")
    notes.append(note.format(name=slug))


def _copy_skill(folder: SourceFolder, dest: Path, slug: str, notes: list[str], budget: list[int], depth: int) -> None:
    """Copy the regular files of a skill folder (links and odd files skipped and named, sizes bounded)."""
    for name in folder.names():
        kind = folder.kind(name)
        if kind == "dir" and depth < MAX_SKILL_DEPTH:
            with child(folder, name, notes) as sub:
                _copy_skill(sub, dest / name, slug, notes, budget, depth + 1)
            continue
        if kind == "file" and budget[0] <= 0:
            if budget[0] == 0:  # named once, at the first file left out
                text = translate("import_okbot", "skill {name}: more than {n} files; {file} and the rest not copied")
                notes.append(text.format(name=slug, n=MAX_SKILL_FILES, file=folder.label(name)))
                budget[0] = -1
            return
        if kind == "dir":
            text = translate("import_okbot", "skill {name}: {file} is nested too deeply; not copied")
            notes.append(text.format(name=slug, file=folder.label(name)))
            continue
        data = read_file(folder, name, MAX_SKILL_FILE_BYTES, notes)
        if data is None:
            continue
        budget[0] -= 1
        ensure_private_dir(dest)
        atomic_write_bytes(dest / name, data)
