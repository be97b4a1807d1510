"""Scripted memory extractors for the fake server: answers computed from the extraction request.

``careful`` behaves like a good model: it extracts what the user states about themselves or asks
to remember (copying their words, citing the item), and nothing from chit-chat. ``with_summaries``
also answers summarizer and topic requests (``fake_summarizer.faithful``) and chats with "ok".
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.helpers.fake_openai import Reply
from tests.helpers.fake_summarizer import faithful

_ITEM = re.compile(r"^\[#(\d+) (\w+)\] (.*)$", re.MULTILINE)
_KNOWN = re.compile(r"^\[(m-[0-9a-f]+)\] (.*)$", re.MULTILINE)
_DURABLE = re.compile(r"\b(remember|I prefer|my name is|I always|I never|I work)\b", re.IGNORECASE)


def is_extraction_request(body: dict[str, Any]) -> bool:
    return any("long-term memory" in (m.get("content") or "") for m in body.get("messages", []))


def extraction_items(body: dict[str, Any]) -> list[tuple[int, str, str]]:
    """``(id, type, text)`` of each item the extraction request shows."""
    return [(int(m.group(1)), m.group(2), m.group(3)) for m in _ITEM.finditer(body["messages"][-1]["content"])]


def known_entries(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _KNOWN.finditer(body["messages"][-1]["content"])]


def careful_answer(body: dict[str, Any]) -> dict[str, Any]:
    memories, confirm = [], []
    known = {text: mid for mid, text in known_entries(body)}
    for item_id, kind, text in extraction_items(body):
        if kind != "user" or not _DURABLE.search(text):
            continue
        memory = f"The user said: {text.rstrip(' …')}"[:280]
        if memory in known:
            confirm.append(known[memory])
        else:
            memories.append({"text": memory, "from": [item_id], "scope": "assistant", "expires_in_days": None})
    return {"memories": memories, "confirm": confirm, "retire": []}


def careful(body: dict[str, Any]) -> Reply:
    return Reply(text=json.dumps(careful_answer(body)))


def with_summaries(body: dict[str, Any]) -> Reply:
    """Extraction -> ``careful``; summaries and topic checks -> ``faithful``; chat -> "ok"."""
    return careful(body) if is_extraction_request(body) else faithful(body)
