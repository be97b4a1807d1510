"""Several writers on one data dir: cross-process session appends and the data-dir lock (issue 9)."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from okbot.core import items
from okbot.core.session import SessionStore
from okbot.storage.datalock import DATA_DIR_LOCK_NAME, AppendLog, DataDirLock, FileLock, storage_error
from okbot.storage.errors import OkBotError

REPO = Path(__file__).resolve().parents[3]

_APPENDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from okbot.core import items
    from okbot.core.session import SessionStore

    path, go, count, tag = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    store = SessionStore(path)
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    for i in range(count):
        stored = store.append(items.user_message(f"{tag}-{i}"))
        print(stored["id"], flush=True)
""")


def _python(script: str, *args: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _lines(path: Path) -> list[dict]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    return [items.validate_item(json.loads(line)) for line in raw.splitlines()]


def _wait_for_line(proc: subprocess.Popen[str], expected: str) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line == expected, (line, proc.stderr.read() if proc.stderr else "")


# ----------------------------------------------------------------------------- session appends
def test_two_processes_appending_500_items_each_get_1000_distinct_increasing_ids(tmp_path: Path) -> None:
    path, go = tmp_path / "session.jsonl", tmp_path / "go"
    procs = [_python(_APPENDER, path, go, 500, tag) for tag in ("a", "b")]
    for proc in procs:
        _wait_for_line(proc, "ready")
    go.touch()
    returned = {}
    for tag, proc in zip(("a", "b"), procs, strict=True):
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        returned[tag] = [int(x) for x in out.split()]
    for ids in returned.values():
        assert len(ids) == 500 and ids == sorted(ids)  # each writer saw its ids increase
    assert sorted(returned["a"] + returned["b"]) == list(range(1, 1001))  # none repeated, none skipped
    lines = _lines(path)  # every line a valid item
    assert [it["id"] for it in lines] == list(range(1, 1001))
    by_id = {it["id"]: it["content"] for it in lines}
    for tag, ids in returned.items():
        assert [by_id[i] for i in ids] == [f"{tag}-{n}" for n in range(500)]
    assert not (tmp_path / "session.quarantine.jsonl").exists()
    reopened = SessionStore(path)
    assert len(reopened) == 1000 and reopened.problems == []


_LOCKED_APPEND = textwrap.dedent("""
    import sys
    from pathlib import Path
    from okbot.core import items
    from okbot.core.session import SessionStore

    store = SessionStore(Path(sys.argv[1]))
    print("opened", flush=True)
    print(store.append(items.user_message("from the other process"))["id"], flush=True)
""")


def test_an_append_waits_while_another_process_holds_the_session_lock(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    store = SessionStore(path)
    store.append(items.user_message("first"))
    lock = FileLock(store.lock_path)
    lock.acquire()
    try:
        proc = _python(_LOCKED_APPEND, path)
        _wait_for_line(proc, "opened")
        time.sleep(0.3)  # give it every chance to write, which it must not do while the lock is held
        assert proc.poll() is None
        assert len(_lines(path)) == 1
        with open(path, "ab") as fh:  # what the holder writes meanwhile
            fh.write(items.encode_item({**items.user_message("second"), "id": 2}))
    finally:
        lock.release()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.split()[-1] == "3"  # it found id 2 on disk after waiting, not a stale last id
    assert [it["content"] for it in _lines(path)] == ["first", "second", "from the other process"]


def test_a_line_still_being_written_by_another_process_is_not_taken_for_a_torn_one(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    SessionStore(path).append(items.user_message("first"))
    line = items.encode_item({**items.user_message("half written"), "id": 2})
    lock = FileLock(path.with_name("session.jsonl.lock"))
    lock.acquire()
    try:
        with open(path, "ab") as fh:  # a writer mid-line, holding the lock as SessionStore does
            fh.write(line[:10])
        proc = _python(_LOCKED_APPEND, path)
        time.sleep(0.3)
        assert proc.poll() is None  # opening waits for the writer instead of "repairing" its line
        with open(path, "ab") as fh:
            fh.write(line[10:])
    finally:
        lock.release()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.split() == ["opened", "3"]
    assert [it["content"] for it in _lines(path)] == ["first", "half written", "from the other process"]
    assert not (tmp_path / "session.quarantine.jsonl").exists()


def test_two_stores_on_one_file_quarantine_each_bad_line_once(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(items.encode_item({**items.user_message("one"), "id": 1}) + b"not json\n")
    first, second = SessionStore(path), SessionStore(path)
    assert [it["type"] for it in second.tail(5)] == ["user", "notice"]  # second recorded the first bad line
    with open(path, "ab") as fh:
        fh.write(b"{broken\n")
    first.tail(5)  # first records the new bad line (and adds a notice)
    second.tail(5)  # second must see that record, not write its own
    records = [json.loads(x) for x in (tmp_path / "session.quarantine.jsonl").read_text().splitlines()]
    assert sorted(r["line"] for r in records) == ["not json", "{broken"]
    notices = [it for it in SessionStore(path).iter_items() if it["type"] == "notice"]
    assert len(notices) == 2  # one per batch found, none repeated by the second store


def test_the_lock_sidecar_is_private_and_holds_no_descriptor_between_appends(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(items.user_message("hi"))
    assert store.lock_path == tmp_path / "session.jsonl.lock" and store.lock_path.exists()
    if os.name == "posix":
        assert store.lock_path.stat().st_mode & 0o777 == 0o600
    other = FileLock(store.lock_path)
    assert other.acquire(blocking=False)  # nobody holds it once append returned
    other.release()


def test_file_lock_is_reentrant_within_one_holder(tmp_path: Path) -> None:
    lock = FileLock(tmp_path / "sub" / "x.lock")
    with lock:
        with lock:
            assert lock.held
        assert lock.held
        assert not FileLock(lock.path).acquire(blocking=False)
    assert not lock.held
    assert FileLock(lock.path).acquire(blocking=False)


# ----------------------------------------------------------------------------- the data-dir lock
_HOLD_DATA_DIR = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from okbot.storage.datalock import DataDirLock

    lock = DataDirLock(Path(sys.argv[1]))
    print("held" if lock.try_acquire() else "refused", flush=True)
    time.sleep(600)
""")


def test_a_second_holder_of_the_data_dir_is_refused_and_told_who_holds_it(tmp_path: Path) -> None:
    proc = _python(_HOLD_DATA_DIR, tmp_path)
    try:
        _wait_for_line(proc, "held")
        lock = DataDirLock(tmp_path)
        assert lock.path == tmp_path / DATA_DIR_LOCK_NAME
        assert not lock.try_acquire()
        assert lock.holder_pid() == proc.pid
    finally:
        proc.kill()
        proc.wait(timeout=30)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_the_data_dir_lock_is_not_stale_after_its_holder_is_killed(tmp_path: Path) -> None:
    proc = _python(_HOLD_DATA_DIR, tmp_path)
    _wait_for_line(proc, "held")
    os.kill(proc.pid, signal.SIGKILL)  # a crash: no clean-up runs
    proc.wait(timeout=30)
    lock = DataDirLock(tmp_path)
    assert lock.try_acquire()
    assert lock.holder_pid() == os.getpid()
    lock.release()


def test_session_appends_work_while_a_gui_holds_the_data_dir(tmp_path: Path) -> None:
    # the CLI never takes the data-dir lock: per-file locks make its appends safe alongside the GUI
    proc = _python(_HOLD_DATA_DIR, tmp_path)
    try:
        _wait_for_line(proc, "held")
        store = SessionStore(tmp_path / "assistants" / "a" / "session.jsonl")
        assert store.append(items.user_message("from the CLI"))["id"] == 1
    finally:
        proc.kill()
        proc.wait(timeout=30)


_FULL_DISK_APPEND = textwrap.dedent("""
    import resource, signal, sys
    from pathlib import Path
    from okbot.core import items
    from okbot.storage.errors import OkBotError
    from okbot.core.session import SessionStore

    path = Path(sys.argv[1])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size + 100, resource.RLIM_INFINITY))
    try:
        SessionStore(path).append(items.user_message("x" * 20_000))
    except OkBotError as exc:
        print("refused:", exc)
""")


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE/EFBIG as on Linux")
def test_an_append_cut_short_by_a_full_disk_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    SessionStore(path).append(items.user_message("kept"))
    before = path.read_bytes()
    out, err = _python(_FULL_DISK_APPEND, path).communicate(timeout=60)
    assert out.startswith("refused: Cannot use"), err
    assert path.read_bytes() == before  # the part that fit was cut back off
    assert SessionStore(path).append(items.user_message("next"))["id"] == 2


# ----------------------------------------------------------------------------- the one append path
# Every append-only record (session, as-sent, memory quarantine) goes through AppendLog: sidecar lock,
# torn-line repair, append, fsync, and a user-facing error when the OS refuses (issue 16, class 5).
_FULL_DISK_RECORD = textwrap.dedent("""
    import resource, signal, sys
    from pathlib import Path
    from okbot.storage.datalock import AppendLog
    from okbot.storage.errors import OkBotError

    path, limit = Path(sys.argv[1]), int(sys.argv[2])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    try:
        AppendLog(path).append(b'{"id":2,"text":"' + b"x" * 20_000 + b'"}\\n')
    except OkBotError as exc:
        print("refused:", exc)
""")


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE/EFBIG as on Linux")
@pytest.mark.parametrize("torn", [False, True])
def test_a_record_cut_short_by_a_full_disk_is_a_clear_error_and_leaves_the_file_as_it_was(
    tmp_path: Path, torn: bool
) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"id":1}\n' + (b'{"id":9,"te' if torn else b""))
    before = path.read_bytes()
    out, err = _python(_FULL_DISK_RECORD, path, len(before) + 100).communicate(timeout=60)
    assert out.startswith(f"refused: Cannot use {path}: File too large"), err
    assert "free some space" in out
    assert path.read_bytes() == before  # the part that fit (and the torn-line repair) was cut back off
    AppendLog(path).append(b'{"id":2}\n')
    assert [json.loads(x)["id"] for x in path.read_bytes().splitlines() if x.endswith(b"}")] == [1, 2]


def test_a_record_after_a_torn_last_line_starts_on_a_line_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"id":1}\n{"id":2,"te')
    AppendLog(path).append(b'{"id":3}\n')
    assert path.read_bytes() == b'{"id":1}\n{"id":2,"te\n{"id":3}\n'


def test_a_writer_reads_the_tail_last_first_under_the_lock_and_others_wait(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"".join(b'{"id":%d}\n' % i for i in range(1, 5000)) + b'{"id":50')
    log = AppendLog(path)
    with log.writing() as locked:
        assert not FileLock(log.lock.path).acquire(blocking=False)  # another process would wait here
        lines = locked.lines_backward()
        assert [next(lines) for _ in range(3)] == [b'{"id":50', b'{"id":4999}', b'{"id":4998}']
        assert list(lines)[-1] == b'{"id":1}'
        locked.append(b'{"id":5000}\n')
    assert log.lock.path == tmp_path / "records.jsonl.lock"
    assert FileLock(log.lock.path).acquire(blocking=False)
    assert path.read_bytes().endswith(b'{"id":50\n{"id":5000}\n')
    with AppendLog(tmp_path / "missing.jsonl").writing() as empty:
        assert list(empty.lines_backward()) == []


def test_a_record_that_is_not_a_whole_line_is_a_bug(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        AppendLog(tmp_path / "records.jsonl").append(b'{"id":1}')
    assert not (tmp_path / "records.jsonl").exists()


def test_a_file_the_os_refuses_is_a_clear_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.mkdir()  # EISDIR: any OS failure, not only a full disk, comes out as the user-facing error
    with pytest.raises(OkBotError, match="Cannot use .*records.jsonl"):
        AppendLog(path).append(b'{"id":1}\n')


@pytest.mark.parametrize(
    ("code", "hint"),
    [
        (errno.ENOSPC, "the disk is full: free some space and try again"),
        (errno.EFBIG, "the file is as large as the system allows: free some space and try again"),
        (errno.EROFS, "the disk is read-only"),
        (errno.EACCES, "check that OkBot may write to this folder"),
        (errno.EIO, "check that the disk is not full and the file is readable"),
    ],
)
def test_the_error_says_what_failed_and_what_to_do(tmp_path: Path, code: int, hint: str) -> None:
    error = storage_error(tmp_path / "records.jsonl", OSError(code, os.strerror(code)))
    assert str(error) == f"Cannot use {tmp_path / 'records.jsonl'}: {os.strerror(code)} ({hint})"
