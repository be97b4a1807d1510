"""The values of the settings (okbot.config.values): read through the schema, a refused one reset alone,
per-model windows, environment overrides, unknown keys kept. Real files in a temp dir."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from okbot.config.schema import (
    SETTINGS,
    SettingError,
    setting,
)
from okbot.config.settings import Settings
from okbot.storage.redaction import REDACTED

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


def test_top_level_context_window_is_kept_but_not_used(path: Path) -> None:
    write(path, {WINDOW: 64000})
    s = Settings.load(path)
    assert s.get(WINDOW) is None
    assert any("modelOverrides" in p for p in s.problems)
    s.save()
    assert stored(path)[WINDOW] == 64000


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
