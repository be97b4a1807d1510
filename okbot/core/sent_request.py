"""A recorded request read back whole: its instruction blocks and every item it held, with its own numbers.

The as-sent record (:mod:`okbot.core.assent`) keeps each block's text and the ids of the items a request
held; ``session.jsonl`` is append-only, so those ids read the items back as they went out. Reads are
bounded: only the id runs the record names, through the session store's offset index (the index is
built once, by a forward scan, on the worker thread that loads this). An item the record names that the
session no longer holds (its line was damaged and set aside) stays in place as a :class:`SentItem`
without an item, so the view says so where it was.

:func:`load_sent` serves the View-context window and ``okbot context --as-sent`` alike; :func:`choose` picks a
request by attempt and round, as ``--attempt`` / ``--round`` ask.
A loaded request carries its :class:`PromptCache` once :mod:`okbot.core.prompt_cache` has measured it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from okbot.core.assent import AsSentRequest, default_choice, id_runs
from okbot.core.attachments import AttachmentView
from okbot.core.context import MODEL_ITEM_TYPES, cut_stub, hidden_stub, item_token_count, pinned_copy
from okbot.core.items import delegation_tool_name
from okbot.core.messages import items_to_messages, member_view
from okbot.core.sources import COUNTER_WAIT_S, ContextSources
from okbot.core.tokens import model_facts
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.storage.errors import NotFound, OkBotError


@dataclass(frozen=True)
class PromptCache:
    """A request's shared start with the chat's request before it, and what the provider reported."""

    request_id: int
    previous_id: int | None  # None: the chat's first recorded request
    share: float | None  # of this request's tokens; None when there is nothing to compare with
    shared_tokens: int  # tokens of the shared start, on the scale of the request's own total
    tokens: int  # the request's total (reported prompt tokens, else OkBot's estimate when sent)
    cached_tokens: int | None  # what the provider reported as served from its cache; None: not reported
    # where the two part: "" (the earlier request repeated whole, then more), "tools" (other tools offered),
    # "block" (an instruction block, ``ref`` its title), "item" (``ref`` its id), "dropped" (an item sent
    # before and not now), "message" (``ref`` its position and role)
    parts: str = ""
    ref: str = ""
    unreadable: int | None = None  # the request that can no longer be read back whole (nothing compared)

    @property
    def parts_at(self) -> str:
        """Where the two part, in English (the JSON's ``partsAt``)."""
        return {
            "": "",
            "tools": "tools offered",
            "block": f"block {self.ref}",
            "item": f"item #{self.ref}",
            "dropped": f"item #{self.ref}, sent before and not now",
            "message": f"message {self.ref}",
        }[self.parts]

    def to_json(self) -> dict[str, Any]:
        compared = self.share is not None
        return {
            "request": self.request_id,
            "previousRequest": self.previous_id,
            "share": round(self.share, 4) if compared else None,
            "sharedTokens": self.shared_tokens if compared else None,
            "tokens": self.tokens,
            "partsAt": self.parts_at if compared else None,
            "cachedTokens": self.cached_tokens,
            "unreadableRequest": self.unreadable,
        }


@dataclass(frozen=True)
class SentItem:
    """One item of a recorded request: ``item`` as it was sent (None when the session lost it) and its tokens."""

    id: int
    item: dict[str, Any] | None
    tokens: int = 0


@dataclass
class SentRequest:
    """One recorded request of a turn, loaded: blocks with their texts, its items, and every request of the turn."""

    request: AsSentRequest
    items: list[SentItem]
    exact: bool  # the record lists the ids sent (format 2); False: an older record kept only the id range
    choices: list[AsSentRequest] = field(default_factory=list)  # every request of the turn, in order
    encoding: str = ""
    approximate: bool = False  # the items were counted with the documented estimate (no encoding offline)
    files: AttachmentView | None = None  # attached files, read back from the chat's folder as they were sent
    cache: PromptCache | None = None  # its start shared with the request before it (attach_prompt_cache)
    own: list[dict[str, Any]] | None = field(default_factory=list)  # a member's own tool rounds; None: lost

    @property
    def missing_ids(self) -> list[int]:
        """Ids the record names that session.jsonl no longer holds."""
        return [s.id for s in self.items if s.item is None]

    @property
    def instruction_tokens(self) -> int:
        return sum(int(b.get("tokens") or 0) for b in self.request.blocks)

    @property
    def items_tokens(self) -> int:
        """The items' tokens as counted when it was sent (older records: counted now)."""
        stored = self.request.items_tokens
        return stored if stored is not None else sum(s.tokens for s in self.items)

    @property
    def overhead_tokens(self) -> int:
        """The chat format's overhead when it was sent (older records: what the estimate leaves over)."""
        stored = self.request.overhead_tokens
        if stored is not None:
            return stored
        return max(0, self.request.estimate - self.instruction_tokens - self.items_tokens)

    @property
    def total_tokens(self) -> int:
        """The prompt tokens the provider reported for it, else OkBot's estimate when it was sent."""
        reported = self.request.prompt_tokens
        return reported if reported is not None else self.request.estimate

    def to_messages(self) -> list[dict[str, Any]]:
        """The Chat Completions ``messages`` this request sent (a lost item is left out)."""
        messages: list[dict[str, Any]] = []
        texts = [b.get("text") or "" for b in self.request.blocks]
        if texts:
            messages.append({"role": "system", "content": "\n\n".join(texts)})
        sent = [s.item for s in self.items if s.item is not None]
        member, names = self.request.member, self.request.names
        if member is not None:  # the squad as that member saw it, then its own tool rounds
            messages.extend(member_view(sent, member, delegation_tool_name(member), self.files, names))
            messages.extend(self.own or [])
        else:
            messages.extend(items_to_messages(sent, self.files, names))
        return messages


def load_sent(
    sources: ContextSources,
    target: Target,
    user_id: int,
    request_id: int | None = None,
    member: str | None = None,
) -> SentRequest | None:
    """The request ``request_id`` of the turn of user message ``user_id`` (default: the one that produced
    the reply), loaded whole; with ``member``, that squad member's requests of the turn. None when nothing
    was recorded for that message. Blocking: run it off the GUI thread. NotFound when ``request_id`` is not a
    request of that turn."""
    store = sources.as_sent(target)
    turn = store.turn(user_id, member)
    if not turn:
        return None
    if request_id is None:
        chosen = turn[default_choice(turn)]
    else:
        chosen = next((r for r in turn if r.id == request_id), None)
        if chosen is None:
            raise NotFound(
                translate("sent_request", "request #{request} was not sent for message #{message}").format(
                    request=request_id, message=user_id
                ),
                hint=translate("sent_request", "its requests are {ids}").format(
                    ids=", ".join(f"#{r.id}" for r in turn)
                ),
            )
    store.load_texts(chosen)
    model = chosen.model or sources.model_for(target)
    counter = sources.counter(model)
    counter.ensure_loaded(timeout=COUNTER_WAIT_S)
    files = AttachmentView(target.dir, model_facts(model).vision)  # attached files count as they were sent
    items, exact = _read_items(sources.session(target), chosen)
    hidden, pinned, cut = set(chosen.hidden_ids), set(chosen.pinned_ids), chosen.cut_chars
    loaded = []
    for item_id, item in items:
        if item is not None and item_id in hidden:
            item = hidden_stub(item)
        elif item is not None and item_id in cut:
            item = cut_stub(item, cut[item_id])
        elif item is not None and item_id in pinned:
            item = pinned_copy(item)
        loaded.append(SentItem(item_id, item, item_token_count(counter, item, files) if item is not None else 0))
    return SentRequest(
        request=chosen,
        items=loaded,
        exact=exact,
        choices=turn,
        encoding=counter.encoding_name,
        approximate=counter.approximate,
        files=files,
        own=store.own_messages(chosen),
    )


def _read_items(session: Any, req: AsSentRequest) -> tuple[list[tuple[int, dict[str, Any] | None]], bool]:
    """``(id, item or None)`` for every item ``req`` held, and whether the record named each id."""
    if req.item_ids is not None:
        found: dict[int, dict[str, Any]] = {}
        for first, last in id_runs(req.item_ids):
            found.update((it["id"], it) for it in session.iter_items(first, last))
        return [(i, found.get(i)) for i in req.item_ids], True
    if not req.item_count or req.first_item_id is None or req.last_item_id is None:
        return [], True
    # an older record: the range the model could see (notices were never sent)
    items = session.iter_items(req.first_item_id, req.last_item_id)
    return [(it["id"], it) for it in items if it.get("type") in MODEL_ITEM_TYPES], False


def choose(turn: list[AsSentRequest], attempt: int | None = None, round_no: int | None = None) -> AsSentRequest:
    """The request of ``turn`` (:meth:`~okbot.core.assent.AsSentStore.turn`) at ``attempt`` and ``round_no``.

    Without ``attempt``: the attempt the reply came from (else the last). Without ``round_no``: that
    attempt's request the reply came from, else its last. OkBotError for an attempt or round it lacks.
    """
    if not turn:
        raise OkBotError(translate("sent_request", "no request was recorded for this message"))
    default = turn[default_choice(turn)]
    number = default.attempt if attempt is None else attempt
    requests = [r for r in turn if r.attempt == number]
    if not requests:
        raise OkBotError(
            translate("sent_request", "there is no attempt {n}").format(n=number),
            hint=translate("sent_request", "this turn has {n} attempt(s)").format(n=turn[0].attempts),
        )
    if round_no is None:
        return next((r for r in requests if r.produced_reply), requests[-1])
    found = next((r for r in requests if r.round_in_attempt == round_no), None)
    if found is None:
        raise OkBotError(
            translate("sent_request", "attempt {n} has no round {round}").format(n=number, round=round_no),
            hint=translate("sent_request", "it sent {n} request(s), rounds 1–{n}").format(n=len(requests)),
        )
    return found
