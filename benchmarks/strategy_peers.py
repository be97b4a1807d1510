"""The peers' context strategies, written from their public behaviour, for bench_strategies.

Each strategy turns the full transcript (OpenAI chat messages, oldest first) into the request the model gets.
All of them count with the same rule the front server enforces the window with
(:func:`benchmarks.sent.estimate_tokens`), keep the same reply reserve, and call the same model for summaries
through ``summarize`` (the bench records those calls). Where a request still does not fit after the strategy
did its work, every one of them drops whole messages from the oldest until it does (what a request that the
server refuses would force the user to do), and says so in ``dropped``.

What each follows (read for behaviour; the code and the prompts' wording here are our own):

- ``truncation`` — the newest messages that fit, after the system prompt: LM Studio's documented context
  overflow policy "Rolling window" (lmstudio.ai/docs, "Context Overflow Policy"), and Jan's default, which hands
  the whole history to llama.cpp and lets it drop the oldest tokens (its "context shift").
- ``rewrite`` — LobeChat's "compress history" (``packages/prompts/src/chains/summaryHistory.ts``, and the
  ``<chat_history_summary>`` block it injects): once the history is long, *every* message older than the newest
  few is rewritten by the model into one free-text summary "limited to 400 tokens", from the messages themselves
  each time, and sent as a system block before the kept messages. Open WebUI's, Cherry Studio's and LibreChat's
  "summarize history" options do the same. LobeChat triggers on a message count; here it triggers at the same
  fraction of the window as OkBot (0.6), keeping the newest four messages (LobeChat's history count default).
- ``codex`` — Codex CLI's compaction (``codex-rs/core/src/compact.rs``, ``templates/compact/prompt.md`` and
  ``summary_prefix.md``): at 90 % of the room for input (its ``auto_compact_token_limit``, set against a
  model's input window; here the window less the reply reserve every strategy keeps) the model writes a
  hand-off summary of the whole context; the new history is the initial context, then the user's own messages
  verbatim, newest first up to ``COMPACT_USER_MESSAGE_MAX_TOKENS`` = 20,000 tokens (earlier summaries
  excluded), restored in order, then the summary as a user message behind the hand-off prefix. 20k tokens is
  7 % of the 272k window Codex's models have; in the small windows of this bench the cap is
  ``min(20,000, a third of the window)``.
- ``structured`` — Claude Code's compaction (its documented ``/compact`` and auto-compact, and the compact prompt
  its binary carries): at ~92 % of the room for input (the window less the output it reserves) the model
  rewrites the whole conversation, including the previous summary, into a sectioned summary (primary request
  and intent, key concepts, files and code, errors and fixes, problem solving, all user messages, pending
  tasks, current work, next step), with its analysis in ``<analysis>`` and the result in ``<summary>``; the
  conversation continues from one user message carrying the summary.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks.sent import estimate_tokens, message_text

Message = dict[str, Any]


@dataclass
class PeerContext:
    """What a strategy may use: the window, the reply reserve and the model (for summaries)."""

    window: int
    reserve: int
    summarize: Callable[[list[Message], int], str]  # (messages, max_tokens) -> the model's text
    summary_cap: int = 512  # max_tokens of a summary call (a bound for slow machines; OkBot keeps its own)
    tools: list[dict[str, Any]] | None = None

    def count(self, messages: list[Message]) -> int:
        return estimate_tokens(messages, self.tools)

    @property
    def budget(self) -> int:
        return self.window - self.reserve


def units(history: list[Message]) -> list[list[Message]]:
    """The history in droppable units: an assistant message with tool calls stays with its results."""
    out: list[list[Message]] = []
    for m in history:
        if m.get("role") == "tool" and out:
            out[-1].append(m)
        else:
            out.append([m])
    return out


def flatten(groups: list[list[Message]]) -> list[Message]:
    return [m for g in groups for m in g]


def fit(head: list[Message], body: list[Message], ctx: PeerContext) -> tuple[list[Message], int]:
    """``head`` and as much of ``body`` as fits the budget, newest kept; ``(messages, units dropped)``."""
    groups = units(body)
    dropped = 0
    while groups and ctx.count(head + flatten(groups)) > ctx.budget:
        groups.pop(0)
        dropped += 1
    return head + flatten(groups), dropped


def transcript(messages: list[Message]) -> str:
    """Messages as tagged text, the way chat apps hand a history to a summarizer."""
    rows = []
    for m in messages:
        role = m.get("role")
        text = message_text(m)
        if m.get("name"):
            text = f"{m['name']}: {text}"
        rows.append(f"<{role}>{text}</{role}>")
    return "<chat_history>\n" + "\n".join(rows) + "\n</chat_history>"


@dataclass
class Peer:
    """A strategy's state over one conversation."""

    name: str = ""
    dropped: int = 0  # units dropped by the final fit, over the run
    compressions: int = 0  # summaries written

    def build(self, system: Message, history: list[Message], ctx: PeerContext) -> list[Message]:
        raise NotImplementedError


