"""``index/search.sqlite``: an FTS5 index over every assistant's and squad's ``session.jsonl``.

The records stay the source of truth. For each session file the index keeps how far it has read (a byte
offset at a line start), the file's inode and a hash of the first and last indexed bytes: catching up reads
only the bytes after the offset (a torn last line is left for the next time), and a file that shrank, was
replaced (another inode, e.g. restored) or rewritten (the hash differs) is indexed again from the start.
A missing index, one from another schema version, or one SQLite calls corrupt is built again from the
records: :meth:`SearchIndex.catch_up` does it, in chunks that commit as they go (an interrupted build
resumes), so the app runs it on a worker thread and the CLI in the foreground.

The index holds no text: FTS5 runs contentless, a ``docs`` row per item says where its line is (file,
offset, length) with its id, time, type and author, and a snippet is cut from the line itself. A
``words`` table lists every word indexed, so a prefix query can name the words it means; ``markers``
holds each session's branch markers, so a hit from an earlier version of a message is marked as such.
Contentless FTS5 cannot delete rows in the SQLite shipped with Python 3.11, so the rows of a file indexed
again stay behind under a dead file id and are skipped by queries; once they make up a third of the index
the next catch-up rebuilds it.

Rows are numbered in the order they are indexed, and a build from scratch indexes the items of all
sessions merged by time, so "newer" is the row number. Hits come in two groups, each newest first: the
items holding a query's words together (as one phrase), then those holding them apart. FTS5 walks the
index backwards and stops at the limit, which keeps a common word as fast as a rare one; ranking every
match (bm25) would read every match of a common word first.

Threads: one writer at a time (a lock; SQLite's lock between processes), any number of readers, each on
its own connection, in WAL mode.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import heapq
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from okbot.core import items
from okbot.core.kind import Kind
from okbot.core.search import indexfile
from okbot.core.search import text as searchtext
from okbot.core.session import MAX_LINE_BYTES
from okbot.core.session.branches import explicit_parent
from okbot.core.session.parse import check_line
from okbot.core.workspace import Target, Workspace
from okbot.i18n import translate
from okbot.storage import paths
from okbot.storage.datalock import FileLock
from okbot.storage.errors import OkBotError
from okbot.storage.lines import lines_forward

SCHEMA_VERSION = 3
INDEXED_TYPES = frozenset({"user", "assistant", "tool_call", "tool_result"})  # notices are the app's, not found
MAX_INDEXED_CHARS = 100_000  # of one item's text (a huge tool result is found by its start)
_CHECK_BYTES = 4096  # hashed at the start and before the offset, to notice a rewritten file
_BATCH = 20_000  # items per commit while indexing
_DEAD_SHARE = 3  # rebuild once dead rows are a third of all
_EXPAND = 64  # a prefix matching more words than this is left to FTS5's own prefix query
_FETCH = 200  # rows asked of FTS5 at a time while skipping dead ones

Progress = Callable[[int, int], None]  # (bytes read, bytes to read)
log = logging.getLogger(__name__)
_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
    sid INTEGER PRIMARY KEY, kind TEXT NOT NULL, target_id TEXT NOT NULL, name TEXT NOT NULL,
    path TEXT NOT NULL, live INTEGER NOT NULL, offset INTEGER NOT NULL, ino INTEGER NOT NULL,
    checksum TEXT NOT NULL, last_id INTEGER NOT NULL);
CREATE INDEX files_live ON files(path) WHERE live;
CREATE TABLE docs(
    rowid INTEGER PRIMARY KEY, sid INTEGER NOT NULL, item_id INTEGER NOT NULL, off INTEGER NOT NULL,
    len INTEGER NOT NULL, ts TEXT NOT NULL, type TEXT NOT NULL, author TEXT NOT NULL);
CREATE TABLE markers(sid INTEGER, marker_id INTEGER, parent INTEGER, PRIMARY KEY(sid, marker_id)) WITHOUT ROWID;
CREATE TABLE words(word TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE fts USING fts5(
    body, uni, tag, content='', columnsize=0, tokenize='unicode61 remove_diacritics 2');
"""


