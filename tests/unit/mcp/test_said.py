"""What a server says is cleaned where it enters OkBot, and its schemas are fitted within bounds."""

from __future__ import annotations

import io

from okbot.mcp.said import clean
from okbot.mcp.schema import MAX_RAW_DEPTH, simplify
from okbot.mcp.warden import relay


def test_escape_sequences_and_controls_are_removed_whole_and_line_breaks_kept() -> None:
    hostile = (
        "Title\x1b]0;owned\x07 clip\x1b]52;c;ZXZpbA==\x1b\\ clear\x1b[2J\x1b[1;31mred\x1b[0m"
        " c1\x9b2J st\x9d0;x\x9c bell\x07 nul\x00 del\x7f\r\nnext\rlast\ttab"
    )
    assert clean(hostile) == "Title clip clearred c1 st bell nul del\nnext\nlast\ttab"
    assert clean(hostile, one_line=True) == "Title clip clearred c1 st bell nul del next last tab"
    assert clean("plain, 中文 and emoji 🙂") == "plain, 中文 and emoji 🙂"


def test_a_schema_nested_past_the_bound_becomes_a_bare_object_with_a_note() -> None:
    schema: dict = {"type": "string"}
    for _ in range(MAX_RAW_DEPTH):
        schema = {"type": "object", "properties": {"x": schema}}
    parameters, notes = simplify(schema)
    assert parameters == {"type": "object", "properties": {}}
    assert notes == [
        f"its input schema is nested more than {MAX_RAW_DEPTH} levels; the model gets only the description"
    ]


def test_the_relay_passes_lines_and_answers_an_over_long_one_with_an_error_for_its_request() -> None:
    long = b'{"jsonrpc": "2.0", "id": 7, "result": {"text": "' + b"x" * 10_000 + b'"}}\n'
    notice = b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "' + b"y" * 10_000
    source = io.BytesIO(b'{"jsonrpc": "2.0", "id": 6, "result": {}}\n' + long + notice + b'"}}\n' + b"tail\n")
    sink = io.BytesIO()
    relay(source, sink, limit=4_096)
    first, error, tail = sink.getvalue().splitlines()  # the over-long notification is dropped
    assert first == b'{"jsonrpc": "2.0", "id": 6, "result": {}}' and tail == b"tail"
    assert b'"id": 7' in error and b"over 4,096 bytes" in error and b'"okbotWarden": "tooLong"' in error
