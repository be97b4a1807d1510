"""Hostile backups and data dirs: what a backup never holds, hard links and symlinks to secrets, a running chat,
a manifest nested too deeply. Real zips, real files, the real CLI (in-process ``main`` or a subprocess)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from okbot.__main__ import main
from okbot.core import backup
from okbot.storage import datalock
from tests.helpers.fake_openai import Reply
from tests.unit.core.test_backup import files_of, rewrite_zip, seeded


def listing(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as zf:
        return [f["path"] for f in json.loads(zf.read(backup.MANIFEST_NAME))["files"]]


def all_bytes(path: Path) -> bytes:
    with zipfile.ZipFile(path) as zf:
        return b"".join(zf.read(name) for name in zf.namelist())


def asides(home: Path) -> list[Path]:
    return [p for p in home.parent.iterdir() if "before-restore" in p.name or p.name.startswith(".okbot-restore-")]


# ---------------------------------------------------------------------------- 2: what a backup never holds
@pytest.mark.parametrize(
    "entry",
    [
        "keys.json",
        "KEYS.json",
        "logs/okbot.log",
        "logs",
        "index/search.sqlite",
        "trash/x/manifest.json",
        ".okbot.lock",
        "assistants/okbot/session.jsonl.lock",
        ".settings.json.ab12.tmp",
    ],
)
def test_restore_refuses_an_entry_a_backup_never_holds_before_anything_moves(tmp_path, capsys, entry):
    """A zip listing data/keys.json replaced the user's keys; one listing data/logs/... failed half-way
    ("Directory not empty") with the data moved aside. Both are refused up front now, by the rule the backup
    itself leaves things out with."""
    home = seeded()
    good, bad = tmp_path / "b.zip", tmp_path / "bad.zip"
    backup.create_backup(home, good)
    payload = b'{"version": 1, "keys": {"default": "sk-attacker"}}\n'
    listed = {"path": entry, "size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
    rewrite_zip(
        good,
        bad,
        manifest=lambda m: {**m, "files": [*m["files"], listed]},
        extra=[(zipfile.ZipInfo("data/" + entry), payload)],
    )
    before = files_of(home)
    assert main(["restore", str(bad), "--replace"]) == 1
    _, err = capsys.readouterr()
    assert "never holds" in err and entry in err and "Traceback" not in err
    assert files_of(home) == before  # the keys, the logs, the data: all as they were
    assert asides(home) == []


def test_a_file_listed_where_another_needs_a_folder_is_refused_up_front(tmp_path, capsys):
    home = seeded()
    good, bad = tmp_path / "b.zip", tmp_path / "bad.zip"
    backup.create_backup(home, good)
    entries = [("notes", b"a file"), ("notes/inside.md", b"needs notes/ to be a folder")]
    listed = [{"path": n, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in entries]
    rewrite_zip(
        good,
        bad,
        manifest=lambda m: {**m, "files": [*m["files"], *listed]},
        extra=[(zipfile.ZipInfo("data/" + n), d) for n, d in entries],
    )
    before = files_of(home)
    assert main(["restore", str(bad), "--replace"]) == 1
    _, err = capsys.readouterr()
    assert "as a file and as a folder" in err and "nothing was restored" in err
    assert files_of(home) == before and asides(home) == []


def test_the_rule_for_what_a_backup_holds_is_the_one_restore_checks(tmp_path):
    """Whatever ``create_backup`` writes, ``check_backup`` accepts (the two rules cannot disagree)."""
    home = seeded()
    for name in ("logs.txt", "keys.json.txt", "index.md", "locker", "a.tmp"):
        (home / name).write_text("mine", "utf-8")
    dest = tmp_path / "b.zip"
    backup.create_backup(home, dest)
    assert {"logs.txt", "keys.json.txt", "index.md", "locker", "a.tmp"} <= set(listing(dest))
    backup.check_backup(dest)


@pytest.fixture
def immovable():
    """Make a folder that cannot be moved to another folder: immutable as root, read-only otherwise (renaming a
    folder into another one needs write permission on it, to update its ``..``)."""
    made: list[Path] = []

    def make(folder: Path) -> None:
        if os.geteuid() == 0:
            if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)]).returncode != 0:
                pytest.skip("needs chattr +i to make a real rename fail as root")
        else:
            folder.chmod(0o555)
        made.append(folder)

    yield make
    for folder in made:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o700)


def test_a_restore_that_fails_after_moving_data_aside_puts_it_all_back(tmp_path, capsys, immovable):
    """A rename that fails part-way through moving the data aside left the data dir half empty, the settings
    only in the -before-restore folder. Now every entry moved goes back, and the error says so."""
    home = seeded()
    dest = tmp_path / "b.zip"
    backup.create_backup(home, dest)
    (home / "settings.json").write_text('{"version": 1, "changed": "after the backup"}\n', "utf-8")
    (home / "zz-notes").mkdir()
    (home / "zz-notes" / "n.txt").write_text("kept", "utf-8")
    before = files_of(home)
    immovable(home / "trash")  # sorted after assistants/, mcp-tools.json and settings.json: they move first
    assert main(["restore", str(dest), "--replace"]) == 1
    _, err = capsys.readouterr()
    assert "put back" in err and "Traceback" not in err
    assert files_of(home) == before
    assert asides(home) == []


# ---------------------------------------------------------------------------- 3: hard links and symlinks
def keyring_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    xdg = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    place = xdg / "python_keyring" / "keyring_pass.cfg"
    place.parent.mkdir(parents=True)
    place.write_text("[okbot]\ndefault = sk-secret-in-the-keyring\n", "utf-8")
    return place


@pytest.mark.parametrize("protected", ["keys", "keyring"])
def test_a_hard_link_to_a_protected_file_in_a_workspace_stays_out_and_is_reported(
    tmp_path, monkeypatch, capsys, protected
):
    home = seeded()
    target = home / "keys.json" if protected == "keys" else keyring_file(tmp_path, monkeypatch)
    workspace = home / "assistants" / "okbot" / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    os.link(target, workspace / "notes.txt")
    (workspace / "mine.txt").write_text("my own file, two names\n", "utf-8")
    os.link(workspace / "mine.txt", workspace / "mine-too.txt")
    dest = tmp_path / "b.zip"
    assert main(["backup", str(dest)]) == 0
    _, err = capsys.readouterr()
    names = listing(dest)
    assert "assistants/okbot/workspace/notes.txt" not in names
    assert b"sk-secret" not in all_bytes(dest)
    assert "assistants/okbot/workspace/notes.txt" in err  # reported
    assert {"assistants/okbot/workspace/mine.txt", "assistants/okbot/workspace/mine-too.txt"} <= set(names)


def test_symlinks_in_the_data_dir_are_never_followed_out_of_it(tmp_path):
    home = seeded()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("sk-secret-outside\n", "utf-8")
    workspace = home / "assistants" / "okbot" / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "dir-link").symlink_to(outside, target_is_directory=True)
    (workspace / "file-link.txt").symlink_to(outside / "secret.txt")
    (home / "memory-link").symlink_to(outside, target_is_directory=True)
    dest = tmp_path / "b.zip"
    backup.create_backup(home, dest)
    assert not [n for n in listing(dest) if "link" in n]
    assert b"sk-secret-outside" not in all_bytes(dest)


def test_a_folder_swapped_for_a_symlink_during_the_backup_is_not_followed(tmp_path):
    """The backup lists the files, then copies them: a folder replaced by a symlink in between (a tool at work
    in the workspace) was followed, and the file outside went into the zip."""
    home = seeded()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("sk-secret-outside\n", "utf-8")
    sub = home / "assistants" / "okbot" / "workspace" / "sub"
    sub.mkdir(parents=True)
    (sub / "a.txt").write_text("harmless\n", "utf-8")
    swapped = []

    def swap(done: int, total: int) -> None:  # the first bytes are copied: the list is made
        if not swapped:
            shutil.rmtree(sub)
            sub.symlink_to(outside, target_is_directory=True)
            swapped.append(sub)

    dest = tmp_path / "b.zip"
    report = backup.create_backup(home, dest, progress=swap)
    assert swapped
    assert b"sk-secret-outside" not in all_bytes(dest)
    assert "assistants/okbot/workspace/sub/a.txt" not in listing(dest)
    assert any("sub/a.txt" in line for line in report.skipped)


# ---------------------------------------------------------------------------- 11: restore while a chat runs
def test_restore_refuses_while_an_okbot_chat_streams_on_the_data_dir(tmp_path, capsys, okbot_home, server):
    """`okbot restore --replace` went ahead under a streaming `okbot chat`, whose reply then landed in the
    restored session as an orphan."""
    home = seeded()
    dest = tmp_path / "b.zip"
    backup.create_backup(home, dest)
    server.enqueue(Reply(text="never done", never_end=True))
    env = {**os.environ, "OKBOT_HOME": str(okbot_home), "OKBOT_BASE_URL": server.base_url, "OKBOT_API_KEY": "sk-x"}
    chat = [sys.executable, "-m", "okbot", "chat", "okbot", "-m", "go"]
    proc = subprocess.Popen(chat, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        server.wait_for_requests(1, timeout=120)  # the chat is streaming
        before = files_of(home)
        assert main(["restore", str(dest), "--replace"]) == 1
        _, err = capsys.readouterr()
        assert "okbot chat" in err and str(proc.pid) in err and "nothing was restored" in err
        assert files_of(home) == before and asides(home) == []
    finally:
        server.stop()  # the stream ends: the chat finishes
        proc.wait(timeout=120)
    assert main(["restore", str(dest), "--replace"]) == 0  # nobody uses it any more


def test_a_chat_refuses_to_start_while_a_restore_runs(okbot_home, server):
    seeded()
    restoring = datalock.DataDirUse(okbot_home)
    assert restoring.take_exclusive()
    try:
        env = {**os.environ, "OKBOT_HOME": str(okbot_home), "OKBOT_BASE_URL": server.base_url}
        chat = [sys.executable, "-m", "okbot", "chat", "okbot", "-m", "go"]
        proc = subprocess.run(chat, capture_output=True, text=True, env=env, timeout=120)
    finally:
        restoring.release()
    assert proc.returncode == 1 and "restore" in proc.stderr and "Traceback" not in proc.stderr
    assert server.chat_requests() == []


# ---------------------------------------------------------------------------- 20: a manifest nested too deeply
def test_a_manifest_nested_100000_deep_is_a_clear_error(tmp_path, capsys):
    home = seeded()
    good, bad = tmp_path / "b.zip", tmp_path / "deep.zip"
    backup.create_backup(home, good)
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            if info.filename == backup.MANIFEST_NAME:
                zout.writestr(info, "[" * 100_000 + "]" * 100_000)
            else:
                zout.writestr(info, zin.read(info.filename))
    before = files_of(home)
    assert main(["restore", str(bad), "--replace"]) == 1
    _, err = capsys.readouterr()
    assert "deep.zip" in err and backup.MANIFEST_NAME in err and "nested" in err and "Traceback" not in err
    assert files_of(home) == before