class Truncation(Peer):
    def __init__(self) -> None:
        super().__init__("truncation")

    def build(self, system: Message, history: list[Message], ctx: PeerContext) -> list[Message]:
        messages, dropped = fit([system], history, ctx)
        self.dropped += dropped
        return messages


REWRITE_SYSTEM = (
    "You extract the key points of conversations and summarize them. The conversation to summarize is inside "
    "<chat_history></chat_history>. Write the summary in the conversation's own language."
)
REWRITE_ASK = (
    "Summarize the conversation above, keeping the key information; the summary will be the context of the "
    "next prompts. Keep it under 400 tokens."
)
REWRITE_BLOCK = "<chat_history_summary>\nSummary of the earlier conversation:\n{summary}\n</chat_history_summary>"


@dataclass
class Rewrite(Peer):
    ratio: float = 0.6
    keep: int = 4  # newest messages kept verbatim
    summary: str = ""
    covered: int = 0  # messages of the history the summary stands for

    def __post_init__(self) -> None:
        self.name = "rewrite"

    def _request(self, system: Message, history: list[Message]) -> list[Message]:
        head = [system]
        if self.summary:
            head.append({"role": "system", "content": REWRITE_BLOCK.format(summary=self.summary)})
        return head + history[self.covered :]

    def build(self, system: Message, history: list[Message], ctx: PeerContext) -> list[Message]:
        request = self._request(system, history)
        if ctx.count(request) > self.ratio * ctx.window and len(history) > self.keep:
            cut = _unit_boundary(history, len(history) - self.keep)
            if cut > self.covered:
                older = history[:cut]  # the whole older history, from the start, every time
                ask = [{"role": "system", "content": REWRITE_SYSTEM}]
                body, _ = fit([], [{"role": "user", "content": transcript(older) + "\n\n" + REWRITE_ASK}], ctx)
                if not body:  # the older history alone is over the window: the newest part of it that fits
                    body = [{"role": "user", "content": _tail_text(transcript(older), ctx) + "\n\n" + REWRITE_ASK}]
                self.summary = ctx.summarize(ask + body, ctx.summary_cap).strip()
                self.covered = cut
                self.compressions += 1
                request = self._request(system, history)
        messages, dropped = fit(request[:2] if self.summary else request[:1], request[2 if self.summary else 1 :], ctx)
        self.dropped += dropped
        return messages


CODEX_ASK = (
    "You are doing a CONTEXT CHECKPOINT COMPACTION: write a hand-off summary for another model that will carry "
    "on with this task. Include the progress so far and the decisions made; the context, constraints and "
    "preferences of the user that matter; what remains to do, as clear next steps; and any data, examples or "
    "references needed to go on. Be concise and structured, written so the next model continues seamlessly."
)
CODEX_PREFIX = (
    "Another language model started on this problem and wrote a summary of where it got to. Build on that work "
    "and do not repeat it. Its summary:"
)


