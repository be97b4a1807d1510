"""The turn runner: one user message in, the reply (and any tool rounds) out, all written to disk.

One turn = read disk (through :class:`ContextSources`) -> compression hook -> ``build_context``
-> stream -> tool loop -> wrap-up hook. Each round's request goes out through
:mod:`okbot.core.turn_round`: from round 2 on the in-turn hook (``within_turn``:
:meth:`okbot.core.compression.Compressor.within_turn`) makes it fit the window, and a server's refusal
as too long is answered once (the window learnt, the request fitted and sent again); what moved out is
said in the chat, and a request that cannot fit ends the turn with one plain message.

The user item is appended before the request goes out; the assistant item when the reply completes,
or -- stopped or broken -- with the partial text and status ``interrupted`` / ``error``, so nothing the
user saw is lost. The request the provider receives is exactly ``build_context(...).to_messages()``
(made to fit, see above).

The runner is synchronous and Qt-free; the UI runs it on a worker thread and turns the callbacks
into signals. ``cancel`` (a :class:`CancelToken`) may be set from any thread.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from okbot.core import attachments as attached_files
from okbot.core import versions
from okbot.core.assent import AsSentStore
from okbot.core.context import ContextProjection, reply_reserve
from okbot.core.items import new_item, notice, reply_finished, user_message
from okbot.core.session import branches
from okbot.core.session.branches import Versions
from okbot.core.sources import ContextSources
from okbot.core.squad import Member, TurnBudget, captain_settings, direct_address
from okbot.core.tokens import model_facts
from okbot.core.tools import ToolRegistry
from okbot.core.turn_round import fit_round, record_usage, send_round
from okbot.core.turn_runtime import TurnRuntime
from okbot.core.workspace import Target
from okbot.i18n import plural, translate
from okbot.llm import slots
from okbot.llm.events import Degraded, ToolCallDone, UsageEvent
from okbot.llm.provider import CancelToken, Provider
from okbot.storage.errors import OkBotError

if TYPE_CHECKING:  # the hook's answer; the compression package is wired in by okbot.core.turns
    from okbot.core.compression.inturn import TurnFit

log = logging.getLogger("okbot.runner")

# Beyond this a pasted message is refused before anything is counted or written (≈ 250k tokens).
MAX_USER_CHARS = 1_000_000
_DANGLING_LOCK = threading.Lock()


def _noop(*_args: Any) -> None:
    return None


def _holds_its_server(method: Callable[..., TurnResult]) -> Callable[..., TurnResult]:
    """Run a turn entry point as the user's chat (:func:`okbot.llm.slots.foreground`): every call it makes on
    this thread, the compression before the request included, goes first, and each server it reaches stays
    its own until the turn ends; a wait for another chat is told through ``callbacks.on_event``. The target
    is read afresh first: the MCP servers, model and persona settings the turn uses are those on disk now."""

    @functools.wraps(method)
    def run(
        self: TurnRunner, target: Target, *args: Any, callbacks: TurnCallbacks | None = None, **kwargs: Any
    ) -> TurnResult:
        callbacks = callbacks or TurnCallbacks()
        target = self.sources.workspace.current(target)
        with slots.foreground(on_wait=callbacks.on_event):
            return method(self, target, *args, callbacks=callbacks, **kwargs)

    return run


@dataclass
class TurnCallbacks:
    """How a turn reports progress. The UI adapts these into Qt signals; the CLI prints."""

    on_item: Callable[[dict[str, Any]], None] = _noop  # every item appended, in order
    on_delta: Callable[[str], None] = _noop  # streamed reply text
    on_event: Callable[[Any], None] = _noop  # provider events: Retrying, Degraded, UsageEvent, ReasoningDelta
    ask_approval: Callable[[str, dict[str, Any]], bool] | None = None  # for tools set to "ask"
    on_compressing: Callable[[], None] = _noop  # the request waits for the summarizer (a compression)
    on_compressed: Callable[[Any], None] = _noop  # what the compression before the request did (its report)
    on_evolved: Callable[[list[Any]], None] = _noop  # persona and skill changes that landed before the request


@dataclass
class TurnResult:
    """What a turn did."""

    status: str  # complete | interrupted | error
    items: list[dict[str, Any]] = field(default_factory=list)  # appended by the turn (after the user message)
    user_id: int = 0  # the user message this turn answered
    error: OkBotError | None = None
    degraded: list[Degraded] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    rounds: int = 0

    @property
    def reply_text(self) -> str:
        return "".join(it["content"] for it in self.items if it.get("type") == "assistant")


def close_dangling_calls(session: Any, target: Target, calls_per_turn: int) -> list[dict[str, Any]]:
    """Tool calls of an earlier turn that never got a result (OkBot closed while one waited for
    approval or ran) get one now, saying so, so the record and the user both see how it ended.
    ``calls_per_turn`` (``tools.maxCallsPerTurn``) sizes the look back: a whole round's calls and
    results and the turn's other items. Returns the items appended (none when nothing dangles)."""
    with _DANGLING_LOCK:  # the chat page (on open) and a turn (on start) may both look at once
        return _close_dangling(session, target, 2 * calls_per_turn + 64)


