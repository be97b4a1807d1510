"""SessionStore: append-only session.jsonl, offset index, backwards reads and bad-input handling."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import tempfile
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okbot.core import items
from okbot.core.session import EXCERPT_BYTES, SessionStore
from okbot.llm import keys
from okbot.storage.errors import OkBotError


# --------------------------------------------------------------------------- helpers
class _CountingFile:
    """Wraps a binary file and counts the bytes read through it."""

    def __init__(self, fh: BinaryIO, owner: CountingStore) -> None:
        self._fh = fh
        self._owner = owner

    def read(self, n: int = -1) -> bytes:
        data = self._fh.read(n)
        self._owner.bytes_read += len(data)
        return data

    def seek(self, pos: int, whence: int = 0) -> int:
        return self._fh.seek(pos, whence)

    def __enter__(self) -> _CountingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


class CountingStore(SessionStore):
    """A real SessionStore whose reads of session.jsonl are counted (opens and bytes)."""

    bytes_read = 0
    opens = 0

    def _open_read(self) -> Any:
        self.opens += 1
        return _CountingFile(open(self.path, "rb"), self)

    def reset(self) -> None:
        self.bytes_read = 0
        self.opens = 0


def _line(item_id: int, text: str = "hi", kind: str = "user") -> bytes:
    item = items.user_message(text) if kind == "user" else items.notice(text)
    item["id"] = item_id
    return items.encode_item(item)


def _write(path: Path, *chunks: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(chunks))


def _quarantine(path: Path) -> list[dict]:
    q = path.with_name("session.quarantine.jsonl")
    if not q.exists():
        return []
    return [json.loads(line) for line in q.read_text("utf-8").splitlines() if line.strip()]


def _ids(found: list[dict]) -> list[int]:
    return [it["id"] for it in found]


def _non_notice(found: list[dict]) -> list[dict]:
    return [it for it in found if it["type"] != "notice"]


@pytest.fixture
def spath(tmp_path: Path) -> Path:
    return tmp_path / "a1" / "session.jsonl"


# --------------------------------------------------------------------------- empty / missing
def test_missing_file_acts_as_empty_and_is_not_created(spath: Path) -> None:
    store = SessionStore(spath)
    assert store.last_id() == 0
    assert store.tail(5) == []
    assert store.read_after(0) == ([], True)
    assert store.read_after(3) == ([], False)
    assert store.get(1) is None
    assert len(store) == 0
    assert list(store.iter_items()) == []
    assert store.problems == []
    assert not spath.exists()


def test_empty_file(spath: Path) -> None:
    _write(spath, b"")
    store = SessionStore(spath)
    assert store.last_id() == 0
    assert store.read_after(0) == ([], True)
    assert len(store) == 0
    assert store.problems == []
    assert spath.read_bytes() == b""


# --------------------------------------------------------------------------- append basics
def test_append_assigns_ids_and_creates_private_file(spath: Path) -> None:
    store = SessionStore(spath)
    first = store.append({**items.user_message("one"), "id": 99})
    second = store.append(items.user_message("two"))
    assert (first["id"], second["id"]) == (1, 2)
    assert first["content"] == "one"
    assert stat.S_IMODE(spath.stat().st_mode) == 0o600
    lines = spath.read_bytes().splitlines()
    assert lines[0].startswith(b'{"id":1,') and lines[1].startswith(b'{"id":2,')
    assert store.last_id() == 2


def test_a_file_put_in_its_place_is_read_again_not_through_the_old_offsets(spath: Path) -> None:
    """A copy restored by hand (or an editor's save) while OkBot runs: a longer file under the same name."""
    store = SessionStore(spath)
    for text in ("one", "two", "three"):
        store.append(items.user_message(text))
    assert store.get(2)["content"] == "two"  # indexed: the offsets of this file are held
    other = SessionStore(spath.parent / "copy.jsonl")
    for text in ("a much longer first message than before", "second of the copy", "third", "fourth"):
        other.append(items.user_message(text))
    os.replace(other.path, spath)
    assert store.get(1)["content"] == "a much longer first message than before"
    assert [it["content"] for it in store.tail(2)] == ["third", "fourth"]
    assert store.last_id() == 4
    assert any("was replaced by another file" in problem for problem in store.problems)
    assert store.append(items.user_message("five"))["id"] == 5


def test_a_file_removed_and_made_again_is_indexed_from_its_start(spath: Path) -> None:
    store = SessionStore(spath)
    store.append(items.user_message("one"))
    store.append(items.user_message("two"))
    assert store.get(2)["content"] == "two"  # indexed
    spath.unlink()
    assert store.tail(5) == []  # seen gone (read backwards, not through the index)
    other = SessionStore(spath)  # another writer makes it again, longer than before
    for text in ("first of the new file, longer than the old ones", "second", "third"):
        other.append(items.user_message(text))
    assert [it["content"] for it in store.iter_items()][0] == "first of the new file, longer than the old ones"
    assert store.problems == []  # nothing damaged: the old offsets were dropped with the old file


def test_a_file_rewritten_in_place_to_the_same_size_is_read_again(spath: Path) -> None:
    """The stat cannot tell (same inode, same size): the lines read through the old offsets do not match."""
    store = SessionStore(spath)
    store.append(items.user_message("short"))
    store.append(items.user_message("a much longer second message"))
    assert store.get(1)["content"] == "short"  # indexed
    other = SessionStore(spath.parent / "copy.jsonl")
    other.append(items.user_message("a much longer second message"))
    other.append(items.user_message("short"))
    data = other.path.read_bytes()
    assert len(data) == spath.stat().st_size
    with open(spath, "r+b") as fh:  # an editor saving in place
        fh.write(data)
    assert [it["content"] for it in store.tail(2)] == ["a much longer second message", "short"]
    assert store.get(2)["content"] == "short"
    assert any("was replaced by another file" in problem for problem in store.problems)


def test_append_rejects_invalid_item_and_writes_nothing(spath: Path) -> None:
    store = SessionStore(spath)
    store.append(items.user_message("ok"))
    before = spath.read_bytes()
    with pytest.raises(ValueError):
        store.append({"type": "bogus"})
    with pytest.raises(ValueError):
        store.append({"type": "user", "content": 5})
    assert spath.read_bytes() == before
    assert store.append(items.user_message("next"))["id"] == 2


def test_thousand_appends_then_reopen_identical(spath: Path) -> None:
    store = SessionStore(spath)
    written = [store.append(items.user_message(f"msg {i} ünïcode")) for i in range(1000)]
    reopened = SessionStore(spath)
    assert reopened.last_id() == 1000
    assert list(reopened.iter_items()) == written
    assert reopened.tail(1000) == written
    assert reopened.read_after(0) == (written, True)
    assert len(reopened) == 1000
    assert reopened.problems == []
    nxt = reopened.append(items.user_message("after reopen"))
    assert nxt["id"] == 1001


def test_get_random_access(spath: Path) -> None:
    store = SessionStore(spath)
    written = [store.append(items.user_message(f"m{i}" * (i % 7 + 1))) for i in range(300)]
    again = SessionStore(spath)
    for k in (1, 2, 150, 299, 300, 77):
        assert again.get(k) == written[k - 1]
    assert again.get(0) is None
    assert again.get(301) is None
    # appends after the index was built are reachable without a rescan
    extra = again.append(items.user_message("late"))
    assert again.get(extra["id"]) == extra


def test_iter_items_ranges(spath: Path) -> None:
    store = SessionStore(spath)
    for i in range(50):
        store.append(items.user_message(str(i)))
    assert _ids(list(store.iter_items())) == list(range(1, 51))
    assert _ids(list(store.iter_items(10, 20))) == list(range(10, 21))
    assert _ids(list(store.iter_items(start_id=45))) == list(range(45, 51))
    assert _ids(list(store.iter_items(end_id=3))) == [1, 2, 3]
    assert _ids(list(store.iter_items(0, 2))) == [1, 2]
    assert list(store.iter_items(60, 70)) == []
    assert list(store.iter_items(20, 10)) == []


def test_read_after_positions(spath: Path) -> None:
    store = SessionStore(spath)
    written = [store.append(items.user_message(str(i))) for i in range(20)]
    assert store.read_after(0) == (written, True)
    assert store.read_after(12) == (written[12:], True)
    assert store.read_after(20) == ([], True)
    assert store.read_after(21) == ([], False)
    assert store.read_after(500) == ([], False)


def test_read_after_gap_id_reports_missing(spath: Path) -> None:
    _write(spath, _line(1), _line(2), _line(4), _line(5))
    store = SessionStore(spath)
    found, exists = store.read_after(3)
    assert _ids(found) == [4, 5] and exists is False
    assert store.read_after(2)[1] is True


def test_returned_items_are_copies(spath: Path) -> None:
    store = SessionStore(spath)
    store.append(
        {**items.new_item("assistant", author="a1", source="member:a1", content="x"), "usage": {"prompt_tokens": 3}}
    )
    found, _ = store.read_after(0)
    found[0]["content"] = "mutated"
    found[0]["usage"]["prompt_tokens"] = 999
    again, _ = store.read_after(0)
    assert again[0]["content"] == "x" and again[0]["usage"] == {"prompt_tokens": 3}
    tail = store.tail(1)
    tail[0]["content"] = "mutated"
    assert store.tail(1)[0]["content"] == "x"


# --------------------------------------------------------------------------- caching and cost
def test_read_after_cache_avoids_rereading(spath: Path) -> None:
    store = CountingStore(spath)
    for i in range(30):
        store.append(items.user_message(str(i)))
    first = store.read_after(10)
    store.reset()
    assert store.read_after(10) == first
    assert store.bytes_read == 0 and store.opens == 0
    # own appends update the cached answer without reading the file
    new = store.append(items.user_message("new"))
    found, exists = store.read_after(10)
    assert found == first[0] + [new] and exists
    assert store.bytes_read == 0
    # an append by someone else (size changed) is noticed
    other = SessionStore(spath)
    foreign = other.append(items.user_message("from elsewhere"))
    found, _ = store.read_after(10)
    assert found[-1] == foreign
    assert store.bytes_read > 0


def test_backwards_reads_cost_the_tail_not_the_file(spath: Path) -> None:
    writer = SessionStore(spath)
    writer.append(items.user_message("H" * (20 * 1024 * 1024)))
    for i in range(20):
        writer.append(items.user_message(f"small {i}"))
    store = CountingStore(spath)
    assert store.bytes_read < 1024 * 1024  # opening does not read the file
    store.reset()
    assert store.last_id() == 21
    assert store.bytes_read < 1024 * 1024
    store.reset()
    assert _ids(store.tail(5)) == [17, 18, 19, 20, 21]
    assert store.bytes_read < 1024 * 1024
    store.reset()
    found, exists = store.read_after(15)
    assert _ids(found) == list(range(16, 22)) and exists
    assert store.bytes_read < 1024 * 1024


def test_index_extends_without_rescanning(spath: Path) -> None:
    store = CountingStore(spath)
    for i in range(200):
        store.append(items.user_message(f"m{i}"))
    store.ensure_index()
    size_before = spath.stat().st_size
    other = SessionStore(spath)
    for i in range(3):
        other.append(items.user_message(f"x{i}"))
    store.reset()
    store.ensure_index()
    assert len(store) == 203
    assert store.bytes_read <= spath.stat().st_size - size_before
    store.reset()
    own = store.append(items.user_message("own"))
    assert store.get(own["id"]) == own
    assert store.bytes_read <= len(items.encode_item(own))


def test_concurrent_appends_unique_increasing_ids(spath: Path) -> None:
    store = SessionStore(spath)
    results: list[list[int]] = [[] for _ in range(4)]

    def worker(k: int) -> None:
        for i in range(50):
            results[k].append(store.append(items.user_message(f"t{k}-{i}"))["id"])

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    all_ids = sorted(i for r in results for i in r)
    assert all_ids == list(range(1, 201))
    assert all(r == sorted(r) for r in results)
    reopened = SessionStore(spath)
    assert _ids(list(reopened.iter_items())) == list(range(1, 201))
    assert reopened.problems == []


# --------------------------------------------------------------------------- torn last line
def test_torn_last_line_is_set_aside_and_repaired_by_appending(spath: Path) -> None:
    good = _line(1) + _line(2) + _line(3)
    fragment = b'{"id":4,"v":1,"ts":"2024-01-01T00:00:00Z","type":"us'
    _write(spath, good, fragment)
    seen: list[str] = []
    store = SessionStore(spath, on_notice=seen.append)
    assert len(seen) == 1 and "cut off" in seen[0]
    assert store.problems == seen
    data = spath.read_bytes()
    assert data.startswith(good + fragment + b"\n")  # good data untouched, repaired by appending
    records = _quarantine(spath)
    assert len(records) == 1
    assert records[0]["offset"] == len(good)
    assert records[0]["line"] == fragment.decode()
    assert "torn" in records[0]["reason"]
    assert records[0]["ts"]
    notice = store.tail(1)[0]
    assert notice["type"] == "notice" and notice["level"] == "warning"
    assert notice["id"] == 4  # next id is still unique
    assert _ids(store.read_after(0)[0]) == [1, 2, 3, 4]
    # reopening and a full scan report nothing new
    again = SessionStore(spath, on_notice=seen.append)
    again.ensure_index()
    assert again.problems == [] and len(seen) == 1
    assert len(_quarantine(spath)) == 1
    assert again.append(items.user_message("next"))["id"] == 5


def test_torn_line_that_is_a_complete_item_is_kept(spath: Path) -> None:
    _write(spath, _line(1), _line(2)[:-1])  # only the newline is missing
    store = SessionStore(spath)
    assert spath.read_bytes().endswith(b"\n")
    assert _ids(store.read_after(0)[0]) == [1, 2]
    assert _quarantine(spath) == []
    assert len(store.problems) == 1 and "newline" in store.problems[0]
    assert store.append(items.user_message("x"))["id"] == 3


def test_append_repairs_a_torn_line_written_after_open(spath: Path) -> None:
    store = SessionStore(spath)
    store.append(items.user_message("one"))
    with open(spath, "ab") as fh:
        fh.write(b'{"id":2,"v":1,"ty')
    item = store.append(items.user_message("two"))
    assert item["content"] == "two"
    reopened = SessionStore(spath)
    kinds = [(it["type"], it.get("content")) for it in reopened.iter_items()]
    assert ("user", "two") in kinds and ("user", "one") in kinds
    assert len(_quarantine(spath)) == 1
    assert reopened.problems == []
    ids = _ids(list(reopened.iter_items()))
    assert ids == sorted(set(ids))


# --------------------------------------------------------------------------- bad lines in the middle
def test_malformed_json_in_the_middle(spath: Path) -> None:
    _write(spath, _line(1), _line(2), b'{"id":3,"type":"user","content":"oops\n', _line(4))
    seen: list[str] = []
    store = SessionStore(spath, on_notice=seen.append)
    assert seen == []  # opening alone does not scan
    store.ensure_index()
    assert len(seen) == 1 and "session.quarantine.jsonl" in seen[0]
    assert _ids(_non_notice(list(store.iter_items()))) == [1, 2, 4]
    records = _quarantine(spath)
    assert len(records) == 1 and "JSON" in records[0]["reason"]
    assert records[0]["offset"] == len(_line(1) + _line(2))
    notices = [it for it in store.iter_items() if it["type"] == "notice"]
    assert len(notices) == 1 and notices[0]["level"] == "warning" and notices[0]["id"] == 5
    # not reported again
    again = SessionStore(spath, on_notice=seen.append)
    again.ensure_index()
    again.read_after(0)
    again.tail(10)
    assert len(seen) == 1 and len(_quarantine(spath)) == 1


def test_valid_json_that_is_not_an_item(spath: Path) -> None:
    _write(
        spath,
        _line(1),
        b"[1, 2, 3]\n",
        b'{"id": 7, "type": "bogus"}\n',
        b'{"id": 0, "type": "user", "content": "x"}\n',
        _line(2),
    )
    store = SessionStore(spath)
    store.ensure_index()
    assert _ids(_non_notice(list(store.iter_items()))) == [1, 2]
    reasons = [r["reason"] for r in _quarantine(spath)]
    assert len(reasons) == 3
    assert "list" in reasons[0]
    assert "bogus" in reasons[1]
    assert "id" in reasons[2]
    assert len(store.problems) == 1  # one notice for the batch
    assert "3 " in store.problems[0]


def test_invalid_utf8_line(spath: Path) -> None:
    bad = b'{"id":2,"type":"user","content":"\xff\xfe"}\n'
    _write(spath, _line(1), bad, _line(3))
    store = SessionStore(spath)
    store.ensure_index()
    assert _ids(_non_notice(list(store.iter_items()))) == [1, 3]
    (record,) = _quarantine(spath)
    assert "UTF-8" in record["reason"]
    assert base64.b64decode(record["line_b64"]) == bad[:-1]
    assert "line" not in record


def test_duplicate_and_non_increasing_ids_later_line_loses(spath: Path) -> None:
    _write(
        spath,
        _line(1, "a"),
        _line(2, "first two"),
        _line(2, "second two"),
        _line(3, "c"),
        _line(1, "late one"),
        _line(4, "d"),
    )
    store = SessionStore(spath)
    store.ensure_index()
    kept = _non_notice(list(store.iter_items()))
    assert [(it["id"], it["content"]) for it in kept] == [(1, "a"), (2, "first two"), (3, "c"), (4, "d")]
    reasons = [r["reason"] for r in _quarantine(spath)]
    assert len(reasons) == 2 and all("id" in r for r in reasons)
    assert store.append(items.user_message("e"))["id"] == 6  # 5 is the notice


def test_backwards_readers_resolve_duplicates_like_the_scan(spath: Path) -> None:
    _write(spath, _line(1, "a"), _line(2, "first two"), _line(3, "c"), _line(3, "dup three"), _line(4, "d"))
    store = SessionStore(spath)
    found, exists = store.read_after(1)
    assert exists
    kept = _non_notice(found)
    assert [(it["id"], it["content"]) for it in kept] == [(2, "first two"), (3, "c"), (4, "d")]
    assert len(_quarantine(spath)) == 1
    assert len(store.problems) == 1
    store.ensure_index()
    assert len(store.problems) == 1  # the scan agrees and does not report again


def test_bad_lines_found_backwards_are_quarantined(spath: Path) -> None:
    _write(spath, _line(1), _line(2), b"not json at all\n", _line(3))
    seen: list[str] = []
    store = SessionStore(spath, on_notice=seen.append)
    tail = store.tail(2)
    assert len(seen) == 1
    assert tail[-1]["type"] == "notice"  # the notice itself is the newest item
    assert _ids(_non_notice(store.read_after(0)[0])) == [1, 2, 3]
    assert len(_quarantine(spath)) == 1
    store.ensure_index()
    assert len(seen) == 1


def test_multiple_bad_lines_give_one_notice_per_batch(spath: Path) -> None:
    _write(spath, _line(1), b"{bad\n", _line(2), b"]]\n", _line(3), b'"str"\n', _line(4))
    store = SessionStore(spath)
    store.ensure_index()
    notices = [it for it in store.iter_items() if it["type"] == "notice"]
    assert len(notices) == 1
    assert len(_quarantine(spath)) == 3
    # a new bad line appended later is a new batch
    with open(spath, "ab") as fh:
        fh.write(b"{worse\n")
    store.ensure_index()
    notices = [it for it in store.iter_items() if it["type"] == "notice"]
    assert len(notices) == 2
    assert len(_quarantine(spath)) == 4


def test_many_long_bad_lines_are_set_aside_once_however_often_the_session_is_opened(spath: Path) -> None:
    """``make stress`` caught it: reading the quarantine moved the file position under its own line scan,
    so after a few records longer than one read chunk the rest were not recognised, and every open set
    the same lines aside again (and told the user again)."""
    torn = [b'{"id": ' + str(n).encode() + b', "content": "' + b"x" * 700_000 + b"\n" for n in range(8)]
    # 5.6 MB of them: the quarantine is read in more than one 4 MB chunk
    _write(spath, _line(1), *torn, _line(2))
    first = SessionStore(spath)
    first.ensure_index()
    assert len(_quarantine(spath)) == 8 and len(first.problems) == 1
    for _ in range(3):
        again = SessionStore(spath)
        again.ensure_index()
        assert again.problems == [] and len(_quarantine(spath)) == 8


def test_blank_lines_are_ignored_silently(spath: Path) -> None:
    _write(spath, b"\n", _line(1), b"\n\n   \n", _line(2), b"\r\n", _line(3))
    store = SessionStore(spath)
    store.ensure_index()
    assert _ids(list(store.iter_items())) == [1, 2, 3]
    assert _ids(store.tail(3)) == [1, 2, 3]
    assert _ids(store.read_after(0)[0]) == [1, 2, 3]
    assert store.problems == []
    assert _quarantine(spath) == []


def test_quarantine_file_is_private(spath: Path) -> None:
    _write(spath, _line(1), b"junk\n", _line(2))
    SessionStore(spath).ensure_index()
    q = spath.with_name("session.quarantine.jsonl")
    assert stat.S_IMODE(q.stat().st_mode) == 0o600


# --------------------------------------------------------------------------- big items
def test_a_twenty_megabyte_single_item(spath: Path) -> None:
    """Above the largest item OkBot writes (a 2M-character reply), below the per-line limit."""
    big_text = "x" * (20 * 1024 * 1024)
    store = SessionStore(spath)
    store.append(items.user_message("before"))
    big = store.append(items.user_message(big_text))
    reopened = SessionStore(spath)
    assert reopened.last_id() == 2
    assert reopened.tail(1)[0]["content"] == big_text
    found, exists = reopened.read_after(1)
    assert exists and len(found) == 1 and found[0]["id"] == big["id"]
    assert reopened.get(2)["content"] == big_text
    assert reopened.append(items.user_message("after"))["id"] == 3
    assert _ids(list(reopened.iter_items(1, 3))) == [1, 2, 3]
    assert os.path.getsize(spath) > 20 * 1024 * 1024


# --------------------------------------------------------------------------- readers agree (property)
_BAD_LINES = [b"{oops", b"[1]", b'{"id":3}', b"\xff\xfe", b'{"id":2,"type":"user","content":7}', b"null"]


def _reference(data: bytes) -> list[int]:
    """Ids the forward rule keeps: complete lines that are valid items with an id above every earlier one."""
    kept, top = [], 0
    for raw in data.split(b"\n")[:-1]:
        try:
            item = items.validate_item(json.loads(raw.decode("utf-8")))
        except (ValueError, UnicodeDecodeError):
            continue
        if item["id"] > top:
            kept.append(item["id"])
            top = item["id"]
    return kept


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.tuples(st.just("item"), st.integers(1, 30)),
            st.tuples(st.just("bad"), st.integers(0, len(_BAD_LINES) - 1)),
            st.tuples(st.just("blank"), st.just(0)),
        ),
        max_size=25,
    ),
    torn=st.booleans(),
    after=st.integers(0, 32),
    n=st.integers(1, 8),
)
def test_backwards_readers_agree_with_the_forward_scan(
    lines: list[tuple[str, int]], torn: bool, after: int, n: int
) -> None:
    chunks = []
    for pos, (kind, value) in enumerate(lines):
        if kind == "item":
            chunks.append(_line(value, f"line {pos}"))
        elif kind == "bad":
            chunks.append(_BAD_LINES[value] + b"\n")
        else:
            chunks.append(b"  \n")
    if torn:
        chunks.append(_line(99, "torn")[:20])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        _write(path, *chunks)
        original = _reference(b"".join(chunks))
        store = SessionStore(path)
        found, exists = store.read_after(after)
        expected = _reference(path.read_bytes())  # now with any notice the reader appended
        assert expected[: len(original)] == original  # nothing lost; only notices were added
        if original == sorted(value for kind, value in lines if kind == "item"):
            # without an index the backwards readers are exact unless ids go down (outside edits)
            assert _ids(found) == [i for i in expected if i > after]
            assert exists == (after == 0 or after in expected)
            tail = store.tail(n)  # may set aside lines read_after did not reach, adding a notice
            assert _ids(tail) == _reference(path.read_bytes())[-n:]
        fresh = SessionStore(path)
        fresh.ensure_index()
        scanned = list(fresh.iter_items())
        ids = _ids(scanned)
        assert ids == _reference(path.read_bytes())
        assert ids[: len(original)] == original
        assert all(it["type"] == "notice" for it in scanned[len(original) :])
        # with a current index every reader is exact
        assert fresh.last_id() == (ids[-1] if ids else 0)
        assert fresh.tail(n) == scanned[-n:]
        assert fresh.read_after(after) == ([it for it in scanned if it["id"] > after], after == 0 or after in ids)
        assert fresh.append(items.user_message("new"))["id"] == (ids[-1] if ids else 0) + 1