class IndexBusy(OkBotError):
    """Another process is updating the index; what it holds can still be searched."""


@dataclass(frozen=True)
class Hit:
    """One item found: where it is, who wrote it, and a one-line snippet with the matched text's spans.

    ``replaced`` is True for an item of an earlier version (edited or regenerated away): it is still in
    the record but not on the chat's current branch."""

    kind: str  # "assistant" or "squad"
    target_id: str
    target_name: str
    item_id: int
    ts: str
    type: str
    author: str
    snippet: str
    spans: tuple[tuple[int, int], ...]
    replaced: bool = False


@dataclass(frozen=True)
class CatchUp:
    """What one catch-up did: items indexed, bytes read, and whether it built the index from scratch."""

    items: int
    bytes: int
    rebuilt: bool


@dataclass
class _File:
    sid: int
    path: Path
    offset: int
    size: int
    last_id: int


class _Record:
    __slots__ = ("end", "file", "item", "length", "offset", "ts")

    def __init__(self, file: _File, item: dict, offset: int, length: int) -> None:
        self.file, self.item, self.offset, self.length = file, item, offset, length
        self.end = offset + length + 1
        ts = item.get("ts")
        self.ts = ts if isinstance(ts, str) else ""


def check_fts5() -> None:
    """Raise OkBotError when this Python's SQLite was built without FTS5."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.OperationalError as exc:
        raise OkBotError(
            translate(
                "index",
                "search needs SQLite's full-text index (FTS5), which this Python's SQLite {version} lacks ({why})",
            ).format(version=sqlite3.sqlite_version, why=exc),
            hint=translate(
                "index", "use a Python whose sqlite3 module has FTS5 (python.org and most distributions do)"
            ),
        ) from exc
    finally:
        conn.close()


def _checksum(path: Path, offset: int) -> str:
    """A hash of the first and the last (up to) 4 KiB before ``offset``: bytes an append never changes."""
    if offset <= 0:
        return ""
    with open(path, "rb") as fh:
        head = fh.read(min(offset, _CHECK_BYTES))
        start = max(0, offset - _CHECK_BYTES)
        fh.seek(start)
        tail = fh.read(offset - start)
    return hashlib.sha1(head + b"\0" + tail).hexdigest()


def _expand(conn: sqlite3.Connection, prefix: str) -> list[str] | None:
    """The indexed words starting with ``prefix``, or None when there are more than :data:`_EXPAND`."""
    found = [
        w
        for (w,) in conn.execute(
            "SELECT word FROM words WHERE word >= ? AND word < ? LIMIT ?", (prefix, prefix + "\U0010ffff", _EXPAND + 1)
        )
    ]
    return None if len(found) > _EXPAND else found


def _retire(conn: sqlite3.Connection, sid: int) -> None:
    """Mark a file's rows dead (its file is gone, replaced or rewritten); counted towards a rebuild."""
    conn.execute("UPDATE files SET live=0 WHERE sid=?", (sid,))
    rows = conn.execute("SELECT count(*) FROM docs WHERE sid=?", (sid,)).fetchone()[0]
    conn.execute("UPDATE meta SET value=CAST(value AS INTEGER) + ? WHERE key='dead'", (rows,))


def branch_ranges(last_id: int, markers: dict[int, int]) -> list[tuple[int, int]]:
    """The current branch of a session as inclusive id ranges, given its last id and ``marker -> parent``
    (see :func:`okbot.core.session.branches.branch_slices`: one step per marker on the path).

    A marker must name an earlier item (:func:`~okbot.core.session.branches.explicit_parent`); a row naming
    itself, a later item or no id at all (only a forged index holds one) is passed over, so every step goes
    back and the walk ends."""
    markers = {m: p for m, p in markers.items() if type(m) is int and type(p) is int and 0 <= p < m}
    ordered = sorted(markers)
    out, pos = [], last_id
    while pos > 0:
        k = bisect.bisect_right(ordered, pos) - 1
        if k < 0:
            out.append((0, pos))
            break
        out.append((ordered[k], pos))
        pos = markers[ordered[k]]
    return out


