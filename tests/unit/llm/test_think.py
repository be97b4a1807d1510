"""ThinkSplitter: an inline <think> block at the start of a reply, told from the answer piece by piece."""

from __future__ import annotations

import pytest

from okbot.llm.think import ThinkSplitter, split_think

WHOLE = "<think>weigh a, then b</think>\n\nThe answer."


def run(pieces: list[str]) -> tuple[list[str], list[str]]:
    splitter = ThinkSplitter()
    reasoning, answer = [], []
    for piece in [*pieces, None]:
        r, a = splitter.feed(piece) if piece is not None else splitter.flush()
        reasoning.append(r)
        answer.append(a)
    return reasoning, answer


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 8, 100])
def test_a_block_split_anywhere_gives_the_same_parts(size: int) -> None:
    pieces = [WHOLE[i : i + size] for i in range(0, len(WHOLE), size)]
    reasoning, answer = run(pieces)
    assert "".join(reasoning) == "weigh a, then b"
    assert "".join(answer) == "The answer."
    assert not any("<" in a for a in answer)  # no part of a tag ever shown as answer


def test_leading_whitespace_before_the_tag() -> None:
    assert split_think("\n  <think>x</think>y") == ("x", "y")


def test_no_block_is_all_answer_and_shown_at_once() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("Hello") == ("", "Hello")
    assert splitter.feed(" <think>not a block</think>") == ("", " <think>not a block</think>")


def test_a_lone_less_than_waits_then_shows() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("<") == ("", "")
    assert splitter.feed("b>bold") == ("", "<b>bold")


def test_an_unclosed_block_is_reasoning_and_invents_no_answer() -> None:
    reasoning, answer = run(["<think>still go", "ing </thi"])
    assert "".join(reasoning) == "still going </thi"
    assert "".join(answer) == ""


def test_whitespace_only_reply_gives_nothing() -> None:
    assert split_think("  \n") == ("", "")


def test_a_stream_cut_inside_the_opening_tag_shows_nothing() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed(" <thi") == ("", "")
    assert splitter.flush(cut=True) == ("", "")


def test_a_whole_reply_that_only_looks_like_the_tag_start_is_the_answer() -> None:
    assert split_think("<") == ("", "<")