@dataclass
class Codex(Peer):
    ratio: float = 0.9
    user_cap: int = 20_000
    base: list[Message] = field(default_factory=list)  # the compacted history (user messages + summary)
    since: int = 0  # history messages after the last compaction

    def __post_init__(self) -> None:
        self.name = "codex"

    def _request(self, system: Message, history: list[Message]) -> list[Message]:
        return [system, *self.base, *history[self.since :]]

    def build(self, system: Message, history: list[Message], ctx: PeerContext) -> list[Message]:
        request = self._request(system, history)
        if ctx.count(request) > self.ratio * ctx.budget and len(history) > self.since:
            ask, _ = fit([system], [*request[1:], {"role": "user", "content": CODEX_ASK}], ctx)
            if ask[-1].get("content") != CODEX_ASK:
                ask.append({"role": "user", "content": CODEX_ASK})
            summary = ctx.summarize(ask, ctx.summary_cap).strip()
            cap = min(self.user_cap, ctx.budget // 3)
            users = [m for m in history if m.get("role") == "user" and not _is_codex_summary(m)]
            kept: list[Message] = []
            for m in reversed(users):
                if ctx.count([*kept, m]) > cap:
                    break
                kept.insert(0, m)
            self.base = [*kept, {"role": "user", "content": f"{CODEX_PREFIX}\n{summary}"}]
            self.since = len(history)
            self.compressions += 1
            request = self._request(system, history)
        messages, dropped = fit([system], request[1:], ctx)
        self.dropped += dropped
        return messages


def _is_codex_summary(message: Message) -> bool:
    return str(message.get("content") or "").startswith(CODEX_PREFIX)


STRUCTURED_SYSTEM = "You are a helpful assistant whose task is to summarize conversations."
STRUCTURED_ASK = """Write a detailed summary of the conversation so far, paying close attention to the user's explicit \
requests and to what you did. It must let the work go on without losing context.
First think it through inside <analysis></analysis>: go through the conversation in order and note each request \
and intent of the user, your approach, key decisions, exact details (file names, code, errors and their fixes) and \
any feedback the user gave.
Then write the summary inside <summary></summary> with these sections:
1. Primary request and intent
2. Key technical concepts
3. Files and code sections
4. Errors and fixes
5. Problem solving
6. All user messages (every message the user wrote that is not a tool result)
7. Pending tasks
8. Current work
9. Optional next step (only one directly in line with the user's latest request)"""
STRUCTURED_CONTINUE = (
    "This session continues a previous conversation that ran out of context. The conversation is summarized "
    "below:\n{summary}"
)
_SUMMARY_TAG = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.DOTALL)
_ANALYSIS = re.compile(r"<analysis>.*?(?:</analysis>|$)", re.DOTALL)


@dataclass
class Structured(Peer):
    ratio: float = 0.92
    summary: str = ""
    since: int = 0

    def __post_init__(self) -> None:
        self.name = "structured"

    def _request(self, system: Message, history: list[Message]) -> list[Message]:
        head = [system]
        if self.summary:
            head.append({"role": "user", "content": STRUCTURED_CONTINUE.format(summary=self.summary)})
        return head + history[self.since :]

    def build(self, system: Message, history: list[Message], ctx: PeerContext) -> list[Message]:
        request = self._request(system, history)
        if ctx.count(request) > self.ratio * ctx.budget and len(history) > self.since:
            ask, _ = fit(
                [{"role": "system", "content": STRUCTURED_SYSTEM}],
                [*request[1:], {"role": "user", "content": STRUCTURED_ASK}],
                ctx,
            )
            if ask[-1].get("content") != STRUCTURED_ASK:
                ask.append({"role": "user", "content": STRUCTURED_ASK})
            self.summary = clean_structured(ctx.summarize(ask, ctx.summary_cap))
            self.since = len(history)
            self.compressions += 1
            request = self._request(system, history)
        head = 2 if self.summary else 1
        messages, dropped = fit(request[:head], request[head:], ctx)
        self.dropped += dropped
        return messages


def clean_structured(text: str) -> str:
    """The ``<summary>`` part of the answer (the analysis is dropped, as Claude Code does)."""
    found = _SUMMARY_TAG.search(text)
    return (found.group(1) if found else _ANALYSIS.sub("", text)).strip()


def _unit_boundary(history: list[Message], index: int) -> int:
    """``index`` moved back so it does not split an assistant's tool calls from their results."""
    while 0 < index < len(history) and history[index].get("role") == "tool":
        index -= 1
    return index


def _tail_text(text: str, ctx: PeerContext) -> str:
    while text and ctx.count([{"role": "user", "content": text}]) > ctx.budget - 200:
        text = text[len(text) // 10 :]
    return text


PEERS: dict[str, Callable[[], Peer]] = {
    "truncation": Truncation,
    "rewrite": Rewrite,
    "codex": Codex,
    "structured": Structured,
}
