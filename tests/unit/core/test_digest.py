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