def _close_dangling(session: Any, target: Target, lookback: int) -> list[dict[str, Any]]:
    tail = session.tail(lookback)
    answered = {it.get("call_id") for it in tail if it.get("type") == "tool_result"}
    dangling = [it for it in tail if it.get("type") == "tool_call" and it.get("call_id") not in answered]
    added = []
    for call in dangling:
        note = f"[app note: {call.get('name')} was not run — OkBot closed before this call was approved or finished]"
        added.append(
            session.append(
                new_item(
                    "tool_result",
                    author=call.get("author", target.id),
                    source="app",
                    call_id=call["call_id"],
                    name=call.get("name", ""),
                    content=note,
                    ok=False,
                )
            )
        )
    if dangling:
        added.append(
            session.append(
                notice(
                    plural(
                        len(dangling),
                        translate(
                            "runner", "{n} tool call of the last turn was not run: OkBot closed while it waited."
                        ),
                        translate(
                            "runner", "{n} tool calls of the last turn were not run: OkBot closed while they waited."
                        ),
                    ).format(n=len(dangling)),
                    "warning",
                )
            )
        )
    return added


def _tool_round(
    runtime: TurnRuntime,
    tools: ToolRegistry,
    asked: Sequence[ToolCallDone],
    author: str,
    append: Callable[[dict[str, Any]], Any],
) -> None:
    """Record a reply's calls (no more than the whole turn's budget: one notice says how many were
    dropped), run them, and record each result, so every recorded call gets one."""
    calls = [tools.recorded(call) for call in asked[: runtime.budget.limit]]  # ask_<id>, not the name it saw
    for call in calls:
        append(
            new_item(
                "tool_call", author=author, source="app", call_id=call.call_id, name=call.name, arguments=call.arguments
            )
        )
    if len(asked) > len(calls):
        append(
            notice(
                translate(
                    "runner",
                    "The reply asked for {asked} tool calls; OkBot kept the first {kept} (the turn's "
                    "budget, tools.maxCallsPerTurn) and did not record or run the other {dropped}.",
                ).format(asked=f"{len(asked):,}", kept=f"{len(calls):,}", dropped=f"{len(asked) - len(calls):,}"),
                "warning",
            )
        )
    for call, outcome in zip(calls, runtime.run_tools(tools, calls), strict=True):
        append(
            new_item(
                "tool_result",
                author=outcome.author or author,
                source=outcome.source or "tool",
                call_id=call.call_id,
                name=call.name,
                content=outcome.content,
                ok=outcome.ok,
            )
        )


