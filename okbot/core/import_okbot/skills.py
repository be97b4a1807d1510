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
    _make_loadable(dest / SKILL_FILE, slug, notes)
    problem = parse_skill(dest / SKILL_FILE).problem
    if problem:
        notes.append(translate("import_okbot", "skill {name}: {problem}").format(name=slug, problem=problem))
    return True


_TITLE = re.compile(r"^#[ \t]+(.+)$", re.MULTILINE)
# parse.ts parseSkillMarkdown: the front matter block, then a name: and a description: line anywhere in it
_FRONT = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n(.*)\Z", re.DOTALL)
_FIELD = re.compile(r"^(name|description)[ \t]*:[ \t]*(.*)$", re.MULTILINE)


def _unquote(value: str) -> str:
    """parse.ts ``unquoteYamlScalar``: one pair of surrounding quotes off."""
    value = value.strip()
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" else value


def _make_loadable(path: Path, slug: str, notes: list[str]) -> None:
    """Give a copied SKILL.md that the original loads but this app's loader refuses the front matter it needs.

    The original reads any SKILL.md (``parse.ts`` ``parseSkillMarkdown``): without front matter the folder
    is its name and the first ``# title`` its description; with one, a missing name is the folder's, a
    missing description the name, and a name unlike the folder is shown as it is (its own writer,
    ``formatSkillMarkdown``, writes ``okbot-Release Notes`` into ``okbot-release-notes/``). Here the name
    must be the folder's and a description is needed, so those two lines are written so; the rest of the
    front matter and the text below it stay as they were.
    """
    if parse_skill(path).problem is None:
        return
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return  # not copied, or not text: the loader's own problem names it
    match = _FRONT.match(text)
    if match is None:
        if text.split("\n", 1)[0].rstrip() == "---":
            return  # a block the original does not read either (no closing line): left for the loader to name
        title = _TITLE.search(text)
        name, description = slug, title.group(1) if title else slug
        rest, body = [], text
        note = translate(
            "import_okbot",
            "skill {name} had no front matter; its name (the folder) and description (its title) were added",
        )
    else:
        fields: dict[str, str] = {}
        for key, value in _FIELD.findall(match.group(1)):
            fields.setdefault(key, _unquote(value))
        name = fields.get("name") or slug
        description = fields.get("description") or name
        rest = [line for line in match.group(1).splitlines() if not _FIELD.match(line)]
        body = match.group(2)
        note = translate(
            "import_okbot",
            "skill {name}: its front matter was completed (name {original}, which must be the folder's here)",
        )
    head = ["---", f"name: {quote(slug)}", f"description: {quote(' '.join(description.split()))}", *rest, "---"]
    atomic_write_bytes(path, ("\n".join(head) + "\n" + ("\n" if match is None else "") + body).encode("utf-8"))
    notes.append(note.format(name=slug, original=repr(name)))


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