# --------------------------------------------------------------------------- a newer OkBot's session
def _newer_line(item_id: int, text: str = "from the future", **extra: object) -> bytes:
    item = {**items.user_message(text), "id": item_id, "v": items.NEWEST_VERSION + 1, **extra}
    return items.encode_item(item)


def _refuses_to_append(store: SessionStore) -> None:
    with pytest.raises(OkBotError, match="written by a newer OkBot") as caught:
        store.append(items.user_message("mine"))
    assert caught.value.hint


def test_a_newer_okbots_session_reads_but_refuses_to_append_and_is_left_untouched(spath: Path) -> None:
    _write(spath, _line(1, "old"), _newer_line(2))
    before = spath.read_bytes()
    store = SessionStore(spath)
    _refuses_to_append(store)
    assert store.read_only
    assert any("newer OkBot" in p and "read-only" in p for p in store.problems)
    assert [it["content"] for it in store.tail(5)] == ["old", "from the future"]
    assert _ids(store.read_after(1)[0]) == [2]
    assert store.get(2)["content"] == "from the future"
    assert [it["id"] for it in store.iter_items()] == [1, 2]
    _refuses_to_append(store)
    assert spath.read_bytes() == before
    assert not spath.with_name("session.quarantine.jsonl").exists()


def test_items_a_newer_okbot_invented_are_skipped_not_quarantined(spath: Path) -> None:
    strange = _newer_line(2, type="reaction", emoji="+1")  # a type this build does not know
    _write(spath, _line(1, "old"), strange, b"not json\n", _line(3, "later"))
    before = spath.read_bytes()
    store = SessionStore(spath)
    assert [it["content"] for it in store.tail(5)] == ["old", "later"]
    assert store.read_only
    fresh = SessionStore(spath)
    assert [it["id"] for it in fresh.iter_items()] == [1, 3]  # the forward scan sees it too
    assert fresh.read_only
    _refuses_to_append(fresh)
    assert spath.read_bytes() == before  # no notice, no quarantine record, not even for "not json"
    assert _quarantine(spath) == []


