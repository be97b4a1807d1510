"""Assistants and squads on disk: create, list, resolve, rename.

Layout (under the data dir, or under ``root`` when one is given)::

    assistants/<id>/assistant.json, SOUL.md, session.jsonl, session-summary.json, memory/, skills/
    squads/<id>/squad.json, session.jsonl, session-summary.json
    trash/  (deleted assistants and squads: see :mod:`okbot.core.trash`)

Ids are safe directory names derived from the free-text name, unique across assistants, squads
and the trash (so a restore never clashes). Nothing here deletes user data: a directory whose JSON
cannot be read is listed with a problem, never skipped or removed.
Versions follow :mod:`okbot.storage.migrations`: older JSON is migrated (old file kept as ``.v<N>.bak``);
a newer OkBot's is listed with a message, ``read_only``, and every edit raises NewerVersion.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okbot.config.mcp import assistant_servers
from okbot.core.items import now_iso
from okbot.core.kind import Kind
from okbot.core.record_fields import (  # noqa: F401 - MAX_NAME_CHARS is part of this module's API
    DEFAULT_CAPTAIN,
    MAX_NAME_CHARS,
    MIN_SQUAD_MEMBERS,
    check_captain,
    check_members,
    check_name,
    check_text,
    clean_members,
)
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage import migrations, paths
from okbot.storage.atomic import atomic_write_bytes, atomic_write_json, to_utf8
from okbot.storage.errors import NotFound, OkBotError

SCHEMA_VERSION = 1
MAX_ID_CHARS = 40
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {f"{p}{n}" for p in ("com", "lpt") for n in range(1, 10)}


@dataclass
class Target:
    """One assistant or squad: its id, display name, directory and parsed JSON.

    ``problem`` is set (and ``meta`` may be empty) when its JSON file is missing or unreadable;
    ``read_only`` says why it must not be edited (its file comes from a newer OkBot), else ``""``.
    """

    kind: Kind
    id: str
    name: str
    dir: Path
    meta: dict = field(default_factory=dict)
    problem: str | None = None
    read_only: str = ""

    def __post_init__(self) -> None:
        self.kind = Kind(self.kind)  # "squad" and Kind.SQUAD alike; anything else is a bug: ValueError

    @property
    def is_assistant(self) -> bool:
        return self.kind is Kind.ASSISTANT

    @property
    def is_squad(self) -> bool:
        return self.kind is Kind.SQUAD

    @property
    def meta_path(self) -> Path:
        """``assistant.json`` or ``squad.json``."""
        return self.dir / self.kind.meta_file

    @property
    def session_path(self) -> Path:
        return self.dir / "session.jsonl"

    @property
    def summary_path(self) -> Path:
        return self.dir / "session-summary.json"

    @property
    def soul_path(self) -> Path | None:
        """``SOUL.md`` for assistants; ``None`` for squads (a squad has no persona file)."""
        return self.dir / "SOUL.md" if self.is_assistant else None

    @property
    def memory_dir(self) -> Path | None:
        return self.dir / "memory" if self.is_assistant else None

    @property
    def skills_dir(self) -> Path | None:
        return self.dir / "skills" if self.is_assistant else None

    @property
    def role_line(self) -> str:
        """The assistant's one-line role (``""`` when absent or not text)."""
        role = self.meta.get("role")
        return role if isinstance(role, str) else ""

    @property
    def mcp_servers(self) -> tuple[str, ...]:
        """The MCP servers this assistant may use (``mcpServers`` in assistant.json); a squad's captain none."""
        return assistant_servers(self.meta) if self.is_assistant else ()

    @property
    def members(self) -> list[dict]:
        """Squad members as ``[{"assistant": id, "role": str}]``; ``[]`` for assistants."""
        if not self.is_squad:
            return []
        return clean_members(self.meta.get("members"))


def read_soul(target: Target) -> tuple[str, str | None]:
    """Read an assistant's SOUL.md leniently: ``(text, problem message or None)``, never raising.

    Missing/unreadable -> ``""`` and a message; invalid UTF-8 is decoded with replacement
    characters; NUL bytes are stripped. Squads have no SOUL.md: ``("", None)``.
    """
    path = target.soul_path
    if path is None:
        return "", None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return "", translate("workspace", "SOUL.md is missing for {name} ({path}); running without a persona.").format(
            name=target.name, path=path
        )
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        return "", translate("workspace", "SOUL.md for {name} cannot be read ({reason}): {path}").format(
            name=target.name, reason=reason, path=path
        )
    problems: list[str] = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8-sig", errors="replace")
        problems.append(
            translate(
                "workspace",
                "SOUL.md for {name} is not valid UTF-8 (first bad byte at offset {offset}); bad bytes shown as {mark}",
            ).format(name=target.name, offset=exc.start, mark="\ufffd")
        )
    if "\x00" in text:
        problems.append(
            translate("workspace", "SOUL.md for {name} contains {n} NUL byte(s); removed").format(
                name=target.name, n=text.count(chr(0))
            )
        )
        text = text.replace("\x00", "")
    return text, "; ".join(problems) or None


