"""A model that reads files one by one, for the fake server: the user's report of issue 32 as a script.

:class:`Reader` answers chat requests as a model told to "read part0.txt to part<n-1>.txt one by one and
list every FACT-number" would: each reply notes the FACT- number the tool result it just got shows and
asks for the next file; after the last it answers with every FACT- number its request holds.
The turn's requests are the ones that offer tools; OkBot's own calls (summaries, memory, the topic check)
get the faithful summarizer's answer. :func:`part_text` writes such a file.

Requests are measured with :func:`estimated_tokens`, a documented estimate independent of OkBot's own
counter: the characters of every message's text (tool-call names and arguments included) divided by
:data:`CHARS_PER_TOKEN`. English prose and digits run at about 4 characters a token with OpenAI's
encodings; 3.5 is the pessimistic side of that, so an estimate under the window means the request fits.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.helpers.fake_openai import Reply, tool_call
from tests.helpers.fake_summarizer import faithful, is_summarizer_request

CHARS_PER_TOKEN = 3.5
FACT = re.compile(r"FACT-\d{4}")


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    calls = "".join(c["function"]["name"] + c["function"]["arguments"] for c in message.get("tool_calls") or [])
    return content + calls


def estimated_tokens(body: dict[str, Any]) -> int:
    """The documented estimate of a request's prompt: its messages' text at 3.5 characters a token."""
    return round(sum(len(message_text(m)) for m in body["messages"]) / CHARS_PER_TOKEN)


def part_text(n: int, size: int = 9000) -> str:
    """A ~9 KB file whose one FACT- number sits in its middle (a digest's first line never shows it)."""
    lines, i = [], 0
    while sum(len(line) + 1 for line in lines) < size:
        i += 1
        lines.append(f"part {n} line {i:03d}: notes on the survey of the northern shore, nothing to report yet.")
        if i == 50:
            lines.append(f"FACT-{4000 + n * 7:04d} is the number recorded in part {n}.")
    return "\n".join(lines) + "\n"


class Reader:
    """A model told to read part0.txt … part<n-1>.txt one by one: each reply notes the FACT it just read
    and asks for the next file; after the last it answers with every FACT- number its request holds."""

    def __init__(self, files: int) -> None:
        self.files = files
        self.asked = 0
        self.chat_bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        if is_summarizer_request(body) or not body.get("tools"):  # OkBot's own calls (summary, memory, topic)
            return faithful(body)
        self.chat_bodies.append(body)
        last = body["messages"][-1]
        seen = FACT.findall(last["content"]) if last["role"] == "tool" else []
        note = f"{seen[0]} noted. " if seen else ""
        if self.asked < self.files:
            self.asked += 1
            return Reply(text=note, tool_calls=[tool_call("read_file", {"path": f"part{self.asked - 1}.txt"})])
        facts = sorted(set(FACT.findall(json.dumps(body["messages"]))))
        return Reply(text="FACT numbers: " + ", ".join(facts))
