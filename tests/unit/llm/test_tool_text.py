"""Tool calls written as text by small local models, streamed from the fake server through the real backend.

Every form is held back while it may still be a call, run as a real call once it is one, and released
as text the moment it clearly is not. Deep nesting never escapes as RecursionError.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from okbot.llm.events import Degraded, Done, TextDelta, ToolCallDone
from okbot.llm.openai_backend import CapabilityMemory, OpenAIProvider
from okbot.llm.provider import ChatRequest, could_be_tool_text, parse_tool_text
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.scripted import collect

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("lookup", "load_skill")
]
LOOKUP = '{"name": "lookup", "arguments": {"q": "x"}}'
SKILL = '{"name": "load_skill", "arguments": {"name": "pdf"}}'
DEEP = "[" * 1000 + "]" * 1000


@pytest.fixture
def provider(server: FakeOpenAIServer) -> Iterator[OpenAIProvider]:
    with OpenAIProvider(server.base_url, "k", capabilities=CapabilityMemory(), sleep=lambda s: None) as p:
        yield p


def stream(server: FakeOpenAIServer, provider: OpenAIProvider, text: str, chunk_chars: int = 3) -> dict:
    server.enqueue(Reply(text=text, chunk_chars=chunk_chars))
    return collect(provider.stream(ChatRequest("gpt-4o-mini", [{"role": "user", "content": "go"}], tools=TOOLS)))


def calls(out: dict) -> list[tuple[str, dict]]:
    return [(call.name, json.loads(call.arguments)) for call in out["tool_calls"]]


FORMS = {
    "qwen tool_call tags": f"<tool_call>\n{LOOKUP}\n</tool_call>",
    "tools tags (Qwen2.5-Coder-1.5B on llama-cpp-python)": f"<tools>\n{SKILL}\n</tools>",
    "json fence": f"```json\n{LOOKUP}\n```",
    "bare fence, pretty-printed": "```\n" + json.dumps(json.loads(LOOKUP), indent=2) + "\n```",
    "doubled braces": '{{"name": "lookup", "arguments": {{"q": "x"}}}}',
    "doubled outer braces and a stray fence": '{{"name": "lookup", "arguments": {"q": "x"}}} ```',
    "leading blank lines": f"\n\n  {LOOKUP}",
    # Qwen2.5-1.5B-Instruct on llama.cpp, asked for the time with an MCP time tool offered
    "a call inside the tool_response tags of a chat template (Qwen2.5-1.5B after a first call)": (
        '<tool_response>\n{"name": "lookup", "arguments": "{\\"q\\": \\"x\\"}"}\n</tool_response>'
    ),
    "json fence with // comments": '```json\n{\n  "name": "lookup",\n  "arguments": {\n    "q": "x"  // the query\n'
    "  }\n}\n```",
}


PROSE = "To look it up, I'll use the lookup tool.\n\n"


@pytest.mark.parametrize(
    "block", [f"```json\n{LOOKUP}\n```", f"<tool_call>\n{LOOKUP}\n</tool_call>", f"```\n{LOOKUP}\n```\n\n"]
)
def test_prose_then_a_call_block_runs_the_call_and_keeps_the_prose(
    server: FakeOpenAIServer, provider: OpenAIProvider, block: str
) -> None:
    out = stream(server, provider, PROSE + block)
    assert calls(out) == [("lookup", {"q": "x"})] and out["end"] == Done("tool_calls")
    assert "".join(e.text for e in out["events"] if isinstance(e, TextDelta)) == PROSE + block  # shown as it came


@pytest.mark.parametrize(
    "text",
    [
        PROSE + "```json\n" + '{"name": "not_offered", "arguments": {}}' + "\n```",  # not one of the tools
        PROSE + f"```json\n{LOOKUP}\n```\nThat is what I would call.",  # the block is not the end
        PROSE + "```python\nprint(1)\n```",  # an example, not a call
        PROSE + f"```json\n{LOOKUP}",  # an unclosed fence: cut off
    ],
)
def test_prose_with_a_block_that_is_not_a_closing_call_stays_text(
    server: FakeOpenAIServer, provider: OpenAIProvider, text: str
) -> None:
    out = stream(server, provider, text)
    assert out["tool_calls"] == [] and out["end"] == Done("stop")


def test_comments_are_read_out_but_slashes_inside_strings_stay() -> None:
    text = '{"name": "lookup", "arguments": {"q": "http://a.example/x//y \\" // not a comment"}} // done'
    assert parse_tool_text(text, {"lookup"}) == [("lookup", '{"q": "http://a.example/x//y \\" // not a comment"}')]


@pytest.mark.parametrize("text", FORMS.values(), ids=FORMS.keys())
def test_one_call_in_every_form_runs_and_no_text_leaks(
    server: FakeOpenAIServer, provider: OpenAIProvider, text: str
) -> None:
    out = stream(server, provider, text)
    assert not [e for e in out["events"] if isinstance(e, TextDelta)]
    [(name, arguments)] = calls(out)
    assert (name, arguments) in [("lookup", {"q": "x"}), ("load_skill", {"name": "pdf"})]
    assert out["end"] == Done("tool_calls")
    assert any(isinstance(e, Degraded) and e.feature == "tool_text" for e in out["events"])


SEVERAL = {
    "two tool_call blocks": f"<tool_call>\n{LOOKUP}\n</tool_call>\n<tool_call>\n{SKILL}\n</tool_call>",
    "two calls in one tools block": f"<tools>\n{LOOKUP}\n{SKILL}\n</tools>",
    "a JSON list": f"[{LOOKUP}, {SKILL}]",
    "two fences": f"```json\n{LOOKUP}\n```\n```json\n{SKILL}\n```",
    "pretty-printed one after another": json.dumps(json.loads(LOOKUP), indent=1) + "\n" + SKILL,
    "tool_calls object": json.dumps({"tool_calls": [json.loads(LOOKUP), json.loads(SKILL)]}),
}


@pytest.mark.parametrize("text", SEVERAL.values(), ids=SEVERAL.keys())
def test_several_calls_run_in_order(server: FakeOpenAIServer, provider: OpenAIProvider, text: str) -> None:
    out = stream(server, provider, text, chunk_chars=5)
    assert out["text"] == ""
    assert calls(out) == [("lookup", {"q": "x"}), ("load_skill", {"name": "pdf"})]
    assert len({call.call_id for call in out["tool_calls"]}) == 2
    assert all(isinstance(e, ToolCallDone) or not isinstance(e, TextDelta) for e in out["events"])


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("```python\nprint('hi')\n```", "```p"),
        ("[1, 2, 3] are the numbers", "[1, "),
        ("<b>bold</b> claim", "<b>b"),
        ("{x: 1} is not JSON", "{x: "),
        ("Sure: " + LOOKUP, "Sure"),
    ],
)
def test_text_is_released_the_moment_it_cannot_be_a_call(
    server: FakeOpenAIServer, provider: OpenAIProvider, text: str, first: str
) -> None:
    out = stream(server, provider, text, chunk_chars=4)
    deltas = [e.text for e in out["events"] if isinstance(e, TextDelta)]
    assert deltas[0] == first and len(deltas) > 1  # streamed on, not held to the end
    assert out["text"] == text and out["tool_calls"] == [] and out["end"] == Done("stop")


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "lookup", "arguments": {"q": ' + DEEP + "}}",
        "<tools>\n" + '{"name": "lookup", "arguments": ' + DEEP + "}\n</tools>",
        '{{"name": "lookup", "arguments": {{"q": ' + DEEP + "}}}}",
        "[" + '{"a": ' * 500 + "1" + "}" * 500 + "]",
    ],
)
def test_deep_nesting_stays_text(server: FakeOpenAIServer, provider: OpenAIProvider, text: str) -> None:
    assert len(text) >= 2000
    out = stream(server, provider, text, chunk_chars=64)
    assert out["text"] == text and out["tool_calls"] == [] and out["end"] == Done("stop")


@pytest.mark.parametrize(
    ("text", "looks_like_a_call"),
    [
        (DEEP, False),
        ("{" * 1000 + "}" * 1000, False),
        ('{"name": "lookup", "arguments": ' + DEEP + "}", True),
        ("<tool_call>" + DEEP, False),
        ('{{"name": "lookup", "arguments": ' + "{{" * 600 + "}}" * 600 + "}}", True),
    ],
)
def test_deep_nesting_is_not_a_call_when_parsed_directly(text: str, looks_like_a_call: bool) -> None:
    assert could_be_tool_text(text) is looks_like_a_call  # bounded: it looks at the start only
    assert parse_tool_text(text, {"lookup"}) is None


def test_a_call_to_a_tool_not_offered_stays_text(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    text = '<tools>\n{"name": "delete_everything", "arguments": {}}\n</tools>'
    out = stream(server, provider, text)
    assert out["text"] == text and out["tool_calls"] == []


def test_without_tools_offered_nothing_is_held(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(text=LOOKUP, chunk_chars=4))
    out = collect(provider.stream(ChatRequest("gpt-4o-mini", [{"role": "user", "content": "go"}])))
    deltas = [e.text for e in out["events"] if isinstance(e, TextDelta)]
    assert deltas[0] == LOOKUP[:4] and out["text"] == LOOKUP and out["tool_calls"] == []


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("<tools", True),
        ("<tools>\n", True),
        ("<tools>\n{", True),
        ("<tool_call>\n```json\n{", True),
        ("```js", True),
        ("```json\n", True),
        ("```python\n", False),
        ("{{", True),
        ('{ "', True),
        ("[{", True),
        ("[1", False),
        ('"quoted"', False),
        ("{x", False),
        ("<tools>\nHello", False),
    ],
)
def test_could_be_tool_text_forms(head: str, expected: bool) -> None:
    assert could_be_tool_text(head) is expected
