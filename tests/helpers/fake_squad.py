"""A scripted squad for the fake server: who a request is for, and replies per speaker.

``SquadScript`` answers captain requests from a queue of captain replies (delegations, then the
integrated answer) and member requests per member; anything else (summaries, topic checks, memory
extraction) falls through to ``fallback``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tests.helpers.fake_openai import Reply, tool_call
from tests.helpers.fake_summarizer import faithful

CAPTAIN_MARK = "You are the captain of the squad"


def speaker(body: dict[str, Any]) -> str:
    """ "captain", a member's name, or "" for other requests (summaries, extraction …)."""
    messages = body.get("messages") or []
    system = messages[0].get("content") or "" if messages and messages[0].get("role") == "system" else ""
    if system.startswith(CAPTAIN_MARK):
        return "captain"
    if system.startswith("You are ") and "in the squad" in system.split("\n", 1)[0]:
        return system[len("You are ") :].split(":", 1)[0]
    return ""


def ask(member_id: str, task: str) -> Any:
    return tool_call(f"ask_{member_id}", {"task": task})


class SquadScript:
    """Replies by speaker; records what each speaker was sent."""

    def __init__(self, fallback: Callable[[dict[str, Any]], Reply] = faithful) -> None:
        self.captain: list[Reply] = []
        self.members: dict[str, Callable[[dict[str, Any]], Reply]] = {}
        self.sent: dict[str, list[dict[str, Any]]] = {}
        self.fallback = fallback
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        who = speaker(body)
        with self._lock:
            self.sent.setdefault(who, []).append(body)
            if who == "captain":
                return self.captain.pop(0) if self.captain else Reply(text="Here is the squad's answer.")
        if who in self.members:
            return self.members[who](body)
        if who:
            return Reply(text=f"{who} reporting: done.")
        return self.fallback(body)
