"""The one function that builds what the model sees: :func:`build_context`.

The turn runner, the View-context window and ``okbot context`` all call it; the viewer only
passes ``at=`` to truncate the projection at a chosen user message. Nothing else assembles
instructions or picks session items.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from okbot.config.settings import Settings
from okbot.core.attachments import AttachmentView
from okbot.core.digest import STRONG_DIRECTIVE, directive_grade
from okbot.core.instructions import (
    InstructionBlock,
    InstructionInputs,
    assemble_instructions,
    join_blocks,
    listed_note,
)
from okbot.core.items import delegation_tool_name
from okbot.core.messages import items_to_messages, member_view, wire_prefix
from okbot.core.sources import ContextSources
from okbot.core.squad import (
    CAPTAIN_NAME,
    CAPTAIN_ROLE,
    captain_soul,
    member_by_id,
    member_role_line,
    members,
)
from okbot.core.summary import SessionSummary
from okbot.core.tokens import model_facts
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.storage.errors import NotFound, OkBotError

# How far back build_context looks for the call of a tool result that sits right after coverage.
_PAIR_LOOKBACK = 64
# Caps on the user's kept words (tokens): per message, in total (scaled down for small windows),
# and the least a message may be shortened to before only the first and newest are kept.
KEPT_PER_MESSAGE_TOKENS = 300
KEPT_TOTAL_TOKENS = 3000
KEPT_MIN_SHARE_TOKENS = 40
# What a shown message costs besides its text (its `[#id] ` label).
KEPT_ENTRY_TOKENS = 4
# Item types the model sees; notices are for the user only.
MODEL_ITEM_TYPES = frozenset({"user", "assistant", "tool_call", "tool_result"})


def reply_reserve(window: int) -> int:
    """Tokens kept free for the model's reply when deciding whether a request fits the window."""
    return min(4096, window // 4)


@dataclass
class ContextProjection:
    """Everything the model sees for one request, with token counts and the window it must fit."""

    target: Target
    model: str
    blocks: list[InstructionBlock]
    items: list[dict[str, Any]]
    item_tokens: list[int]
    overhead_tokens: int
    window: int
    ratio: float
    covered_through_id: int
    summary: SessionSummary
    encoding: str
    approximate: bool
    calibration_factor: float = 1.0
    at: int | None = None
    at_covered: bool = False
    notices: list[str] = field(default_factory=list)
    member: str | None = None  # a squad member's request (their view of the squad), not the captain's
    member_name: str = ""
    prepare_ratio: float = 0.0  # contextCompression.prepareRatio; 0 = no earlier mark than ``ratio``
    files: AttachmentView | None = None  # reads attached files back from the chat's folder

    @property
    def instruction_tokens(self) -> int:
        return sum(b.tokens for b in self.blocks)

    @property
    def items_tokens(self) -> int:
        return sum(self.item_tokens)

    @property
    def total_tokens(self) -> int:
        """The raw estimate: instructions + items + chat-format overhead."""
        return self.instruction_tokens + self.items_tokens + self.overhead_tokens

    @property
    def calibrated_tokens(self) -> int:
        """The estimate corrected by what the provider reported for this model before."""
        return round(self.total_tokens * self.calibration_factor)

    @property
    def threshold(self) -> int:
        """Compression triggers at or above this many (calibrated) tokens."""
        return int(self.window * self.ratio)

    @property
    def prepare_threshold(self) -> int:
        """Compression runs ahead, after a reply, when the next request is predicted to reach this mark.

        Never above :attr:`threshold` (a prepare ratio above the ratio counts as the ratio).
        """
        return int(self.window * min(self.prepare_ratio or self.ratio, self.ratio))

    def system_text(self) -> str:
        return join_blocks(self.blocks)

    def to_messages(self) -> list[dict[str, Any]]:
        """The Chat Completions ``messages`` for this projection (system + items)."""
        messages: list[dict[str, Any]] = []
        if self.blocks:
            messages.append({"role": "system", "content": self.system_text()})
        if self.member is not None:
            messages.extend(member_view(self.items, self.member, delegation_tool_name(self.member), self.files))
        else:
            messages.extend(items_to_messages(self.items, self.files))
        return messages

    def to_json(self) -> dict[str, Any]:
        return {
            "target": {"kind": self.target.kind, "id": self.target.id, "name": self.target.name},
            "member": self.member,
            "model": self.model,
            "at": self.at,
            "atCovered": self.at_covered,
            "coveredThroughId": self.covered_through_id,
            "window": self.window,
            "ratio": self.ratio,
            "threshold": self.threshold,
            "prepareThreshold": self.prepare_threshold,
            "encoding": self.encoding,
            "approximate": self.approximate,
            "tokens": {
                "instructions": self.instruction_tokens,
                "items": self.items_tokens,
                "overhead": self.overhead_tokens,
                "total": self.total_tokens,
                "calibrated": self.calibrated_tokens,
                "calibrationFactor": self.calibration_factor,
            },
            "blocks": [
                {"name": b.name, "title": b.title, "stable": b.stable, "tokens": b.tokens, "text": b.text}
                for b in self.blocks
            ],
            "items": [{**item, "tokens": n} for item, n in zip(self.items, self.item_tokens, strict=True)],
            "notices": list(self.notices),
        }


def build_context(
    target: Target,
    at: int | None = None,
    *,
    sources: ContextSources,
    summary: SessionSummary | None = None,
    member: str | None = None,
    call_id: str | None = None,
) -> ContextProjection:
    """Build the projection the model sees for ``target`` (next request, or as of user message ``at``).

    ``summary`` replaces the stored summary (the compressor uses it to see a request as it will be
    before applying a new summary). For a squad, ``member`` builds that member's request instead of
    the captain's: up to the captain's call ``call_id`` that asked them, or for the turn of ``at``
    (up to the captain's first call to them in it, or the message itself when it addressed them).
    """
    notices: list[str] = []
    session = sources.session(target)
    if summary is None:
        summary, summary_problems = sources.summary(target)
        notices.extend(summary_problems)

    summary, tail = _tail_after_coverage(session, summary, notices)
    covered = summary.covered_through_id
    tail, at_covered = _tail_in_view(session, tail, covered, at=at, member=member, call_id=call_id)
    items = _model_items(tail, summary)

    model = sources.model_for(target)
    counter = sources.counter(model)
    settings = sources.settings
    speaker = _speaker(target, member, sources, notices)
    kept_words = _kept_words(session, summary, covered, notices, counter, sources.context_window(target))
    inputs = _instruction_inputs(target, speaker, sources, settings, summary, kept_words)
    files = AttachmentView(target.dir, model_facts(model).vision)
    blocks, item_tokens, overhead = _counted(counter, inputs, items, files)
    return ContextProjection(
        target=target,
        model=model,
        blocks=blocks,
        items=items,
        item_tokens=item_tokens,
        overhead_tokens=overhead,
        window=sources.context_window(target),
        ratio=settings.get("contextCompression.ratio"),
        prepare_ratio=settings.get("contextCompression.prepareRatio"),
        covered_through_id=covered,
        summary=summary,
        encoding=counter.encoding_name,
        approximate=counter.approximate,
        calibration_factor=sources.calibration.factor(model),
        at=at,
        at_covered=at_covered,
        notices=notices,
        member=member,
        member_name=speaker.target.name if member is not None else "",
        files=files,
    )


# ---------------------------------------------------------------------------- the tail: which items are kept
def _tail_after_coverage(
    session: Any, summary: SessionSummary, notices: list[str]
) -> tuple[SessionSummary, list[dict[str, Any]]]:
    """The summary in force and the items after its coverage, with any covered tool call their results need.

    When the record has no item at the summary's ``coveredThroughId``, nothing counts as covered: an
    empty summary stands in and a notice says why.
    """
    covered = summary.covered_through_id
    tail, boundary_found = session.read_after(covered)
    if covered and not boundary_found:
        notices.append(
            translate(
                "context",
                "session-summary.json says items up to #{id} are summarized, but the record has no item "
                "#{id}; treating nothing as covered.",
            ).format(id=covered)
        )
        summary = SessionSummary()
        covered = 0
        tail, _ = session.read_after(0)
    return summary, _with_paired_calls(session, tail, covered)


def _tail_in_view(
    session: Any,
    tail: list[dict[str, Any]],
    covered: int,
    *,
    at: int | None,
    member: str | None,
    call_id: str | None,
) -> tuple[list[dict[str, Any]], bool]:
    """The part of ``tail`` this request sees, and whether user message ``at`` is already covered.

    ``at`` ends it at that user message (for a squad member, at the captain's first call to them in that
    turn); ``call_id`` ends it at that tool call.
    """
    at_covered = False
    if at is not None:
        full_tail = tail
        tail, at_covered = _cut_at(session, tail, at, covered)
        if member is not None and not at_covered:
            tail = _extend_to_task(full_tail, len(tail), delegation_tool_name(member))
    if call_id is not None:
        tail = _cut_at_call(tail, call_id)
    return tail, at_covered


def _model_items(tail: list[dict[str, Any]], summary: SessionSummary) -> list[dict[str, Any]]:
    """The tail items the model sees: no notices, and a stub for each tool result the summary hides."""
    hidden = set(summary.hidden_item_ids)
    return [hidden_stub(it) if it["id"] in hidden else it for it in tail if it.get("type") in MODEL_ITEM_TYPES]


def _with_paired_calls(session: Any, tail: list[dict[str, Any]], covered: int) -> list[dict[str, Any]]:
    """Pull in covered tool calls whose results sit in the tail, so a call is never split from its result."""
    open_results = {it["call_id"] for it in tail if it.get("type") == "tool_result"}
    open_results -= {it["call_id"] for it in tail if it.get("type") == "tool_call"}
    if not open_results or covered <= 0:
        return tail
    extra: list[dict[str, Any]] = []
    for item_id in range(covered, max(0, covered - _PAIR_LOOKBACK), -1):
        item = session.get(item_id)
        if item is None:
            continue
        extra.insert(0, item)
        if item.get("type") == "tool_call":
            open_results.discard(item.get("call_id"))
            if not open_results:
                break
    # keep only the pulled-in calls (and what sits between them and the tail, to stay in order)
    first_call = next((i for i, it in enumerate(extra) if it.get("type") == "tool_call"), len(extra))
    return extra[first_call:] + tail


def _cut_at(session: Any, tail: list[dict[str, Any]], at: int, covered: int) -> tuple[list[dict[str, Any]], bool]:
    """Truncate the tail at user message ``at``; ``(items, at_covered)``."""
    if at <= covered:
        item = session.get(at)
        if item is None:
            raise NotFound(translate("context", "no item #{id} in this session").format(id=at))
        _require_user(item)
        return [], True
    for index, item in enumerate(tail):
        if item["id"] == at:
            _require_user(item)
            return tail[: index + 1], False
    raise NotFound(
        translate("context", "no item #{id} in this session").format(id=at),
        hint=translate("context", "the last item is #{id}").format(id=session.last_id()),
    )


def _extend_to_task(tail: list[dict[str, Any]], end: int, ask: str) -> list[dict[str, Any]]:
    """The turn that starts at ``tail[end - 1]`` as a member saw it: up to the captain's first ``ask``
    call in that turn (their task), or just the user's message when there is none (direct address)."""
    for index in range(end, len(tail)):
        item = tail[index]
        if item.get("type") == "user":
            break
        if item.get("type") == "tool_call" and item.get("name") == ask:
            return tail[: index + 1]
    return tail[:end]


def _cut_at_call(tail: list[dict[str, Any]], call_id: str) -> list[dict[str, Any]]:
    for index, item in enumerate(tail):
        if item.get("type") == "tool_call" and item.get("call_id") == call_id:
            return tail[: index + 1]
    raise NotFound(translate("context", "no tool call {call_id} in view").format(call_id=repr(call_id)))


def _require_user(item: dict[str, Any]) -> None:
    if item.get("type") != "user":
        raise OkBotError(
            translate("context", "item #{id} is a {type} item, not a user message").format(
                id=item["id"], type=item.get("type")
            ),
            hint=translate("context", "--at takes the id of a message you typed"),
        )


def hidden_stub(item: dict[str, Any]) -> dict[str, Any]:
    """A tool result hidden to fit the window: a note stands in (the full text stays on disk)."""
    if item.get("type") != "tool_result":
        return item
    content = item.get("content", "")
    stub = (
        f"[app note: output hidden to fit the context window — {item.get('name')} returned {len(content):,} "
        f"chars; search_history can read item #{item['id']}]"
    )
    return {**item, "content": stub, "hidden": True}


# ---------------------------------------------------------------------------- the speaker: whose request it is
@dataclass(frozen=True)
class _Speaker:
    """Who the request is for: ``target`` owns the tools, skills and memories; the rest is how it is named."""

    target: Target
    name: str
    role_line: str
    soul: str


def _speaker(target: Target, member: str | None, sources: ContextSources, notices: list[str]) -> _Speaker:
    """The assistant itself, a squad's captain, or (``member``) one seat of the squad as that member sees it.

    Adds to ``notices``, in this order: the target's SOUL.md problem, its memory and skill problems, the
    member's SOUL.md problem, and a squad's roster problems.
    """
    speaker = target
    soul, soul_problem = sources.soul(target)
    if soul_problem:
        notices.append(soul_problem)
    notices.extend(sources.memory_and_skill_problems(target))

    name, role_line = target.name, target.role_line if target.kind == "assistant" else ""
    if target.kind == "squad":
        if member is None:
            name, role_line, soul = CAPTAIN_NAME.format(name=target.name), CAPTAIN_ROLE, captain_soul(target)
        else:
            seat = member_by_id(target, sources.workspace, member)
            speaker = seat.target
            soul, soul_problem = sources.soul(speaker)
            name, role_line = speaker.name, member_role_line(seat, target)
            if soul_problem:
                notices.append(soul_problem)
        notices.extend(members(target, sources.workspace)[1])
    elif member is not None:
        raise OkBotError(translate("context", "only a squad has members"), hint=translate("context", "drop --member"))
    return _Speaker(speaker, name, role_line, soul)


def _instruction_inputs(
    target: Target,
    speaker: _Speaker,
    sources: ContextSources,
    settings: Settings,
    summary: SessionSummary,
    kept_words: KeptWords,
) -> InstructionInputs:
    """What the instructions are assembled from: the speaker's persona, tools, skills and memories, the
    squad's roster, and the summary (cut to its section budgets) with the user's kept words."""
    from okbot.core.compression import structure  # here: the compression package imports this module

    return InstructionInputs(
        name=speaker.name,
        role_line=speaker.role_line,
        squad_name=target.name if target.kind == "squad" else "",
        squad_description=target.meta.get("description", "") if target.kind == "squad" else "",
        roster=sources.roster(target),
        soul=speaker.soul,
        tool_notes=tuple(sources.tools_for(speaker.target).notes(settings)),
        skills=tuple(sources.skills(speaker.target)),
        summary=structure.fit_sections(summary.summary, settings.get("contextCompression.summaryMaxChars")),
        covered_through_id=summary.covered_through_id,
        kept_user_words=kept_words.shown,
        kept_user_listed=kept_words.listed,
        memories=tuple(sources.memories(speaker.target)),
    )


# ---------------------------------------------------------------------------- counting
def _counted(
    counter: Any, inputs: InstructionInputs, items: list[dict[str, Any]], files: AttachmentView | None = None
) -> tuple[list[InstructionBlock], list[int], int]:
    """The instruction blocks with their tokens, each item's tokens (its wire prefix included), and the
    chat format's overhead: reply priming, the system message's own and the blank lines between blocks."""
    blocks = [b.with_tokens(counter.count_text(b.text)) for b in assemble_instructions(inputs)]
    item_tokens = [item_token_count(counter, it, files) for it in items]
    overhead = counter.count_messages_overhead()
    if blocks:
        overhead += counter.count_message("", "system") + counter.count_text("\n\n") * (len(blocks) - 1)
    return blocks, item_tokens, overhead


def item_token_count(counter: Any, item: dict[str, Any], files: AttachmentView | None = None) -> int:
    """An item's tokens as the model receives it: its content, the app-written text put before it on
    the wire (a source label) and its attached files (``files``: read from the chat's folder). The
    as-sent view counts the items of a recorded request with it too."""
    prefix = wire_prefix(item)
    extra = files.tokens(counter, item) if files is not None else 0
    return counter.count_item(item) + (counter.count_text(prefix) if prefix else 0) + extra


# ---------------------------------------------------------------------------- the user's kept words
def kept_words_caps(window: int) -> tuple[int, int]:
    """(per-message, total) token caps for the user's kept words; the total shrinks for small windows."""
    return KEPT_PER_MESSAGE_TOKENS, min(KEPT_TOTAL_TOKENS, max(KEPT_PER_MESSAGE_TOKENS, window // 40))


@dataclass(frozen=True)
class KeptWords:
    """The user's kept messages as the request shows them: ``shown`` (id, text) in id order, and the ids
    of kept messages not shown for room (``listed``, best ranked first; search_history finds them)."""

    shown: tuple[tuple[int, str], ...] = ()
    listed: tuple[int, ...] = ()


def _cut_tokens(text: str, tokens: int, counter: Any, item_id: int) -> str:
    """``text`` cut to about ``tokens`` tokens (the pointer included), pointing to the full text by id."""
    if counter.count_text(text) <= tokens:
        return text
    pointer = f" … [cut; full text: item #{item_id}, search_history finds it]"
    room = max(5, tokens - counter.count_text(pointer))
    chars = max(20, room * 3)
    while chars > 20 and counter.count_text(text[:chars]) > room:
        chars = int(chars * 0.8)
    return f"{text[:chars].rstrip()}{pointer}"


def rank_kept(kept: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Kept messages in tiers, best first, each tier in the order it gets room: strong directives (the
    oldest, then the newest first), the user's first kept message, weak directives, then the rest
    (newest first)."""
    if not kept:
        return []
    grades = {i: directive_grade(t) for i, t in kept}
    first = min(grades)
    oldest_strong = min((i for i in grades if grades[i] == STRONG_DIRECTIVE), default=None)

    def tier(item_id: int) -> int:
        if grades[item_id] == STRONG_DIRECTIVE:
            return 0
        return 1 if item_id == first else 3 - grades[item_id]

    tiers: list[list[tuple[int, str]]] = [[], [], [], []]
    for entry in sorted(kept, key=lambda e: (e[0] != oldest_strong, -e[0])):
        tiers[tier(entry[0])].append(entry)
    return [t for t in tiers if t]


def _water_level(costs: list[int], room: int) -> int:
    """The largest per-message share such that every message gets min(its cost, share) within ``room``."""
    remaining = room
    ordered = sorted(costs)
    for index, cost in enumerate(ordered):
        left = len(ordered) - index
        if cost * left > remaining:
            return remaining // left
        remaining -= cost
    return max(ordered, default=0)


def _fit_tier(tier: list[tuple[int, str]], room: int, counter: Any) -> tuple[list[tuple[int, str]], int, list[int]]:
    """``(shown, tokens used, ids not shown)`` for one tier in ``room``: as many as can have at least
    ``KEPT_MIN_SHARE_TOKENS`` each (or their whole text), shortened evenly, in the tier's order."""
    costs = [counter.count_text(t) + KEPT_ENTRY_TOKENS for _, t in tier]
    most, used = 0, 0  # showing more than ``most`` would leave someone under the least share
    for cost in costs:
        used += min(cost, KEPT_MIN_SHARE_TOKENS)
        if used > room:
            break
        most += 1
    for shown in range(most, 0, -1):
        level = min(KEPT_PER_MESSAGE_TOKENS, _water_level(costs[:shown], room))
        if level >= KEPT_MIN_SHARE_TOKENS or level >= max(costs[:shown]):
            words = [(i, _cut_tokens(t, level - KEPT_ENTRY_TOKENS, counter, i)) for i, t in tier[:shown]]
            return words, sum(min(c, level) for c in costs[:shown]), [i for i, _ in tier[shown:]]
    return [], 0, [i for i, _ in tier]


def _fit_words(tiers: list[list[tuple[int, str]]], budget: int, counter: Any) -> KeptWords:
    """Show what ``budget`` allows, tier by tier: a tier gets only what the tiers above it left, so
    chit-chat never takes room from a directive; the messages not shown are named by id."""
    reserve = 0  # room for the line naming the messages not shown
    for _ in range(3):
        room, shown, listed = budget - reserve, [], []
        for tier in tiers:
            if listed:  # a tier above did not fit whole: lower tiers get no room
                listed += [i for i, _ in tier]
                continue
            words, used, rest = _fit_tier(tier, room, counter)
            shown, room, listed = shown + words, room - used, listed + rest
        need = counter.count_text(listed_note(listed)) if listed else 0
        if need <= reserve:
            break
        reserve = need
    return KeptWords(tuple(sorted(shown)), tuple(listed))


def _kept_words(
    session: Any, summary: SessionSummary, covered: int, notices: list[str], counter: Any, window: int
) -> KeptWords:
    """The user's kept messages, copied from the record (never retyped by a model), within the caps.

    They get the budget tier by tier in :func:`rank_kept` order, so chit-chat never pushes a directive
    out; see :func:`_fit_words` for how a message is shortened or only named by id.
    """
    kept = []
    for item_id in summary.kept_user_ids:
        if item_id > covered:
            continue  # still in the tail verbatim anyway
        item = session.get(item_id)
        if item is None or item.get("type") != "user" or item.get("source") != "user":
            notices.append(
                translate("context", "kept user message #{id} is not a user message in the record; left out.").format(
                    id=item_id
                )
            )
            continue
        kept.append((item_id, item["content"]))
    _, total = kept_words_caps(window)
    return _fit_words(rank_kept(kept), total, counter)
