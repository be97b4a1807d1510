"""Skills: ``skills/<name>/SKILL.md`` files an assistant loads on demand.

A SKILL.md starts with a small front matter block::

    ---
    name: pdf-forms
    description: Fill in PDF forms; use when the user sends a form to complete.
    ---

Only ``name`` and ``description`` matter (simple ``key: value`` lines, quotes optional; unknown
keys are ignored). The instructions list every valid skill's one-line description (the catalog);
the model reads a skill's whole text with the ``load_skill`` tool. Nothing here raises on a bad
file: a broken skill is listed with a ``problem`` and left out of the catalog.
"""

from __future__ import annotations

import codecs
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from okbot.core.tools import Tool, ToolContext, ToolOutcome
from okbot.i18n import translate
from okbot.storage import paths
from okbot.storage.atomic import atomic_write_bytes, fsync_dir
from okbot.storage.errors import OkBotError

MAX_SKILL_CHARS = 20_000
SKILL_FILE = "SKILL.md"
MAX_FRONT_MATTER_BYTES = 4096
HEAD_BYTES = 8192  # parse_skill reads only this much: the front matter must fit well inside it
CATALOG_DESCRIPTION_CHARS = 200
MAX_NAME_CHARS = 64
NO_SKILL_FILE = f"no {SKILL_FILE}"

_KEY_LINE = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$")
_NAME = re.compile(r"\w[\w.-]*")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {f"{p}{n}" for p in ("com", "lpt") for n in range(1, 10)}
_FALLBACK_TEMPLATE = "---\nname: {{name}}\ndescription: {{description}}\n---\n\n# {{name}}\n\nInstructions here.\n"


@dataclass(frozen=True)
class Skill:
    """One skill folder: its name (always the folder name), description, SKILL.md path, problem if unusable."""

    name: str
    description: str
    path: Path
    problem: str | None = None


# ---------------------------------------------------------------- parsing
def parse_skill(path: Path) -> Skill:
    """Read the front matter of one SKILL.md (its first 8 KB only). Never raises.

    Missing or invalid front matter, an unreadable file or bad UTF-8 give a Skill with ``problem``
    set; the name is always the folder name.
    """
    path = Path(path)
    folder = path.parent.name
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
            size = os.fstat(fh.fileno()).st_size
    except FileNotFoundError:
        return Skill(folder, "", path, NO_SKILL_FILE)
    except OSError as exc:
        return Skill(folder, "", path, f"cannot read the file ({exc.strerror or exc})")
    truncated = size > len(head)
    try:
        # A multi-byte character cut at the end of the head is not an error when more follows.
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=not truncated)
    except UnicodeDecodeError as exc:
        return Skill(folder, "", path, f"not valid UTF-8 text (bad byte at offset {exc.start})")
    fields, problem = _front_matter(text, truncated)
    name = fields.get("name")
    description = fields.get("description", "")
    if problem is None:
        problem = _field_problem(folder, name, fields)
    return Skill(folder, description.strip(), path, problem)


def _front_matter(text: str, truncated: bool) -> tuple[dict[str, str], str | None]:
    """The ``key: value`` fields of the front matter, and the first problem found (or None)."""
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return {}, "the file is empty (it must start with front matter: '---', name:, description:, '---')"
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return {}, "no front matter (the file must start with a '---' line, then name: and description: lines, '---')"
    searchable = lines[:-1] if truncated else lines  # the last line of a cut-off head may be partial
    end = next((i for i in range(1, len(searchable)) if searchable[i].rstrip() == "---"), None)
    if end is None:
        if truncated:
            return {}, f"front matter is over 4 KB (no closing '---' line in the first {HEAD_BYTES // 1024} KB)"
        return {}, "front matter has no closing '---' line"
    block = lines[1:end]
    size = len("\n".join(block).encode("utf-8"))
    if size > MAX_FRONT_MATTER_BYTES:
        return {}, f"front matter is over 4 KB ({size:,} bytes); keep it to name: and description:"
    fields: dict[str, str] = {}
    for number, raw in enumerate(block, start=2):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue  # blank lines and YAML comments
        match = _KEY_LINE.match(line)
        if match is None:
            hint = " (multi-line values are not supported)" if line[:1].isspace() else ""
            return fields, f"front matter line {number} is not 'key: value': {line.strip()[:60]!r}{hint}"
        key = match.group(1).lower()
        if key in fields:
            return fields, f"front matter has '{key}' twice (line {number})"
        fields[key] = _unquote((match.group(2) or "").strip())
    return fields, None


