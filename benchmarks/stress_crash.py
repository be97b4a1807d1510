"""Crash safety (issue 9, part 1): SIGKILL a writing process 200 times; nothing acknowledged is lost.

A child process (``python -m benchmarks.stress_crash --child DIR --seed N [--big]``) opens one data
folder and, until it is killed, appends items with :class:`~okbot.core.session.SessionStore`, saves
numbered :class:`~okbot.core.summary.SessionSummary` versions, adds memories with
:class:`~okbot.core.memory.store.MemoryStore` and changes settings with
:class:`~okbot.config.settings.Settings`. It reports on stdout (one flushed line each, written only
after the call returned)::

    R                       stores open, work starts
    B <n> <big|small>       a burst of n back-to-back appends starts
    W                       the next append of a big burst is about to be written
    A <id> <digest>         append returned id; digest = blake2b-64 of the content
    S? <n> / S <n>          summary version n: save starting / save returned
    M? <tag> / M <id> <tag> memory add starting / returned (the text follows from the tag)
    T? <key> <json> / T ... settings set starting / returned

The parent SIGKILLs it at a random moment (a random delay; just after a big write starts; mid
summary, memory or settings save; during start-up, which may be mid-repair), then reopens
everything with the public APIs and checks: every acknowledged id is present with its content
intact, a torn last line is quarantined byte for byte and the file ends with a newline again (the
next child's appends prove it works), ``session-summary.json`` loads without falling back and
holds the acknowledged version or the one being written, ``memories.jsonl`` loads without
problems and holds every acknowledged entry, ``settings.json`` loads without problems and holds
the acknowledged values (or the one being set). The first failure stops the run and keeps the
folder as a reproducer.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import REPO, table

FULL_KILLS = 200
SESSION = "session.jsonl"
QUARANTINE = "session.quarantine.jsonl"
SUMMARY = "session-summary.json"
MEMORY_DIR = "memory"
SETTINGS = "settings.json"
CHILD_SECONDS = 60.0  # a child never outlives this, even if nobody kills it
MARKER_TIMEOUT = 10.0  # how long the parent waits for a marker before killing anyway
#: integer settings the child changes (key -> allowed range); no ordered pairs among them
SETTING_RANGES = {
    "tools.maxRounds": (1, 100),
    "memory.maxEntries": (0, 1000),
    "contextCompression.summaryMaxChars": (100, 8000),
    "tools.approvalTimeout": (10, 86_400),
}
#: kill moments and their weights
MODES = {"random": 35, "big-write": 25, "summary": 12, "memory": 10, "settings": 10, "startup": 8}
_MARKER = {"big-write": "W", "summary": "S?", "memory": "M?", "settings": "T?"}
_WORDS = "héllo wörld ✓ crash-safe okbot 日本 "


def digest(text: str) -> str:
    """The short content digest the child reports for each appended item."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def _filler(rng: random.Random, size: int) -> str:
    start = rng.randrange(len(_WORDS))
    word = _WORDS[start:] + _WORDS[:start]
    return (word * (size // len(word) + 1))[:size]


def summary_text(version: int) -> str:
    """The summary text of version ``version`` (deterministic, 200 B to ~30 KB)."""
    return f"summary v{version} " + _filler(random.Random(version), 200 + (version * 7919) % 30_000)


def memory_text(tag: str) -> str:
    """The memory text for ``tag`` (deterministic, under MAX_ENTRY_CHARS)."""
    rng = random.Random(tag)
    return (f"crash memory {tag} " + _filler(rng, rng.randint(20, 1500))).strip()  # add() strips


# ---------------------------------------------------------------------------------------------- child


def _child(directory: Path, seed: int, big: bool) -> int:
    from okbot.config.settings import Settings
    from okbot.core import items
    from okbot.core.memory.store import MemoryStore
    from okbot.core.session import SessionStore
    from okbot.core.summary import SessionSummary, SummaryStore

    rng = random.Random(seed)

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    session = SessionStore(directory / SESSION)
    summaries = SummaryStore(directory / SUMMARY)
    memory = MemoryStore(directory / MEMORY_DIR, "global")
    settings = Settings.load(directory / SETTINGS)
    version = int(summaries.load().health.get("stressVersion", 0))
    say("R")
    big_at = rng.randint(0, 4) if big else -1
    deadline = time.monotonic() + CHILD_SECONDS
    op = mem_count = 0
    while time.monotonic() < deadline:
        roll = rng.random()
        if op == big_at or roll < 0.6:
            size = op == big_at
            count = rng.randint(1, 3) if size else rng.randint(1, 30)
            say(f"B {count} {'big' if size else 'small'}")
            for n in range(count):
                length = rng.randint(200_000, 2_000_000) if size else rng.randint(10, 800)
                content = f"item {seed}-{op}-{n} " + _filler(rng, length)
                item = (
                    items.user_message(content)
                    if n % 3
                    else items.new_item("assistant", author="crash", source="app", content=content)
                )
                if size:
                    say("W")
                stored = session.append(item)
                say(f"A {stored['id']} {digest(content)}")
        elif roll < 0.75:
            version += 1
            say(f"S? {version}")
            summaries.save(
                SessionSummary(
                    summary=summary_text(version),
                    covered_through_id=session.last_id(),
                    health={"stressVersion": version},
                )
            )
            say(f"S {version}")
        elif roll < 0.85:
            tag = f"{seed}-{mem_count}"
            mem_count += 1
            say(f"M? {tag}")
            entry = memory.add(memory_text(tag))
            say(f"M {entry.id} {tag}")
        else:
            key = rng.choice(sorted(SETTING_RANGES))
            value = rng.randint(*SETTING_RANGES[key])
            say(f"T? {key} {json.dumps(value)}")
            settings.set(key, value)
            say(f"T {key} {json.dumps(value)}")
        op += 1
    return 0


# ---------------------------------------------------------------------------------------------- ledger


@dataclass
class Ledger:
    """What the children acknowledged so far (and what was in flight when the last one died)."""

    items: dict[int, str] = field(default_factory=dict)  # id -> content digest
    summary: int = 0  # version known to be on disk
    summary_intent: int | None = None
    memories: dict[str, str] = field(default_factory=dict)  # entry id -> tag
    memory_intent: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    settings_intent: tuple[str, Any] | None = None
    acks: Counter = field(default_factory=Counter)  # line kind -> count

    def take(self, line: str) -> str:
        """Apply one complete child line; return a problem text ("" when fine)."""
        kind, _, rest = line.partition(" ")
        self.acks[kind] += 1
        if kind == "A":
            item_id, item_digest = rest.split()
            if int(item_id) in self.items:
                return f"id {item_id} was acknowledged twice (reused id)"
            self.items[int(item_id)] = item_digest
        elif kind == "S?":
            self.summary_intent = int(rest)
        elif kind == "S":
            self.summary, self.summary_intent = int(rest), None
        elif kind == "M?":
            self.memory_intent = rest
        elif kind == "M":
            entry_id, tag = rest.split()
            self.memories[entry_id], self.memory_intent = tag, None
        elif kind == "T?":
            key, value = rest.split(" ", 1)
            self.settings_intent = (key, json.loads(value))
        elif kind == "T":
            key, value = rest.split(" ", 1)
            self.settings[key], self.settings_intent = json.loads(value), None
        return ""


@dataclass
class Figures:
    """Counts over one harness run."""

    kills: int = 0
    modes: Counter = field(default_factory=Counter)
    acked: int = 0
    stored_unacked: int = 0
    lost: int = 0
    torn_quarantined: int = 0
    newline_repaired: int = 0
    torn_left_to_child: int = 0
    summary_checks: int = 0
    summary_new_on_kill: int = 0
    memory_checks: int = 0
    memories_acked: int = 0
    summaries_acked: int = 0
    settings_checks: int = 0
    settings_acked: int = 0
    temp_files_left: int = 0
    file_mb: float = 0.0
    wall: float = 0.0
    problems: list[str] = field(default_factory=list)
    kept_dir: str = ""


# ---------------------------------------------------------------------------------------------- checks


def _torn_fragment(path: Path) -> tuple[int, bytes] | None:
    """``(offset, bytes)`` of the piece after the last newline, or None when the file ends cleanly."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    if size == 0:
        return None
    with open(path, "rb") as fh:
        pos, tail = size, b""
        while pos > 0:
            step = min(1 << 20, pos)
            pos -= step
            fh.seek(pos)
            tail = fh.read(step) + tail
            nl = tail.rfind(b"\n")
            if nl >= 0:
                pos += nl + 1
                tail = tail[nl + 1 :]
                break
    return (pos, tail) if tail else None


def _quarantined(path: Path) -> dict[int, bytes]:
    out: dict[int, bytes] = {}
    try:
        lines = path.read_bytes().splitlines()
    except FileNotFoundError:
        return out
    for raw in lines:
        record = json.loads(raw)
        line = record["line"].encode("utf-8") if "line" in record else base64.b64decode(record["line_b64"])
        out[int(record["offset"])] = line
    return out


def check_session(directory: Path, ledger: Ledger, figs: Figures) -> list[str]:
    """Reopen the session: torn tail quarantined and repaired, every acknowledged item present and intact."""
    from okbot.core.session import SessionStore

    path = directory / SESSION
    problems: list[str] = []
    torn = _torn_fragment(path)
    store = SessionStore(path)
    if torn is not None:
        offset, fragment = torn
        if _torn_fragment(path) is not None:
            problems.append(f"torn tail at byte {offset} was not repaired (file still lacks a final newline)")
        elif _quarantined(directory / QUARANTINE).get(offset) == fragment:
            figs.torn_quarantined += 1
        elif fragment.endswith(b"}") and any("newline was added" in p for p in store.problems):
            figs.newline_repaired += 1  # a complete item that only lacked its newline: kept
        else:
            problems.append(f"torn tail at byte {offset} ({len(fragment)} bytes) is not in {QUARANTINE}")
    unexpected = [p for p in store.problems if "interrupted write" not in p]
    problems.extend(f"unexpected session notice: {p}" for p in unexpected)
    seen: set[int] = set()
    unacked = 0
    for item in store.iter_items():
        item_id = item["id"]
        if item_id in ledger.items:
            seen.add(item_id)
            if digest(item.get("content", "")) != ledger.items[item_id]:
                problems.append(f"item {item_id} is present but its content changed")
        elif item.get("type") != "notice":
            unacked += 1
    missing = sorted(set(ledger.items) - seen)
    if missing:
        figs.lost += len(missing)
        problems.append(f"{len(missing)} acknowledged item(s) missing, first ids {missing[:10]}")
    figs.stored_unacked = unacked
    return problems


def check_summary(directory: Path, ledger: Ledger, figs: Figures) -> list[str]:
    """session-summary.json loads directly (no fallback) and is the acknowledged or the in-flight version."""
    from okbot.core.summary import SummaryStore

    store = SummaryStore(directory / SUMMARY)
    loaded = store.load()
    figs.summary_checks += 1
    if store.problems:
        return [f"summary did not load cleanly: {store.problems}"]
    version = int(loaded.health.get("stressVersion", 0))
    allowed = {ledger.summary} | ({ledger.summary_intent} if ledger.summary_intent is not None else set())
    if version not in allowed:
        return [f"summary holds version {version}, expected one of {sorted(allowed)}"]
    if version and loaded.summary != summary_text(version):
        return [f"summary version {version} has the wrong text"]
    if version != ledger.summary:
        figs.summary_new_on_kill += 1
    ledger.summary, ledger.summary_intent = version, None
    return []


def check_memory(directory: Path, ledger: Ledger, figs: Figures) -> list[str]:
    """memories.jsonl loads without problems and holds every acknowledged entry, nothing else but the in-flight one."""
    from okbot.core.memory.store import MemoryStore

    store = MemoryStore(directory / MEMORY_DIR, "global")
    entries = {e.id: e for e in store.entries(include_retired=True)}
    figs.memory_checks += 1
    problems = [f"memory problem: {p}" for p in store.problems]
    for entry_id, tag in ledger.memories.items():
        entry = entries.get(entry_id)
        if entry is None:
            figs.lost += 1
            problems.append(f"acknowledged memory {entry_id} ({tag}) is missing")
        elif entry.text != memory_text(tag):
            problems.append(f"memory {entry_id} ({tag}) has the wrong text")
    extra = [e for i, e in entries.items() if i not in ledger.memories]
    intent = ledger.memory_intent
    if extra and not (len(extra) == 1 and intent is not None and extra[0].text == memory_text(intent)):
        problems.append(f"unexpected memories: {[e.id for e in extra]}")
    elif extra:
        ledger.memories[extra[0].id] = intent or ""
    ledger.memory_intent = None
    return problems


def check_settings(directory: Path, ledger: Ledger, figs: Figures) -> list[str]:
    """settings.json loads with no problems and holds the acknowledged values (or the one being set)."""
    from okbot.config.schema import setting
    from okbot.config.settings import Settings

    loaded = Settings.load(directory / SETTINGS)
    figs.settings_checks += 1
    problems = [f"settings problem: {p}" for p in loaded.problems]
    broken = sorted(p.name for p in directory.glob(f"{SETTINGS}.broken-*"))
    if broken:
        problems.append(f"settings backed up as broken: {broken}")
    for key in SETTING_RANGES:
        got = loaded.get_stored(key)
        want = ledger.settings.get(key, setting(key).default)
        intent = ledger.settings_intent
        if got != want and not (intent is not None and intent == (key, got)):
            problems.append(f"setting {key} is {got!r}, expected {want!r}")
        ledger.settings[key] = got
    ledger.settings_intent = None
    return problems


def check_all(directory: Path, ledger: Ledger, figs: Figures) -> list[str]:
    """Every check after one kill; returns the problems found (empty: survived)."""
    problems: list[str] = []
    for check in (check_session, check_summary, check_memory, check_settings):
        problems.extend(check(directory, ledger, figs))
    return problems


# ---------------------------------------------------------------------------------------------- parent


class _Child:
    """One child process with a reader thread collecting its complete stdout lines."""

    def __init__(self, directory: Path, seed: int, big: bool) -> None:
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._stderr = tempfile.TemporaryFile()
        env = dict(os.environ, OKBOT_HOME=str(directory), PYTHONDONTWRITEBYTECODE="1")
        cmd = [sys.executable, "-m", "benchmarks.stress_crash", "--child", str(directory), "--seed", str(seed)]
        self.proc = subprocess.Popen(
            cmd + (["--big"] if big else []), cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=self._stderr
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            if not raw.endswith(b"\n"):
                break  # cut mid-line by the kill: not an acknowledgement
            with self._cond:
                self.lines.append(raw.decode("utf-8").rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_for(self, pred: Callable[[str], bool], timeout: float, start: int = 0) -> int:
        """Index of the first line from ``start`` matching ``pred`` (-1 on timeout or exit)."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for i in range(start, len(self.lines)):
                    if pred(self.lines[i]):
                        return i
                start = len(self.lines)
                left = end - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    return -1
                self._cond.wait(min(left, 0.05))

    def kill(self) -> tuple[int, str]:
        """SIGKILL, reap, drain; return (exit code, stderr tail)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        code = self.proc.wait()
        self._reader.join(timeout=10)
        self._stderr.seek(0)
        err = self._stderr.read().decode("utf-8", "replace")[-2000:]
        self._stderr.close()
        return code, err


def _await_growth(path: Path, extra: float) -> None:
    """Return once ``path`` starts growing (the big write is under way), plus ``extra`` seconds.

    The child prints ``W`` before the store encodes the item (milliseconds for a big one); the
    write itself copies page by page, so polling the size catches it mid-copy.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = 0
    end = time.monotonic() + MARKER_TIMEOUT
    while time.monotonic() < end:
        try:
            if path.stat().st_size != size:
                break
        except FileNotFoundError:
            pass
    end = time.perf_counter() + extra
    while time.perf_counter() < end:
        pass


def _kill_round(directory: Path, rng: random.Random, seed: int, mode: str) -> tuple[list[str], str]:
    """Start a child, kill it at the moment ``mode`` asks for; return its lines and a problem ("" if none)."""
    child = _Child(directory, seed, big=mode == "big-write" or rng.random() < 0.1)
    if mode == "startup":
        time.sleep(rng.uniform(0.0, 0.15))
    else:
        ready = child.wait_for(lambda s: s == "R", MARKER_TIMEOUT)
        if mode == "random":
            time.sleep(rng.uniform(0.0, 0.25))
        elif ready >= 0:
            marker = _MARKER[mode]
            child.wait_for(lambda s: s.split(" ", 1)[0] == marker, MARKER_TIMEOUT, ready)
            if mode == "big-write":
                _await_growth(directory / SESSION, rng.uniform(0.0, 0.0003))
            else:
                time.sleep(rng.uniform(0.0, 0.002))
    code, err = child.kill()
    if code != -signal.SIGKILL:
        return child.lines, f"child exited by itself with code {code} before the kill:\n{err}"
    return child.lines, ""


def crash_run(kills: int, *, seed: int | None = None, directory: Path | None = None, keep: bool = False) -> Figures:
    """Run ``kills`` kill/reopen/check rounds in ``directory`` (a fresh temp dir by default)."""
    seed = random.randrange(1 << 30) if seed is None else seed
    rng = random.Random(seed)
    own = directory is None
    directory = Path(tempfile.mkdtemp(prefix="okbot-crash-")) if directory is None else Path(directory)
    figs, ledger = Figures(), Ledger()
    start = time.perf_counter()
    next_mode = ""
    for round_no in range(kills):
        mode = next_mode or rng.choices(list(MODES), weights=list(MODES.values()))[0]
        next_mode = ""
        lines, problem = _kill_round(directory, rng, seed * 1000 + round_no, mode)
        problems = [problem] if problem else []
        for line in lines:
            bad = ledger.take(line)
            if bad:
                problems.append(bad)
        figs.kills += 1
        figs.modes[mode] += 1
        target = directory
        if _torn_fragment(directory / SESSION) is not None and rng.random() < 0.5:
            # Check a copy and leave the torn tail to the next child, which must repair it itself
            # (and is then killed during start-up half of the time, possibly mid-repair).
            target = Path(tempfile.mkdtemp(prefix="okbot-crash-copy-"))
            shutil.copytree(directory, target, dirs_exist_ok=True)
            figs.torn_left_to_child += 1
            next_mode = "startup" if rng.random() < 0.5 else ""
        problems.extend(check_all(target, ledger, figs))
        if target != directory:
            shutil.rmtree(target, ignore_errors=True)
        if problems:
            figs.problems = [f"round {round_no} (mode {mode}, seed {seed}): {p}" for p in problems]
            break
    figs.wall = time.perf_counter() - start
    figs.acked = len(ledger.items)
    figs.memories_acked = len(ledger.memories)
    figs.summaries_acked = ledger.acks["S"]
    figs.settings_acked = ledger.acks["T"]
    figs.temp_files_left = sum(1 for p in directory.rglob("*.tmp"))
    figs.file_mb = (directory / SESSION).stat().st_size / 1e6 if (directory / SESSION).exists() else 0.0
    if figs.problems or keep or not own:
        figs.kept_dir = str(directory)
    else:
        shutil.rmtree(directory, ignore_errors=True)
    return figs


def report(figs: Figures) -> str:
    """The figures as a table (plus any problem, which means the run failed)."""
    modes = ", ".join(f"{m} {n}" for m, n in figs.modes.most_common())
    rows = [
        ["kills survived", f"{figs.kills - (1 if figs.problems else 0)} / {figs.kills}"],
        ["kill moments", modes],
        ["items acknowledged", f"{figs.acked:,}"],
        ["items stored but not acknowledged (killed before the ack)", f"{figs.stored_unacked:,}"],
        ["items lost", str(figs.lost)],
        ["torn lines quarantined (byte-exact) + repaired", str(figs.torn_quarantined)],
        ["complete last lines that only lacked a newline", str(figs.newline_repaired)],
        ["torn tails left for the next child to repair (checked on a copy)", str(figs.torn_left_to_child)],
        [
            "summary checks (old or new version, never invalid)",
            f"{figs.summary_checks} "
            f"({figs.summaries_acked} saves acknowledged; {figs.summary_new_on_kill} kills "
            "landed after the new version was in place)",
        ],
        ["memory checks (acknowledged memories)", f"{figs.memory_checks} ({figs.memories_acked} memories)"],
        [
            "settings checks (no problems, acknowledged values)",
            f"{figs.settings_checks} ({figs.settings_acked} sets acknowledged)",
        ],
        ["stale *.tmp files left by kills (not cleaned up)", str(figs.temp_files_left)],
        ["session.jsonl size MB", f"{figs.file_mb:.1f}"],
        ["wall time s", f"{figs.wall:.1f}"],
    ]
    out = table("Crash safety: SIGKILL the writer, reopen, check", ["figure", "value"], rows)
    if figs.problems:
        out += "\n\nFAILED:\n" + "\n".join(figs.problems) + f"\nreproducer data kept in {figs.kept_dir}"
    return out


def run(count: int | None = None) -> str:
    """``make stress``: ``count`` kills (None = the issue's 200)."""
    return report(crash_run(FULL_KILLS if count is None else count))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--child", type=Path, help="internal: run as the writing child in this folder")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--big", action="store_true", help="internal: the child writes one burst of big items")
    parser.add_argument("--kills", type=int, default=FULL_KILLS)
    parser.add_argument("--dir", type=Path, default=None, help="data folder to use (kept afterwards)")
    parser.add_argument("--keep", action="store_true", help="keep the temp data folder")
    args = parser.parse_args(argv)
    if args.child is not None:
        return _child(args.child, args.seed or 0, args.big)
    figs = crash_run(args.kills, seed=args.seed, directory=args.dir, keep=args.keep)
    print(report(figs))
    return 1 if figs.problems else 0


if __name__ == "__main__":
    sys.exit(main())