def test_a_torn_newer_session_is_not_repaired(spath: Path) -> None:
    _write(spath, _line(1), _newer_line(2), _newer_line(3)[:15])
    before = spath.read_bytes()
    store = SessionStore(spath)
    assert store.read_only
    assert _ids(store.tail(5)) == [1, 2]
    _refuses_to_append(store)
    assert spath.read_bytes() == before
    assert _quarantine(spath) == []


def test_a_newer_item_seen_by_the_index_makes_the_store_read_only_before_appending(spath: Path) -> None:
    _write(spath, _newer_line(1), _line(2, "a later line by this build"))
    store = SessionStore(spath)
    store.ensure_index()
    assert store.read_only
    _refuses_to_append(store)
    assert _ids(list(store.iter_items())) == [1, 2]


# --------------------------------------------------------------------------- over-long lines (bounded memory)
class SmallLineStore(CountingStore):
    """Lines over 256 KiB are over the limit, so a line of a few MB takes the streaming path."""

    max_line_bytes = 256 * 1024


def _huge_line(item_id: int, size: int, *, broken: bool) -> bytes:
    """An item line whose content is ``size`` bytes; ``broken`` leaves its string unterminated."""
    head = _line(item_id, "")[: -len(b'"}\n')]
    return head + b"z" * size + (b"\n" if broken else b'"}\n')


