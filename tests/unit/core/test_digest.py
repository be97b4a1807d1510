"""The graded directive check: constraints and permissions rank above topical words."""

import pytest

from okbot.core.digest import NOT_DIRECTIVE, STRONG_DIRECTIVE, WEAK_DIRECTIVE, directive_grade, is_directive


@pytest.mark.parametrize(
    "text",
    [
        "Constraint: always answer in British English.",
        "Never push to main.",
        "Don't touch the billing tables.",
        "From now on, reply in German.",
        "You may delete the temp folder.",
        "I prefer tabs over spaces.",
        "Only use the staging database.",
        "Rule: tests before merging.",
        "不要删除这个文件",
        # a standing rule for later, and a reference the user asks to keep (bench_strategies lost both)
        "If I write PAUSE, finish the pull request you are on and then wait for me.",
        "If I say stop, stop at once.",
        "PR-401's CI fails with this exact error: E4127. Keep it, we will need it later.",
        "Keep this in mind: the staging host is db-7.",
        "如果我写 PAUSE，就做完手上的拉取请求，然后等我。",
        "记下这个报错，后面要用。",
        "CI 为红色的拉取请求绝不合并，改为加上 needs-fix 标签。",  # a prohibition with 绝不 (was not a directive)
        "禁止直接推送到 main 分支。",
    ],
)
def test_constraints_permissions_and_preferences_are_strong(text):
    assert directive_grade(text) == STRONG_DIRECTIVE


@pytest.mark.parametrize(
    "text",
    [
        "Short message number 1 about the deadline.",
        "The plan looks fine to me.",
        "Nice report!",
        "What was the goal of that meeting again?",
    ],
)
def test_topical_words_alone_are_weak(text):
    assert directive_grade(text) == WEAK_DIRECTIVE
    assert is_directive(text)  # still offered for keeping: keep more, never less


def test_plain_chat_is_no_directive():
    assert directive_grade("How was your weekend?") == NOT_DIRECTIVE
    assert not is_directive("How was your weekend?")


def test_a_hidden_tool_result_keeps_its_ids_and_links_so_a_fact_read_early_in_a_long_turn_still_reaches_the_model():
    from okbot.core.context import hidden_stub
    from okbot.core.digest import named_ids

    text = "line 1 filler\n" * 200 + "FACT-4007 is recorded; see https://example.org/a.\nFACT-4007 again, BUG-12.\n"
    stub = hidden_stub({"id": 9, "type": "tool_result", "name": "read_file", "content": text, "ok": True})
    assert "ids and links in it: FACT-4007, https://example.org/a, BUG-12;" in stub["content"]
    assert "search_history can read item #9" in stub["content"] and stub["hidden"] is True
    assert named_ids("nothing to name here, 2024-10-01 and #12") == ""
    many = " ".join(f"ID-{n}" for n in range(200))
    kept = named_ids(many, limit=60)
    assert kept.endswith("…") and len(kept) <= 64 and kept.startswith("ID-0, ID-1")