def _field_problem(folder: str, name: str | None, fields: dict[str, str]) -> str | None:
    if name is None:
        return "front matter has no name: line"
    if "description" not in fields:
        return "front matter has no description: line"
    if not name.strip():
        return "name is empty"
    if not fields["description"].strip():
        return "description is empty (say in one line what the skill does and when to use it)"
    if name.strip().casefold() != folder.casefold():
        return f"name '{name.strip()}' does not match the folder name '{folder}'"
    return None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r'\\(["\\])', r"\1", value[1:-1])
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def quote(value: str) -> str:
    """``value`` as a front matter value that reads back unchanged (double-quoted when YAML needs it)."""
    if value and (value[0] in "\"'&*!|>%@`#[]{},?:-" or ": " in value or " #" in value or value.endswith(":")):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def one_line(text: str, limit: int = CATALOG_DESCRIPTION_CHARS) -> str:
    """``text`` with whitespace collapsed, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# ---------------------------------------------------------------- the catalog
class SkillCatalog:
    """The skills of one assistant's ``skills/`` folder.

    The folder is re-listed on every call (one ``os.scandir``); each SKILL.md is parsed again only
    when its (mtime_ns, size) changed. A deleted folder simply disappears. ``parse_count`` counts
    the parses done (for tests and diagnostics). Thread-safe.
    """

    def __init__(self, directory: Path | None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.parse_count = 0
        self._cache: dict[str, tuple[tuple[int, int], Skill]] = {}
        self._lock = threading.Lock()

    def skills(self) -> list[Skill]:
        """Every ``skills/<name>/`` folder as a Skill (valid or with a problem), sorted by name."""
        if self.directory is None:
            return []
        with self._lock:
            found = [self._skill(folder) for folder in _folders(self.directory)]
            names = {s.name for s in found if s is not None}
            for stale in set(self._cache) - names:
                del self._cache[stale]
        return sorted((s for s in found if s is not None), key=lambda s: (s.name.casefold(), s.name))

    def catalog(self) -> list[tuple[str, str]]:
        """``(name, one-line description)`` of the valid skills, for the instructions' catalog block."""
        return [(s.name, one_line(s.description)) for s in self.skills() if s.problem is None]

    def problems(self) -> list[str]:
        """One line per skill with a problem, naming its file."""
        base = self.directory.name if self.directory is not None else "skills"
        return [
            f"{base}/{s.name}: {s.problem}"
            if s.problem == NO_SKILL_FILE or s.problem.startswith(NO_SKILL_FILE + " ")
            else f"{base}/{s.name}/{SKILL_FILE}: {s.problem}"
            for s in self.skills()
            if s.problem is not None
        ]

    def load(self, name: str) -> str:
        """The skill's whole SKILL.md text, cut at MAX_SKILL_CHARS with a note of the full size.

        OkBotError (naming the available skills) when the name is unknown, the skill has a problem,
        or its folder was deleted meanwhile.
        """
        return _read_bounded(self._find(name), self)

    def _find(self, name: str) -> Skill:
        if not isinstance(name, str) or not name.strip():
            raise OkBotError("A skill name is needed.", hint=self._available())
        key = name.strip()
        skills = self.skills()
        match = next((s for s in skills if s.name == key), None) or next(
            (s for s in skills if s.name.casefold() == key.casefold()), None
        )
        if match is None:
            raise OkBotError(f"No skill named '{key}'.", hint=self._available(skills))
        if match.problem is not None:
            raise OkBotError(f"Skill '{match.name}' cannot be used: {match.problem}.", hint=self._available(skills))
        return match

    def _available(self, skills: list[Skill] | None = None) -> str:
        valid = [s.name for s in (self.skills() if skills is None else skills) if s.problem is None]
        return "available skills: " + ", ".join(valid) if valid else "there are no skills"

    def _skill(self, folder: Path) -> Skill | None:
        """The (cached) Skill of one folder; None when the folder vanished meanwhile."""
        path = folder / SKILL_FILE
        try:
            st = os.stat(path)
        except OSError:
            self._cache.pop(folder.name, None)
            if not folder.is_dir():
                return None
            return Skill(folder.name, "", path, _missing_file_problem(folder))
        stamp = (st.st_mtime_ns, st.st_size)
        cached = self._cache.get(folder.name)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        skill = parse_skill(path)
        self.parse_count += 1
        if skill.problem == NO_SKILL_FILE:  # deleted between stat and read
            return None if not folder.is_dir() else skill
        self._cache[folder.name] = (stamp, skill)
        return skill


def _folders(directory: Path) -> list[Path]:
    """Visible subfolders of ``directory`` (hidden ones are staging leftovers); [] when it is missing."""
    try:
        with os.scandir(directory) as entries:
            return [Path(e.path) for e in entries if not e.name.startswith(".") and _is_dir(e)]
    except OSError:
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _missing_file_problem(folder: Path) -> str:
    try:
        with os.scandir(folder) as entries:
            near = next((e.name for e in entries if e.name.casefold() == SKILL_FILE.casefold()), None)
    except OSError:
        near = None
    return f"{NO_SKILL_FILE} (found {near}; rename it to {SKILL_FILE})" if near else NO_SKILL_FILE