def _around_huge(spath: Path, size: int, *, broken: bool) -> tuple[int, bytes]:
    """Items 1-5, the huge line (id 6), items 7-11; returns the huge line's offset and bytes."""
    before = b"".join(_line(i, f"before {i}") for i in range(1, 6))
    huge = _huge_line(6, size, broken=broken)
    _write(spath, before, huge, *(_line(i, f"after {i}") for i in range(7, 12)))
    return len(before), huge


@pytest.mark.parametrize("broken", [True, False], ids=["broken", "well-formed"])
@pytest.mark.parametrize("reader", ["backward", "forward"])
def test_an_over_long_line_is_set_aside_as_a_bounded_excerpt(spath: Path, reader: str, broken: bool) -> None:
    offset, huge = _around_huge(spath, 8 * 1024 * 1024, broken=broken)
    seen: list[str] = []
    store = SmallLineStore(spath, on_notice=seen.append)
    if reader == "backward":
        found = store.read_after(0)[0]
    else:
        store.ensure_index()
        found = list(store.iter_items())
    assert _ids(_non_notice(found)) == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11]
    assert len(seen) == 1 and "over the 262,144-byte limit" in seen[0]
    (record,) = _quarantine(spath)
    line = huge[:-1]
    assert record["offset"] == offset and record["length"] == len(line)
    assert record["sha256"] == hashlib.sha256(line).hexdigest()
    assert record["head"].encode() == line[:EXCERPT_BYTES]
    assert record["tail"].encode() == line[-EXCERPT_BYTES:]
    assert "line" not in record and "line_b64" not in record
    q_size = store.quarantine_path.stat().st_size
    assert q_size < 3 * EXCERPT_BYTES  # an excerpt, not a copy of 8 MB
    assert store.append(items.user_message("next"))["id"] == 13  # after 11 and the notice
    # every later open passes over it by offset and length: nothing new, and it is not read again
    for again_reader in ("backward", "forward"):
        again = SmallLineStore(spath, on_notice=seen.append)
        again.reset()
        if again_reader == "backward":
            assert _ids(_non_notice(again.read_after(0)[0])) == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13]
            assert again.bytes_read < 1024 * 1024
        else:
            again.ensure_index()
            assert _ids(_non_notice(list(again.iter_items()))) == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13]
            assert again.bytes_read < len(huge) // 2 + 1024 * 1024  # at most the first scan chunk of it
        assert again.problems == []
    assert len(seen) == 1
    assert store.quarantine_path.stat().st_size == q_size


