"""Hostile-input fuzzing of every loader (issue 9, item 4): 0 crashes, 0 good lines lost.

Hypothesis generates files mixing valid records with hostile ones (random bytes, random JSON, records
with one field broken, duplicate ids, torn last lines, invalid UTF-8, BOMs, CRLF, deep nesting) for:

========  =====================================================================================
session   ``session.jsonl`` through :class:`~okbot.core.session.SessionStore` (backwards readers,
          the offset index, then one append): every valid line is read back unchanged, damaged
          ones are reported, the bytes on disk are only ever appended to.
settings  ``settings.json`` through :meth:`Settings.load`: never raises, a broken file or a repaired
          value is reported and its bytes are kept in a backup, valid values survive, and what is
          saved loads back the same.
summary   ``session-summary.json`` (+ ``.bak``) through :class:`SummaryStore`: a valid file (or, if
          the file is bad, a valid backup) is what loads; nothing raises; save round-trips.
skill     ``SKILL.md`` front matter through :func:`parse_skill`: never raises; a valid front matter
          always yields its description with no problem.
memory    ``memories.jsonl`` through :class:`MemoryStore`: every valid entry loads, reading never
          writes, the next write keeps every entry and moves unreadable lines to ``.bad`` verbatim.
========  =====================================================================================

A *crash* is any exception escaping OkBot code other than :class:`OkBotError` where a clear refusal is
allowed; a *violation* is a broken guarantee (bytes rewritten, a problem not reported, a backup missing).
Lone surrogates are left out of the generated text: they are a known bug (see test_hostile_input.py).

    python -m benchmarks.stress_fuzz [--count N] [--only session,memory]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from benchmarks.common import setup_env, table

FULL_COUNT = 10_000
LOADERS = ("session", "settings", "summary", "skill", "memory")
NESTING = 3_000  # deep-nesting junk inside the fuzz (the 100k-level case is a single test)
NOTES_KEPT = 3


class Violation(Exception):
    """A guarantee the loader broke (not an exception it raised)."""


@dataclass
class Figures:
    """What fuzzing one loader found."""

    loader: str
    cases: int = 0
    good: int = 0  # valid lines / values / files offered
    lost: int = 0  # ... of which not read back intact
    crashes: int = 0
    violations: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.crashes or self.violations or self.lost)


# ---------------------------------------------------------------- shared strategies
_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
_SCALAR = st.none() | st.booleans() | st.integers() | st.floats() | _TEXT
JSON_VALUES = st.recursive(
    _SCALAR, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4), max_leaves=12
)


def _clean_json(integers: st.SearchStrategy[int]) -> st.SearchStrategy[Any]:
    """JSON values without floats, their integers drawn from ``integers``."""
    return st.recursive(
        st.none() | st.booleans() | integers | _TEXT,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
        max_leaves=6,
    )


_CLEAN_JSON = _clean_json(st.integers())
_ITEM_JSON = _clean_json(st.integers(-(2**63), 2**63 - 1))  # a session item holds 64-bit integers only


def _dumps(obj: Any, ascii_only: bool = False) -> bytes:
    return json.dumps(obj, ensure_ascii=ascii_only).encode("utf-8")


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@st.composite
def _junk(draw: st.DrawFn, extra: st.SearchStrategy[bytes] | None = None) -> bytes:
    """One hostile line (may hold newlines or nothing at all)."""
    options = [
        st.binary(max_size=120),
        _TEXT.map(lambda t: t.encode("utf-8")),
        JSON_VALUES.map(_dumps),
        st.sampled_from(
            [
                b"{",
                b"}",
                b"null",
                b"[]",
                b"\xef\xbb\xbf",
                b"\xff\xfe",
                b'{"id":',
                b"\t \r",
                _deep(NESTING),
                b'"' * 9,
                b"\\u0000",
                b"{}" * 50,
            ]
        ),
    ]
    if extra is not None:
        options.append(extra)
    return draw(st.one_of(options))


def _preserved(raw: bytes, directory: Path) -> bool:
    """Whether some file in ``directory`` still holds exactly ``raw``."""
    return any(p.is_file() and p.read_bytes() == raw for p in directory.iterdir())


# ---------------------------------------------------------------- session.jsonl
_ITEM_FIELDS = {
    "user": {"content": _TEXT},
    "assistant": {"content": _TEXT, "status": st.sampled_from(["complete", "interrupted", "error"])},
    "tool_call": {"call_id": _TEXT, "name": _TEXT, "arguments": _TEXT},
    "tool_result": {"call_id": _TEXT, "name": _TEXT, "content": _TEXT, "ok": st.booleans()},
    "notice": {"content": _TEXT, "level": st.sampled_from(["info", "warning", "error"])},
}


@st.composite
def _session_case(draw: st.DrawFn) -> tuple[bytes, dict[int, dict]]:
    """The bytes of a session.jsonl and its valid items by id."""
    out: list[bytes] = []
    good: dict[int, dict] = {}
    last = 0
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            last += draw(st.sampled_from([1, 1, 2, 997, 10**17]))
            kind = draw(st.sampled_from(sorted(_ITEM_FIELDS)))
            item: dict[str, Any] = {
                "id": last,
                "v": 1,
                "ts": "2026-01-01T00:00:00.000Z",
                "type": kind,
                "author": draw(_TEXT),
                "source": "user",
            }
            item.update({k: draw(s) for k, s in _ITEM_FIELDS[kind].items()})
            item.update(draw(st.dictionaries(st.sampled_from(["usage", "x", "extra", "π"]), _ITEM_JSON, max_size=2)))
            line = _dumps(item, draw(st.booleans()))
            line = draw(st.sampled_from([b"", b"\xef\xbb\xbf", b"  "])) + line
            good[last] = item
            out.append(line + draw(st.sampled_from([b"\n", b"\r\n"])))
        else:
            broken = {"id": max(last, 1), "type": "user", "content": "x"}
            mutation = draw(
                st.sampled_from(
                    [
                        "id0",
                        "idstr",
                        "idbool",
                        "idfloat",
                        "idhuge",
                        "noid",
                        "type",
                        "content",
                        "author",
                        "dup",
                        "twice",
                        "cut",
                        "badutf8",
                        "random",
                    ]
                )
            )
            if mutation == "dup" and last == 0:  # a duplicate needs an earlier valid line
                mutation = "id0"
            if mutation == "random":
                line = draw(_junk())
            elif mutation == "twice":
                line = b'{"id":%d,"id":%d,"type":"user","content":"x"}' % (last + 1, last + 2)
            elif mutation == "cut":
                whole = _dumps({"id": last + 1, "type": "user", "content": draw(_TEXT)})
                line = whole[: draw(st.integers(0, len(whole) - 1))]
            elif mutation == "badutf8":
                line = _dumps({"id": last + 1, "type": "user", "content": "é"}).replace(b"\xc3", b"\xc3\xc3")
            else:
                broken.update(
                    {
                        "id0": {"id": 0},
                        "idstr": {"id": str(last + 1)},
                        "idbool": {"id": True},
                        "idfloat": {"id": last + 1.5},
                        "idhuge": {"id": 10**20},
                        "type": {"type": draw(_TEXT.filter(lambda t: t not in _ITEM_FIELDS))},
                        "content": {"content": draw(JSON_VALUES.filter(lambda v: not isinstance(v, str)))},
                        "author": {"author": 7},
                        "dup": {},
                        "noid": {},
                    }[mutation]
                )
                if mutation == "noid":
                    del broken["id"]
                line = _dumps(broken)
            out.append(line + b"\n")
    if out and draw(st.booleans()):
        out[-1] = out[-1].rstrip(b"\r\n")  # torn last line (or a last line without its newline)
    return b"".join(out), good


def check_session(case: tuple[bytes, dict[int, dict]], work: Path) -> tuple[int, int]:
    """Open, read backwards, index, append; return (valid items offered, valid items lost)."""
    from okbot.core.items import user_message
    from okbot.core.session import SessionStore

    data, good = case
    path = work / "session.jsonl"
    path.write_bytes(data)
    store = SessionStore(path)
    backwards, _ = store.read_after(0)
    tail = store.tail(len(good) + 64)
    top = store.last_id()
    indexed = list(SessionStore(path).iter_items())
    appended = SessionStore(path).append(user_message("after the fuzz"))
    final = list(SessionStore(path).iter_items())
    views = [{it["id"]: it for it in found} for found in (backwards, tail, indexed, final)]
    lost = sum(1 for item_id, item in good.items() if any(view.get(item_id) != item for view in views))
    if good and top < max(good):
        raise Violation(f"last_id() {top} is below the highest valid id {max(good)}")
    if appended["id"] <= max(good, default=0) or final[-1] != appended:
        raise Violation(f"append after loading gave id {appended['id']} / was not read back last")
    if not path.read_bytes().startswith(data):
        raise Violation("existing bytes of session.jsonl were rewritten")
    pieces = [p for p in data.split(b"\n") if p.strip()]
    if len(pieces) > len(good) and not store.problems:
        raise Violation("damaged lines were skipped without a notice")
    return len(good), lost


# ---------------------------------------------------------------- settings.json
_CANDIDATES = (
    "gpt-4o",
    "http://127.0.0.1:9/v1",
    "ask",
    "allow",
    "deny",
    "env",
    "keyring",
    "none",
    True,
    False,
    0.3,
    0.5,
    0.95,
    1,
    3,
    12,
    100,
    500,
    1000,
    4000,
    30.5,
)


def _valid_values() -> dict[str, list[Any]]:
    """Per known (top-level) key, the candidate values the schema accepts (found through its public API)."""
    from okbot.config.schema import SETTINGS, SettingError

    out: dict[str, list[Any]] = {}
    for spec in SETTINGS:
        ok = []
        for value in (spec.default, *_CANDIDATES):
            try:
                spec.validate(value)
            except SettingError:
                continue
            ok.append(value)
        out[spec.key] = ok or [spec.default]
    return out


@st.composite
def _settings_case(draw: st.DrawFn) -> bytes:
    valid = _valid_values()
    good = st.sampled_from(sorted(valid)).flatmap(lambda k: st.tuples(st.just(k), st.sampled_from(valid[k])))
    keys = st.sampled_from([*valid, "version", "modelOverrides", "apiKey"]) | _TEXT
    values = st.one_of(
        JSON_VALUES,
        st.integers(-5, 2_000_000),
        st.sampled_from(["gpt-4o", "http://127.0.0.1:1/v1", "ask", "allow", "deny", "env", "none", 0.5, 1, 2, True]),
        st.dictionaries(
            _TEXT | st.just("gpt-4o"),
            st.dictionaries(st.just("contextWindow") | _TEXT, JSON_VALUES, max_size=2),
            max_size=2,
        ),
    )
    ascii_only = draw(st.booleans())
    shaped = st.tuples(st.dictionaries(keys, values, max_size=5), st.lists(good, max_size=6)).map(
        lambda pair: _dumps({**pair[0], **dict(pair[1])}, ascii_only)
    )
    raw = draw(st.one_of(shaped, shaped, st.binary(max_size=200), JSON_VALUES.map(_dumps), _junk()))
    edit = draw(st.sampled_from(["", "bom", "cut", "tail"]))
    if edit == "bom":
        raw = b"\xef\xbb\xbf" + raw
    elif edit == "cut" and raw:
        raw = raw[: draw(st.integers(0, len(raw) - 1))]
    elif edit == "tail":
        raw += draw(st.sampled_from([b"\n", b" garbage", b"\x00", b"}"]))
    return raw


def check_settings(raw: bytes, work: Path) -> tuple[int, int]:
    """Load, check what was reported and kept, save, reload; return (valid values offered, lost)."""
    from okbot.config.schema import SettingError, setting
    from okbot.config.settings import Settings
    from okbot.storage.errors import OkBotError

    path = work / "settings.json"
    path.write_bytes(raw)
    loaded = Settings.load(path)
    try:
        obj = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        obj = None
    if not _preserved(raw, work):
        raise Violation("the original settings.json bytes are gone after loading")
    if not isinstance(obj, dict) or loaded.reset_keys:
        if not loaded.problems:
            raise Violation("a broken settings.json or a refused value was not reported")
        if sum(p.is_file() and p.read_bytes() == raw for p in work.iterdir()) < 2 and path.read_bytes() == raw:
            raise Violation("settings.json needed repair but no backup copy holds its bytes")
    offered = lost = 0
    for key, value in (obj if isinstance(obj, dict) else {}).items():
        try:
            spec = setting(key)
            expected = spec.validate(value)
        except (SettingError, TypeError, ValueError):
            continue
        if spec.per_model or key in loaded.reset_keys:
            continue
        offered += 1
        lost += loaded.get_stored(key) != expected
    try:
        loaded.save()
    except OkBotError:
        if not _preserved(raw, work):
            raise Violation("a refused save changed settings.json") from None
        return offered, lost
    again = Settings.load(path)
    if again.as_dict() != loaded.as_dict() or again.reset_keys:
        raise Violation(f"saved settings did not load back the same (reset {again.reset_keys})")
    return offered, lost


# ---------------------------------------------------------------- session-summary.json
def _summary_strategy() -> st.SearchStrategy[Any]:
    from okbot.core.summary import TRIGGERS, SessionSummary

    ids = st.lists(st.integers(1, 10**12), max_size=5)
    return st.builds(
        SessionSummary,
        summary=_TEXT,
        covered_through_id=st.integers(0, 10**12),
        kept_user_ids=ids,
        updated_at=_TEXT,
        trigger=st.sampled_from(TRIGGERS),
        hidden_item_ids=ids,
        health=st.dictionaries(_TEXT, _CLEAN_JSON, max_size=3),
    )


@st.composite
def _summary_file(draw: st.DrawFn) -> tuple[bytes | None, Any]:
    """``(bytes or None for no file, the SessionSummary it holds when generated valid)``."""
    keys = (
        st.sampled_from(
            ["version", "summary", "coveredThroughId", "keptUserIds", "updatedAt", "trigger", "hiddenItemIds", "health"]
        )
        | _TEXT
    )
    kind = draw(st.sampled_from(["valid", "valid", "shaped", "junk", "none", "cut"]))
    if kind == "none":
        return None, None
    if kind in ("valid", "cut"):
        summary = draw(_summary_strategy())
        raw = json.dumps(summary.to_json(), ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2])))
        raw_bytes = raw.encode("utf-8")
        if kind == "cut":
            return raw_bytes[: draw(st.integers(0, len(raw_bytes) - 1))], None
        return raw_bytes, summary
    if kind == "shaped":
        return _dumps(draw(st.dictionaries(keys, JSON_VALUES, max_size=6))), None
    return draw(_junk()), None


def check_summary(case: tuple[tuple[bytes | None, Any], tuple[bytes | None, Any]], work: Path) -> tuple[int, int]:
    """Load main + backup, check the fallback order, save, reload; return (valid files offered, lost)."""
    from okbot.core.summary import SessionSummary, SummaryStore
    from okbot.storage.errors import OkBotError

    (main, main_ok), (bak, bak_ok) = case
    store = SummaryStore(work / "session-summary.json")
    for raw, path in ((main, store.path), (bak, store.backup_path)):
        if raw is not None:
            path.write_bytes(raw)
    got = store.load()
    for raw in (main, bak):
        if raw is not None and not _preserved(raw, work):
            raise Violation("loading changed a summary file")
    offered = lost = 0
    if main_ok is not None:
        offered, lost = 1, int(got != main_ok)
    elif main is not None and bak_ok is not None:
        alone = SummaryStore(work / "alone" / store.path.name)  # the same file without a backup
        alone.path.parent.mkdir()
        alone.path.write_bytes(main)
        alone_got = alone.load()
        damaged = bool(alone.problems) and alone_got == SessionSummary()
        if not damaged and got != alone_got:
            raise Violation("a readable summary file was not what loaded")
        if damaged:
            offered, lost = 1, int(got != bak_ok)
            if not store.problems:
                raise Violation("the summary fell back to its backup without a notice")
    try:
        store.save(got)
    except OkBotError:
        return offered, lost
    again = SummaryStore(store.path).load()
    if again != got:
        raise Violation("a saved summary did not load back the same")
    if main is not None and store.backup_path.read_bytes() != main:
        raise Violation("save did not keep the previous file as the backup")
    return offered, lost


# ---------------------------------------------------------------- SKILL.md
_FOLDER = (
    st.text(
        st.characters(categories=("L", "N"), include_characters="-_. ", exclude_characters="\x00/"),
        min_size=1,
        max_size=30,
    )
    .map(str.strip)
    .filter(lambda s: s not in ("", ".", "..") and len(s.encode("utf-8")) < 200 and not s.startswith("."))
)
_DESCRIPTION = st.text(
    st.characters(categories=("L", "N", "Zs"), include_characters="-_.,:;!?()/#@&*"), min_size=1, max_size=120
).filter(lambda s: s.strip() and s.strip()[0] not in "\"'")


@st.composite
def _skill_case(draw: st.DrawFn) -> tuple[str, bytes, str | None]:
    """``(folder, SKILL.md bytes, expected description or None when the file is hostile)``."""
    folder = draw(_FOLDER)
    kind = draw(st.sampled_from(["valid", "valid", "random", "bytes", "lines", "big"]))
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    if kind == "valid":
        desc = draw(_DESCRIPTION)
        upper = folder.upper() if folder.upper().casefold() == folder.casefold() else folder
        name = draw(st.sampled_from([folder, upper, f'"{folder}"', f"'{folder}'"]))
        lines = ["---", f"name: {name}", f"description: {desc}"]
        lines[1:1] = draw(
            st.lists(st.sampled_from(["# comment", "", "license: MIT", "version: 2"]), max_size=2, unique=True)
        )
        if draw(st.booleans()):
            lines[1], lines[2] = lines[2], lines[1]
        body = draw(st.sampled_from(["", "# Body", "é" * 5000, "x" * 9000]))
        text = nl.join([*lines, "---", body])
        bom = draw(st.sampled_from(["", "\ufeff"]))
        return folder, (bom + text).encode("utf-8"), desc.strip()
    if kind == "bytes":
        return folder, draw(st.binary(max_size=300)), None
    if kind == "random":
        return folder, draw(_TEXT).encode("utf-8"), None
    if kind == "big":  # front matter running into the 8 KB read limit, split multi-byte characters
        pad = draw(st.integers(4000, 8300))
        tail = draw(st.sampled_from(["é", "€", "😀", "a"])) * draw(st.integers(1, 4))
        text = f"---\nname: {folder}\ndescription: " + "d" * pad + tail + draw(st.sampled_from(["\n---\n", ""]))
        return folder, text.encode("utf-8"), None
    lines = draw(
        st.lists(
            st.one_of(
                _TEXT,
                st.sampled_from(
                    ["---", "name:", "description:", "  indented: x", f"name: {folder}", "description: 'a", "name: x"]
                ),
            ),
            max_size=8,
        )
    )
    return folder, nl.join(lines).encode("utf-8"), None


def check_skill(case: tuple[str, bytes, str | None], work: Path) -> tuple[int, int]:
    """parse_skill on one SKILL.md; return (valid files offered, lost)."""
    from okbot.core.skills import Skill, parse_skill

    folder, raw, expected = case
    path = work / folder / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(raw)
    skill = parse_skill(path)
    if not isinstance(skill, Skill) or skill.name != folder or not isinstance(skill.description, str):
        raise Violation(f"parse_skill gave {skill!r}")
    if skill.problem is not None and not (isinstance(skill.problem, str) and skill.problem):
        raise Violation(f"problem is not a message: {skill.problem!r}")
    if path.read_bytes() != raw:
        raise Violation("parse_skill changed SKILL.md")
    if expected is None:
        return 0, 0
    return 1, int(skill.problem is not None or skill.description != expected)


# ---------------------------------------------------------------- memories.jsonl
@st.composite
def _memory_case(draw: st.DrawFn) -> tuple[bytes, dict[str, dict], list[bytes]]:
    """``(file bytes, valid entries by id, the lines that are not JSON at all)``."""
    out: list[bytes] = []
    good: dict[str, dict] = {}
    if draw(st.booleans()):
        out.append(_dumps({"okbot": "memories", "version": draw(st.sampled_from([1, 1, 0, "1", None]))}))
    for n in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(["good", "good", "junk", "dup", "badfield"]))
        if kind == "good":
            entry = {
                "id": f"g-{n}",
                "status": draw(st.sampled_from(["candidate", "durable", "retired"])),
                "pinned": draw(st.booleans()),
                "text": draw(_TEXT.filter(str.strip)),
            }
            entry.update(
                draw(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "sources": st.lists(st.integers(0, 10**6), max_size=3),
                            "hits": st.integers(0, 10**6),
                            "note": _TEXT,
                            "custom": _CLEAN_JSON,
                        },
                    )
                )
            )
            good[entry["id"]] = entry
            out.append(_dumps(entry, draw(st.booleans())))
        elif kind == "dup" and good:
            out.append(_dumps({"id": draw(st.sampled_from(sorted(good))), "text": "a duplicate"}))
        elif kind == "badfield":
            out.append(_dumps({"id": f"j-{n}", "text": "t", draw(st.sampled_from(["pinned", "hits", "status"])): "?"}))
        else:
            out.append(draw(_junk()))
    nl = draw(st.sampled_from([b"\n", b"\r\n"]))
    data = nl.join(out) + (nl if out and draw(st.booleans()) else b"")
    unreadable = [piece for piece in data.split(b"\n") if piece.strip() and not _is_json(piece)]
    return data, good, unreadable


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return True


def check_memory(case: tuple[bytes, dict[str, dict], list[bytes]], work: Path) -> tuple[int, int]:
    """Load, write once, reload; return (valid entries offered, lost)."""
    from okbot.core.memory.store import MemoryStore
    from okbot.storage.errors import OkBotError

    data, good, unreadable = case
    path = work / MemoryStore.FILE
    path.write_bytes(data)
    store = MemoryStore(work, "global")
    first = {e.id: e for e in store.entries(include_retired=True)}
    if path.read_bytes() != data:
        raise Violation("reading memories.jsonl wrote to it")
    if unreadable and not store.problems:
        raise Violation("unreadable lines were not reported")
    try:
        added = store.add("written after the fuzz")
    except OkBotError:
        if path.read_bytes() != data:
            raise Violation("a refused write changed memories.jsonl") from None
        added = None
    after = {e.id: e for e in MemoryStore(work, "global").entries(include_retired=True)}

    def same(view: dict[str, Any], entry: dict) -> bool:
        got = view.get(entry["id"])
        return got is not None and (got.text, got.status, got.pinned) == (
            entry["text"],
            entry["status"],
            entry["pinned"],
        )

    lost = sum(1 for entry in good.values() if not (same(first, entry) and same(after, entry)))
    if added is not None:
        if added.id not in after:
            raise Violation("the entry added after loading is missing")
        bad = set(store.bad_path.read_bytes().split(b"\n")) if store.bad_path.exists() else set()
        missing = [p for p in unreadable if p not in bad]
        if missing:
            raise Violation(f"unreadable lines not kept in memories.jsonl.bad: {missing[:2]!r}")
    return len(good), lost


# ---------------------------------------------------------------- the runner
CHECKS: dict[str, tuple[Callable[[], st.SearchStrategy[Any]], Callable[[Any, Path], tuple[int, int]]]] = {
    "session": (_session_case, check_session),
    "settings": (_settings_case, check_settings),
    "summary": (lambda: st.tuples(_summary_file(), _summary_file()), check_summary),
    "skill": (_skill_case, check_skill),
    "memory": (_memory_case, check_memory),
}


def fuzz(loader: str, count: int, root: Path) -> Figures:
    """Run ``count`` hypothesis cases against one loader in fresh dirs under ``root``; never raises."""
    make_strategy, check = CHECKS[loader]
    figures = Figures(loader)

    def note(kind: str, case: Any, text: str) -> None:
        if len(figures.notes) < NOTES_KEPT:
            figures.notes.append(f"{loader} {kind}: {text.strip()[-1500:]}\n  case: {repr(case)[:600]}")

    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(make_strategy())
    def one(case: Any) -> None:
        figures.cases += 1
        work = Path(tempfile.mkdtemp(prefix="case-", dir=root))
        try:
            good, lost = check(case, work)
        except Violation as exc:
            figures.violations += 1
            note("violation", case, str(exc))
        except Exception:  # noqa: BLE001 - every escaping exception is a finding to count, not to stop on
            figures.crashes += 1
            note("crash", case, traceback.format_exc())
        else:
            figures.good += good
            figures.lost += lost
            if lost:
                note("lost", case, f"{lost} valid record(s) not read back")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    start = time.perf_counter()
    one()
    figures.seconds = time.perf_counter() - start
    return figures


def run(count: int | None = None, only: tuple[str, ...] = LOADERS) -> str:
    """Fuzz every loader with ``count`` cases each (None: the full 10,000) and return the figures table."""
    count = FULL_COUNT if count is None else count
    root = Path(tempfile.mkdtemp(prefix="okbot-fuzz-", dir=os.environ.get("OKBOT_FUZZ_DIR")))
    setup_env(root / "home")
    logging.getLogger("okbot").addHandler(logging.NullHandler())  # repairs are counted, not printed
    for var in ("OKBOT_BASE_URL", "OKBOT_MODEL"):
        os.environ.pop(var, None)
    try:
        results = [fuzz(loader, count, root) for loader in only]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows = [
        [f.loader, f"{f.cases:,}", f"{f.good:,}", str(f.lost), str(f.crashes), str(f.violations), f"{f.seconds:.1f}"]
        for f in results
    ]
    total = sum(f.seconds for f in results)
    rows.append(
        [
            "all",
            f"{sum(f.cases for f in results):,}",
            f"{sum(f.good for f in results):,}",
            str(sum(f.lost for f in results)),
            str(sum(f.crashes for f in results)),
            str(sum(f.violations for f in results)),
            f"{total:.1f}",
        ]
    )
    out = table(
        f"Hostile input: {count:,} hypothesis cases per loader",
        ["loader", "cases", "valid records offered", "lost", "crashes", "violations", "seconds"],
        rows,
    )
    notes = [n for f in results for n in f.notes]
    return out + ("\n\nFindings:\n" + "\n".join(notes) if notes else "\n\n0 crashes, 0 violations, 0 lost.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=None, help=f"cases per loader (default {FULL_COUNT:,})")
    parser.add_argument("--only", default=",".join(LOADERS), help="comma-separated loaders")
    args = parser.parse_args(argv)
    print(run(args.count, tuple(x for x in args.only.split(",") if x)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