def _read_bounded(skill: Skill, catalog: SkillCatalog) -> str:
    """At most MAX_SKILL_CHARS characters of the skill (never the whole of a huge file), with a size note."""
    try:
        with open(skill.path, encoding="utf-8-sig") as fh:
            text = fh.read(MAX_SKILL_CHARS + 1)
            size = os.fstat(fh.fileno()).st_size
    except FileNotFoundError as exc:
        raise OkBotError(
            f"Skill '{skill.name}' is gone: its folder or {SKILL_FILE} was deleted.", hint=catalog._available()
        ) from exc
    except UnicodeDecodeError as exc:
        raise OkBotError(f"Skill '{skill.name}' cannot be used: {SKILL_FILE} is not valid UTF-8 text.") from exc
    except OSError as exc:
        raise OkBotError(f"Skill '{skill.name}' cannot be read ({exc.strerror or exc}).") from exc
    if len(text) <= MAX_SKILL_CHARS:
        return text
    return (
        text[:MAX_SKILL_CHARS] + f"\n\n[… skill cut here: showing the first {MAX_SKILL_CHARS:,} characters;"
        f" the whole {SKILL_FILE} is {size:,} bytes]"
    )


# ---------------------------------------------------------------- creating
def create_skill(directory: Path, name: str, description: str = "") -> Path:
    """Create ``directory/<name>/SKILL.md`` from the shipped template and return its path.

    OkBotError when ``name`` is not a valid folder name or is taken (case-insensitively). The
    folder appears complete or not at all (written in a hidden staging folder, then renamed).
    An empty ``description`` is left empty, so the skill shows a problem until it is described.
    """
    name = check_name(name)
    if not isinstance(description, str):
        raise OkBotError(translate("skills", "The skill description must be text."))
    description = " ".join(description.split())
    directory = Path(directory)
    final = directory / name
    if _taken(directory, name):
        raise OkBotError(
            translate("skills", "A skill named '{name}' already exists.").format(name=name), hint=str(final)
        )
    value = quote(description)
    text = _template().replace("{{name}}", name)
    text = text.replace(": {{description}}", f": {value}" if value else ":").replace("{{description}}", value)
    paths.ensure_private_dir(directory)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".new", dir=directory))
    try:
        atomic_write_bytes(staging / SKILL_FILE, text.encode("utf-8"))
        if _taken(directory, name):  # someone else was quicker
            raise OkBotError(
                translate("skills", "A skill named '{name}' already exists.").format(name=name), hint=str(final)
            )
        os.rename(staging, final)
    except BaseException:
        for leftover in (staging / SKILL_FILE, staging):
            try:
                leftover.rmdir() if leftover == staging else leftover.unlink()
            except OSError:
                pass
        raise
    fsync_dir(directory)
    return final / SKILL_FILE


def check_name(name: Any) -> str:
    rules = translate(
        "skills", "use letters, digits, '-', '_' or '.', at most {n} characters, not starting with '.'"
    ).format(n=MAX_NAME_CHARS)
    if not isinstance(name, str) or not name.strip():
        raise OkBotError(translate("skills", "A skill name is needed."), hint=rules)
    bad = (
        not _NAME.fullmatch(name)
        or len(name) > MAX_NAME_CHARS
        or name.endswith(".")
        or name.split(".")[0].casefold() in _WINDOWS_RESERVED
    )
    if bad:
        raise OkBotError(translate("skills", "'{name}' is not a valid skill name.").format(name=name), hint=rules)
    return name


def _taken(directory: Path, name: str) -> bool:
    try:
        with os.scandir(directory) as entries:
            return any(e.name.casefold() == name.casefold() for e in entries)
    except OSError:
        return False


def _template() -> str:
    try:
        return paths.resource("skill_template", SKILL_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):  # a broken install still creates a usable skill
        return _FALLBACK_TEMPLATE


# ---------------------------------------------------------------- the load_skill tool
def _run_load_skill(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    name = args.get("name")
    if not isinstance(name, str) or not name.strip():
        return ToolOutcome("load_skill needs a 'name' string: one of the skills listed in the instructions.", ok=False)
    directory = ctx.target.skills_dir
    if directory is None:
        return ToolOutcome("load_skill: this chat has no skills (skills belong to assistants).", ok=False)
    catalog = SkillCatalog(directory)
    try:
        skill = catalog._find(name)
        text = _read_bounded(skill, catalog)
    except OkBotError as exc:
        return ToolOutcome(f"load_skill: {exc}", ok=False)
    return ToolOutcome(f"Skill '{skill.name}' ({directory.name}/{skill.name}/{SKILL_FILE}):\n{text}")


LOAD_SKILL = Tool(
    name="load_skill",
    note="load a skill's full instructions by name (the Skills block lists each one and when to use it)",
    parameters={
        "type": "object",
        "properties": {"name": {"type": "string", "description": "the skill's name as listed"}},
        "required": ["name"],
    },
    run=_run_load_skill,
    approval_key=None,
)