def test_reading_past_an_over_long_line_keeps_memory_bounded(spath: Path) -> None:
    _, huge = _around_huge(spath, 40 * 1024 * 1024, broken=True)
    tracemalloc.start()
    try:
        store = SmallLineStore(spath)
        assert _ids(_non_notice(store.tail(3))) == [9, 10, 11]
        assert len(_non_notice(store.read_after(0)[0])) == 10
        store.ensure_index()
        again = SmallLineStore(spath)
        again.ensure_index()
        assert len(_non_notice(again.read_after(0)[0])) == 10
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(huge) // 2  # chunks, never the line: about 17 MB (two 8 MB reads) at most


def test_an_over_long_torn_last_line_is_set_aside_as_an_excerpt(spath: Path) -> None:
    good = _line(1) + _line(2)
    fragment = _huge_line(3, 1024 * 1024, broken=True)[:-1]  # no newline: an interrupted write
    _write(spath, good, fragment)
    store = SmallLineStore(spath)
    assert spath.read_bytes().startswith(good + fragment + b"\n")
    (record,) = _quarantine(spath)
    assert record["offset"] == len(good) and record["length"] == len(fragment)
    assert "torn" in record["reason"] and record["sha256"] == hashlib.sha256(fragment).hexdigest()
    assert _ids(store.read_after(0)[0]) == [1, 2, 3]  # 3 is the notice
    again = SmallLineStore(spath)
    again.ensure_index()
    assert again.problems == [] and len(_quarantine(spath)) == 1


