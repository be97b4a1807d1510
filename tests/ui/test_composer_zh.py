"""The composer in Simplified Chinese: placeholder and Send / Stop come from the catalogue (offscreen Qt)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from okbot import i18n
from okbot.ui.composer import Composer
from okbot.ui.translation import apply_language


@pytest.fixture
def chinese(qapp: object) -> Iterator[None]:
    if not i18n.catalogue_file("zh_CN").exists():
        pytest.fail("the zh_CN catalogue is not built: `make translations` (make test builds it)")
    apply_language("zh_CN")
    yield
    apply_language("en")


@pytest.mark.usefixtures("chinese")
def test_composer_placeholder_and_send_stop_are_chinese(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(900, 80)
    composer.set_target_name("小助手")
    composer.show()
    qtbot.waitExposed(composer)

    assert composer.edit.placeholderText().startswith("给 小助手 发消息")
    assert composer.button.text() == "发送"
    assert composer.button.toolTip() == "发送（Enter）"
    composer.set_streaming(True)
    assert composer.button.text() == "停止"
    assert composer.button.toolTip() == "停止回复（Esc）。按 Enter 会把你的消息排在这条回复之后发送。"
    composer.set_streaming(False)
    assert composer.button.text() == "发送"
