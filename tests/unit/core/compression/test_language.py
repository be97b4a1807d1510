"""Summaries and memories in the language the user writes in; the checks read Chinese headings as the same structure."""

from __future__ import annotations

import pytest

from okbot.core.compression import edits, structure
from okbot.core.compression.summarizer import Summarizer
from okbot.core.context import build_context
from okbot.core.items import new_item, user_message
from okbot.core.language import users_language, writing_language
from okbot.core.memory.extract import build_messages as memory_request
from okbot.core.summary import SummaryStore
from tests.helpers.fake_summarizer import is_summarizer_request

ZH_SUMMARY = """## 目标
- [active] 把账单表迁移到新库，每天一张 (#14)

## 约定
- 每迁移完一张表就用一句话汇报

## 决定
- 用 pg_dump —— 它保留约束

## 进展与下一步
- invoices 表已迁移；下一步：payments

## 引用
- db/migrations/0042_billing.sql"""

CONSTRAINT_ZH = "约定：周五绝不运行迁移，每迁移完一张表就汇报一次进度。"


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["请帮我把账单表迁移到新库"], "zh_CN"),
        (["请修复 okbot/core/runner.py 里的 TypeError，并跑一下 pytest -q"], "zh_CN"),  # code inside Chinese
        (["Please ask 王伟 about the quarterly report before Friday"], "en"),  # a Chinese name inside English
        (["Migrate the billing tables, one a day"], "en"),
        (["12345 !!! ---", ""], None),
        ([], None),
    ],
)
def test_the_writing_language_is_read_from_the_text(texts, expected):
    assert writing_language(texts) == expected


def test_only_the_users_own_words_decide_the_language():
    items = [
        {"id": 1, "type": "user", "source": "user", "content": "帮我总结这份报告"},
        {"id": 2, "type": "assistant", "content": "Sure, here is a long English summary of the report " * 20},
        {"id": 3, "type": "tool_result", "source": "tool", "content": "English tool output " * 50},
    ]
    assert users_language(items) == "zh_CN"
    assert users_language(items[1:]) == "en"  # nothing the user typed: the default
    assert users_language(items[1:], default="zh_CN") == "zh_CN"


def test_a_summary_with_chinese_headings_is_the_same_structure():
    sections, problems = structure.parse_sections(ZH_SUMMARY)
    assert problems == []
    assert list(sections) == list(structure.SECTIONS)
    assert structure.goal_entries(sections["Goals"]) == [("active", "把账单表迁移到新库，每天一张 (#14)")]
    assert structure.check(ZH_SUMMARY, previous_text="") == []
    assert structure.heading_language(ZH_SUMMARY) == "zh_CN"
    # rendered back in Chinese it is byte for byte the same text
    assert structure.render(sections, "zh_CN") == ZH_SUMMARY
    # dropping a goal is refused whatever the language of either side
    english = structure.render(sections)
    assert structure.check(english.replace("- [active] 把账单表迁移到新库，每天一张 (#14)", ""), ZH_SUMMARY)


def test_the_original_okbots_headings_and_full_width_colons_are_read():
    text = (
        "## 目标：\n- [active] 写周报 (#3)\n\n## 约定\n- 简短\n\n## 决定\n- 无\n\n"
        "## 未完成\n- 第二节\n\n## 路径命令\n- ~/report.md"
    )
    sections, problems = structure.parse_sections(text)
    assert problems == []
    assert sections["Progress and next steps"] == "- 第二节" and sections["References"] == "- ~/report.md"
    assert structure.parse_sections("## 其他\n- x")[1]  # an unknown heading is still named a problem


def test_an_empty_chinese_summary_keeps_every_heading_with_its_placeholder():
    empty = structure.empty_summary("zh_CN")
    assert [line for line in empty.splitlines() if line.startswith("## ")] == [
        "## 目标",
        "## 约定",
        "## 决定",
        "## 进展与下一步",
        "## 引用",
    ]
    assert "- （暂无）" in empty and structure.check(empty, "") == []


def test_a_chinese_summary_cut_for_a_request_keeps_its_headings():
    long = structure.render(
        {
            **structure.parse_sections(ZH_SUMMARY)[0],
            "Decisions": "\n".join(f"- 决定 {i}：理由很长" * 3 for i in range(80)),
        },
        "zh_CN",
    )
    cut = structure.fit_sections(long, 1200)
    assert len(cut) < len(long) and "## 决定" in cut and "## Decisions" not in cut
    assert structure.check(cut, "") == []


def answer_for(messages):
    """A model that follows the instruction: Chinese text lines when asked for Chinese."""
    system = messages[0]["content"]
    if "in Simplified Chinese" in system:
        return "GOAL: 把账单表迁移到新库 #10\nPROGRESS: 已迁移 invoices 表；下一步 payments\nKEEP: 10"
    return "GOAL: migrate the billing tables #10\nPROGRESS: invoices done; next payments\nKEEP: 10"