def test_an_old_full_copy_record_is_recognised_without_loading_it(spath: Path) -> None:
    """Records written before excerpts hold the whole line and no length; they still count as recorded."""
    offset, huge = _around_huge(spath, 3 * 1024 * 1024, broken=True)
    old = {"offset": offset, "reason": "not valid JSON", "ts": "2026-01-01T00:00:00Z", "line": huge[:-1].decode()}
    spath.with_name("session.quarantine.jsonl").write_text(json.dumps(old) + "\n", "utf-8")
    store = SmallLineStore(spath)
    store.ensure_index()
    assert _ids(list(store.iter_items())) == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11]
    assert store.problems == [] and len(_quarantine(spath)) == 1


def test_append_refuses_an_item_longer_than_a_line_may_be(spath: Path) -> None:
    store = SmallLineStore(spath)
    store.append(items.user_message("fits"))
    before = spath.read_bytes()
    with pytest.raises(OkBotError, match="at most 262,144"):
        store.append(items.user_message("x" * 300_000))
    assert spath.read_bytes() == before
    assert store.append(items.user_message("fits too"))["id"] == 2


# --------------------------------------------------------------------------- remembered keys are never stored
SECRET = "sk-test-SECRET-123456"


@pytest.fixture
def remembered() -> Iterator[str]:
    keys.remember_secret(SECRET)
    yield SECRET
    with keys._remembered_lock:  # the registry is process-wide: leave it as it was
        keys._remembered.discard(SECRET)


