"""MemoryStore: the on-disk format, bad input (torn / malformed / huge lines), safe concurrent edits."""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
import textwrap
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okbot.core.memory import MAX_ENTRY_CHARS, MemoryEntry, MemoryStore, normalise
from okbot.core.memory.store import HEADER, similarity
from okbot.storage.errors import OkBotError

POSIX = sys.platform != "win32"


def line(entry_id: str, text: str, **fields: object) -> str:
    return json.dumps({"id": entry_id, "status": "durable", "pinned": False, "text": text, **fields})


def write_lines(directory: Path, lines: list[str], *, trailing_newline: bool = True) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / MemoryStore.FILE
    path.write_bytes(("\n".join(lines) + ("\n" if trailing_newline else "")).encode("utf-8"))
    return path


@pytest.fixture
def mem_dir(tmp_path: Path) -> Path:
    return tmp_path / "assistant" / "memory"


# --- the basics ---------------------------------------------------------------------------------------------------


def test_missing_directory_is_an_empty_store_and_reading_creates_nothing(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    assert store.entries() == [] and store.problems == [] and store.get("m-00000000") is None
    assert not mem_dir.exists()


def test_add_writes_a_readable_file_with_a_header_and_keys_in_order(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "a-1")
    entry = store.add("  The user prefers metric units.  ", sources=[3, 4], status="durable")
    assert entry.id.startswith("m-") and len(entry.id) == 10 and int(entry.id[2:], 16) >= 0
    assert entry.text == "The user prefers metric units." and entry.scope == "a-1"
    assert entry.created and entry.created == entry.updated and entry.sources == (3, 4)
    raw = (mem_dir / "memories.jsonl").read_text("utf-8").splitlines()
    assert json.loads(raw[0]) == HEADER
    obj = json.loads(raw[1])
    assert list(obj)[:4] == ["id", "status", "pinned", "text"]
    assert "scope" not in obj and "expires" not in obj and "note" not in obj
    again = MemoryStore(mem_dir, "a-1")
    assert again.entries() == [entry] and again.get(entry.id) == entry


@pytest.mark.skipif(not POSIX, reason="file modes are POSIX-only")
def test_files_and_directory_are_private(mem_dir: Path) -> None:
    MemoryStore(mem_dir, "global").add("secret-ish preference")
    assert stat.S_IMODE(mem_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((mem_dir / "memories.jsonl").stat().st_mode) == 0o600


def test_every_field_round_trips(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    entry = store.add("fact", status="candidate", pinned=True, sources=(9,), expires="2030-01-01T00:00:00Z", evidence=3)
    entry = store.update(entry.id, note="why not")
    store.record_hits([entry.id, entry.id])
    loaded = MemoryStore(mem_dir, "global").get(entry.id)
    assert loaded == MemoryEntry(
        id=entry.id,
        text="fact",
        status="candidate",
        pinned=True,
        hits=2,
        evidence=3,
        expires="2030-01-01T00:00:00+00:00",
        created=entry.created,
        updated=entry.updated,
        sources=(9,),
        note="why not",
        scope="global",
    )


def test_retired_entries_are_hidden_unless_asked(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    keep = store.add("keep me", status="durable")
    gone = store.add("proven wrong", status="durable")
    store.update(gone.id, status="retired", note="user corrected it")
    assert [e.id for e in store.entries()] == [keep.id]
    assert [e.id for e in store.entries(include_retired=True)] == [keep.id, gone.id]


def test_expiry() -> None:
    from datetime import datetime, timezone

    entry = MemoryEntry(id="m-00000001", text="x", status="durable", expires="2026-01-01T00:00:00+00:00")
    before = datetime(2025, 12, 31, tzinfo=timezone.utc)
    after = datetime(2026, 1, 2, tzinfo=timezone.utc)
    assert not entry.expired(before) and entry.recallable(before)
    assert entry.expired(after) and not entry.recallable(after)
    assert MemoryEntry(id="m-1", text="x", expires="garbage").expired(before)  # never recalled forever
    assert not MemoryEntry(id="m-1", text="x", status="retired").recallable(before)


# --- bad values through the API -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t  \n"])
def test_empty_or_whitespace_text_is_refused(mem_dir: Path, text: str) -> None:
    store = MemoryStore(mem_dir, "global")
    with pytest.raises(OkBotError, match="needs some text"):
        store.add(text)
    entry = store.add("something")
    with pytest.raises(OkBotError, match="needs some text"):
        store.update(entry.id, text=text)
    assert store.get(entry.id) == entry


def test_a_one_megabyte_entry_is_refused_with_a_clear_error(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    with pytest.raises(OkBotError) as caught:
        store.add("x" * 1_000_000)
    assert "1,000,000 characters" in str(caught.value) and f"{MAX_ENTRY_CHARS:,}" in str(caught.value)
    assert not (mem_dir / "memories.jsonl").exists()
    store.add("y" * MAX_ENTRY_CHARS)  # exactly at the limit is fine
    entry = store.add("short")
    with pytest.raises(OkBotError, match="limit"):
        store.update(entry.id, text="z" * (MAX_ENTRY_CHARS + 1))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("status", "forgotten"),
        ("pinned", "yes"),
        ("expires", "next tuesday"),
        ("sources", "12"),
        ("sources", [1, "2"]),
        ("sources", [True]),
        ("evidence", -1),
        ("evidence", 1.5),
        ("note", 5),
        ("text", 42),
    ],
)
def test_bad_values_are_refused_and_nothing_changes(mem_dir: Path, field: str, value: object) -> None:
    store = MemoryStore(mem_dir, "global")
    entry = store.add("stable")
    before = (mem_dir / "memories.jsonl").read_bytes()
    with pytest.raises(OkBotError):
        store.update(entry.id, **{field: value})
    if field != "note":
        with pytest.raises(OkBotError):
            store.add(**({"text": "new", field: value} if field != "text" else {"text": value}))
    assert (mem_dir / "memories.jsonl").read_bytes() == before


def test_unknown_id_is_a_user_facing_error(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    store.add("present")
    for call in (lambda: store.update("m-deadbeef", text="x"), lambda: store.delete("m-deadbeef")):
        with pytest.raises(OkBotError, match="m-deadbeef"):
            call()
    assert store.get("m-deadbeef") is None


def test_update_of_an_unknown_field_is_a_bug() -> None:
    store = MemoryStore(Path(tempfile.mkdtemp()), "global")
    entry = store.add("x")
    with pytest.raises(TypeError, match="hits"):
        store.update(entry.id, hits=5)


# --- bad files on disk ---------------------------------------------------------------------------------------------


def test_torn_last_line_and_malformed_middle_line(mem_dir: Path) -> None:
    good = [line(f"m-0000000{i}", f"fact {i}") for i in range(1, 4)]
    middle = '{"id": "m-0000000x", "text": oops not json}'
    torn = '{"id": "m-00000009", "status": "durable", "text": "half writ'
    path = write_lines(mem_dir, [good[0], middle, good[1], good[2], torn], trailing_newline=False)
    before = path.read_bytes()
    store = MemoryStore(mem_dir, "global")
    assert [e.text for e in store.entries()] == ["fact 1", "fact 2", "fact 3"]
    problems = store.problems
    assert len(problems) == 2
    assert "line 2" in problems[0] and "not valid JSON" in problems[0]
    assert "line 5" in problems[1] and "torn" in problems[1]
    assert path.read_bytes() == before  # reading never writes
    assert not (mem_dir / "memories.jsonl.bad").exists()

    added = store.add("fact 4")
    bad = (mem_dir / "memories.jsonl.bad").read_text("utf-8")
    assert bad == middle + "\n" + torn + "\n"  # kept verbatim
    assert store.problems == []
    texts = [e.text for e in MemoryStore(mem_dir, "global").entries()]
    assert texts == ["fact 1", "fact 2", "fact 3", "fact 4"] and store.get(added.id) is not None
    assert "oops" not in path.read_text("utf-8")
    assert (mem_dir / "memories.jsonl.bak").read_bytes() == before  # the previous file is kept as .bak


def test_quarantine_appends_to_an_existing_bad_file(mem_dir: Path) -> None:
    write_lines(mem_dir, [line("m-00000001", "ok"), "junk one"])
    MemoryStore(mem_dir, "global").add("x")
    write_lines(mem_dir, [line("m-00000001", "ok"), "junk two"])
    MemoryStore(mem_dir, "global").add("y")
    assert (mem_dir / "memories.jsonl.bad").read_text("utf-8") == "junk one\njunk two\n"


def test_quarantine_after_a_torn_line_in_the_bad_file_starts_on_a_line_of_its_own(mem_dir: Path) -> None:
    write_lines(mem_dir, [line("m-00000001", "ok"), "junk two"])
    (mem_dir / "memories.jsonl.bad").write_bytes(b"junk one, cut sho")  # a crash mid-append
    MemoryStore(mem_dir, "global").add("x")
    assert (mem_dir / "memories.jsonl.bad").read_text("utf-8") == "junk one, cut sho\njunk two\n"


def test_non_utf8_duplicate_and_textless_lines_are_quarantined(mem_dir: Path) -> None:
    mem_dir.mkdir(parents=True)
    raw = b"\n".join(
        [
            line("m-00000001", "first").encode(),
            b"\xff\xfe not utf-8",
            line("m-00000001", "same id again").encode(),
            b'{"id": "m-00000002", "text": "   "}',
            b"[1, 2, 3]",
            b'{"id": 7, "text": "numeric id"}',
            line("m-00000003", "third").encode(),
        ]
    )
    (mem_dir / "memories.jsonl").write_bytes(raw + b"\n")
    store = MemoryStore(mem_dir, "global")
    assert [e.text for e in store.entries()] == ["first", "third"]
    assert len(store.problems) == 5 and "duplicate id" in store.problems[1]
    store.add("fourth")
    assert (mem_dir / "memories.jsonl.bad").read_bytes().count(b"\n") == 5
    assert b"\xff\xfe not utf-8\n" in (mem_dir / "memories.jsonl.bad").read_bytes()


def test_bad_field_values_on_disk_fall_back_but_the_original_line_is_kept(mem_dir: Path) -> None:
    original = line("m-00000001", "kept", pinned="yes", hits=-3, sources="9", expires=5)
    write_lines(mem_dir, [original])
    store = MemoryStore(mem_dir, "global")
    (entry,) = store.entries()
    assert entry.text == "kept" and entry.pinned is False and entry.hits == 0 and entry.sources == ()
    assert entry.expired()  # an unreadable expiry is treated as expired
    assert len(store.problems) == 4
    store.add("other")
    assert (mem_dir / "memories.jsonl.bad").read_text("utf-8") == original + "\n"


def test_a_one_megabyte_line_on_disk_loads_and_survives_rewrites(mem_dir: Path) -> None:
    huge = "word " * 200_000
    path = write_lines(mem_dir, [line("m-00000001", huge), line("m-00000002", "small")])
    store = MemoryStore(mem_dir, "global")
    assert store.get("m-00000001").text == huge and store.problems == []
    store.add("new one")
    store.update("m-00000002", pinned=True)
    assert MemoryStore(mem_dir, "global").get("m-00000001").text == huge
    assert len(path.read_bytes()) > 1_000_000


def test_unknown_keys_are_kept_and_a_hand_added_line_gets_a_stable_id(mem_dir: Path) -> None:
    write_lines(
        mem_dir,
        [json.dumps(HEADER), line("m-00000001", "with extras", color="blue", future={"x": 1}), '{"text": "by hand"}'],
    )
    store = MemoryStore(mem_dir, "global")
    hand = store.entries()[1]
    assert hand.text == "by hand" and hand.id.startswith("m-") and hand.status == "candidate"
    assert MemoryStore(mem_dir, "global").entries()[1].id == hand.id  # same id on every read
    store.update("m-00000001", text="with extras, edited")
    store.update(hand.id, status="durable")
    objs = [json.loads(x) for x in (mem_dir / "memories.jsonl").read_text("utf-8").splitlines()[1:]]
    assert objs[0]["color"] == "blue" and objs[0]["future"] == {"x": 1} and objs[0]["text"] == "with extras, edited"
    assert objs[1]["id"] == hand.id and objs[1]["status"] == "durable"
    removed = store.delete("m-00000001")
    store.restore(removed)
    assert json.loads((mem_dir / "memories.jsonl").read_text("utf-8").splitlines()[-1])["color"] == "blue"


def test_a_newer_header_is_reported_but_the_entries_load(mem_dir: Path) -> None:
    write_lines(mem_dir, [json.dumps({"okbot": "memories", "version": 99}), line("m-00000001", "still here")])
    store = MemoryStore(mem_dir, "global")
    assert [e.text for e in store.entries()] == ["still here"]
    assert "version" in store.problems[0]


def test_ten_thousand_entries_load(mem_dir: Path) -> None:
    write_lines(mem_dir, [line(f"m-{i:08x}", f"fact number {i}") for i in range(10_000)])
    store = MemoryStore(mem_dir, "global")
    entries = store.entries()
    assert len(entries) == 10_000 and entries[9_999].text == "fact number 9999"
    assert store.entries()[5] is entries[5]  # unchanged file: served from the cache, not re-parsed
    added = store.add("one more")
    assert len(store.entries()) == 10_001 and store.get(added.id) == added


# --- edits, undo, hits, revision -------------------------------------------------------------------------------------


def test_delete_and_restore_keep_the_id(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    entry = store.add("undo me", pinned=True)
    removed = store.delete(entry.id)
    assert removed == entry and store.get(entry.id) is None
    store.restore(removed)
    assert store.get(entry.id) == entry
    with pytest.raises(OkBotError, match="already exists"):
        store.restore(removed)


def test_record_hits_counts_and_keeps_the_revision(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    a, b = store.add("alpha", status="durable"), store.add("beta", status="durable")
    revision = store.revision()
    store.record_hits([a.id, b.id, a.id, "m-unknown0"])
    assert store.get(a.id).hits == 2 and store.get(b.id).hits == 1
    assert store.get(a.id).updated == a.updated
    assert store.revision() == revision == MemoryStore(mem_dir, "global").revision()
    stamp = (mem_dir / "memories.jsonl").stat().st_mtime_ns
    store.record_hits(["m-unknown0"])
    store.record_hits([])
    assert (mem_dir / "memories.jsonl").stat().st_mtime_ns == stamp  # nothing known: no write


@pytest.mark.parametrize(
    ("change", "moves"),
    [
        ({"text": "alpha edited"}, True),
        ({"pinned": True}, True),
        ({"status": "retired"}, True),
        ({"expires": "2031-01-01T00:00:00+00:00"}, True),
        ({"evidence": 5}, False),
        ({"note": "just a note"}, False),
        ({"sources": [1, 2]}, False),
    ],
)
def test_revision_follows_what_recall_depends_on(mem_dir: Path, change: dict, moves: bool) -> None:
    store = MemoryStore(mem_dir, "global")
    entry = store.add("alpha", status="durable")
    revision = store.revision()
    store.update(entry.id, **change)
    assert (store.revision() != revision) is moves


def test_revision_differs_by_content_and_scope(tmp_path: Path) -> None:
    one, two = MemoryStore(tmp_path / "one", "global"), MemoryStore(tmp_path / "two", "global")
    assert one.revision() == two.revision()
    one.add("x")
    assert one.revision() != two.revision()
    assert MemoryStore(tmp_path / "none", "a-1").revision() != MemoryStore(tmp_path / "none", "global").revision()


def test_an_update_that_changes_nothing_keeps_updated(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    entry = store.add("same")
    assert store.update(entry.id, text="same", pinned=False) == entry


# --- other writers ---------------------------------------------------------------------------------------------------


def test_an_outside_edit_is_seen_and_not_lost(mem_dir: Path) -> None:
    mine = MemoryStore(mem_dir, "global")
    entry = mine.add("mine")
    other = MemoryStore(mem_dir, "global")
    theirs = other.add("theirs")
    other.update(entry.id, pinned=True)
    mine.update(entry.id, text="mine, edited")  # re-reads first: the pin and the other entry stay
    fresh = MemoryStore(mem_dir, "global")
    assert fresh.get(entry.id).pinned and fresh.get(entry.id).text == "mine, edited"
    assert fresh.get(theirs.id) == theirs
    assert [e.id for e in mine.entries()] == [entry.id, theirs.id]


def test_a_hand_edit_is_picked_up(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    store.add("before")
    path = mem_dir / "memories.jsonl"
    path.write_text(path.read_text("utf-8").replace("before", "after, by hand"), "utf-8")
    os.utime(path, ns=(1, 1))  # even with an odd mtime, a different stamp means a re-read
    assert [e.text for e in store.entries()] == ["after, by hand"]


def test_concurrent_updates_from_two_stores_lose_nothing(mem_dir: Path) -> None:
    first, second = MemoryStore(mem_dir, "global"), MemoryStore(mem_dir, "global")
    shared = first.add("shared", status="durable")
    errors: list[BaseException] = []

    def work(store: MemoryStore, tag: str) -> None:
        try:
            for i in range(25):
                store.add(f"{tag} {i}")
                store.record_hits([shared.id])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s, t)) for s, t in ((first, "one"), (second, "two"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    texts = {e.text for e in MemoryStore(mem_dir, "global").entries()}
    assert {f"one {i}" for i in range(25)} | {f"two {i}" for i in range(25)} <= texts
    assert MemoryStore(mem_dir, "global").get(shared.id).hits == 50


# --- dedupe helpers ---------------------------------------------------------------------------------------------------


def test_normalise() -> None:
    assert normalise('  The USER\'s   favourite: "Vim"!\n') == "the user's favourite vim"
    assert normalise("...") == ""


def test_find_similar(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    a = store.add("The user prefers dark mode in every editor.", status="durable")
    retired = store.add("The project is called okbot", status="durable")
    store.update(retired.id, status="retired")
    assert store.find_similar("the user prefers DARK mode in every editor") == a
    assert store.find_similar("The project is called okbot") is None
    assert store.find_similar("The user prefers light mode") is None
    assert store.find_similar("The user prefers light mode", threshold=0.3) == a
    assert store.find_similar("!!!") is None
    assert similarity("a b", "a b c d") == 0.5


# --- property test of the loader ----------------------------------------------------------------------------------

_junk = st.binary(max_size=60).map(lambda b: b.replace(b"\n", b" ")).filter(lambda b: not b.strip().startswith(b"{"))
_text = st.text(min_size=1, max_size=40).filter(lambda t: t.strip())


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_junk, _text), max_size=12), st.booleans())
def test_loader_never_crashes_and_keeps_every_valid_line(pieces: list[object], trailing: bool) -> None:
    lines: list[bytes] = []
    expected: list[str] = []
    ids: set[str] = set()
    for index, piece in enumerate(pieces):
        if isinstance(piece, str):
            lines.append(line(f"m-{index:08x}", piece).encode("utf-8"))
            expected.append(piece)
            ids.add(f"m-{index:08x}")
        else:
            lines.append(piece)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "memories.jsonl"
        path.write_bytes(b"\n".join(lines) + (b"\n" if trailing else b""))
        store = MemoryStore(Path(tmp), "global")
        got = [e.text for e in store.entries(include_retired=True) if e.id in ids]
        assert got == expected
        store.add("after")  # a write keeps them too, and quarantines the rest
        assert [e.text for e in MemoryStore(Path(tmp), "global").entries() if e.id in ids] == expected


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_loader_survives_random_bytes(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "memories.jsonl").write_bytes(data)
        store = MemoryStore(Path(tmp), "global")
        store.entries(include_retired=True)
        assert isinstance(store.problems, list)


def test_concurrent_writers_in_two_processes_lose_nothing(mem_dir: Path) -> None:
    import subprocess

    MemoryStore(mem_dir, "global").add("seed")
    code = (
        "import sys; from pathlib import Path; from okbot.core.memory import MemoryStore\n"
        "s = MemoryStore(Path(sys.argv[1]), 'global')\n"
        "for i in range(20): s.add(f'{sys.argv[2]} {i}')\n"
    )
    root = Path(__file__).resolve().parents[4]
    procs = [subprocess.Popen([sys.executable, "-c", code, str(mem_dir), tag], cwd=root) for tag in ("left", "right")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    texts = {e.text for e in MemoryStore(mem_dir, "global").entries()}
    assert len(texts) == 41 and {"left 19", "right 19", "seed"} <= texts


@pytest.mark.skipif(not POSIX or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_a_read_only_folder_gives_a_clear_error_and_loses_nothing(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    entry = store.add("kept")
    mem_dir.chmod(0o500)
    try:
        with pytest.raises(OkBotError, match="Cannot save memories"):
            store.add("refused")
        assert store.entries() == [entry]
    finally:
        mem_dir.chmod(0o700)


def test_a_write_that_the_os_refuses_is_a_clear_error_and_loses_nothing(mem_dir: Path) -> None:
    store = MemoryStore(mem_dir, "global")
    entry = store.add("kept")
    (mem_dir / ".memories.jsonl.lock").unlink()
    (mem_dir / ".memories.jsonl.lock").mkdir()  # the lock file cannot be opened: the write must not happen
    with pytest.raises(OkBotError, match="Cannot save memories"):
        store.add("refused")
    assert MemoryStore(mem_dir, "global").entries() == [entry]


def test_an_unreadable_file_is_a_clear_error(mem_dir: Path) -> None:
    (mem_dir / "memories.jsonl").mkdir(parents=True)
    with pytest.raises(OkBotError, match="Cannot read"):
        MemoryStore(mem_dir, "global")


_WAITING_ADD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from okbot.core.memory import MemoryStore

    store = MemoryStore(Path(sys.argv[1]), "global")
    print("opened", flush=True)
    store.add("from the other process")
    print("added", flush=True)
""")


def test_a_change_waits_while_another_process_holds_the_memory_lock(mem_dir: Path) -> None:
    import subprocess
    import time

    from okbot.storage.datalock import FileLock

    MemoryStore(mem_dir, "global").add("first")
    lock = FileLock(mem_dir / ".memories.jsonl.lock")  # the same lock every writer of this folder takes
    lock.acquire()
    try:
        root = Path(__file__).resolve().parents[4]
        proc = subprocess.Popen(
            [sys.executable, "-c", _WAITING_ADD, str(mem_dir)],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout.readline().strip() == "opened", proc.stderr.read()
        time.sleep(0.3)  # every chance to write, which it must not do while the lock is held
        assert proc.poll() is None
        with open(mem_dir / "memories.jsonl", "a", encoding="utf-8") as fh:  # what the holder writes meanwhile
            fh.write(line("m-00000002", "second") + "\n")
    finally:
        lock.release()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out.split() == ["added"], err
    texts = [e.text for e in MemoryStore(mem_dir, "global").entries()]
    assert texts == ["first", "second", "from the other process"]


_FULL_DISK_ADD = textwrap.dedent("""
    import resource, signal, sys
    from pathlib import Path
    from okbot.storage.errors import OkBotError
    from okbot.core.memory import MemoryStore

    store = MemoryStore(Path(sys.argv[1]), "global")
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
    try:
        store.add("refused on a full disk")
    except OkBotError as exc:
        print("refused:", exc)
""")


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE/EFBIG as on Linux")
def test_a_full_disk_while_setting_bad_lines_aside_is_a_clear_error_and_changes_nothing(mem_dir: Path) -> None:
    import subprocess

    write_lines(mem_dir, [line("m-00000001", "kept"), "junk two " * 100])
    (mem_dir / "memories.jsonl.bad").write_bytes(b"junk one\n")
    before = {p.name: p.read_bytes() for p in mem_dir.iterdir()}
    root = Path(__file__).resolve().parents[4]
    proc = subprocess.run(
        [sys.executable, "-c", _FULL_DISK_ADD, str(mem_dir), "200"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("refused: Cannot "), proc.stderr  # no raw OSError
    assert "File too large" in proc.stdout
    after = {p.name: p.read_bytes() for p in mem_dir.iterdir() if not p.name.endswith(".lock")}
    assert after == {name: data for name, data in before.items() if not name.endswith(".lock")}
    store = MemoryStore(mem_dir, "global")
    store.add("later")
    assert (mem_dir / "memories.jsonl.bad").read_text("utf-8") == "junk one\n" + "junk two " * 100 + "\n"
    assert [e.text for e in store.entries()] == ["kept", "later"]
