"""Backing up the data dir into one zip and restoring it: byte-identical, never the keys, nothing unsafe."""

from __future__ import annotations

import json
import os
import stat
import time
import zipfile
from pathlib import Path

import pytest

from okbot.__main__ import main
from okbot.core import backup
from okbot.core.items import new_item, user_message
from okbot.core.session import SessionStore
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.workspace import Workspace
from okbot.storage import paths
from okbot.storage.datalock import DataDirLock
from okbot.storage.errors import OkBotError
from tests.helpers.patience import PATIENT_SECONDS


def seeded() -> Path:
    """A data dir with settings, a chat with a summary, keys, logs, an index, the trash and lock files."""
    home = paths.data_dir()
    ws = Workspace()
    target = ws.ensure_default()
    store = SessionStore(target.session_path)
    for i in range(5):
        store.append(user_message(f"question {i} ünïcode"))
        store.append(new_item("assistant", author=target.id, source="app", content=f"answer {i}"))
    SummaryStore(target.summary_path).save(SessionSummary(summary="## Goals\n1. Ask", covered_through_id=4))
    (home / "settings.json").write_text('{"version": 1, "developerMode": true}\n', "utf-8")
    (home / "keys.json").write_text('{"version": 1, "keys": {"default": "sk-secret"}}\n', "utf-8")
    for folder in ("logs", "index", "trash/x"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    (home / "logs" / "okbot.log").write_text("log line\n", "utf-8")
    (home / "index" / "search.sqlite").write_bytes(b"SQLite format 3\x00")
    (home / "trash" / "x" / "manifest.json").write_text("{}", "utf-8")
    (home / ".settings.json.abc.tmp").write_text("half", "utf-8")
    (home / "mcp-tools.json").write_text("{}\n", "utf-8")
    return home


def files_of(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def test_round_trip_is_byte_identical_and_leaves_out_keys_logs_index_trash_and_locks(tmp_path):
    home = seeded()
    before = files_of(home)
    dest = tmp_path / "b.zip"
    report = backup.create_backup(home, dest)
    with zipfile.ZipFile(dest) as zf:
        names = zf.namelist()
        manifest = json.loads(zf.read(backup.MANIFEST_NAME))
    assert "data/keys.json" not in names
    assert not any("sk-secret" in zipfile.ZipFile(dest).read(n).decode("utf-8", "replace") for n in names)
    assert not any(n.startswith(("data/logs/", "data/index/", "data/trash/")) for n in names)
    assert not any(n.endswith((".lock", ".tmp")) for n in names)
    assert manifest["formatVersion"] == backup.FORMAT_VERSION and report.files == len(manifest["files"])
    assert {f["path"] for f in manifest["files"]} >= {
        "settings.json",
        "mcp-tools.json",
        "assistants/okbot/session.jsonl",
        "assistants/okbot/session-summary.json",
    }

    fresh = tmp_path / "fresh"
    result = backup.restore_backup(dest, fresh)
    assert result.moved_aside is None
    landed = files_of(fresh)
    expected = {
        k: v for k, v in before.items() if not k.startswith(("keys.json", "logs", "index", "trash", ".settings"))
    }
    assert landed == expected  # byte for byte: sessions, summaries, settings


def test_backup_copies_an_append_only_file_up_to_the_size_read_once(tmp_path, monkeypatch):
    home = seeded()
    session = home / "assistants" / "okbot" / "session.jsonl"
    size = session.stat().st_size
    real_open = open

    def appending_open(path, *args, **kwargs):  # OkBot appends right after the copy opened the file
        fh = real_open(path, *args, **kwargs)
        if Path(path) == session:
            with real_open(session, "ab") as other:
                other.write(b'{"id": 999, "type": "notice", "content": "late"}\n')
        return fh

    monkeypatch.setattr("builtins.open", appending_open)
    backup.create_backup(home, tmp_path / "b.zip")
    monkeypatch.undo()
    with zipfile.ZipFile(tmp_path / "b.zip") as zf:
        assert len(zf.read("data/assistants/okbot/session.jsonl")) == size


def test_backup_refuses_to_overwrite_unless_forced(tmp_path):
    home = seeded()
    dest = tmp_path / "b.zip"
    dest.write_bytes(b"mine")
    with pytest.raises(OkBotError, match="exists"):
        backup.create_backup(home, dest)
    assert dest.read_bytes() == b"mine"
    backup.create_backup(home, dest, force=True)
    assert zipfile.is_zipfile(dest)


def rewrite_zip(src: Path, dest: Path, *, manifest=None, extra=None, change=None) -> None:
    """A copy of backup ``src`` with its manifest replaced, an entry added or an entry's bytes changed."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == backup.MANIFEST_NAME and manifest is not None:
                data = json.dumps(manifest(json.loads(data))).encode()
            if change and info.filename == change:
                data = data + b"tampered"
            zout.writestr(info, data)
        for info, data in extra or []:
            zout.writestr(info, data)


def test_a_newer_format_is_refused(tmp_path):
    home = seeded()
    good, newer = tmp_path / "b.zip", tmp_path / "newer.zip"
    backup.create_backup(home, good)
    rewrite_zip(good, newer, manifest=lambda m: {**m, "formatVersion": backup.FORMAT_VERSION + 1})
    with pytest.raises(OkBotError, match="newer OkBot") as caught:
        backup.restore_backup(newer, tmp_path / "fresh")
    assert "update OkBot" in str(caught.value)
    assert not (tmp_path / "fresh" / "settings.json").exists()


@pytest.mark.parametrize("name", ["data/../evil.txt", "../evil.txt", "/tmp/evil.txt", "data/a/../../evil.txt"])
def test_a_zip_slip_entry_is_refused_with_nothing_written(tmp_path, name):
    home = seeded()
    good, bad = tmp_path / "b.zip", tmp_path / "bad.zip"
    backup.create_backup(home, good)
    rel = name[len("data/") :] if name.startswith("data/") else name
    rewrite_zip(
        good,
        bad,
        manifest=lambda m: {**m, "files": [*m["files"], {"path": rel, "size": 4, "sha256": "0" * 64}]},
        extra=[(zipfile.ZipInfo(name), b"evil")],
    )
    fresh = tmp_path / "fresh"
    with pytest.raises(OkBotError, match="unsafe path"):
        backup.restore_backup(bad, fresh)
    assert not (tmp_path / "evil.txt").exists()
    assert [p.name for p in fresh.iterdir() if not p.name.endswith(".lock")] == []


def test_a_symlink_entry_is_refused(tmp_path):
    home = seeded()
    good, bad = tmp_path / "b.zip", tmp_path / "bad.zip"
    backup.create_backup(home, good)
    link = zipfile.ZipInfo("data/link")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    rewrite_zip(good, bad, extra=[(link, b"/etc/passwd")])
    with pytest.raises(OkBotError, match="symlink"):
        backup.restore_backup(bad, tmp_path / "fresh")


def test_a_bad_checksum_is_refused_with_nothing_written(tmp_path):
    home = seeded()
    good, bad = tmp_path / "b.zip", tmp_path / "bad.zip"
    backup.create_backup(home, good)
    rewrite_zip(good, bad, change="data/assistants/okbot/session.jsonl")
    fresh = tmp_path / "fresh"
    with pytest.raises(OkBotError, match="checksum"):
        backup.restore_backup(bad, fresh)
    assert [p.name for p in fresh.iterdir() if not p.name.endswith(".lock")] == []
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".okbot-restore-")]


def test_restore_into_a_dir_with_data_needs_replace_and_keeps_the_old_data_aside(tmp_path):
    home = seeded()
    dest = tmp_path / "b.zip"
    backup.create_backup(home, dest)
    (home / "settings.json").write_text('{"version": 1, "changed": "after the backup"}\n', "utf-8")
    changed = files_of(home)
    with pytest.raises(OkBotError, match="already holds data") as caught:
        backup.restore_backup(dest, home)
    assert "--replace" in str(caught.value)
    assert files_of(home) == changed  # refused: nothing touched

    report = backup.restore_backup(dest, home, replace=True)
    aside = report.moved_aside
    assert aside is not None and aside.parent == home.parent and "before-restore" in aside.name
    assert (aside / "settings.json").read_text("utf-8") == changed["settings.json"].decode()
    assert (aside / "keys.json").exists() and (aside / "trash" / "x" / "manifest.json").exists()
    assert json.loads((home / "settings.json").read_text("utf-8")) == {"version": 1, "developerMode": True}
    assert (home / "keys.json").exists()  # the keys stay: a backup never has them
    assert not (home / "index").exists()  # the old index went aside with the old records
    restored = set()
    with zipfile.ZipFile(dest) as zf:
        for entry in json.loads(zf.read(backup.MANIFEST_NAME))["files"]:
            assert (home / entry["path"]).read_bytes() == zf.read("data/" + entry["path"])
            restored.update(p for p in (home / entry["path"]).parents if p != home and home in p.parents)
    # Issue 34, item 22: assistants/ and squads/ came back 0755 (mkdir -p makes the parents by umask).
    assert (home / "assistants") in restored
    assert {str(p.relative_to(home)): stat.S_IMODE(p.stat().st_mode) for p in restored} == {
        str(p.relative_to(home)): 0o700 for p in restored
    }


def test_restore_refuses_while_okbot_holds_the_data_dir(tmp_path):
    home = seeded()
    dest = tmp_path / "b.zip"
    backup.create_backup(home, dest)
    pid = os.fork() if hasattr(os, "fork") else None
    if pid is None:
        pytest.skip("needs fork to hold the lock from another process")
    if pid == 0:  # the child plays the running app
        lock = DataDirLock(home)
        lock.try_acquire()
        time.sleep(600)  # until the test kills it: a loaded machine can take its time
        os._exit(0)
    try:
        deadline = time.monotonic() + PATIENT_SECONDS
        while DataDirLock(home).holder_pid() != pid:
            assert time.monotonic() < deadline, "the child never took the lock"
            time.sleep(0.02)
        with pytest.raises(OkBotError, match="is running"):
            backup.restore_backup(dest, home, replace=True)
        assert (home / "logs" / "okbot.log").exists() and (home / "index").exists()
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)


def test_cli_backup_and_restore(capsys, tmp_path, monkeypatch):
    home = seeded()
    dest = tmp_path / "b.zip"
    assert main(["backup", str(dest)]) == 0
    out, err = capsys.readouterr()
    assert "backed up" in out and "keys.json" in err
    assert main(["backup", str(dest)]) == 1
    assert main(["restore", str(dest)]) == 1
    _, err = capsys.readouterr()
    assert "already holds data" in err and "--replace" in err
    assert main(["restore", str(dest), "--replace"]) == 0
    out, _ = capsys.readouterr()
    assert "kept in" in out
    monkeypatch.setenv("OKBOT_HOME", str(tmp_path / "elsewhere"))
    assert main(["restore", str(dest)]) == 0
    assert (tmp_path / "elsewhere" / "assistants" / "okbot" / "session.jsonl").read_bytes() == (
        home / "assistants" / "okbot" / "session.jsonl"
    ).read_bytes()


def test_cli_backup_and_restore_under_json_say_the_path_files_and_bytes(capsys, tmp_path, monkeypatch):
    """Issue 34, item 18: backup and restore took no --json."""
    home = seeded()
    dest = tmp_path / "b.zip"
    assert main(["backup", str(dest), "--json"]) == 0
    out, err = capsys.readouterr()
    made = json.loads(out)
    with zipfile.ZipFile(dest) as zf:
        manifest = json.loads(zf.read(backup.MANIFEST_NAME))
    assert set(made) == {"path", "files", "bytes"} and made["path"] == str(dest)
    assert made["files"] == len(manifest["files"]) and made["bytes"] == sum(f["size"] for f in manifest["files"])
    assert "left out" in err  # the notes stay lines on stderr
    assert main(["restore", str(dest), "--replace", "--json"]) == 0
    restored = json.loads(capsys.readouterr().out)
    aside = restored.pop("movedAside")
    assert restored == {"backup": str(dest), "dataDir": str(home), "files": made["files"], "bytes": made["bytes"]}
    assert aside and Path(aside).is_dir()
    monkeypatch.setenv("OKBOT_HOME", str(tmp_path / "elsewhere"))
    assert main(["restore", str(dest), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["movedAside"] is None
    assert main(["backup", str(dest), "--json"]) == 1
    _, err = capsys.readouterr()
    assert "error" in json.loads(err)