def test_a_remembered_key_is_redacted_from_what_is_stored(spath: Path, remembered: str) -> None:
    store = SessionStore(spath)
    reply = items.new_item(
        "assistant",
        author="a1",
        source="app",
        content=f"your key is {remembered}, right?",
        status="error",
        error=f"401 for key {remembered}",
        usage={},
    )
    stored = store.append(reply)
    call = store.append(
        items.new_item(
            "tool_call",
            author="a1",
            source="app",
            call_id="c1",
            name="fetch",
            arguments=json.dumps({"headers": {"Authorization": f"Bearer {remembered}"}}),
        )
    )
    data = spath.read_bytes()
    assert remembered.encode() not in data
    assert stored["content"] == "your key is [redacted], right?" and stored["error"] == "401 for key [redacted]"
    assert json.loads(call["arguments"]) == {"headers": {"Authorization": "Bearer [redacted]"}}
    assert SessionStore(spath).get(1)["content"] == "your key is [redacted], right?"
    assert reply["content"].endswith(f"{remembered}, right?")  # the caller's dict is left alone


def test_ordinary_text_is_stored_byte_for_byte(spath: Path, remembered: str) -> None:
    keys.remember_secret("none")  # a local server's placeholder key: too short to be a key, so kept
    try:
        text = "None of these look like keys: sk-abcdefghijklmnop, Bearer xyz, none, \u00e9\u4e2d\U0001f600"
        stored = SessionStore(spath).append(items.new_item("assistant", author="a1", source="app", content=text))
    finally:
        with keys._remembered_lock:
            keys._remembered.discard("none")
    assert stored["content"] == text
    assert json.loads(spath.read_bytes())["content"] == text
