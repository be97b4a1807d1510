"""Messages said when shown (okbot.config.said): translated and filled in each time, never once and for all."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from okbot import i18n
from okbot.config.said import refusal, said
from okbot.config.schema import setting


@pytest.fixture
def back_to_english() -> Iterator[None]:
    yield
    i18n.set_language("en")


def test_a_message_is_filled_in_when_said_with_callable_fields_said_then_too() -> None:
    count = iter(range(10))
    say = said("{file} was {value}", file="settings.json", value=lambda: next(count))
    assert say() == "settings.json was 0"
    assert say() == "settings.json was 1"


def test_a_refusal_says_the_error_of_the_check_or_nothing() -> None:
    spec = setting("contextCompression.ratio")
    refused = refusal(lambda: spec.validate(5))
    assert "contextCompression.ratio" in refused() and "5" in refused()
    assert refusal(lambda: spec.validate(0.5))() == ""


def test_a_message_is_said_in_the_language_of_the_moment(back_to_english: None) -> None:
    if not i18n.catalogue_file("zh_CN").exists():
        pytest.fail("the zh_CN catalogue is not built: `make translations` (make test builds it)")
    say = said(i18n.QT_TRANSLATE_NOOP("settings", "{name} was empty"), name="settings.json")
    english = say()
    i18n.set_language("zh_CN")
    assert say() != english and "settings.json" in say()
