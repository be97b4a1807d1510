"""In Chinese, a compression report and a notice for the user read in Chinese; what the model reads does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from okbot import i18n
from okbot.core.items import new_item, user_message
from okbot.core.turn.dangling import close_dangling_calls

# The catalogue `make` compiles in this checkout (paths.resource may point at another one).
CATALOGUE = Path(__file__).resolve().parents[4] / "resources" / "i18n" / "okbot_zh_CN.qm"


@pytest.fixture
def chinese(monkeypatch):
    if not CATALOGUE.is_file():
        pytest.skip("the zh_CN catalogue is not compiled (run make)")
    monkeypatch.setattr(i18n, "catalogue_file", lambda code: CATALOGUE.with_name(f"okbot_{code}.qm"))
    assert i18n.set_language("zh_CN") == "zh_CN"
    try:
        yield
    finally:
        assert i18n.set_language("en") == "en"


def test_a_compression_report_reads_in_chinese(env, chinese):
    target, sources, compressor, _ = env
    sources.session(target).append(user_message("hello"))
    report = compressor.compress_now(target)
    assert not report.ok
    assert report.message == "没有可压缩的内容：摘要之后只有 1 项，而最新的 8 项总会保留。"


def test_a_notice_reads_in_chinese_and_the_model_keeps_its_english_note(env, chinese):
    target, sources, _, _ = env
    session = sources.session(target)
    session.append(user_message("list the files"))
    session.append(new_item("tool_call", author=target.id, source="app", call_id="c1", name="list_dir", arguments="{}"))
    result, notice = close_dangling_calls(session, target, 8)
    assert notice["type"] == "notice"
    assert notice["content"] == "上一轮有 1 个工具调用没有运行：OkBot 在等待时被关闭了。"
    assert result["content"].startswith("[app note: list_dir was not run")  # the model's note stays English