def summarize(previous, user_text):
    covered = [
        {"id": 10, "type": "user", "source": "user", "content": user_text},
        {"id": 11, "type": "assistant", "author": "okbot", "content": "OK, invoices first."},
    ]
    prompts = []

    def complete(messages):
        prompts.append(messages)
        return answer_for(messages)

    outcome = Summarizer(complete, lambda t: len(t.split()), max_chars=4000).summarize(
        previous, covered, [covered[0]], sources=[f"#{c['id']} {c['content']}" for c in covered]
    )
    return outcome, prompts


def test_the_summarizer_asks_for_the_users_language_and_writes_its_headings():
    outcome, prompts = summarize("", "请把账单表迁移到新库，每天一张。")
    assert "Write the text of every edit in Simplified Chinese (简体中文)" in prompts[0][0]["content"]
    assert outcome.summary.startswith("## 目标\n- [active] 把账单表迁移到新库 (#10)")
    assert "## 进展与下一步\n- 已迁移 invoices 表；下一步 payments" in outcome.summary
    assert structure.check(outcome.summary, "") == []
    english, prompts = summarize("", "Please migrate the billing tables, one a day.")
    assert "in English, the language the user writes in" in prompts[0][0]["content"]
    assert english.summary.startswith("## Goals\n")


def test_a_summary_follows_the_user_into_another_language_without_losing_a_line():
    english = structure.render({"Goals": "- [active] ship v2 (#2)", "References": "- PR #812"})
    outcome, _ = summarize(english, "接下来请把账单表迁移到新库。")
    assert outcome.summary.startswith("## 目标\n- [active] ship v2 (#2)\n")
    assert "- PR #812" in outcome.summary and structure.check(outcome.summary, english) == []
    # with nothing the user typed in the delta, the summary keeps its own language
    assert edits.apply_edits(outcome.summary, edits.Edits(), citable={}, sources=[])[0].startswith("## 目标")


def test_the_summarizers_chinese_headings_are_read_as_sections_in_its_answer():
    parsed, problems = edits.parse_answer("## 目标\n- 写周报 #10\n\n## 决定\n- 用 Markdown 格式", max_chars=4000)
    assert problems == [] and parsed is not None
    assert [g.text for g in parsed.goals] == ["写周报"] and parsed.lines["Decisions"] == ["用 Markdown 格式"]


def test_the_record_note_is_written_in_the_summarys_language_and_replaced_in_either():
    covered = [{"id": 30, "type": "user", "source": "user", "content": "下一步做什么？"}]
    once = edits.note_progress(ZH_SUMMARY, covered)
    assert "- （据记录） 已涵盖到 #30；用户在其中的最后请求（#30）：下一步做什么？" in once
    twice = edits.note_progress(once, [{"id": 31, "type": "user", "source": "user", "content": "继续"}])
    assert "#30" not in twice.split("## 进展与下一步")[1].split("## 引用")[0] and "已涵盖到 #31" in twice


def test_memories_are_asked_for_in_the_users_language():
    items = [{"id": 4, "type": "user", "source": "user", "content": "记住：我叫李雷，在杭州做前端。"}]
    system = memory_request(items, [], "")[0]["content"]
    assert "Write each memory's text in Simplified Chinese (简体中文)" in system
    english = memory_request([{"id": 4, "type": "user", "source": "user", "content": "Remember my name is Li"}], [], "")
    assert "Write each memory's text in English" in english[0]["content"]


def test_a_chinese_conversation_is_summarized_in_chinese_end_to_end(env, server):
    """Real files, the real provider over HTTP, the fake server as a model that follows the instruction."""
    target, sources, compressor, _ = env
    session = sources.session(target)
    session.append(user_message(CONSTRAINT_ZH))
    session.append(new_item("assistant", author="okbot", source="app", content="好的。"))
    for i in range(20):
        session.append(user_message(f"第 {i} 步：请接着处理第 {i} 张表。" + "细节" * 60))
        session.append(
            new_item("assistant", author="okbot", source="app", content=f"第 {i} 张表已处理。" + "说明" * 60)
        )
    report = compressor.before_run(target, "下一步是什么？")
    assert report and report.ok
    request = next(b for b in server.chat_requests() if is_summarizer_request(b))
    assert "in Simplified Chinese (简体中文)" in request["messages"][0]["content"]
    stored = SummaryStore(target.summary_path).load().summary
    assert stored.startswith("## 目标\n") and "## 进展与下一步" in stored and "已将较早的对话并入本摘要" in stored
    assert structure.check(stored, "") == []
    block = next(b.text for b in build_context(target, sources=sources).blocks if b.name == "summary")
    assert "## 目标" in block and CONSTRAINT_ZH in block  # the user's own words, byte for byte
