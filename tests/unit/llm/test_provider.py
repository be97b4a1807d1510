"""CancelToken, tool-call assembly and tool calls written as text."""

from __future__ import annotations

import json
import threading

import pytest

from okbot.llm.events import ToolCallDelta, ToolCallDone
from okbot.llm.provider import (
    CancelToken,
    ToolCallAssembler,
    could_be_tool_text,
    parse_tool_text,
    tool_names,
)

# ----------------------------------------------------------------- CancelToken


def test_cancel_runs_callbacks_once() -> None:
    token = CancelToken()
    seen: list[str] = []
    token.on_cancel(lambda: seen.append("a"))
    token.on_cancel(lambda: seen.append("b"))
    assert not token.cancelled
    token.cancel()
    token.cancel()
    assert token.cancelled and seen == ["a", "b"]


def test_on_cancel_after_cancel_runs_now() -> None:
    token = CancelToken()
    token.cancel()
    seen: list[int] = []
    token.on_cancel(lambda: seen.append(1))
    assert seen == [1]


def test_unregistered_callbacks_do_not_run() -> None:
    token = CancelToken()
    seen: list[int] = []
    remove = token.on_cancel(lambda: seen.append(1))
    remove()
    remove()
    token.cancel()
    assert seen == []


def test_a_failing_callback_does_not_stop_the_others() -> None:
    token = CancelToken()
    seen: list[int] = []

    def broken() -> None:
        raise RuntimeError("callback bug")

    token.on_cancel(broken)
    token.on_cancel(lambda: seen.append(1))
    token.cancel()
    assert seen == [1]


def test_cancel_from_another_thread_wakes_a_wait() -> None:
    token = CancelToken()
    threading.Timer(0.05, token.cancel).start()
    assert token.wait(30) is True
    assert CancelToken().wait(0) is False


# ----------------------------------------------------------------- assembly


def test_assembler_concatenates_arguments_by_index() -> None:
    tools = ToolCallAssembler()
    deltas = [
        tools.add(0, "call_1", "lookup", ""),
        tools.add(1, "call_2", "note", '{"t'),
        tools.add(0, None, None, '{"q": '),
        tools.add(0, None, None, '"x"}'),
        tools.add(1, None, None, '": 1}'),
    ]
    assert deltas[0] == ToolCallDelta(0, "call_1", "lookup", "")
    assert tools.calls() == [ToolCallDone("call_1", "lookup", '{"q": "x"}'), ToolCallDone("call_2", "note", '{"t": 1}')]
    assert len(tools) == 2


def test_calls_come_out_in_index_order_even_when_they_arrive_out_of_order() -> None:
    tools = ToolCallAssembler()
    tools.add(2, "c", "third", "{}")
    tools.add(0, "a", "first", "{}")
    assert [c.name for c in tools.calls()] == ["first", "third"]


def test_missing_ids_are_generated_once_and_distinct() -> None:
    tools = ToolCallAssembler()
    tools.add(0, None, "a", "{}")
    tools.add(1, None, "b", "{}")
    first = tools.calls()
    assert all(c.call_id.startswith("call_") for c in first)
    assert first[0].call_id != first[1].call_id
    assert tools.calls() == first  # stable


def test_fragments_without_an_index_continue_the_latest_call() -> None:
    tools = ToolCallAssembler()
    tools.add(None, "x1", "f", '{"a"')
    tools.add(None, None, None, ": 1}")
    tools.add(None, "x2", "g", "{}")
    assert tools.calls() == [ToolCallDone("x1", "f", '{"a": 1}'), ToolCallDone("x2", "g", "{}")]


# ----------------------------------------------------------------- tool calls as text


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "lookup", "arguments": {"q": "x"}}',
        '  {"name": "lookup", "arguments": "{\\"q\\": \\"x\\"}"}\n',
        '{"tool_calls": [{"name": "lookup", "arguments": {"q": "x"}}]}',
        '{"tool_calls": [{"type": "function", "function": {"name": "lookup", "arguments": {"q": "x"}}}]}',
        '[{"name": "lookup", "parameters": {"q": "x"}}]',
        '```json\n{"name": "lookup", "arguments": {"q": "x"}}\n```',
        '<tool_call>\n{"name": "lookup", "arguments": {"q": "x"}}\n</tool_call>',  # Qwen's own tags
        '{{"name": "lookup", "arguments": {"q": "x"}}} ```',  # seen from Qwen 1.5B: doubled braces, stray fence
    ],
)
def test_tool_text_shapes(text: str) -> None:
    [(name, arguments)] = parse_tool_text(text, {"lookup"})
    assert name == "lookup" and json.loads(arguments) == {"q": "x"}


def test_one_call_per_line() -> None:
    text = '{"name": "lookup", "arguments": {"q": 1}}\n\n{"name": "note", "arguments": {}}'
    assert parse_tool_text(text, {"lookup", "note"}) == [("lookup", '{"q": 1}'), ("note", "{}")]


@pytest.mark.parametrize(
    "text",
    [
        "Sure, here you go.",
        '{"name": "lookup"}',  # no arguments
        '{"name": "unknown_tool", "arguments": {}}',  # not offered
        '{"name": "lookup", "arguments": {}} and then some prose',
        '{"name": "lookup", "arguments": [1, 2]}',
        '{"tool_calls": []}',
        '```json\n{"name": "lookup", "arguments": {}}',  # unclosed fence
        "{not json",
        "{{not a call}}",
        "",
    ],
)
def test_other_text_stays_text(text: str) -> None:
    assert parse_tool_text(text, {"lookup"}) is None


def test_could_be_tool_text() -> None:
    assert could_be_tool_text("") and could_be_tool_text("  \n") and could_be_tool_text(' {"na')
    assert could_be_tool_text("```") and could_be_tool_text("[")
    assert could_be_tool_text("<tool") and could_be_tool_text("<tool_call>\n{")
    assert not could_be_tool_text("Hello {") and not could_be_tool_text("<b>bold</b>")


def test_tool_names() -> None:
    assert tool_names([{"type": "function", "function": {"name": "a"}}, {"type": "x"}, "junk"]) == {"a"}
    assert tool_names(None) is None and tool_names([]) is None
