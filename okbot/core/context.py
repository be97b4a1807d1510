"""The one function that builds what the model sees: :func:`build_context`.

The turn runner, the View-context window and ``okbot context`` all call it; the viewer only
passes ``at=`` to truncate the projection at a chosen user message. Nothing else assembles
instructions or picks session items.

Besides the items after the coverage, the session summary decides three things the request shows
differently from the record (which is never changed): a tool result it hides stands as its digest
(:func:`hidden_stub`), one it cuts shows its first characters and says so (:func:`cut_stub`), and the
current request of a turn compressed inside itself (``currentRequestIds``) is pinned at the head of the
tail, word for word, with an app-written mark (:func:`pinned_copy`; the mark is put on the wire by
:func:`okbot.core.messages.wire_prefix` from the item's ``pinned`` field, which only this module sets).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from okbot.config.settings import Settings
from okbot.core.attachments import AttachmentView
from okbot.core.compression import structure
from okbot.core.digest import named_ids, result_digest
from okbot.core.instructions import (
    InstructionBlock,
    InstructionInputs,
    assemble_instructions,
)
from okbot.core.items import delegation_tool_name
from okbot.core.kept_words import KeptWords, kept_words
from okbot.core.messages import PIN_KEY, wire_prefix
from okbot.core.projection import ContextProjection
from okbot.core.sources import ContextSources
from okbot.core.squad import (
    CAPTAIN_NAME,
    CAPTAIN_ROLE,
    captain_soul,
    member_by_id,
    member_role_line,
    members,
    wire_names,
)
from okbot.core.summary import SessionSummary
from okbot.core.tokens import model_facts
from okbot.core.wire_names import NO_NAMES, WireNames
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.storage.errors import NotFound, OkBotError

# How far back build_context looks for the call of a tool result that sits right after coverage.
_PAIR_LOOKBACK = 64
# Item types the model sees; notices are for the user only.
MODEL_ITEM_TYPES = frozenset({"user", "assistant", "tool_call", "tool_result"})


def reply_reserve(window: int) -> int:
    """Tokens kept free for the model's reply when deciding whether a request fits the window."""
    return min(4096, window // 4)


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
    pinned = _pinned(session, summary, tail, notices)
    tail, at_covered = _tail_in_view(session, tail, covered, at=at, member=member, call_id=call_id)
    if pinned and at is not None:  # the pin belongs to the turn of the newest message only
        if at in {it["id"] for it in pinned}:
            at_covered = False
        elif at_covered:
            pinned = []
    items = pinned + _model_items(tail, summary)

    model = sources.model_for(target)
    counter = sources.counter(model)
    settings = sources.settings
    speaker = _speaker(target, member, sources, notices)
    shown = {it["id"] for it in pinned}  # a pinned message is in the items already, word for word
    kept = kept_words(session, summary, covered, notices, counter, sources.context_window(target), shown)
    inputs = _instruction_inputs(target, speaker, sources, settings, summary, kept, sources.context_window(target))
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
        files=files,
        names=speaker.names,
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
    """The tail items the model sees: no notices, a stub for each tool result the summary hides and the
    start of each it cuts. A ``pinned`` field read from the record is dropped: only :func:`_pinned` pins."""
    hidden, cut = set(summary.hidden_item_ids), summary.cut_items
    out = []
    for item in tail:
        if item.get("type") not in MODEL_ITEM_TYPES:
            continue
        if PIN_KEY in item:
            item = {k: v for k, v in item.items() if k != PIN_KEY}
        if item["id"] in hidden:
            item = hidden_stub(item)
        elif item["id"] in cut:
            item = cut_stub(item, cut[item["id"]])
        out.append(item)
    return out


def _pinned(
    session: Any, summary: SessionSummary, tail: list[dict[str, Any]], notices: list[str]
) -> list[dict[str, Any]]:
    """The current request's message(s) that coverage passed, pinned, while their turn goes on.

    Their turn goes on until a newer user message arrives: then the tail holds one and nothing is pinned
    (the compression that covered them kept their words next to the summary)."""
    covered = summary.covered_through_id
    ids = [i for i in summary.current_request_ids if i <= covered]
    if not ids or any(it.get("type") == "user" for it in tail):
        return []
    if any(it.get("type") == "user" for it in session.iter_items(max(ids) + 1, covered)):
        return []  # a newer message was covered since (its turn's compression names its own request)
    out = []
    for item_id in sorted(ids):
        item = session.get(item_id)
        if item is None or item.get("type") != "user":
            notices.append(
                translate("context", "the current request #{id} is not a user message in the record; left out.").format(
                    id=item_id
                )
            )
            continue
        out.append(pinned_copy(item))
    return out


def pinned_copy(item: dict[str, Any]) -> dict[str, Any]:
    """A user message pinned as the current request: sent word for word with the app's mark before it."""
    return {**item, PIN_KEY: True}


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
    """A tool result hidden to fit the window: its one-line digest stands in, saying how to get it back
    (the full text stays on disk)."""
    if item.get("type") != "tool_result":
        return item
    content = item.get("content", "")
    ids = named_ids(content) if isinstance(content, str) else ""
    named = f"; ids and links in it: {ids}" if ids else ""
    stub = (
        f"[app note: output hidden to fit the context window — {result_digest(item)}{named}; "
        f"search_history can read item #{item['id']}, or run the tool again]"
    )
    return {**item, "content": stub, "hidden": True}


def cut_stub(item: dict[str, Any], chars: int) -> dict[str, Any]:
    """A tool result too large for the window alone: its first ``chars`` characters and a note saying so."""
    content = item.get("content", "")
    if item.get("type") != "tool_result" or not isinstance(content, str) or len(content) <= chars:
        return item
    note = (
        f"[app note: cut to fit the window: showing the first {chars:,} of {len(content):,} chars; "
        f"search_history reads item #{item['id']}]"
    )
    return {**item, "content": f"{content[:chars]}\n{note}", "cut": chars}


# ---------------------------------------------------------------------------- the speaker: whose request it is
@dataclass(frozen=True)
class _Speaker:
    """Who the request is for: ``target`` owns the tools, skills and memories; the rest is how it is named."""

    target: Target
    name: str
    role_line: str
    soul: str
    names: WireNames = NO_NAMES  # a squad's members as the model knows them


def _speaker(target: Target, member: str | None, sources: ContextSources, notices: list[str]) -> _Speaker:
    """The assistant itself, a squad's captain, or (``member``) one seat of the squad as that member sees it.

    Adds to ``notices``, in this order: the target's SOUL.md problem, its memory and skill problems, the
    member's SOUL.md problem, and a squad's roster problems.
    """
    speaker, names = target, NO_NAMES
    soul, soul_problem = sources.soul(target)
    if soul_problem:
        notices.append(soul_problem)
    notices.extend(sources.memory_and_skill_problems(target))

    name, role_line = target.name, target.role_line if target.is_assistant else ""
    if target.is_squad:
        if member is None:
            name, role_line, soul = CAPTAIN_NAME.format(name=target.name), CAPTAIN_ROLE, captain_soul(target)
        else:
            seat = member_by_id(target, sources.workspace, member)
            speaker = seat.target
            soul, soul_problem = sources.soul(speaker)
            name, role_line = speaker.name, member_role_line(seat, target)
            if soul_problem:
                notices.append(soul_problem)
        found, problems = members(target, sources.workspace)
        notices.extend(problems)
        names = wire_names(found)
    elif member is not None:
        raise OkBotError(translate("context", "only a squad has members"), hint=translate("context", "drop --member"))
    return _Speaker(speaker, name, role_line, soul, names)


def _instruction_inputs(
    target: Target,
    speaker: _Speaker,
    sources: ContextSources,
    settings: Settings,
    summary: SessionSummary,
    kept_words: KeptWords,
    window: int,
) -> InstructionInputs:
    """What the instructions are assembled from: the speaker's persona, tools, skills and memories, the
    squad's roster, and the summary (cut to its section budgets) with the user's kept words."""
    return InstructionInputs(
        name=speaker.name,
        role_line=speaker.role_line,
        squad_name=target.name if target.is_squad else "",
        squad_description=target.meta.get("description", "") if target.is_squad else "",
        roster=sources.roster(target),
        soul=speaker.soul,
        tool_notes=tuple(sources.tools_for(speaker.target).notes(settings)),
        skills=tuple(sources.skills(speaker.target)),
        summary=structure.fit_sections(
            summary.summary, structure.summary_chars(settings.get("contextCompression.summaryMaxChars"), window)
        ),
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
