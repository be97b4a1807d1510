"""settings.json itself (okbot.config.settings_file): a broken, unreadable or newer file is never lost or
overwritten, an older one is migrated, and a change by another process is noticed. Real files in a temp dir."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from okbot.config.schema import (
    SETTINGS,
    SettingError,
)
from okbot.config.settings import Settings
from okbot.config.settings_file import FORMAT_VERSION, KIND, SettingsFile
from okbot.storage import migrations


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "settings.json"


def write(path: Path, obj: object) -> bytes:
    raw = json.dumps(obj).encode("utf-8")
    path.write_bytes(raw)
    return raw


def stored(path: Path) -> dict:
    return json.loads(path.read_text("utf-8"))


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".broken-*"))


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2, 3]", "JSON object"),
        (b'"text"', "JSON object"),
        (b"null", "JSON object"),
        (b'{"developerMode": "\xff\xfe"}', "UTF-8"),
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"[" * 100_000, "not valid JSON"),  # deeper than the parser allows
    ],
)
def test_unparseable_file_is_backed_up_and_defaults_used(path: Path, raw: bytes, why: str) -> None:
    path.write_bytes(raw)
    s = Settings.load(path)
    assert s.as_dict() == {spec.key: spec.default for spec in SETTINGS}
    [backup] = backups(path)
    assert backup.read_bytes() == raw
    assert len(s.problems) == 1
    assert why in s.problems[0] and backup.name in s.problems[0] and "defaults in use" in s.problems[0]
    assert path.read_bytes() == raw  # loading never rewrites
    s.set("developerMode", True)  # the next save replaces it; the backup stays
    assert stored(path)["developerMode"] is True
    assert backup.read_bytes() == raw


def test_loading_the_same_broken_file_twice_makes_one_backup(path: Path) -> None:
    path.write_bytes(b"{oops")
    first = Settings.load(path)
    second = Settings.load(path)
    assert len(backups(path)) == 1
    assert first.problems == second.problems
    path.write_bytes(b"{other oops")
    Settings.load(path)
    assert len(backups(path)) == 2


def test_utf8_bom_is_accepted(path: Path) -> None:
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"developerMode": True}).encode())
    s = Settings.load(path)
    assert s.get("developerMode") is True and s.problems == []


def test_newer_version_is_read_only(path: Path) -> None:
    raw = write(path, {"version": 3, "developerMode": True})
    s = Settings.load(path)
    assert s.get("developerMode") is True and any("newer" in p for p in s.problems) and s.read_only
    with pytest.raises(SettingError, match="newer"):
        s.save()
    assert path.read_bytes() == raw


def test_bad_version_is_repaired(path: Path) -> None:
    write(path, {"version": "one", "developerMode": True})
    s = Settings.load(path)
    assert s.get("developerMode") is True and len(backups(path)) == 1
    s.save()
    assert stored(path)["version"] == 2


def _assert_unreadable_is_protected(path: Path) -> None:
    s = Settings.load(path)
    assert s.as_dict() == {spec.key: spec.default for spec in SETTINGS}
    assert len(s.problems) == 1 and "could not be read" in s.problems[0]
    with pytest.raises(SettingError):
        s.save()
    with pytest.raises(SettingError):
        s.set("developerMode", True)
    assert s.get("developerMode") is False


def test_unreadable_file_is_never_overwritten(path: Path) -> None:
    write(path, {"developerMode": True})
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running with privileges that ignore file permissions (root)")
        _assert_unreadable_is_protected(path)
        path.chmod(0o600)
        assert stored(path) == {"developerMode": True}
    finally:
        path.chmod(0o600)


def test_directory_in_place_of_the_file_is_never_replaced(path: Path) -> None:
    # Same path as an unreadable file, but enforceable even when running as root.
    path.mkdir()
    (path / "keep.txt").write_text("mine")
    _assert_unreadable_is_protected(path)
    assert (path / "keep.txt").read_text() == "mine"


def test_the_settings_file_declares_its_own_migrations() -> None:
    assert migrations.CURRENT[KIND] == FORMAT_VERSION
    assert [m.name for m in migrations.MIGRATIONS[KIND]] == ["settings-v0-add-version", "settings-v1-providers"]
    with pytest.raises(AssertionError, match="declared twice"):
        migrations.register(KIND, FORMAT_VERSION, [])


def test_a_file_is_read_in_the_current_format_and_written_back_after_a_copy_of_the_old_one(path: Path) -> None:
    raw = write(path, {"developerMode": True, "provider.baseUrl": "http://127.0.0.1:9/v1"})
    file = SettingsFile(path)
    data = file.read()
    assert data == {
        "version": 2,
        "developerMode": True,
        "providers": [{"name": "default", "baseUrl": "http://127.0.0.1:9/v1"}],
    }
    assert path.read_bytes() == raw and file.problems == [] and file.read_only == ""
    file.write({"version": 2, "developerMode": False})
    assert (path.parent / "settings.json.v0.bak").read_bytes() == raw
    assert stored(path) == {"version": 2, "developerMode": False}


def test_a_change_on_disk_is_noticed_until_the_file_is_read_again(path: Path) -> None:
    write(path, {"developerMode": True})
    file = SettingsFile(path)
    file.read()
    assert not file.changed_on_disk()
    write(path, {"developerMode": True, "ui.theme": "dark"})  # another process, one size longer
    assert file.changed_on_disk()
    file.read()
    assert not file.changed_on_disk()
    path.unlink()
    assert file.changed_on_disk()


def test_entries_keeps_the_good_ones_and_says_why_each_other_went(path: Path) -> None:
    file = SettingsFile(path)

    def parse(entry: object) -> int:
        if not isinstance(entry, int):
            raise SettingError(f"{entry!r} is no number")
        return entry

    assert file.entries("numbers", [1, "two", 3], parse, "{file}: {problem}; removed") == ([1, 3], True)
    assert file.entries("numbers", {"not": "a list"}, parse, "{file}: {problem}; removed") == ([], True)
    assert [say() for say in file.problems] == [
        "settings.json: 'two' is no number; removed",
        'settings.json: numbers was {"not": "a list"}, not a list; ignored',
    ]


def test_a_repaired_file_is_copied_aside_once(path: Path) -> None:
    raw = write(path, {"version": 2, "developerMode": "maybe"})
    for _ in range(2):
        file = SettingsFile(path)
        file.read()
        file.keep_original()
    assert [p.read_bytes() for p in backups(path)] == [raw]
    assert "backed up to settings.json.broken-" in file.problems[-1]()
