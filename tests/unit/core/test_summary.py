"""SessionSummary validation and SummaryStore: atomic saves with backup, fallbacks on bad files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from okbot.core.summary import SessionSummary, SummaryStore


@pytest.fixture
def spath(tmp_path: Path) -> Path:
    return tmp_path / "a1" / "session-summary.json"


def _bak(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def _sample(**changes: object) -> SessionSummary:
    base = SessionSummary(
        summary="## Mission\nShip it.",
        covered_through_id=12,
        kept_user_ids=[3, 7],
        updated_at="2024-05-01T10:00:00.000Z",
        trigger="ratio",
    )
    for key, value in changes.items():
        setattr(base, key, value)
    return base


# --------------------------------------------------------------------------- the dataclass
def test_to_json_keys_and_round_trip() -> None:
    s = _sample()
    data = s.to_json()
    assert list(data) == [
        "version",
        "summary",
        "coveredThroughId",
        "keptUserIds",
        "updatedAt",
        "trigger",
        "hiddenItemIds",
        "health",
        "currentRequestIds",
        "cutItems",
    ]
    assert data["coveredThroughId"] == 12 and data["keptUserIds"] == [3, 7]
    assert SessionSummary.from_json(data) == s
    pinned = _sample(current_request_ids=[9], cut_items={11: 4000})
    assert pinned.to_json()["cutItems"] == {"11": 4000}  # a JSON object's keys are text
    assert SessionSummary.from_json(json.loads(json.dumps(pinned.to_json()))) == pinned
    assert SessionSummary.from_json(json.loads(json.dumps(data))) == s


def test_from_json_fills_missing_keys_with_defaults() -> None:
    assert SessionSummary.from_json({}) == SessionSummary()
    assert SessionSummary.from_json({"summary": "x"}).summary == "x"


@pytest.mark.parametrize(
    ("patch", "word"),
    [
        ({"coveredThroughId": "12"}, "coveredThroughId"),
        ({"coveredThroughId": -1}, "coveredThroughId"),
        ({"coveredThroughId": True}, "coveredThroughId"),
        ({"coveredThroughId": 3.5}, "coveredThroughId"),
        ({"keptUserIds": ["1"]}, "keptUserIds"),
        ({"keptUserIds": [0]}, "keptUserIds"),
        ({"keptUserIds": [True]}, "keptUserIds"),
        ({"keptUserIds": "1,2"}, "keptUserIds"),
        ({"summary": 5}, "summary"),
        ({"summary": None}, "summary"),
        ({"updatedAt": 17}, "updatedAt"),
        ({"trigger": "sometimes"}, "trigger"),
        ({"currentRequestIds": [0]}, "currentRequestIds"),
        ({"currentRequestIds": 4}, "currentRequestIds"),
        ({"cutItems": [[4, 100]]}, "cutItems"),
        ({"cutItems": {"x": 100}}, "cutItems"),
        ({"cutItems": {"4": 0}}, "cutItems"),
        ({"version": "1"}, "version"),
        ({"version": 0}, "version"),
        ({"version": 99}, "version"),
    ],
)
def test_from_json_rejects_wrong_types_with_reason(patch: dict, word: str) -> None:
    data = {**_sample().to_json(), **patch}
    with pytest.raises(ValueError, match=word):
        SessionSummary.from_json(data)


@pytest.mark.parametrize("obj", [None, [], "summary", 3])
def test_from_json_rejects_non_objects(obj: object) -> None:
    with pytest.raises(ValueError, match="object"):
        SessionSummary.from_json(obj)


# --------------------------------------------------------------------------- the store
def test_missing_file_is_empty_without_notice(spath: Path) -> None:
    seen: list[str] = []
    store = SummaryStore(spath, on_notice=seen.append)
    assert store.load() == SessionSummary()
    assert store.problems == [] and seen == []


def test_save_then_load_round_trip(spath: Path) -> None:
    store = SummaryStore(spath)
    s = _sample(updated_at="")
    store.save(s)
    assert s.updated_at  # filled in on save
    loaded = SummaryStore(spath).load()
    assert loaded == s
    on_disk = json.loads(spath.read_text("utf-8"))
    assert on_disk["coveredThroughId"] == 12 and on_disk["version"] == 2
    assert oct(spath.stat().st_mode & 0o777) == oct(0o600)


def test_save_keeps_previous_as_backup(spath: Path) -> None:
    store = SummaryStore(spath)
    store.save(_sample(summary="first", covered_through_id=5))
    store.save(_sample(summary="second", covered_through_id=9))
    assert store.load().summary == "second"
    assert json.loads(_bak(spath).read_text("utf-8"))["summary"] == "first"


def test_save_refuses_invalid_summary_and_keeps_file(spath: Path) -> None:
    store = SummaryStore(spath)
    store.save(_sample(summary="good"))
    before = spath.read_bytes()
    with pytest.raises(ValueError, match="coveredThroughId"):
        store.save(_sample(covered_through_id=-4))
    with pytest.raises(ValueError, match="trigger"):
        store.save(_sample(trigger="bogus"))
    assert spath.read_bytes() == before


def test_corrupt_json_falls_back_to_backup(spath: Path) -> None:
    store = SummaryStore(spath)
    store.save(_sample(summary="older", covered_through_id=4))
    store.save(_sample(summary="newer", covered_through_id=8))
    spath.write_text('{"version": 1, "summary": "newer", "covere', "utf-8")
    seen: list[str] = []
    reader = SummaryStore(spath, on_notice=seen.append)
    loaded = reader.load()
    assert loaded.summary == "older" and loaded.covered_through_id == 4
    assert len(reader.problems) == 1 and seen == reader.problems
    assert "backup" in reader.problems[0] and spath.name in reader.problems[0]


def test_invalid_content_falls_back_to_backup(spath: Path) -> None:
    store = SummaryStore(spath)
    store.save(_sample(summary="older"))
    store.save(_sample(summary="newer"))
    spath.write_text(json.dumps({**_sample().to_json(), "coveredThroughId": "12"}), "utf-8")
    reader = SummaryStore(spath)
    assert reader.load().summary == "older"
    assert "coveredThroughId" in reader.problems[0]


def test_corrupt_without_backup_gives_empty_with_notice(spath: Path) -> None:
    spath.parent.mkdir(parents=True)
    spath.write_bytes(b"\x00\xff garbage")
    seen: list[str] = []
    store = SummaryStore(spath, on_notice=seen.append)
    assert store.load() == SessionSummary()
    assert len(seen) == 1 and seen == store.problems
    assert "empty" in seen[0].lower() or "no summary" in seen[0].lower()


def test_corrupt_file_and_corrupt_backup_give_empty_with_notices(spath: Path) -> None:
    spath.parent.mkdir(parents=True)
    spath.write_text("[]", "utf-8")
    _bak(spath).write_text("{nope", "utf-8")
    store = SummaryStore(spath)
    assert store.load() == SessionSummary()
    assert len(store.problems) == 2
    assert "backup" in store.problems[1]


def test_unreadable_file_falls_back_to_backup(spath: Path) -> None:
    store = SummaryStore(spath)
    store.save(_sample(summary="from backup"))
    os.replace(spath, _bak(spath))
    spath.mkdir()  # a directory where the file should be: reading it fails like a permission error
    reader = SummaryStore(spath)
    assert reader.load().summary == "from backup"
    assert len(reader.problems) == 1 and "cannot be read" in reader.problems[0]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions")
def test_permission_denied_falls_back(spath: Path) -> None:
    store = SummaryStore(spath)
    store.save(_sample(summary="one"))
    store.save(_sample(summary="two"))
    spath.chmod(0)
    try:
        reader = SummaryStore(spath)
        assert reader.load().summary == "one"
        assert len(reader.problems) == 1
    finally:
        spath.chmod(0o600)


def test_stray_temp_files_from_a_crash_never_affect_load(spath: Path) -> None:
    store = SummaryStore(spath)
    store.save(_sample(summary="committed"))
    # a crash mid-save leaves a temp file (and possibly a half-made backup link) behind
    (spath.parent / f".{spath.name}.abc123.tmp").write_text('{"summary": "half', "utf-8")
    _bak(spath).with_name(_bak(spath).name + ".tmp").write_text("junk", "utf-8")
    reader = SummaryStore(spath)
    assert reader.load().summary == "committed"
    assert reader.problems == []
    reader.save(_sample(summary="after crash"))
    assert SummaryStore(spath).load().summary == "after crash"
    assert json.loads(_bak(spath).read_text("utf-8"))["summary"] == "committed"