def _count(value: object) -> int:
    """A count the index keeps in ``meta``; one that is not a whole number makes the index damaged (built again)."""
    try:
        return int(str(value), 10)
    except ValueError:
        raise sqlite3.DatabaseError(f"the index's count {value!r} is not a whole number") from None


class SearchIndex:
    """The full-text index of every chat under one data dir (``path`` defaults to
    ``paths.search_index_file()``; ``workspace`` to the data dir's). Thread-safe: one writer, many readers."""

    def __init__(self, path: Path | None = None, *, workspace: Workspace | None = None) -> None:
        check_fts5()
        self.path = Path(path) if path is not None else paths.search_index_file()
        self.workspace = workspace if workspace is not None else Workspace()
        self.parsed = 0  # items parsed by catch-ups so far (tests count the work done)
        self.problems: list[str] = []  # what was found in the index's place and moved aside, as said
        self._write_lock = threading.RLock()
        self._file_lock = FileLock(self.path.with_name(self.path.name + ".lock"))  # writers in other processes
        self._conns_lock = threading.Lock()
        self._conns: list[sqlite3.Connection] = []
        self._local = threading.local()
        self._generation = 0

    # ------------------------------------------------------------------ connections
    def _conn(self) -> sqlite3.Connection:
        """This thread's connection (readers never create the schema: they find nothing until it is built)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.generation == self._generation:
            return conn
        conn = indexfile.connect(self.path, self._notify)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError:
            conn.close()
            raise
        with self._conns_lock:
            self._conns.append(conn)
        self._local.conn, self._local.generation = conn, self._generation
        return conn

    def _notify(self, text: str) -> None:
        self.problems.append(text)
        log.warning("%s", text)

    @staticmethod
    def _schema_ok(conn: sqlite3.Connection) -> bool:
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.OperationalError:
            return False
        return row is not None and row[0] == str(SCHEMA_VERSION)

    def _create(self, conn: sqlite3.Connection) -> None:
        """Drop whatever the file holds and create the empty schema (under the write lock)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            if self._schema_ok(conn):  # another thread or process made it meanwhile
                conn.execute("ROLLBACK")
                return
            names = conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')").fetchall()
            for (name,) in names:
                if name in ("meta", "files", "docs", "markers", "words", "fts"):
                    conn.execute(f"DROP TABLE IF EXISTS {name}")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO meta VALUES ('schema', ?), ('dead', '0')", (str(SCHEMA_VERSION),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _writer_conn(self) -> sqlite3.Connection:
        """This thread's connection, the schema created when the file lacks it or has another version's."""
        conn = self._conn()
        if not self._schema_ok(conn):
            self._create(conn)
        return conn

    def _discard_file(self) -> None:
        """Close every connection and delete the index file (it is corrupt); the next use makes a new one."""
        with self._conns_lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()
            self._generation += 1
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        """Close every connection this index opened (it opens new ones if used again)."""
        with self._conns_lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()
            self._generation += 1

    # ------------------------------------------------------------------ writing
    def catch_up(self, *, progress: Progress | None = None) -> CatchUp:
        """Index what every session gained since the last time; build the index from scratch when it is
        missing, corrupt, from another version, or a third of it is dead rows. Blocking: never on the GUI
        thread. ``progress(bytes read, bytes to read)`` is called now and then. Raises IndexBusy while
        another process is updating the index (searching still works)."""
        return self._write(lambda: self._catch_up(progress))

    def rebuild(self, *, progress: Progress | None = None) -> CatchUp:
        """Build the index from scratch from the records (blocking)."""

        def build() -> CatchUp:
            self._discard_file()
            done = self._catch_up(progress)
            return CatchUp(done.items, done.bytes, True)

        return self._write(build)

    def catch_up_session(self, path: Path) -> int:
        """Index what one ``session.jsonl`` gained (cheap when nothing did: one ``stat`` and a lookup);
        for the app's after-turn hook. Returns the number of items indexed (0 as well while another
        process is updating the index: the next catch-up takes them)."""
        path = Path(path)
        kind = {k.folder: k for k in Kind}.get(path.parent.parent.name)
        if kind is None:
            raise ValueError(f"{path} is not an assistant's or squad's session.jsonl")

        def one() -> int:
            conn = self._writer_conn()
            row = conn.execute(
                "SELECT offset FROM files WHERE live AND kind=? AND target_id=?", (kind, path.parent.name)
            ).fetchone()
            try:
                if row is not None and os.stat(path).st_size == row[0]:
                    return 0
            except FileNotFoundError:
                pass
            target, _ = self.workspace.load(kind, path.parent)
            return self._index(conn, [target], None, every=False).items

        try:
            return self._write(one)
        except IndexBusy:
            return 0

    def _write(self, job: Callable[[], _T]) -> _T:
        """Run ``job`` as the one writer (threads and processes); a corrupt index is discarded and the job
        run again on a fresh one."""
        with self._write_lock:
            indexfile.clear_the_way(self.path, self._notify)  # the lock file too: taking it must follow no link
            if not self._file_lock.acquire(blocking=False):
                raise IndexBusy(translate("index", "another OkBot is updating the search index"))
            try:
                try:
                    return job()
                except sqlite3.DatabaseError as exc:
                    if isinstance(exc, sqlite3.OperationalError):
                        raise
                    self._discard_file()  # corrupt: built again from the records
                    return job()
            finally:
                self._file_lock.release()

    def _catch_up(self, progress: Progress | None) -> CatchUp:
        conn = self._writer_conn()
        fresh = conn.execute("SELECT count(*) FROM files").fetchone()[0] == 0
        dead = _count(conn.execute("SELECT value FROM meta WHERE key='dead'").fetchone()[0])
        total = conn.execute("SELECT max(rowid) FROM docs").fetchone()[0] or 0  # rows are never deleted
        if total and dead * _DEAD_SHARE >= total:
            self._discard_file()
            conn, fresh = self._writer_conn(), True
        done = self._index(conn, self.workspace.list(), progress, every=True)
        return CatchUp(done.items, done.bytes, fresh)

    def _index(
        self, conn: sqlite3.Connection, targets: list[Target], progress: Progress | None, *, every: bool
    ) -> CatchUp:
        """Bring the files of ``targets`` up to date (with ``every``: and retire files of targets gone)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            files = self._pending(conn, targets, every=every)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        total = sum(f.size - f.offset for f in files)
        if not files:
            return CatchUp(0, 0, False)
        count = 0
        start = sum(f.offset for f in files)
        records = heapq.merge(*(self._read(f) for f in files), key=lambda r: r.ts)
        next_row = (conn.execute("SELECT max(rowid) FROM docs").fetchone()[0] or 0) + 1
        exhausted = False
        while not exhausted:
            docs: list[tuple] = []
            fts: list[tuple] = []
            markers: list[tuple] = []
            touched: dict[int, _File] = {}
            vocabulary: set[str] = set()
            for record in records:
                item, file = record.item, record.file
                touched[file.sid] = file
                file.offset, file.last_id = record.end, item["id"]
                kind = item["type"]
                if kind in INDEXED_TYPES:
                    author = item.get("author")
                    docs.append(
                        (
                            next_row,
                            file.sid,
                            item["id"],
                            record.offset,
                            record.length,
                            record.ts,
                            kind,
                            author if isinstance(author, str) else "",
                        )
                    )
                    body = items.item_text(item)[:MAX_INDEXED_CHARS]
                    fts.append((next_row, searchtext.index_text(body), searchtext.cjk_chars(body), f"s{file.sid}"))
                    vocabulary |= searchtext.words(body)
                    next_row += 1
                elif (parent := explicit_parent(item)) is not None:
                    markers.append((file.sid, item["id"], parent))
                if len(docs) + len(markers) >= _BATCH:
                    break
            else:  # every file read to its last full line (their offsets moved past lines set aside too)
                exhausted = True
                touched = {f.sid: f for f in files}
            self._store(conn, docs, fts, markers, vocabulary, touched.values())
            count += len(docs)
            if progress is not None:
                progress(total if exhausted else min(total, sum(f.offset for f in files) - start), total)
        return CatchUp(count, total, False)

    def _store(
        self, conn: sqlite3.Connection, docs: list, fts: list, markers: list, vocabulary: set[str], files
    ) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT INTO docs VALUES (?,?,?,?,?,?,?,?)", docs)
            conn.executemany("INSERT INTO fts(rowid, body, uni, tag) VALUES (?,?,?,?)", fts)
            conn.executemany("INSERT OR IGNORE INTO words VALUES (?)", ((w,) for w in vocabulary))
            conn.executemany("INSERT OR REPLACE INTO markers VALUES (?,?,?)", markers)
            for f in files:
                conn.execute(
                    "UPDATE files SET offset=?, last_id=?, checksum=? WHERE sid=?",
                    (f.offset, f.last_id, _checksum(f.path, f.offset), f.sid),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _pending(self, conn: sqlite3.Connection, targets: list[Target], *, every: bool) -> list[_File]:
        """The files with bytes to read; files replaced, rewritten or gone are retired (their rows die)."""
        known = {
            (kind, tid): (sid, name, path, offset, ino, checksum, last_id)
            for sid, kind, tid, name, path, offset, ino, checksum, last_id in conn.execute(
                "SELECT sid, kind, target_id, name, path, offset, ino, checksum, last_id FROM files WHERE live"
            )
        }
        out = []
        for target in targets:
            path = target.session_path
            row = known.pop((target.kind, target.id), None)
            try:
                st = os.stat(path)
            except FileNotFoundError:
                st = None
            if row is not None:
                sid, name, stored_path, offset, ino, checksum, last_id = row
                same = (
                    st is not None
                    and st.st_ino == ino
                    and st.st_size >= offset
                    and (st.st_size == offset or _checksum(path, offset) == checksum)
                )
                if not same:
                    _retire(conn, sid)
                    row = None
                elif name != target.name or stored_path != str(path):  # renamed, or the data dir moved
                    conn.execute("UPDATE files SET name=?, path=? WHERE sid=?", (target.name, str(path), sid))
            if st is None:
                continue
            if row is None:
                sid = conn.execute(
                    "INSERT INTO files(kind, target_id, name, path, live, offset, ino, checksum, last_id)"
                    " VALUES (?,?,?,?,1,0,?,'',0)",
                    (target.kind, target.id, target.name, str(path), st.st_ino),
                ).lastrowid
                offset, last_id = 0, 0
            if st.st_size > offset:
                out.append(_File(sid, path, offset, st.st_size, last_id))
        if every:
            for sid, *_ in known.values():
                _retire(conn, sid)
        return out

    def _read(self, file: _File) -> Iterator[_Record]:
        """The valid items after ``file.offset``, each with where its line is; invalid lines and ids not
        above the ones before are passed over (as the session store does); a torn last line is not read."""
        last_id = file.last_id
        end = file.offset
        with open(file.path, "rb") as fh:
            for offset, line, length in lines_forward(fh, file.offset, file.size, MAX_LINE_BYTES):
                end = offset + length + 1
                if line is None:
                    continue
                item, _ = check_line(line)
                self.parsed += 1
                if item is None or item["id"] <= last_id:
                    continue
                last_id = item["id"]
                yield _Record(file, item, offset, length)
        file.offset = max(file.offset, end)  # past the lines set aside after the last item

    # ------------------------------------------------------------------ reading
    def search(self, query: str, *, target: str | None = None, limit: int = 50) -> list[Hit]:
        """The items holding every word of ``query`` (plain words, ``"a phrase"``, ``prefix*``; CJK
        substrings), at most ``limit``: those holding the words together (as one phrase) first, then the
        others, each group newest first; only in assistant or squad ``target`` (an id) if
        given. Reads the index as it is: call :meth:`catch_up` first for what was appended since."""
        terms = searchtext.parse_query(query)
        if not terms or limit <= 0:
            return []
        try:
            try:
                return self._search(self._conn(), terms, target, limit)
            except sqlite3.ProgrammingError:  # the connection was closed under us by a rebuild: once more
                return self._search(self._conn(), terms, target, limit)
        except sqlite3.DatabaseError as exc:
            raise OkBotError(
                translate("index", "the search index cannot be read ({why})").format(why=exc),
                hint=translate("index", "catching up rebuilds it"),
            ) from exc

    def _search(self, conn: sqlite3.Connection, terms: list, target: str | None, limit: int) -> list[Hit]:
        if not self._schema_ok(conn):
            return []  # not built yet (or by another version): catch_up builds it
        files = {
            sid: (kind, tid, name, path, last_id)
            for sid, kind, tid, name, path, last_id in conn.execute(
                "SELECT sid, kind, target_id, name, path, last_id FROM files WHERE live"
            )
        }
        expand = functools.partial(_expand, conn)
        expr = searchtext.fts_expression(terms, expand)
        if expr is None:
            return []
        tiers = [expr]
        if len(terms) > 1 and not any(term.prefix for term in terms):  # the words together come first
            tiers.insert(0, searchtext.fts_expression([searchtext.Term(" ".join(t.text for t in terms))], expand))
        if target is not None:
            sids = [sid for sid, f in files.items() if f[1] == target]
            if not sids:
                return []
            tiers = [f'tag : "s{sids[0]}" AND {tier}' for tier in tiers if tier]
        rows: list[tuple] = []
        for tier in tiers:
            if tier:
                rows += self._rows(conn, tier, files, limit - len(rows), {r[0] for r in rows})
        branches = self._branches(conn, {r[1] for r in rows}, files)
        return [self._hit(r, files[r[1]], branches[r[1]], terms) for r in rows]

    @staticmethod
    def _rows(conn: sqlite3.Connection, expr: str, files: dict, want: int, skip: set[int]) -> list[tuple]:
        """Up to ``want`` docs rows matching ``expr``, newest first, of live files and not in ``skip``."""
        rows: list[tuple] = []
        before = 1 << 62
        while len(rows) < want:
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT rowid FROM fts WHERE fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?",
                    (expr, before, _FETCH),
                )
            ]
            if not ids:
                break
            marks = ",".join("?" * len(ids))
            found = conn.execute(
                f"SELECT rowid, sid, item_id, off, len, ts, type, author FROM docs WHERE rowid IN ({marks})", ids
            ).fetchall()
            found.sort(key=lambda r: -r[0])
            rows.extend(r for r in found if r[1] in files and r[0] not in skip)
            before = ids[-1]
            if len(ids) < _FETCH:
                break
        return rows[:want]

    @staticmethod
    def _branches(conn: sqlite3.Connection, sids: set[int], files: dict) -> dict[int, list[tuple[int, int]] | None]:
        out: dict[int, list[tuple[int, int]] | None] = {}
        for sid in sids:
            markers = dict(conn.execute("SELECT marker_id, parent FROM markers WHERE sid=?", (sid,)).fetchall())
            out[sid] = branch_ranges(files[sid][4], markers) if markers else None
        return out

    @staticmethod
    def _hit(row: tuple, file: tuple, branch: list[tuple[int, int]] | None, terms: list) -> Hit:
        _, _, item_id, off, length, ts, kind, author = row
        target_kind, target_id, name, path, _ = file
        text = ""
        try:
            with open(path, "rb") as fh:
                fh.seek(off)
                item = json.loads(fh.read(length))
            if isinstance(item, dict) and item.get("id") == item_id:
                text = items.item_text(item)
        except (OSError, ValueError):
            pass  # the file changed under the index: the hit stays, without its text
        shown, spans = searchtext.snippet(text, terms)
        replaced = branch is not None and not any(lo <= item_id <= hi for lo, hi in branch)
        return Hit(target_kind, target_id, name, item_id, ts, kind, author, shown, spans, replaced)