def _limit_reached(runtime: TurnRuntime, max_rounds: int) -> str:
    """Which of the turn's limits ended its tool use, in words."""
    if runtime.budget.spent:
        return translate("runner", "the turn's tool budget of {n} calls (tools.maxCallsPerTurn)").format(
            n=runtime.budget.limit
        )
    if runtime.spent:
        return translate("runner", "the turn's tool time of {seconds} s (tools.turnSeconds)").format(
            seconds=f"{runtime.seconds:.0f}"
        )
    return translate("runner", "{n} tool rounds (the round limit)").format(n=max_rounds)


class FinishedTurn(OkBotError):
    """A retry asked of a turn that already ended with a whole reply (a new version of it is a regeneration)."""


class TurnRunner:
    """Runs turns for any assistant or squad target against one provider."""

    def __init__(
        self,
        sources: ContextSources,
        provider: Provider,
        *,
        before_run: Callable[..., Any] | None = None,
        within_turn: Callable[..., TurnFit] | None = None,
        after_run: Callable[[Target, TurnResult], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sources = sources
        self.provider = provider
        self.clock = clock  # the turn's tool-time budget is measured with it
        self.before_run = before_run or _noop
        self.within_turn = within_turn  # (target, user ids, on_start=) -> TurnFit, before rounds 2 on
        # a hook that can say when the request starts waiting for the summarizer takes ``on_start``
        self._hook_reports_start = before_run is not None and "on_start" in inspect.signature(before_run).parameters
        self.after_run = after_run or _noop

    def as_sent(self, target: Target) -> AsSentStore:
        return self.sources.as_sent(target)

    # -- entry points -----------------------------------------------------------------------
    @_holds_its_server
    def run_turn(
        self,
        target: Target,
        text: str,
        *,
        callbacks: TurnCallbacks | None = None,
        cancel: CancelToken | None = None,
        attachments: Sequence[Path] = (),
    ) -> TurnResult:
        """Append the user's message (with ``attachments``: files copied into the chat's folder) and run
        the turn. Refused messages write nothing."""
        callbacks = callbacks or TurnCallbacks()
        # exact counts for the decisions below (bounded; the runner is never on the GUI thread)
        self.sources.loaded_counter(target)
        files = self._check_files(target, attachments)
        counter = self.sources.counter(self.sources.model_for(target))
        self._check_message(target, text, bool(files), sum(attached_files.prepared_tokens(counter, f) for f in files))
        # "@member …" in a squad: an unknown name is refused here, before anything is written or sent
        member = direct_address(text, target, self.sources.workspace) if target.kind == "squad" else None
        self._close_dangling_calls(target, callbacks)
        self.sources.memory.prepare(target, text)  # a recall refresh due now ranks by this message too
        self._before_run(target, text, callbacks)  # raises OkBotError when the request cannot fit at all
        records = [attached_files.save(f, target.dir) for f in files]
        user = self.sources.session(target).append(user_message(text, records))
        callbacks.on_item(user)
        return self._run(target, user["id"], callbacks, cancel or CancelToken(), member)

    @_holds_its_server
    def retry(
        self, target: Target, *, callbacks: TurnCallbacks | None = None, cancel: CancelToken | None = None
    ) -> TurnResult:
        """Run the turn of the last user message again (after an interrupted or failed reply, or none yet).

        Refused with :class:`FinishedTurn` when that turn ended with a whole reply: nothing is written."""
        tail = self.sources.session(target).tail(200)
        last_user = next((it for it in reversed(tail) if it.get("type") == "user"), None)
        if last_user is None:
            raise OkBotError(translate("runner", "there is no message to retry"))
        if reply_finished(tail[tail.index(last_user) + 1 :]):  # run again, it would answer its own reply
            raise FinishedTurn(
                translate(
                    "runner",
                    "the reply to message #{id} is already finished; retry runs a failed or stopped reply again",
                ).format(id=last_user["id"]),
                hint=translate("runner", "regenerate it for a new version of the reply"),
            )
        member = self._addressed(target, last_user)
        callbacks = callbacks or TurnCallbacks()
        self._close_dangling_calls(target, callbacks)
        self._before_run(target, None, callbacks)
        return self._run(target, last_user["id"], callbacks, cancel or CancelToken(), member)

    @_holds_its_server
    def edit(
        self,
        target: Target,
        item_id: int,
        text: str,
        *,
        callbacks: TurnCallbacks | None = None,
        cancel: CancelToken | None = None,
    ) -> TurnResult:
        """Send ``text`` as a new version of user message ``item_id`` and run its turn.

        The old message and everything after it stay on disk but leave the branch the chat follows
        (:mod:`okbot.core.session.branches`). Only messages in the uncompressed tail can be edited."""
        callbacks = callbacks or TurnCallbacks()
        self.sources.loaded_counter(target)
        tail = self._tail(target)  # read once: the refusals below, the files and where the version branches off
        parent = versions.edit_parent(tail, item_id)
        files = attached_files.records_of(tail.by_id[item_id])  # the new version keeps the message's files
        self._check_message(target, text, bool(files))
        member = direct_address(text, target, self.sources.workspace) if target.kind == "squad" else None
        self._close_dangling_calls(target, callbacks)
        session = self.sources.session(target)
        callbacks.on_item(
            session.append(
                branches.marker(
                    "edit",
                    parent,
                    translate("runner", "Message #{id} edited and sent again.").format(id=item_id),
                )
            )
        )
        self.sources.memory.prepare(target, text)
        user = session.append(user_message(text, files))
        callbacks.on_item(user)
        self._before_run(target, None, callbacks)
        return self._run(target, user["id"], callbacks, cancel or CancelToken(), member)

    @_holds_its_server
    def regenerate(
        self,
        target: Target,
        item_id: int,
        *,
        callbacks: TurnCallbacks | None = None,
        cancel: CancelToken | None = None,
    ) -> TurnResult:
        """Run the turn of the reply holding ``item_id`` (or of user message ``item_id``) again, as a new version."""
        callbacks = callbacks or TurnCallbacks()
        self.sources.loaded_counter(target)
        self._close_dangling_calls(target, callbacks)
        user = versions.regenerate_point(self._tail(target), item_id)
        member = self._addressed(target, user)
        text = translate("runner", "The reply to message #{id} regenerated.").format(id=user["id"])
        callbacks.on_item(self.sources.session(target).append(branches.marker("regenerate", user["id"], text)))
        self._before_run(target, None, callbacks)
        return self._run(target, user["id"], callbacks, cancel or CancelToken(), member)

    def switch_version(self, target: Target, item_id: int, index: int) -> dict[str, Any] | None:
        """Make version ``index`` (0-based) of the message or reply at ``item_id`` the one the chat follows.

        Appends one branch marker (None when that version is already current); nothing is sent."""
        summary, _ = self.sources.summary(target)
        return versions.switch(self.sources.session(target), summary, item_id, index)

    def chat_versions(self, target: Target) -> dict[int, Versions]:
        """The items of the uncompressed tail that have more than one version."""
        return self._tail(target).versions()

    def _addressed(self, target: Target, user: dict[str, Any]) -> Member | None:
        """The squad member the user's message ``user`` addresses directly ("@Ada …"), if any."""
        if target.kind != "squad" or user.get("source") != "user":
            return None
        return direct_address(user["content"], target, self.sources.workspace)

    def _tail(self, target: Target) -> versions.Tail:
        summary, _ = self.sources.summary(target)
        return versions.Tail(self.sources.session(target), summary)

    def _before_run(self, target: Target, text: str | None, callbacks: TurnCallbacks) -> None:
        """The compression hook: ``on_compressing`` when it makes the request wait, then its report."""
        if self._hook_reports_start:
            report = self.before_run(target, text, on_start=callbacks.on_compressing)
        else:
            report = self.before_run(target, text)
        if report is not None:
            callbacks.on_compressed(report)
        # staged persona and skill changes land at a boundary (or after waiting their turns), never one by one
        try:
            landed = self.sources.evolution.land_if_due(target)
        except OkBotError as exc:  # a read-only folder or a full disk: the changes stay staged, the turn goes on
            log.warning("staged persona and skill changes of %s not written: %s", target.name, exc)
            landed = []
        if landed:
            callbacks.on_evolved(landed)

    def _close_dangling_calls(self, target: Target, callbacks: TurnCallbacks) -> None:
        budget = self.sources.settings.get("tools.maxCallsPerTurn")
        for item in close_dangling_calls(self.sources.session(target), target, budget):
            callbacks.on_item(item)

    # -- the loop ---------------------------------------------------------------------------
    def _check_files(self, target: Target, sources: Sequence[Path]) -> list[attached_files.Prepared]:
        """The files read and checked; images only for a model that takes them (nothing is written)."""
        files = [attached_files.prepare(path) for path in sources]
        images = attached_files.needs_vision(f.record for f in files)
        model = self.sources.model_for(target)
        if images and not model_facts(model).vision:
            raise OkBotError(
                translate("runner", "{model} cannot read images; remove the image or pick a vision model").format(
                    model=model
                ),
                hint=translate("runner", "not sent: {files}").format(files=", ".join(images)),
            )
        return files

    def _check_message(self, target: Target, text: str, has_files: bool = False, file_tokens: int = 0) -> None:
        if not text.strip() and not has_files:
            raise OkBotError(translate("runner", "the message is empty"))
        if len(text) > MAX_USER_CHARS:
            raise OkBotError(
                translate(
                    "runner", "the message is {chars} characters; OkBot sends at most {limit} in one message"
                ).format(chars=f"{len(text):,}", limit=f"{MAX_USER_CHARS:,}"),
                hint=translate("runner", "attach it as a file or split it"),
            )
        window = self.sources.context_window(target)
        tokens = self.sources.counter(self.sources.model_for(target)).count_text(text) + file_tokens
        if tokens > window - reply_reserve(window):
            if file_tokens:
                why = translate(
                    "runner",
                    "the message with its files is about {tokens} tokens and cannot fit the model's "
                    "{window}-token window",
                )
            else:
                why = translate(
                    "runner", "the message is about {tokens} tokens and cannot fit the model's {window}-token window"
                )
            raise OkBotError(
                why.format(tokens=f"{tokens:,}", window=f"{window:,}"),
                hint=translate("runner", "attach less, shorten it or pick a model with a larger window"),
            )

    def _run(
        self, target: Target, user_id: int, callbacks: TurnCallbacks, cancel: CancelToken, member: Member | None = None
    ) -> TurnResult:
        session = self.sources.session(target)
        as_sent = self.as_sent(target)
        result = TurnResult(status="complete", user_id=user_id)
        settings = self.sources.settings
        budget = TurnBudget(settings.get("tools.maxCallsPerTurn"))
        runtime = TurnRuntime(
            self, target, callbacks, cancel, budget, seconds=settings.get("tools.turnSeconds"), clock=self.clock
        )

        def append(item: dict[str, Any]) -> dict[str, Any]:
            stored = session.append(item)
            result.items.append(stored)
            callbacks.on_item(stored)
            return stored

        told: set[str] = set()  # the quiet lines of the in-turn hook, each said once a turn

        def tell(text: str) -> None:
            if text not in told:
                told.add(text)
                append(notice(text, "info"))

        def fail(error: OkBotError) -> None:  # the turn ends before its request: one plain message
            append(new_item("assistant", author=target.id, source="app", content="", status="error", error=str(error)))
            result.status, result.error = "error", error

        self._prepare_mcp(target, cancel, append)
        if member is not None:  # direct address: the member answers, the captain stays out
            append(runtime.answer_directly(member, result))
            if cancel.cancelled and result.status == "complete":
                result.status = "interrupted"
            self.after_run(target, result)
            return result
        tools = self.sources.tools_for(target)
        max_rounds = (
            captain_settings(target)["maxCaptainRounds"]
            if target.kind == "squad"
            else self.sources.settings.get("tools.maxRounds")
        )
        # rounds 1..max_rounds may use tools; one last round without tools lets the model answer
        for round_no in range(1, max_rounds + 2):
            result.rounds = round_no
            proj = fit_round(self, target, user_id, round_no, callbacks, tell)
            if isinstance(proj, OkBotError):
                fail(proj)
                break
            offer_tools = round_no <= max_rounds and not runtime.spent
            tool_specs = tools.specs(self.sources.settings) if offer_tools else []
            sent = send_round(
                self, target, user_id, round_no, proj, tool_specs, callbacks, cancel, tell, result.degraded
            )
            if isinstance(sent, OkBotError):
                fail(sent)
                break
            proj, request_id, rnd = sent.projection, sent.request_id, sent.round
            usage = self._usage_dict(rnd.usage)
            result.usage = usage or result.usage
            text = "".join(rnd.text)
            author = target.id
            if cancel.cancelled or rnd.error is not None:
                status = "interrupted" if cancel.cancelled else "error"
                extra = {"error": str(rnd.error)} if rnd.error is not None and not cancel.cancelled else {}
                append(
                    new_item(
                        "assistant",
                        author=author,
                        source="app",
                        content=text,
                        status=status,
                        usage=usage,
                        **rnd.reasoning_fields(),
                        **extra,
                    )
                )
                record_usage(as_sent, request_id, usage, status)
                result.status, result.error = status, rnd.error
                break
            record_usage(as_sent, request_id, usage, "complete")
            self._calibrate(proj, rnd.usage)
            thought = rnd.reasoning_fields()
            if text or thought or not rnd.calls:
                append(
                    new_item(
                        "assistant",
                        author=author,
                        source="app",
                        content=text,
                        status="complete",
                        usage=usage,
                        **thought,
                    )
                )
            if not rnd.calls:
                break
            if not offer_tools:  # the model called tools it was not offered after the round limit
                append(
                    notice(
                        translate("runner", "Stopped after {limit}.").format(limit=_limit_reached(runtime, max_rounds)),
                        "warning",
                    )
                )
                break
            _tool_round(runtime, tools, rnd.calls, author, append)
            if cancel.cancelled:
                result.status = "interrupted"
                break
        self.after_run(target, result)
        return result

    def _prepare_mcp(self, target: Target, cancel: CancelToken, append: Callable[[dict[str, Any]], Any]) -> None:
        """Start the MCP servers this turn may use (first use), so their tools are offered; a server that
        cannot be used is said once in the chat (and stays listed, with why, in Settings → MCP servers)."""
        names = self.sources.mcp_servers_of(target)
        if not names:
            return
        hub = self.sources.mcp
        failed = hub.prepare(names, cancel)
        if cancel.cancelled:  # Stop while a server started: nothing to tell, the turn ends
            return
        for why in hub.news(failed):
            append(
                notice(
                    translate("runner", "{why} Its tools are not offered until it works again.").format(why=why),
                    "warning",
                )
            )
        for why in hub.fresh(self.sources.mcp_cuts(target)):
            append(notice(why, "warning"))

    def _calibrate(self, proj: ContextProjection, usage: UsageEvent | None) -> None:
        if usage is None or usage.estimated or not usage.prompt_tokens:
            return
        self.sources.calibration.record(proj.model, proj.total_tokens, usage.prompt_tokens)

    @staticmethod
    def _usage_dict(usage: UsageEvent | None) -> dict[str, Any] | None:
        if usage is None:
            return None
        return {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cached_tokens": usage.cached_tokens,
            "estimated": usage.estimated,
        }
