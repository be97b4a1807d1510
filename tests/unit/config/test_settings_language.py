"""Settings in the user's language: what loading repaired is said in the language it is shown in.

settings.json is read before the language (``ui.language``, itself a setting) is applied, so the problems
found then must still read Chinese when the window shows them. Needs the compiled catalogue
(``make translations``, which ``make test`` runs first).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from okbot import i18n
from okbot.config.schema import SettingError, setting
from okbot.config.settings import Settings


@pytest.fixture
def later_chinese() -> Iterator[None]:
    if not i18n.catalogue_file("zh_CN").exists():
        pytest.fail("the zh_CN catalogue is not built: `make translations` (make test builds it)")
    yield
    i18n.set_language("en")


def test_problems_found_in_english_are_shown_in_chinese(tmp_path: Path, later_chinese: None) -> None:
    broken, refused = tmp_path / "broken" / "settings.json", tmp_path / "refused" / "settings.json"
    for path, text in ((broken, "{not json"), (refused, '{"version": 2, "contextCompression.summaryMaxChars": 5}')):
        path.parent.mkdir()
        path.write_text(text, "utf-8")
    loaded = [Settings.load(broken), Settings.load(refused)]  # at start-up: before the language is applied
    assert loaded[0].problems[0].startswith("settings.json was not valid JSON; backed up to settings.json.broken-")
    assert loaded[1].problems[0] == (
        "settings.json: contextCompression.summaryMaxChars was 5, which is not allowed"
        " (expected a whole number from 100 to 8000); reset to the default 2000"
    )

    assert i18n.set_language("zh_CN") == "zh_CN"
    assert loaded[0].problems[0].startswith("settings.json 不是有效的 JSON；已备份到 settings.json.broken-")
    assert loaded[0].problems[0].endswith("；正在使用默认值")
    assert loaded[1].problems[0] == (
        "settings.json：contextCompression.summaryMaxChars 的值 5 不允许（应为：100 到 8000 之间的整数）；"
        "已重置为默认值 2000"
    )


def test_a_refused_value_is_refused_in_chinese(later_chinese: None) -> None:
    i18n.set_language("zh_CN")
    with pytest.raises(SettingError) as refused:
        setting("contextCompression.summaryMaxChars").validate(50)
    assert refused.value.words == "“摘要长度”必须为 100 到 8,000 个字符。"
    assert refused.value.message == (
        "contextCompression.summaryMaxChars：不允许 50（过小）；应为：100 到 8000 之间的整数"
    )
    assert setting("provider.model").shown_label() == "模型"
    assert setting("ui.language").shown_choice("zh_CN") == "简体中文", "a language is named in its own words"
    assert setting("ui.language").shown_choice("system") == "跟随系统"
