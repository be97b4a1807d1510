"""The settings schema (okbot.config.schema): every setting declared once, validated and parsed from text."""

from __future__ import annotations

import pytest

from okbot.config.schema import (
    ADVANCED_PAGE,
    SECTIONS,
    SETTINGS,
    Section,
    Setting,
    SettingError,
    setting,
)
from okbot.storage.errors import OkBotError

SOMEWHERE = Section(ADVANCED_PAGE, "Tests")
RATIO = "contextCompression.ratio"
KEEP_MIN = "contextCompression.keepRecentMin"
KEEP_MAX = "contextCompression.keepRecentMax"
WINDOW = "model.contextWindow"
MODEL = "provider.model"
BASE_URL = "provider.baseUrl"


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
        "tools.manage_schedule.approval",
        "tools.maxRounds",
        "tools.maxCallsPerTurn",
        "developerMode",
        "tools.read_file.approval",
        "tools.list_dir.approval",
        "tools.write_file.approval",
        "tools.edit_file.approval",
        "tools.run_shell.approval",
        "tools.web_fetch.approval",
        "tools.web_search.approval",
        "webSearch.provider",
        "webSearch.searxngUrl",
        "webSearch.maxResults",
        "tools.approvalTimeout",
        "tools.turnSeconds",
        "mcp.startupSeconds",
        "mcp.callSeconds",
        "provider.timeout",
        "provider.maxRetries",
        "ui.theme",
        "ui.fontSize",
        "ui.onClose",
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
