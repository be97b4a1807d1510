"""The turn runner: one request in (a message, a retry, an edit, a regeneration), the reply and any tool rounds
out, all written to disk.

One turn = read disk (through :class:`ContextSources`) -> compression before the run -> ``build_context``
-> stream -> tool loop -> wrap-up hook. Each round's request goes out through
:mod:`okbot.core.turn.rounds`: from round 2 on the compression's in-turn hook
(:meth:`okbot.core.compression.Compressor.within_turn`) makes it fit the window, and a server's refusal
as too long is answered once (the window learnt, the request fitted and sent again); what moved out is
said in the chat, and a request that cannot fit ends the turn with one plain message.

The user item is appended before the request goes out; the assistant item when the reply completes,
or -- stopped or broken -- with the partial text and status ``interrupted`` / ``error``, so nothing the
user saw is lost. The request the provider receives is exactly ``build_context(...).to_messages()``
(made to fit, see above).

The runner is synchronous and Qt-free, and outlives its turns (the application holds one); the UI runs it
on a worker thread and turns the callbacks into signals. ``cancel`` (a :class:`CancelToken`) may be set
from any thread.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from okbot.core import attachments as attached_files
from okbot.core import versions
from okbot.core.assent import AsSentStore
from okbot.core.context import reply_reserve
from okbot.core.items import new_item, notice, reply_finished, user_message
from okbot.core.projection import ContextProjection
from okbot.core.session import branches
from okbot.core.session.branches import Versions
from okbot.core.sources import ContextSources
from okbot.core.squad import Member, TurnBudget, captain_settings, direct_address
from okbot.core.tokens import model_facts
from okbot.core.tools import ToolRegistry
from okbot.core.turn.dangling import close_dangling_calls, dangling_calls
from okbot.core.turn.env import Compression, TurnEnv
from okbot.core.turn.outcome import FinishedTurn, TurnAbandoned, TurnCallbacks, TurnResult, noop
from okbot.core.turn.pending import PendingApprovals, PendingCall
from okbot.core.turn.request import Edit, Regenerate, Resume, Retry, Send, TurnRequest, is_job
from okbot.core.turn.rounds import fit_round, record_usage, send_round
from okbot.core.turn.runtime import TurnRuntime
from okbot.core.turn.stream import usage_fields
from okbot.core.turn.timing import COMPRESSION, PREPARING, TurnTiming
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.llm import slots
from okbot.llm.events import ToolCallDone, UsageEvent
from okbot.llm.provider import CancelToken, Provider
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.runner")

# Beyond this a pasted message is refused before anything is counted or written (≈ 250k tokens).
MAX_USER_CHARS = 1_000_000


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
    _run_recorded(runtime, tools, calls, author, append)


def _run_recorded(
    runtime: TurnRuntime,
    tools: ToolRegistry,
    calls: Sequence[ToolCallDone],
    author: str,
    append: Callable[[dict[str, Any]], Any],
) -> None:
    """Run recorded calls and record each one's result."""
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