class Workspace:
    """The assistants and squads under one data root (and where its trash is: ``trash_root``).

    ``problems`` holds the messages of the last listing (unreadable JSON files), delete or
    restore (squads whose members could not be updated, see :mod:`okbot.core.trash`); the UI
    shows them.
    """

    def __init__(self, root: Path | None = None) -> None:
        if root is None:
            self.root = paths.data_dir()
            self.assistants_root = paths.assistants_dir()
            self.squads_root = paths.squads_dir()
            self.trash_root = paths.trash_dir()
        else:
            self.root = Path(root)
            self.assistants_root = self.root / "assistants"
            self.squads_root = self.root / "squads"
            self.trash_root = self.root / "trash"
        self.problems: list[str] = []

    # ----------------------------------------------------------------- listing
    def assistants(self) -> list[Target]:
        """All assistants, sorted by name (case-insensitive)."""
        targets, self.problems = self._scan(Kind.ASSISTANT)
        return targets

    def squads(self) -> list[Target]:
        """All squads, sorted by name (case-insensitive)."""
        targets, self.problems = self._scan(Kind.SQUAD)
        return targets

    def list(self) -> list[Target]:
        """Assistants then squads, each sorted by name (case-insensitive)."""
        assistants, problems_a = self._scan(Kind.ASSISTANT)
        squads, problems_s = self._scan(Kind.SQUAD)
        self.problems = problems_a + problems_s
        return assistants + squads

    def ensure_default(self) -> Target:
        """Create the default assistant on first run (no assistants at all); else return the first."""
        existing = self.assistants()
        if existing:
            return existing[0]
        template = _load_assistant_template()
        name, role = template.get("name"), template.get("role")
        name = name if isinstance(name, str) and name.strip() else "OkBot"
        return self.create_assistant(name, role=role if isinstance(role, str) else "")

    def current(self, target: Target) -> Target:
        """``target`` as its file says now (a front-end may hold one read before an edit elsewhere: Settings,
        the CLI, another window); ``target`` itself when the file cannot be read as a whole now."""
        try:
            fresh, problem = self.load(target.kind, target.dir)
        except OSError:
            return target
        return fresh if problem is None and fresh.meta else target

    def resolve(self, ref: str) -> Target:
        """Find by exact id first, then by name (case-insensitive).

        Raises NotFound (with close matches) or OkBotError when a name is ambiguous.
        """
        if not isinstance(ref, str) or not ref.strip():
            raise NotFound(translate("workspace", "No assistant or squad name given."))
        ref = ref.strip()
        targets = self.list()
        # Two targets share an id only with hand-made directories; names may repeat freely.
        by_id = [t for t in targets if t.id == ref]
        by_name = [t for t in targets if t.name.casefold() == ref.casefold()]
        for matches in (by_id, by_name):
            if len(matches) == 1:
                return matches[0]
            if matches:
                ids = ", ".join(f"{t.id} ({t.kind})" for t in matches)
                raise OkBotError(
                    translate("workspace", "More than one assistant or squad matches '{ref}': {ids}.").format(
                        ref=ref, ids=ids
                    ),
                    hint=translate("workspace", "use ids"),
                )
        raise NotFound(
            translate("workspace", "No assistant or squad named '{ref}'.").format(ref=ref),
            hint=_close_matches_hint(ref, targets),
        )

    def squads_below_minimum(self) -> list[Target]:
        """Readable squads with fewer than two existing member assistants."""
        live = {t.id for t in self._scan(Kind.ASSISTANT)[0]}
        return [
            squad
            for squad in self._scan(Kind.SQUAD)[0]
            if squad.meta and sum(m["assistant"] in live for m in squad.members) < MIN_SQUAD_MEMBERS
        ]

    def kind_root(self, kind: Kind) -> Path:
        """Where targets of ``kind`` live: ``assistants/`` or ``squads/``."""
        return self.assistants_root if kind is Kind.ASSISTANT else self.squads_root

    def load(self, kind: Kind, directory: Path) -> tuple[Target, str | None]:
        """Read one target directory: its Target and the problem to report (``None`` when it is fine)."""
        kind = Kind(kind)
        file = kind.meta_file
        meta_path = directory / file
        if kind is Kind.ASSISTANT:
            label = translate("workspace", "assistant '{id}'").format(id=directory.name)
        else:
            label = translate("workspace", "squad '{id}'").format(id=directory.name)
        problem, meta = None, {}
        try:
            parsed = json.loads(meta_path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            problem = translate("workspace", "{file} is missing for {label} ({path}).").format(
                file=file, label=label, path=meta_path
            )
        except OSError as exc:
            problem = translate("workspace", "{file} of {label} cannot be read ({error}).").format(
                file=file, label=label, error=exc.strerror or exc
            )
        except (ValueError, RecursionError) as exc:  # bad UTF-8, bad JSON, JSON nested beyond reason
            problem = translate(
                "workspace", "{file} of {label} is not valid JSON ({error}); the file was left as is."
            ).format(file=file, label=label, error=exc)
        else:
            if isinstance(parsed, dict):
                meta = parsed
            else:
                problem = translate("workspace", "{file} of {label} does not hold a JSON object.").format(
                    file=file, label=label
                )
        meta, read_only = migrations.current_form(kind, meta, meta_path)
        name = meta.get("name")
        if meta and not (isinstance(name, str) and name.strip()):
            problem = translate("workspace", "{file} of {label} has no name.").format(file=file, label=label)
        display = name.strip() if isinstance(name, str) and name.strip() else directory.name
        target = Target(kind, directory.name, display, directory, meta, problem, read_only)
        return target, problem or (f"{label}: {read_only}" if read_only else None)

    # ---------------------------------------------------------------- creating
    def create_assistant(
        self, name: str, *, role: str = "", soul_text: str | None = None, model: str | None = None
    ) -> Target:
        """Create an assistant directory with assistant.json, SOUL.md, memory/ and skills/."""
        name = check_name(name)
        role = check_text(role, QT_TRANSLATE_NOOP("record_fields", "role"))
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise OkBotError(translate("workspace", "The model must be a non-empty model name, or left unset."))
        if soul_text is not None and not isinstance(soul_text, str):
            raise OkBotError(translate("workspace", "The SOUL.md text must be text."))
        template = _load_assistant_template()
        soul_bytes = _template_soul_bytes() if soul_text is None else to_utf8(soul_text)
        new_id = self._new_id(name, Kind.ASSISTANT)
        meta = {
            "version": SCHEMA_VERSION,
            "id": new_id,
            "name": name,
            "role": role,
            "model": model.strip() if model else None,
            "toolPolicy": dict(template.get("toolPolicy") or {}),
            "createdAt": now_iso(),
        }

        def fill(staging: Path) -> None:
            atomic_write_json(staging / "assistant.json", meta)
            atomic_write_bytes(staging / "SOUL.md", soul_bytes)
            os.mkdir(staging / "memory", 0o700)
            os.mkdir(staging / "skills", 0o700)

        final = self._publish(self.assistants_root, new_id, fill)
        return Target(Kind.ASSISTANT, new_id, name, final, meta)

    def create_squad(
        self, name: str, members: list[tuple[str, str]], *, description: str = "", captain: dict | None = None
    ) -> Target:
        """Create a squad of at least two distinct existing assistants.

        ``members`` are ``(assistant id or name, role in the squad)`` pairs; ``captain`` may set
        the captain's persona, playbook and round limits (defaults for the rest).
        """
        name = check_name(name)
        description = check_text(description, QT_TRANSLATE_NOOP("record_fields", "description"))
        resolved = check_members(members, self.resolve)
        captain_meta = check_captain(captain or {})
        new_id = self._new_id(name, Kind.SQUAD)
        meta = {
            "version": SCHEMA_VERSION,
            "id": new_id,
            "name": name,
            "description": description,
            "members": resolved,
            "captain": captain_meta,
            "createdAt": now_iso(),
        }
        final = self._publish(self.squads_root, new_id, lambda d: atomic_write_json(d / "squad.json", meta))
        return Target(Kind.SQUAD, new_id, name, final, meta)

    def update_squad(
        self,
        ref: str,
        *,
        name: str | None = None,
        description: str | None = None,
        members: list[tuple[str, str]] | None = None,
        captain: dict | None = None,
    ) -> Target:
        """Change a squad's name, description, members and/or captain (``None`` keeps what is there).

        Everything is checked as :meth:`create_squad` does before squad.json is rewritten in one
        atomic write (with a .bak); the id, directory and chat stay. ``captain`` keys are merged
        into the stored captain settings.
        """
        target = self.resolve(ref)
        if not target.is_squad:
            raise OkBotError(
                translate("workspace", "'{name}' is an assistant, not a squad; nothing was changed.").format(
                    name=target.name
                )
            )
        if target.problem and not target.meta:
            raise OkBotError(
                translate("workspace", "Cannot edit '{id}': {problem}").format(id=target.id, problem=target.problem),
                hint=translate("workspace", "fix or restore the file first"),
            )
        meta = dict(target.meta)
        if name is not None:
            meta["name"] = check_name(name)
        if description is not None:
            meta["description"] = check_text(description, QT_TRANSLATE_NOOP("record_fields", "description"))
        if members is not None:
            meta["members"] = check_members(members, self.resolve)
        if captain is not None:
            meta["captain"] = check_captain(captain, meta.get("captain"))
        migrations.write_json(target.meta_path, Kind.SQUAD, meta, action="edit this squad")
        return Target(Kind.SQUAD, target.id, meta["name"] if name is not None else target.name, target.dir, meta)

    def rename(self, ref: str, new_name: str) -> Target:
        """Change the display name; the id (and directory) stay the same."""
        new_name = check_name(new_name)
        target = self.resolve(ref)
        if target.problem and not target.meta:
            raise OkBotError(
                translate("workspace", "Cannot rename '{id}': {problem}").format(id=target.id, problem=target.problem),
                hint=translate("workspace", "fix or restore the file first; nothing was changed"),
            )
        meta = dict(target.meta)
        meta["name"] = new_name
        migrations.write_json(target.meta_path, target.kind, meta, action=f"rename this {target.kind}")
        return Target(target.kind, target.id, new_name, target.dir, meta)

    def set_meta(self, target: Target, key: str, value: Any) -> Target:
        """Set one key of ``target``'s JSON file (e.g. an assistant's ``"evolution"`` switch); returns it re-read.

        The file is read again first, so every other key stays as it is on disk now; the write is
        atomic, with a .bak. The name has its own checks (:meth:`rename`) and the format version is
        the file's own, so neither is set this way.
        """
        if key in ("name", migrations.VERSION_KEY):
            raise ValueError(f"{key!r} is not set with set_meta")
        fresh, _ = self.load(target.kind, target.dir)
        if fresh.problem and not fresh.meta:
            raise OkBotError(
                translate("workspace", "Cannot change '{id}': {problem}").format(id=fresh.id, problem=fresh.problem),
                hint=translate("workspace", "fix or restore the file first; nothing was changed"),
            )
        meta = {**fresh.meta, key: value}
        migrations.write_json(fresh.meta_path, fresh.kind, meta, action=f"change this {fresh.kind}")
        return self.load(fresh.kind, fresh.dir)[0]

    # ---------------------------------------------------------------- internals
    def _scan(self, kind: Kind) -> tuple[list[Target], list[str]]:
        targets, problems = [], []
        for directory in subdirs(self.kind_root(kind)):
            target, problem = self.load(kind, directory)
            targets.append(target)
            if problem:
                problems.append(problem)
        targets.sort(key=lambda t: (t.name.casefold(), t.id))
        return targets, problems

    def _taken_ids(self) -> set[str]:
        taken = {d.name for root in (self.assistants_root, self.squads_root) for d in subdirs(root)}
        return taken | ids_in_trash(self.trash_root) | _WINDOWS_RESERVED

    def _new_id(self, name: str, kind: Kind) -> str:
        return unique_id(slugify(name, fallback=kind.value), self._taken_ids())

    def _publish(self, kind_root: Path, new_id: str, fill: Any) -> Path:
        """Build the directory under a hidden staging name, then rename it into place (a failed write: OkBotError)."""
        staging = kind_root / f".new-{new_id}-{os.urandom(4).hex()}"
        final = kind_root / new_id
        try:
            paths.ensure_private_dir(kind_root)
            os.mkdir(staging, 0o700)
            fill(staging)
            if final.exists():
                raise OkBotError(
                    translate("workspace", "'{id}' was created by someone else meanwhile; try again.").format(id=new_id)
                )
            os.rename(staging, final)
        except BaseException as exc:
            _remove_staging(staging)
            if isinstance(exc, OSError):  # disk full, read-only data dir …
                raise OkBotError(
                    translate("workspace", "Could not create '{id}': {error}.").format(
                        id=new_id, error=exc.strerror or exc
                    ),
                    hint=str(kind_root),
                ) from exc
            raise
        return final


# -------------------------------------------------------------------- helpers
def ascii_slug(name: str, sep: str = "-") -> str:
    """``name`` in lowercase ASCII letters and digits (accents dropped), any run of other characters one
    ``sep``; ``""`` when nothing is left (``小明``)."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", sep, ascii_text.lower()).strip(sep)


def slugify(name: str, *, fallback: str = "assistant") -> str:
    """A lowercase ASCII id from ``name`` ([a-z0-9-], at most 40 chars); ``fallback`` when empty.

    A name whose letters are none of them ASCII (``小明``) gets ``fallback`` and a short digest of the name
    (``assistant-3f9a1c``): the same name always gives the same id, and two names two ids, so the squad
    tools that carry an id (``ask_<id>``) tell the members apart.
    """
    slug = ascii_slug(name)[:MAX_ID_CHARS].rstrip("-")
    if slug:
        return slug
    text = " ".join(unicodedata.normalize("NFC", name).casefold().split())
    if not any(ch.isalnum() for ch in text):  # dots, dashes, emoji: nothing that names anyone
        return fallback
    return f"{fallback}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:6]}"


def unique_id(base: str, taken: Iterable[str]) -> str:
    """``base``, or ``base-2``, ``base-3`` … (still at most 40 chars) when taken."""
    taken = set(taken)
    if base not in taken:
        return base
    n = 2
    while True:
        suffix = f"-{n}"
        candidate = base[: MAX_ID_CHARS - len(suffix)].rstrip("-") + suffix
        if candidate not in taken:
            return candidate
        n += 1


def _close_matches_hint(ref: str, targets: list[Target]) -> str:
    labels = {t.id: t.id for t in targets} | {t.name.casefold(): t.name for t in targets}
    close = difflib.get_close_matches(ref.casefold(), list(labels), n=5, cutoff=0.5)
    if close:
        names = ", ".join(dict.fromkeys(labels[c] for c in close))
        return translate("workspace", "did you mean: {names}").format(names=names)
    if targets:
        return translate("workspace", "known: {names}").format(names=", ".join(t.name for t in targets[:10]))
    return translate("workspace", "there are no assistants or squads yet")


def trash_entry_name(stamp: str, kind: str, target_id: str) -> str:
    """The name of the trash entry holding ``target_id``: ``<stamp>-<kind>-<id>`` (the stamp has no "-").

    The trash (:mod:`okbot.core.trash`) names its entries so; the workspace reads the ids back
    (:func:`ids_in_trash`) so it never hands out an id the trash still holds.
    """
    return f"{stamp}-{kind}-{target_id}"


def ids_in_trash(trash_root: Path) -> set[str]:
    """The ids of the assistants and squads in the trash, read from the entry names."""
    held = set()
    for entry in subdirs(trash_root):
        parts = entry.name.split("-", 2)
        if len(parts) == 3 and Kind.parse(parts[1]) is not None:
            held.add(parts[2])
    return held


def subdirs(root: Path) -> list[Path]:
    """Visible subdirectories of ``root`` (hidden ones are staging leftovers)."""
    try:
        entries = list(os.scandir(root))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(Path(e.path) for e in entries if not e.name.startswith(".") and _is_dir(e))


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def read_json_object(path: Path) -> dict | None:
    """The JSON object in ``path``; ``None`` when it is missing, unreadable or not an object."""
    try:
        parsed = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _load_assistant_template() -> dict:
    # The template ships with the app; a broken install still gets a working assistant.
    return read_json_object(paths.resource("templates", "assistant.json")) or {"name": "OkBot"}


def _template_soul_bytes() -> bytes:
    try:
        return paths.resource("templates", "SOUL.md").read_bytes()
    except OSError:
        return b"# Soul\n\nYou are a thoughtful, honest and helpful assistant.\n"


def _remove_staging(staging: Path) -> None:
    """Remove only what creation put into a staging directory (never a recursive delete)."""
    for name in ("assistant.json", "squad.json", "SOUL.md", "memory", "skills", ""):
        with contextlib.suppress(OSError):
            path = staging / name if name else staging
            path.rmdir() if name in ("memory", "skills", "") else path.unlink()
