"""Tests for the settings schema (okbot.config.schema) and store (okbot.config.settings)."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from okbot.config.schema import (
    ADVANCED_PAGE,
    SECTIONS,
    SETTINGS,
    Section,
    Setting,
    SettingError,
    setting,
)
from okbot.config.settings import Settings
from okbot.storage import paths
from okbot.storage.errors import OkBotError
from okbot.storage.redaction import REDACTED, redact_url

SOMEWHERE = Section(ADVANCED_PAGE, "Tests")
RATIO = "contextCompression.ratio"
KEEP_MIN = "contextCompression.keepRecentMin"
KEEP_MAX = "contextCompression.keepRecentMax"
WINDOW = "model.contextWindow"
MODEL = "provider.model"
BASE_URL = "provider.baseUrl"


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


# ---------------------------------------------------------------- the schema


def test_declaration_is_complete_and_consistent() -> None:
    keys = [s.key for s in SETTINGS]
    assert len(keys) == len(set(keys))
    assert {
        "provider.baseUrl",
        "provider.model",
        "provider.keySource",
        "provider.slots",
        "model.contextWindow",
        RATIO,
        "contextCompression.prepareRatio",
        KEEP_MIN,
        KEEP_MAX,
        "contextCompression.summaryMaxChars",
        "contextCompression.summarizerModel",
        "contextCompression.autoTopicCompress",
        "memory.maxEntries",
        "memory.maxChars",
        "evolution.enabled",
        "evolution.offerTeachings",
        "evolution.everyTurns",
        "evolution.everyChars",
        "evolution.waitTurns",
        "evolution.structuredOutput",
        "tools.search_history.approval",
        "tools.maxRounds",
        "tools.maxCallsPerTurn",
        "developerMode",
        "tools.read_file.approval",
        "tools.list_dir.approval",
        "tools.write_file.approval",
        "tools.edit_file.approval",
        "tools.run_shell.approval",
        "tools.web_fetch.approval",
        "tools.approvalTimeout",
        "tools.turnSeconds",
        "mcp.startupSeconds",
        "mcp.callSeconds",
        "provider.timeout",
        "provider.maxRetries",
        "ui.theme",
        "ui.fontSize",
        "ui.language",
    } == set(keys)
    for spec in SETTINGS:
        assert spec.description and spec.label and spec.section in SECTIONS
        assert spec.validate(spec.default) == spec.default
    assert not any("apikey" in k.lower().replace(".", "") for k in keys)


def test_declaring_a_default_outside_its_bounds_is_a_bug() -> None:
    with pytest.raises(SettingError):
        Setting("x.y", int, 0, "d", label="Y", section=SOMEWHERE, minimum=1, maximum=2)


def test_words_for_a_value_that_is_no_choice_are_a_bug() -> None:
    with pytest.raises(TypeError, match="choice_words"):
        Setting("x.y", str, "a", "d", label="Y", section=SOMEWHERE, choices=("a", "b"), choice_words={"c": "C"})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("developerMode", 1),
        ("developerMode", "true"),  # bool does not accept ints
        ("tools.maxRounds", True),
        ("tools.maxRounds", 8.0),
        ("tools.maxRounds", "8"),  # nor int bools
        (RATIO, True),
        (RATIO, float("nan")),
        (RATIO, float("inf")),
        (RATIO, "0.5"),
        ("provider.keySource", "vault"),
        ("provider.keySource", 1),
        (MODEL, None),
        (MODEL, ""),
        (BASE_URL, "api.openai.com/v1"),
        (BASE_URL, "ftp://example.com"),
        (WINDOW, True),
        (WINDOW, 999),
        (WINDOW, 10_000_001),
    ],
)
def test_validate_refuses_wrong_types_and_values(key: str, value: object) -> None:
    with pytest.raises(SettingError) as err:
        setting(key).validate(value)
    assert isinstance(err.value, OkBotError)
    assert key in str(err.value)


def test_validate_normalises() -> None:
    spec = Setting("t.f", float, 1.0, "d", label="F", section=SOMEWHERE, minimum=0, maximum=2)
    assert spec.validate(1) == 1.0 and isinstance(spec.validate(1), float)  # floats accept ints
    assert setting(RATIO).validate(0.3) == 0.3
    assert setting(MODEL).validate("  gpt-4o ") == "gpt-4o"
    assert setting(WINDOW).validate(None) is None
    assert setting("developerMode").validate(True) is True


def test_error_message_names_key_value_and_range() -> None:
    with pytest.raises(SettingError) as err:
        setting(RATIO).validate(2)
    text = str(err.value)
    assert RATIO in text and "2" in text and "0.3" in text and "0.95" in text
    with pytest.raises(SettingError) as err:
        setting("provider.keySource").validate("vault")
    text = str(err.value)
    assert "vault" in text and "env" in text and "keyring" in text and "none" in text


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("true", True),
        ("on", True),
        ("1", True),
        ("YES", True),
        (" True ", True),
        ("false", False),
        ("off", False),
        ("0", False),
        ("no", False),
    ],
)
def test_parse_bool(word: str, expected: bool) -> None:
    assert setting("developerMode").parse(word) is expected


@pytest.mark.parametrize(
    ("key", "text", "expected"),
    [
        ("tools.maxRounds", "12", 12),
        ("tools.maxRounds", " 3 ", 3),
        ("memory.maxChars", "10_000", 10_000),
        (RATIO, "0.75", 0.75),
        (RATIO, "5e-1", 0.5),
        (MODEL, "gpt-4o", "gpt-4o"),
        (BASE_URL, "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("provider.keySource", "KEYRING", "keyring"),
        ("tools.search_history.approval", "ask", "ask"),
        (WINDOW, "128000", 128000),
        (WINDOW, "", None),
        (WINDOW, "null", None),
        (WINDOW, "NULL", None),
    ],
)
def test_parse_from_text(key: str, text: str, expected: object) -> None:
    assert setting(key).parse(text) == expected


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("developerMode", "maybe"),
        ("developerMode", ""),
        ("tools.maxRounds", "8.5"),
        ("tools.maxRounds", "eight"),
        ("tools.maxRounds", ""),
        ("tools.maxRounds", "null"),  # not nullable
        ("tools.maxRounds", "1000"),
        (RATIO, "nan"),
        (RATIO, "abc"),
        (RATIO, "0.1"),
        ("provider.keySource", "vault"),
        (WINDOW, "12.5"),
    ],
)
def test_parse_refuses_bad_text(key: str, text: str) -> None:
    with pytest.raises(SettingError) as err:
        setting(key).parse(text)
    assert key in str(err.value)


@pytest.mark.parametrize(
    ("typo", "hint"),
    [
        ("contextCompresion.ratio", RATIO),
        ("ratio", RATIO),
        ("developermode", "developerMode"),
        ("provider", "provider.keySource"),
        ("zzzz", "okbot config get"),
    ],
)
def test_unknown_key_suggests_close_matches(typo: str, hint: str) -> None:
    with pytest.raises(SettingError) as err:
        setting(typo)
    assert hint in str(err.value)


# ---------------------------------------------------------------- defaults and round trip


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


# ---------------------------------------------------------------- refusing bad values


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


# ---------------------------------------------------------------- environment overrides


def test_env_overrides_apply_at_read_time_and_are_never_saved(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = Settings.load(path)
    s.set(MODEL, "stored-model")
    monkeypatch.setenv("OKBOT_MODEL", "env-model")
    monkeypatch.setenv("OKBOT_BASE_URL", "http://127.0.0.1:9999/v1")
    assert s.get(MODEL) == "env-model"
    assert s.get(BASE_URL) == "http://127.0.0.1:9999/v1"
    assert s.as_dict()[MODEL] == "env-model"
    assert s.env_override(MODEL) == "OKBOT_MODEL"
    assert s.is_default(BASE_URL)  # the stored value is still the default
    s.set("developerMode", True)
    data = stored(path)
    assert data[MODEL] == "stored-model" and BASE_URL not in data
    monkeypatch.delenv("OKBOT_MODEL")
    assert s.get(MODEL) == "stored-model"


def test_invalid_env_override_is_ignored_with_a_problem(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKBOT_BASE_URL", "not a url")
    monkeypatch.setenv("OKBOT_MODEL", "   ")  # blank counts as unset
    s = Settings.load(path)
    assert s.get(BASE_URL) == "https://api.openai.com/v1"
    assert s.get(MODEL) == "gpt-4o-mini"
    assert len(s.problems) == 1 and "OKBOT_BASE_URL" in s.problems[0]


# ---------------------------------------------------------------- per-model context window


def test_context_window_override_is_per_model(path: Path) -> None:
    s = Settings.load(path)
    assert s.get(WINDOW) is None
    s.set(WINDOW, 64000)  # for gpt-4o-mini
    s.set(MODEL, "other-model")
    assert s.get(WINDOW) is None and s.is_default(WINDOW)
    s.set(WINDOW, 32000)
    s.set(MODEL, "gpt-4o-mini")
    assert s.get(WINDOW) == 64000
    data = stored(path)
    assert "model.contextWindow" not in data
    assert data["modelOverrides"] == {
        "gpt-4o-mini": {"contextWindow": 64000},
        "other-model": {"contextWindow": 32000},
    }
    s.reset(WINDOW)
    assert stored(path)["modelOverrides"] == {"other-model": {"contextWindow": 32000}}


def test_context_window_follows_env_model(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(path, {"version": 1, "modelOverrides": {"env-model": {"contextWindow": 5000}}})
    s = Settings.load(path)
    assert s.get(WINDOW) is None
    monkeypatch.setenv("OKBOT_MODEL", "env-model")
    assert s.get(WINDOW) == 5000


def test_switching_model_notifies_window_change(path: Path) -> None:
    s = Settings.load(path)
    s.set(WINDOW, 64000)
    seen: list[str] = []
    s.subscribe(seen.append)
    s.set(MODEL, "other-model")
    assert seen == [MODEL, WINDOW]


# ---------------------------------------------------------------- subscribers


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


# ---------------------------------------------------------------- broken files


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


def test_bad_value_resets_only_that_key(path: Path) -> None:
    raw = write(path, {"version": 1, RATIO: 5, "developerMode": 1, "tools.maxRounds": 20, MODEL: "gpt-4o"})
    s = Settings.load(path)
    assert s.get(RATIO) == 0.6 and s.get("developerMode") is False
    assert s.get("tools.maxRounds") == 20 and s.get(MODEL) == "gpt-4o"
    assert s.reset_keys == [RATIO, "developerMode"]
    ratio_msg = next(p for p in s.problems if RATIO in p)
    assert "5" in ratio_msg and "0.6" in ratio_msg
    dev_msg = next(p for p in s.problems if "developerMode" in p)
    assert "1" in dev_msg and "false" in dev_msg
    [backup] = backups(path)
    assert backup.read_bytes() == raw
    assert any(backup.name in p for p in s.problems)
    s.save()
    assert stored(path) == {"version": 2, "tools.maxRounds": 20, MODEL: "gpt-4o"}


def test_stored_keep_min_above_max_resets_both(path: Path) -> None:
    write(path, {KEEP_MIN: 30, KEEP_MAX: 10, RATIO: 0.5})
    s = Settings.load(path)
    assert s.get(KEEP_MIN) == 8 and s.get(KEEP_MAX) == 12 and s.get(RATIO) == 0.5
    assert set(s.reset_keys) == {KEEP_MIN, KEEP_MAX}
    assert any(KEEP_MIN in p and KEEP_MAX in p for p in s.problems)
    assert len(backups(path)) == 1


def test_bad_model_overrides_are_repaired_per_model(path: Path) -> None:
    write(
        path,
        {
            "modelOverrides": {
                "gpt-4o-mini": {"contextWindow": 10, "note": "keep me"},
                "good": {"contextWindow": 9000},
                "junk": 3,
            }
        },
    )
    s = Settings.load(path)
    assert s.get(WINDOW) is None
    assert s.reset_keys == [WINDOW]
    assert any("gpt-4o-mini" in p and "10" in p for p in s.problems)
    s.save()
    assert stored(path)["modelOverrides"] == {"gpt-4o-mini": {"note": "keep me"}, "good": {"contextWindow": 9000}}
    write(path, {"modelOverrides": [1]})
    assert Settings.load(path).get(WINDOW) is None


def test_unknown_keys_are_preserved_and_reported_once(path: Path) -> None:
    write(path, {"version": 1, "future.feature": {"a": [1, 2]}, "tools.maxRound": 3, "provider.apiKey": "sk-secret"})
    s = Settings.load(path)
    assert s.reset_keys == [] and backups(path) == []
    [message] = s.problems
    assert "future.feature" in message and "tools.maxRounds" in message  # a suggestion
    assert "OKBOT_API_KEY" in message and "sk-secret" not in message
    s.set("developerMode", True)
    data = stored(path)
    assert data["future.feature"] == {"a": [1, 2]} and data["tools.maxRound"] == 3
    assert data["provider.apiKey"] == "sk-secret"  # the user's own content is never dropped


def test_api_key_is_never_written(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKBOT_API_KEY", "sk-test-123")
    s = Settings.load(path)
    s.set("provider.keySource", "env")
    s.set("developerMode", True)
    assert "sk-test-123" not in path.read_text("utf-8")


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


def test_top_level_context_window_is_kept_but_not_used(path: Path) -> None:
    write(path, {WINDOW: 64000})
    s = Settings.load(path)
    assert s.get(WINDOW) is None
    assert any("modelOverrides" in p for p in s.problems)
    s.save()
    assert stored(path)[WINDOW] == 64000


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


# ---------------------------------------------------------------- any JSON object loads


_json_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
_json = st.recursive(
    _json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_interesting_values = (
    _json
    | st.sampled_from([s.default for s in SETTINGS])
    | st.integers(min_value=-5, max_value=20_000)
    | st.integers(min_value=0, max_value=30)  # often valid keep bounds, sometimes min > max
    | st.floats(min_value=0, max_value=1)
    | st.sampled_from(["env", "keyring", "none", "allow", "ask", "deny", "http://x", "gpt-4o-mini"])
)
_override_entry = st.dictionaries(
    st.sampled_from(["contextWindow", "other"]),
    _interesting_values | st.integers(0, 20_000_000),
    max_size=2,
)
_overrides = st.dictionaries(st.sampled_from(["gpt-4o-mini", "x", ""]), _override_entry | _json, max_size=3)
_key = st.sampled_from([s.key for s in SETTINGS] + ["version"]) | st.text(max_size=12)
_settings_object = st.dictionaries(_key, _interesting_values, max_size=8).flatmap(
    lambda d: st.one_of(st.just(d), _overrides.map(lambda o: {**d, "modelOverrides": o}))
)


@pytest.mark.slow
@hyp_settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=_settings_object)
def test_any_json_object_loads_and_every_value_validates(obj: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "settings.json"
        path.write_text(json.dumps(obj), "utf-8")
        s = Settings.load(path)
        values = s.as_dict()
        for spec in SETTINGS:
            value = s.get(spec.key)
            assert spec.validate(value) == value
            assert values[spec.key] == value
        assert s.get(KEEP_MIN) <= s.get(KEEP_MAX)
        if s.read_only:  # a newer OkBot's file: never rewritten
            raw = path.read_bytes()
            with pytest.raises(SettingError, match="newer"):
                s.save()
            assert path.read_bytes() == raw
            return
        # Whatever was read survives a save and reads back the same, with nothing left to repair.
        s.save()
        again = Settings.load(path)
        assert again.as_dict() == values
        assert again.reset_keys == []


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


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pass@host/v1", "https://[redacted]@host/v1"),
        ("http://:pw@127.0.0.1:8080/v1", "http://[redacted]@127.0.0.1:8080/v1"),
        (
            "https://host/v1?api_key=k1&key=k2&token=t&x=1",
            "https://host/v1?api_key=[redacted]&key=[redacted]&token=[redacted]&x=1",
        ),
        ("https://host/v1?access_token=a#sig=s", "https://host/v1?access_token=[redacted]#sig=[redacted]"),
        ("https://user@host/v1", "https://[redacted]@host/v1"),  # a token passes as a user name
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),
        ("https://host/v1?", "https://host/v1?"),  # nothing to hide: the text comes back exactly
        ("http://u:p@[::1/v1", "http://[redacted]@[::1/v1"),  # not parseable, still hidden
    ],
)
def test_redact_url_hides_passwords_and_credential_parameters(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_the_base_url_setting_is_shown_redacted_also_in_refusals(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    spec = setting(BASE_URL)
    assert spec.shown("https://a:b@h/v1") == f"https://{REDACTED}@h/v1"
    assert setting(MODEL).shown("gpt:secret@x") == "gpt:secret@x"  # only settings that declare it
    with pytest.raises(SettingError) as exc:
        spec.validate("ftp://a:hunter2@h/v1")
    assert "hunter2" not in exc.value.message and REDACTED in exc.value.message
    monkeypatch.setenv("OKBOT_BASE_URL", "ftp://a:hunter2@h/v1")
    problems = Settings.load(path).env_problems()
    assert problems and not any("hunter2" in p for p in problems)
    path.write_text(json.dumps({BASE_URL: "ftp://a:hunter2@h/v1"}), encoding="utf-8")
    loaded = Settings.load(path)
    assert loaded.problems and not any("hunter2" in p for p in loaded.problems)


def test_a_base_url_holding_a_user_name_or_password_is_refused_when_set_and_kept_when_saved(path: Path) -> None:
    """Issue 31, class 18: `okbot config set`, the first-run dialog and the Settings page saved a token given as
    the URL's user name into settings.json. A value already saved still loads (the default in its place
    would send the key to another server), shown redacted."""
    settings = Settings.load(path)
    for url in ("https://sk-secret-123@llm.example/v1", "http://user:sk-secret-123@127.0.0.1:8080/v1"):
        with pytest.raises(SettingError) as exc:
            settings.set(BASE_URL, url)
        assert "sk-secret-123" not in str(exc.value) and "user name or password" in str(exc.value)
        with pytest.raises(SettingError):
            settings.set_text(BASE_URL, url)
    assert not path.exists() or "sk-secret-123" not in path.read_text(encoding="utf-8")
    path.write_text(json.dumps({BASE_URL: "https://sk-secret-123@llm.example/v1"}), encoding="utf-8")
    saved = Settings.load(path)
    assert saved.get(BASE_URL) == "https://sk-secret-123@llm.example/v1" and not saved.problems
    assert setting(BASE_URL).shown(saved.get(BASE_URL)) == f"https://{REDACTED}@llm.example/v1"


def test_set_for_model_sets_another_model_window_only(path: Path) -> None:
    s = Settings.load(path)
    s.set("provider.model", "gpt-4o")
    s.set_for_model("model.contextWindow", "deepseek-chat", 64000)
    assert s.get_for_model("model.contextWindow", "deepseek-chat") == 64000
    assert s.get("model.contextWindow") is None  # the current model's own stays unset
    assert Settings.load(path).get_for_model("model.contextWindow", "deepseek-chat") == 64000
    with pytest.raises(SettingError):
        s.set_for_model("model.contextWindow", "deepseek-chat", 5)
    with pytest.raises(ValueError):
        s.set_for_model("ui.theme", "deepseek-chat", "dark")