def _appender(
    session: Any, result: TurnResult, callbacks: TurnCallbacks, timing: TurnTiming
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """How a turn writes an item: appended, kept in ``result``, told to ``callbacks``; each reply with where the
    time went since the turn began or the reply before (``timing``)."""

    def append(item: dict[str, Any]) -> dict[str, Any]:
        if item["type"] == "assistant":
            item["timing"] = timing.take()
        stored = session.append(item)
        result.items.append(stored)
        callbacks.on_item(stored)
        return stored

    return append


class TurnRunner:
    """Runs turns for any assistant or squad target against one provider; one runner serves every turn.

    ``compression`` folds older turns before a run and makes later rounds fit; ``after_run`` is told each
    turn's result (the application's wrap-up: the teaching card, memory extraction).
    """

    def __init__(
        self,
        sources: ContextSources,
        provider: Provider,
        *,
        compression: Compression | None = None,
        after_run: Callable[[Target, TurnResult], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.env = TurnEnv(sources, provider, compression, clock)
        self.after_run = after_run or noop

    @property
    def sources(self) -> ContextSources:
        return self.env.sources

    @property
    def provider(self) -> Provider:
        return self.env.provider

    def as_sent(self, target: Target) -> AsSentStore:
        return self.sources.as_sent(target)

    # -- the entry point --------------------------------------------------------------------
    def run(
        self,
        target: Target,
        request: TurnRequest,
        *,
        callbacks: TurnCallbacks | None = None,
        cancel: CancelToken | None = None,
        waited: float = 0.0,
    ) -> TurnResult:
        """Run the turn ``request`` asks for, as the user's chat (:func:`okbot.llm.slots.foreground`): every call
        it makes on this thread, the compression before the request included, goes first, and each server it
        reaches stays its own until the turn ends; a wait for another chat is told through ``callbacks.on_event``.

        The target is read afresh first: the MCP servers, model and persona settings the turn uses are those on
        disk now. A request that is refused (an empty or oversized message, an unknown version) raises
        :class:`OkBotError` with nothing written. ``waited``: the seconds it waited before it could start (the
        application's turn gate), counted in its first reply's timing."""
        callbacks = callbacks or TurnCallbacks()
        cancel = cancel or CancelToken()
        target = self.sources.workspace.current(target)
        priority = slots.Priority.JOB if is_job(request) else slots.Priority.CHAT
        with slots.foreground(priority, on_wait=callbacks.on_event) as scope:
            timing = TurnTiming(self.env.clock, scope.waited, waited=waited)  # where each reply's time went
            try:
                return self._dispatch(target, request, callbacks, cancel, timing)
            except TurnAbandoned:  # OkBot quits while a call waits for approval: it waits on disk
                log.info("turn of %s left waiting for an approval (OkBot quits)", target.name)
                return TurnResult(status="abandoned")

    def _dispatch(
        self, target: Target, request: TurnRequest, callbacks: TurnCallbacks, cancel: CancelToken, timing: TurnTiming
    ) -> TurnResult:
        if isinstance(request, Send):
            return self._send(target, request, callbacks, cancel, timing)
        if isinstance(request, Retry):
            return self._retry(target, callbacks, cancel, timing)
        if isinstance(request, Edit):
            return self._edit(target, request, callbacks, cancel, timing)
        if isinstance(request, Regenerate):
            return self._regenerate(target, request, callbacks, cancel, timing)
        if isinstance(request, Resume):
            return self._resume(target, callbacks, cancel, timing)
        raise TypeError(f"not a turn request: {request!r}")

    def _resume(self, target: Target, callbacks: TurnCallbacks, cancel: CancelToken, timing: TurnTiming) -> TurnResult:
        """Go on with the turn whose calls waited for approval when OkBot closed, now that each is answered:
        the calls run (or are refused), the model goes on from their results."""
        calls = self.waiting_calls(target)
        if not calls:
            raise OkBotError(translate("runner", "nothing in this chat waits for an approval"))
        if any(call.answer is None for call in calls):
            raise OkBotError(translate("runner", "a tool call still waits for your answer"))
        self._load_counter(target, timing)
        user_id = calls[0].user_id
        tail = self.sources.session(target).tail(200)
        user = next((it for it in tail if it.get("type") == "user" and it.get("id") == user_id), None)
        if user is None:
            raise OkBotError(translate("runner", "the message whose turn waited is no longer in the chat"))
        return self._run(target, user_id, callbacks, cancel, self._addressed(target, user), timing, calls)

    def waiting_calls(self, target: Target) -> list[PendingCall]:
        """The calls of ``target``'s open turn that wait for (or got) the user's answer while OkBot was closed."""
        return PendingApprovals(target.dir).calls()

    def answer_waiting(self, target: Target, call_id: str, approved: bool) -> bool:
        """Keep the user's answer to a call that waited across a restart; False when it no longer waits."""
        return PendingApprovals(target.dir).answer(call_id, approved)

    def _load_counter(self, target: Target, timing: TurnTiming) -> None:
        """Exact counts for the turn's decisions: waits (bounded; never on the GUI thread) for the tokenizer the
        first turn after start-up may still be loading, timed as preparing the request."""
        with timing.span(PREPARING):
            self.sources.loaded_counter(target)

    def _send(
        self, target: Target, request: Send, callbacks: TurnCallbacks, cancel: CancelToken, timing: TurnTiming
    ) -> TurnResult:
        """Append the user's message (with its attachments: files copied into the chat's folder) and run the
        turn. Refused messages write nothing."""
        text = request.text
        self._load_counter(target, timing)
        files = self._check_files(target, request.attachments)
        counter = self.sources.counter(self.sources.model_for(target))
        self._check_message(target, text, bool(files), sum(attached_files.prepared_tokens(counter, f) for f in files))
        # "@member …" in a squad: an unknown name is refused here, before anything is written or sent
        member = direct_address(text, target, self.sources.workspace) if target.is_squad else None
        self.close_dangling_calls(target, callbacks.on_item)
        self.sources.memory.prepare(target, text)  # a recall refresh due now ranks by this message too
        self._before_run(target, text, callbacks, timing)  # raises OkBotError when the request cannot fit at all
        records = [attached_files.save(f, target.dir) for f in files]
        user = self.sources.session(target).append(user_message(text, records, request.source))
        callbacks.on_item(user)
        return self._run(target, user["id"], callbacks, cancel, member, timing)

    def _retry(self, target: Target, callbacks: TurnCallbacks, cancel: CancelToken, timing: TurnTiming) -> TurnResult:
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
        self.close_dangling_calls(target, callbacks.on_item)
        self._before_run(target, None, callbacks, timing)
        return self._run(target, last_user["id"], callbacks, cancel, member, timing)

    def _edit(
        self, target: Target, request: Edit, callbacks: TurnCallbacks, cancel: CancelToken, timing: TurnTiming
    ) -> TurnResult:
        """Send the edit's text as a new version of its user message and run its turn.

        The old message and everything after it stay on disk but leave the branch the chat follows
        (:mod:`okbot.core.session.branches`). Only messages in the uncompressed tail can be edited."""
        item_id, text = request.item_id, request.text
        self._load_counter(target, timing)
        tail = self._tail(target)  # read once: the refusals below, the files and where the version branches off
        parent = versions.edit_parent(tail, item_id)
        files = attached_files.records_of(tail.by_id[item_id])  # the new version keeps the message's files
        self._check_message(target, text, bool(files))
        member = direct_address(text, target, self.sources.workspace) if target.is_squad else None
        self.close_dangling_calls(target, callbacks.on_item)
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
        self._before_run(target, None, callbacks, timing)
        return self._run(target, user["id"], callbacks, cancel, member, timing)

    def _regenerate(
        self, target: Target, request: Regenerate, callbacks: TurnCallbacks, cancel: CancelToken, timing: TurnTiming
    ) -> TurnResult:
        """Run the turn of the reply holding the request's item (or of that user message; the last reply when it
        names none) again, as a new version."""
        self._load_counter(target, timing)
        item_id = request.item_id if request.item_id is not None else self._last_user_id(target)
        self.close_dangling_calls(target, callbacks.on_item)
        user = versions.regenerate_point(self._tail(target), item_id)
        member = self._addressed(target, user)
        text = translate("runner", "The reply to message #{id} regenerated.").format(id=user["id"])
        callbacks.on_item(self.sources.session(target).append(branches.marker("regenerate", user["id"], text)))
        self._before_run(target, None, callbacks, timing)
        return self._run(target, user["id"], callbacks, cancel, member, timing)

    def _last_user_id(self, target: Target) -> int:
        last_user = next((it for it in reversed(self.sources.session(target).tail(200)) if it["type"] == "user"), None)
        if last_user is None:
            raise OkBotError(translate("runner", "there is no reply to regenerate"))
        return int(last_user["id"])

    # -- versions and leftovers -------------------------------------------------------------
    def switch_version(self, target: Target, item_id: int, index: int) -> dict[str, Any] | None:
        """Make version ``index`` (0-based) of the message or reply at ``item_id`` the one the chat follows.

        Appends one branch marker (None when that version is already current); nothing is sent."""
        summary, _ = self.sources.summary(target)
        return versions.switch(self.sources.session(target), summary, item_id, index)

    def chat_versions(self, target: Target) -> dict[int, Versions]:
        """The items of the uncompressed tail that have more than one version."""
        return self._tail(target).versions()

    def close_dangling_calls(
        self, target: Target, on_item: Callable[[dict[str, Any]], None] = noop, *, keep_waiting: bool = False
    ) -> list[dict[str, Any]]:
        """Give each tool call an earlier turn left without a result one now, saying so (each item told to
        ``on_item``); the chat page does it on open (``keep_waiting``: not the calls that wait for approval
        across a restart), every turn before it starts."""
        budget = self.sources.settings.get("tools.maxCallsPerTurn")
        added = close_dangling_calls(self.sources.session(target), target, budget, keep_waiting=keep_waiting)
        for item in added:
            on_item(item)
        return added

    def _addressed(self, target: Target, user: dict[str, Any]) -> Member | None:
        """The squad member the user's message ``user`` addresses directly ("@Ada …"), if any."""
        if not target.is_squad or user.get("source") != "user":
            return None
        return direct_address(user["content"], target, self.sources.workspace)

    def _tail(self, target: Target) -> versions.Tail:
        summary, _ = self.sources.summary(target)
        return versions.Tail(self.sources.session(target), summary)

    def _before_run(self, target: Target, text: str | None, callbacks: TurnCallbacks, timing: TurnTiming) -> None:
        """The compression before the run: ``on_compressing`` when it makes the request wait (timed from then on),
        then its report."""
        compression = self.env.compression
        report = None
        if compression is not None:  # checking the request fits is preparing it; a summarizer it waits for is not
            with timing.span(PREPARING), timing.on_demand(COMPRESSION) as begin:

                def started() -> None:
                    begin()
                    callbacks.on_compressing()

                report = compression.before_run(target, text, on_start=started)
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
        self,
        target: Target,
        user_id: int,
        callbacks: TurnCallbacks,
        cancel: CancelToken,
        member: Member | None,
        timing: TurnTiming,
        resume: Sequence[PendingCall] = (),
    ) -> TurnResult:
        session = self.sources.session(target)
        as_sent = self.as_sent(target)
        result = TurnResult(status="complete", user_id=user_id)
        settings = self.sources.settings
        budget = TurnBudget(settings.get("tools.maxCallsPerTurn"))
        runtime = TurnRuntime(
            self.env,
            target,
            callbacks,
            cancel,
            budget,
            user_id=user_id,
            seconds=settings.get("tools.turnSeconds"),
            timing=timing,
        )

        append = _appender(session, result, callbacks, timing)

        told: set[str] = set()  # the quiet lines of the in-turn hook, each said once a turn

        def tell(text: str) -> None:
            if text not in told:
                told.add(text)
                append(notice(text, "info"))

        def fail(error: OkBotError) -> None:  # the turn ends before its request: one plain message
            append(new_item("assistant", author=target.id, source="app", content="", status="error", error=str(error)))
            result.status, result.error = "error", error

        with timing.span(PREPARING):  # the MCP servers the chat uses start (once), their tools are listed
            self._prepare_mcp(target, cancel, append)
        resumed = self._resumed(runtime, resume)
        if member is not None:  # direct address: the member answers, the captain stays out
            append(runtime.answer_directly(member, result, resumed))
            if cancel.cancelled and result.status == "complete":
                result.status = "interrupted"
            self.after_run(target, result)
            return result
        with timing.span(PREPARING):
            tools = self.sources.tools_for(target)
        self._run_waiting(runtime, tools, bool(resume), append)
        max_rounds = (
            captain_settings(target)["maxCaptainRounds"]
            if target.is_squad
            else self.sources.settings.get("tools.maxRounds")
        )
        # rounds 1..max_rounds may use tools; one last round without tools lets the model answer
        for round_no in range(1, max_rounds + 2):
            result.rounds = round_no
            with timing.span(PREPARING):  # a summarizer it waits for counts as compression, inside
                proj = fit_round(self.env, target, user_id, round_no, callbacks, tell, timing)
                offer_tools = round_no <= max_rounds and not runtime.spent
                tool_specs = tools.specs(self.sources.settings) if offer_tools else []
            if isinstance(proj, OkBotError):
                fail(proj)
                break
            sent = send_round(
                self.env, target, user_id, round_no, proj, tool_specs, callbacks, cancel, tell, result.degraded, timing
            )
            if isinstance(sent, OkBotError):
                fail(sent)
                break
            proj, request_id, rnd = sent.projection, sent.request_id, sent.round
            usage = usage_fields(rnd.usage)
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

    @staticmethod
    def _resumed(runtime: TurnRuntime, resume: Sequence[PendingCall]) -> PendingCall | None:
        """Give ``runtime`` the answers of a resumed turn; the call a member asked directly made, if any."""
        if not resume:
            return None
        runtime.answers = {call.call_id: bool(call.answer) for call in resume}
        runtime.resumed = {call.parent: call for call in resume if call.parent}
        runtime.pending.clear()  # from here on they are the turn's own: asked again only if it asks again
        return next((call for call in resume if call.member and not call.parent), None)

    def _run_waiting(
        self, runtime: TurnRuntime, tools: ToolRegistry, resuming: bool, append: Callable[[dict[str, Any]], Any]
    ) -> None:
        """A resumed turn: the calls of the round that waited run (or are refused) now, as they would have then."""
        if not resuming:
            return
        target = runtime.target
        lookback = 2 * self.sources.settings.get("tools.maxCallsPerTurn") + 64
        open_calls = dangling_calls(self.sources.session(target).tail(lookback))
        asked = [ToolCallDone(c["call_id"], c.get("name", ""), c.get("arguments", "")) for c in open_calls]
        _run_recorded(runtime, tools, asked, target.id, append)

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
