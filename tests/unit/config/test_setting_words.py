"""What the Settings dialog says about a refused value: the setting's label and what is allowed, in words.

The command line keeps naming keys (``okbot config set`` takes keys); ``SettingError.words`` is the same
refusal for a person looking at a form, and it never contains a key name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from okbot.config.schema import SETTINGS, SettingError, setting
from okbot.config.settings import Settings

KEY_NAME = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")  # camelCase: keepRecentMax, summaryMaxChars
KEYS = tuple(spec.key for spec in SETTINGS)


def leaks(text: str) -> list[str]:
    """The key names (dotted keys, or a camelCase part of one) in ``text``."""
    return [key for key in KEYS if key in text] + KEY_NAME.findall(text)


def refusal(key: str, value: object) -> SettingError:
    with pytest.raises(SettingError) as caught:
        setting(key).validate(value)
    return caught.value


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        (
            "contextCompression.summaryMaxChars",
            50,
            "“Summary length” must be between 100 and 8,000 characters.",
        ),
        ("contextCompression.keepRecentMax", 0, "“Keep at most” must be between 1 and 500 items."),
        ("contextCompression.ratio", 0.2, "“Compress at” must be between 0.3 and 0.95."),
        ("provider.timeout", 1000.0, "“Timeout” must be between 5 and 600 s."),
        (
            "model.contextWindow",
            500,
            "“Context window” must be between 1,000 and 10,000,000 tokens, or Model default.",
        ),
        ("ui.fontSize", 3, "“Chat text size” must be between 8 and 32 pt, or System default."),
        ("provider.baseUrl", "ftp://example.com", "“Base URL” must be an http:// or https:// URL."),
        ("provider.model", "  ", "“Model” must not be empty."),
        ("contextCompression.keepRecentMin", "eight", "“Keep at least” must be a whole number."),
        ("ui.theme", "purple", "“Theme” must be one of: Same as the system, Light, Dark."),
    ],
)
def test_a_refusal_says_what_is_allowed_in_words(key: str, value: object, words: str) -> None:
    error = refusal(key, value)
    assert error.words == words
    assert str(error).startswith(f"{key}: "), "the command line still names the key"


def test_no_refusal_names_a_key() -> None:
    for spec in SETTINGS:
        bad: list[object] = [object()]
        if spec.minimum is not None:
            bad.append(spec.type(spec.minimum) - 1)
        if spec.maximum is not None:
            bad.append(spec.type(spec.maximum) + 1)
        for value in bad:
            words = refusal(spec.key, value).words
            assert words.startswith(f"“{spec.label}”"), words
            assert not leaks(words), words


def test_no_help_text_names_a_key() -> None:
    for spec in SETTINGS:
        assert not leaks(spec.description), f"{spec.key}: {spec.description}"
        assert not leaks(spec.section.description), spec.section


def test_keep_bounds_out_of_order_name_both_labels(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path / "settings.json")
    with pytest.raises(SettingError) as low:
        settings.set("contextCompression.keepRecentMin", 20)
    assert low.value.words == "“Keep at least” must not be more than “Keep at most” (12 items)."
    with pytest.raises(SettingError) as high:
        settings.set("contextCompression.keepRecentMax", 5)
    assert high.value.words == "“Keep at most” must not be less than “Keep at least” (8 items)."
    assert "contextCompression.keepRecentMin (20) must not be larger than" in str(low.value)


def test_shown_values_use_the_dialogs_words() -> None:
    assert setting("contextCompression.summaryMaxChars").words_for(2000) == "2,000 characters"
    assert setting("model.contextWindow").words_for(None) == "Model default"
    assert setting("ui.theme").words_for("system") == "Same as the system"
    assert setting("developerMode").words_for(True) == "on"
    assert setting("contextCompression.ratio").words_for(0.6) == "0.6"


# ---------------------------------------------------------------- the appearance settings


def test_appearance_settings_are_declared_with_defaults() -> None:
    theme, size = setting("ui.theme"), setting("ui.fontSize")
    assert (theme.default, theme.choices, theme.page) == ("system", ("system", "light", "dark"), "Appearance")
    assert (size.default, size.minimum, size.maximum, size.nullable) == (None, 8, 32, True)
    assert size.null_words == "System default"


def test_older_settings_files_get_the_appearance_defaults(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    for old in ({"developerMode": True}, {"version": 1, "developerMode": True}):  # format 0 and format 1
        path.write_text(json.dumps(old), encoding="utf-8")
        settings = Settings.load(path)
        assert settings.problems == []
        assert (settings.get("ui.theme"), settings.get("ui.fontSize")) == ("system", None)


def test_appearance_round_trips_and_a_bad_value_resets_only_itself(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = Settings.load(path)
    settings.set("ui.theme", "dark")
    settings.set("ui.fontSize", 14)
    assert json.loads(path.read_text("utf-8")) == {"version": 2, "ui.theme": "dark", "ui.fontSize": 14}
    path.write_text(json.dumps({"version": 1, "ui.theme": "purple", "ui.fontSize": 14}), encoding="utf-8")
    again = Settings.load(path)
    assert (again.get("ui.theme"), again.get("ui.fontSize")) == ("system", 14)
    assert again.reset_keys == ["ui.theme"]
