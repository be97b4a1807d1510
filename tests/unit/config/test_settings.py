"""The settings store (okbot.config.settings): defaults, changes saved at once and told to subscribers, a
change that cannot be saved not made, reloading in place. Real files in a temp dir."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from okbot.config.schema import (
    SETTINGS,
    SettingError,
)
from okbot.config.settings import Settings
from okbot.storage import paths

RATIO = "contextCompression.ratio"
KEEP_MIN = "contextCompression.keepRecentMin"
KEEP_MAX = "contextCompression.keepRecentMax"
WINDOW = "model.contextWindow"
MODEL = "provider.model"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "settings.json"


def stored(path: Path) -> dict:
    return json.loads(path.read_text("utf-8"))


def test_defaults_when_no_file(path: Path) -> None:
    s = Settings.load(path)
    assert s.problems == [] and s.reset_keys == []
    assert s.as_dict() == {spec.key: spec.default for spec in SETTINGS}
    assert all(s.is_default(spec.key) for spec in SETTINGS)
    assert not path.exists()  # loading never writes


def test_load_defaults_to_the_data_dir_file(okbot_home: Path) -> None:
    s = Settings.load()
    assert s.path == paths.settings_file() == okbot_home / "settings.json"
    s.set("developerMode", True)
    assert Settings.load().get("developerMode") is True


def test_round_trip_stores_only_changed_values(path: Path) -> None:
    s = Settings.load(path)
    s.set(RATIO, 0.7)
    s.set("developerMode", True)
    s.set("provider.keySource", "keyring")
    s.set(KEEP_MAX, 20)
    s.set(KEEP_MIN, 15)
    assert stored(path) == {
        "version": 2,
        "providers": [{"name": "default", "keySource": "keyring"}],
        RATIO: 0.7,
        KEEP_MIN: 15,
        KEEP_MAX: 20,
        "developerMode": True,
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = Settings.load(path)
    assert again.as_dict() == s.as_dict()
    assert again.problems == []
    assert not again.is_default(RATIO) and again.is_default("memory.maxChars")


def test_setting_the_default_removes_the_key_from_the_file(path: Path) -> None:
    s = Settings.load(path)
    s.set(RATIO, 0.7)
    s.set(RATIO, 0.6)
    assert stored(path) == {"version": 2}
    assert s.is_default(RATIO)


def test_reset_returns_to_default_and_notifies(path: Path) -> None:
    s = Settings.load(path)
    s.set("tools.maxRounds", 20)
    seen: list[str] = []
    s.subscribe(seen.append)
    s.reset("tools.maxRounds")
    assert s.get("tools.maxRounds") == 8 and s.is_default("tools.maxRounds")
    assert "tools.maxRounds" not in stored(path)
    assert seen == ["tools.maxRounds"]


def test_reset_refuses_to_break_keep_order(path: Path) -> None:
    s = Settings.load(path)
    s.set(KEEP_MIN, 2)
    s.set(KEEP_MAX, 5)
    with pytest.raises(SettingError):
        s.reset(KEEP_MIN)  # the default 8 would exceed the max 5
    assert s.get(KEEP_MIN) == 2


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (RATIO, 0.99),
        (RATIO, "0.5"),
        ("tools.maxRounds", 0),
        ("tools.maxRounds", True),
        ("developerMode", 1),
        ("provider.keySource", "vault"),
        (WINDOW, 5),
    ],
)
def test_set_refuses_and_changes_nothing(path: Path, key: str, value: object) -> None:
    s = Settings.load(path)
    s.set("memory.maxEntries", 10)
    before_file = path.read_bytes()
    before = s.as_dict()
    seen: list[str] = []
    s.subscribe(seen.append)
    with pytest.raises(SettingError) as err:
        s.set(key, value)
    assert key in str(err.value)
    assert s.as_dict() == before
    assert path.read_bytes() == before_file
    assert seen == []


def test_set_unknown_key_suggests(path: Path) -> None:
    s = Settings.load(path)
    with pytest.raises(SettingError) as err:
        s.set("tools.maxRound", 3)
    assert "tools.maxRounds" in str(err.value)
    with pytest.raises(SettingError):
        s.get("nope.nothing")
    assert not path.exists()


def test_keep_recent_min_must_not_exceed_max(path: Path) -> None:
    s = Settings.load(path)
    with pytest.raises(SettingError) as err:
        s.set(KEEP_MIN, 13)
    assert KEEP_MAX in str(err.value)
    with pytest.raises(SettingError):
        s.set(KEEP_MAX, 7)
    s.set(KEEP_MIN, 12)  # equal is fine
    assert s.get(KEEP_MIN) == 12 == s.get(KEEP_MAX)


def test_set_text_for_every_type(path: Path) -> None:
    s = Settings.load(path)
    s.set_text("developerMode", "on")
    s.set_text("tools.maxRounds", "20")
    s.set_text(RATIO, "0.8")
    s.set_text(MODEL, "gpt-4o")
    s.set_text("tools.search_history.approval", "Ask")
    s.set_text(WINDOW, "64000")
    again = Settings.load(path)
    assert again.get("developerMode") is True
    assert again.get("tools.maxRounds") == 20
    assert again.get(RATIO) == 0.8
    assert again.get(MODEL) == "gpt-4o"
    assert again.get("tools.search_history.approval") == "ask"
    assert again.get(WINDOW) == 64000
    again.set_text(WINDOW, "null")
    assert Settings.load(path).get(WINDOW) is None
    with pytest.raises(SettingError):
        again.set_text("developerMode", "perhaps")


def test_switching_model_notifies_window_change(path: Path) -> None:
    s = Settings.load(path)
    s.set(WINDOW, 64000)
    seen: list[str] = []
    s.subscribe(seen.append)
    s.set(MODEL, "other-model")
    assert seen == [MODEL, WINDOW]


def test_subscribe_gets_key_on_set_and_unsubscribe_stops(path: Path) -> None:
    s = Settings.load(path)
    seen: list[str] = []
    unsubscribe = s.subscribe(seen.append)
    s.set(RATIO, 0.5)
    s.set(RATIO, 0.5)  # unchanged: no notification
    assert seen == [RATIO]
    unsubscribe()
    unsubscribe()  # harmless twice
    s.set(RATIO, 0.55)
    assert seen == [RATIO]


def test_reload_in_place_keeps_subscribers_and_reports_changes(tmp_path):
    path = tmp_path / "settings.json"
    mine = Settings.load(path)
    heard = []
    mine.subscribe(heard.append)
    other = Settings.load(path)  # another process
    other.set("contextCompression.ratio", 0.7)
    other.set("developerMode", True)
    assert mine.reload() == ["contextCompression.ratio", "developerMode"]
    assert mine.reload() == []  # nothing changed since
    assert mine.get("contextCompression.ratio") == 0.7 and mine.get("developerMode") is True
    assert set(heard) == {"contextCompression.ratio", "developerMode"}
    mine.set("developerMode", False)
    assert heard[-1] == "developerMode"
