"""One turn's running state: the shared tool budget, tool execution (in parallel where allowed), and
squad members at work — asked by the captain, or addressed directly by the user.

A member works in rounds of its own (its tools, ``maxMemberRounds``) on a request built by
``build_context(squad, member=…)``. Its own tool rounds stay inside its run; what reaches the
squad's record is its answer, with the member as the speaker. A member that fails or is stopped
still hands back what it said, with a clear note, so the captain can answer anyway.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from okbot.core.context import build_context
from okbot.core.items import member_source, new_item, with_app_note
from okbot.core.messages import source_label
from okbot.core.squad import Member, TurnBudget, captain_settings
from okbot.core.tools import ToolContext, ToolOutcome, ToolRegistry, parse_arguments
from okbot.core.turn.env import TurnEnv
from okbot.core.turn.outcome import TurnAbandoned, TurnCallbacks, TurnResult
from okbot.core.turn.pending import PendingApprovals, PendingCall
from okbot.core.turn.rounds import record_usage
from okbot.core.turn.stream import Round, own_count, stream_round, usage_fields
from okbot.core.turn.timing import APPROVAL, TOOL, TurnTiming
from okbot.core.workspace import Target
from okbot.llm import slots
from okbot.llm.events import ToolCallDone
from okbot.llm.provider import CancelToken, ChatRequest
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.runner")

MAX_PARALLEL = 4  # members asked in one round that work at the same time


@dataclass(frozen=True)
class MemberActivity:
    """A squad member started or finished working (``state``: working | done | failed | stopped)."""

    member: str
    name: str
    state: str
    task: str = ""


@dataclass(frozen=True)
class ToolProgress:
    """A running tool's progress line (e.g. output so far of a shell command), for the UI."""

    tool: str
    call_id: str
    text: str


class TurnRuntime:
    """The state one turn shares between the captain (or assistant) and the members it asks."""

    def __init__(
        self,
        env: TurnEnv,
        target: Target,
        callbacks: TurnCallbacks,
        cancel: CancelToken,
        budget: TurnBudget,
        *,
        user_id: int | None = None,
        seconds: float = float("inf"),
        timing: TurnTiming | None = None,
    ) -> None:
        self.env = env
        self.timing = timing or TurnTiming(env.clock)  # where the turn's time goes (its tool calls, its waits)
        self.user_id = user_id  # the message the turn answers: a member's requests are recorded under it
        self.sources = env.sources
        self.target = target
        self.callbacks = callbacks
        self.cancel = cancel
        self.budget = budget
        self.seconds = seconds
        self._clock = env.clock
        self._deadline = env.clock() + seconds
        self.pending = PendingApprovals(target.dir)  # the calls that wait for an answer, kept across a restart
        self.answers: dict[str, bool] = {}  # answers given while OkBot was closed, by call id (a resumed turn)
        self.resumed: dict[str, PendingCall] = {}  # a member's answered call, by the captain's call that asked it

    def remaining_seconds(self) -> float:
        """Time left in this turn's tool-time budget (a tool caps its own timeout with it)."""
        return max(0.0, self._deadline - self._clock())

    @property
    def spent(self) -> bool:
        """No more tools this turn: the call budget or the time budget is used up."""
        return self.budget.spent or self.remaining_seconds() <= 0

    # -- tools ------------------------------------------------------------------------------
    def run_tools(self, tools: ToolRegistry, calls: Sequence[ToolCallDone]) -> list[ToolOutcome]:
        """Run one round's calls, in order; calls of parallel tools (asking members) run together."""
        if len(calls) > 1 and all((t := tools.get(c.name)) is not None and t.parallel for c in calls):
            workers = min(MAX_PARALLEL, len(calls))
            together = ", ".join(dict.fromkeys(c.name for c in calls))  # timed as one: they overlap
            with (
                self.timing.span(TOOL, together),
                ThreadPoolExecutor(max_workers=workers, thread_name_prefix="okbot-member") as pool,
            ):
                return list(pool.map(slots.carry(lambda c: self.run_tool(tools, c)), calls))  # the turn's slots
        return [self.run_tool(tools, call) for call in calls]

    def run_tool(
        self, tools: ToolRegistry, call: ToolCallDone, target: Target | None = None, parent: str | None = None
    ) -> ToolOutcome:
        """One call: offered? valid arguments? approved? within the turn's budget? then run it (timed as a
        ``tool`` span of the turn; a wait for the user's approval apart).

        ``target``: the squad member making the call, asked by the captain's call ``parent``."""
        with self.timing.span(TOOL, call.name):
            return self._run_tool(tools, call, target, parent)

    def _run_tool(
        self, tools: ToolRegistry, call: ToolCallDone, target: Target | None, parent: str | None
    ) -> ToolOutcome:
        settings = self.sources.settings
        tool = tools.get(call.name)
        if tool is None or tool not in tools.offered(settings):
            return ToolOutcome(f"There is no tool named {call.name!r} available in this turn.", ok=False)
        if self.cancel.cancelled:
            return ToolOutcome(f"{call.name} was not run: the user stopped the turn.", ok=False)
        try:
            args = parse_arguments(call.arguments)
        except ValueError as exc:
            return ToolOutcome(f"{call.name}: {exc}. Call it again with valid JSON arguments.", ok=False)
        if tools.approval(tool, settings) == "ask":
            approved = self._approval(call, args, target, parent)
            if not approved or self.cancel.cancelled:  # an answer that came after Stop changes nothing
                return ToolOutcome(f"The user did not approve this {call.name} call.", ok=False)
        if self.remaining_seconds() <= 0:
            return ToolOutcome(
                f"{call.name} was not run: this turn's tool time ({self.seconds:.0f} s) is used up. "
                "Answer with what you have.",
                ok=False,
            )
        if not self.budget.take():
            return ToolOutcome(
                f"{call.name} was not run: this turn's tool budget ({self.budget.limit} calls) is spent. "
                "Answer with what you have.",
                ok=False,
            )
        context = ToolContext(
            target=target or self.target,
            session=self.sources.session(self.target),
            runtime=self if target is None else None,  # members cannot ask members
            call_id=call.call_id,
            cancel=self.cancel,
            seconds_left=self.remaining_seconds(),
        )
        try:
            return tool.run(args, context)
        except TurnAbandoned:
            raise
        except OkBotError as exc:
            return ToolOutcome(f"{call.name} failed: {exc}", ok=False)
        except Exception as exc:  # a bug in one tool ends that call, never the turn or its record
            log.exception("tool %s crashed", call.name)
            return ToolOutcome(f"{call.name} failed with an internal error ({type(exc).__name__}: {exc})", ok=False)

    def _approval(self, call: ToolCallDone, args: dict[str, Any], member: Target | None, parent: str | None) -> bool:
        """The user's answer about ``call``: given while OkBot was closed, or asked now. While the card is shown
        the call is kept on disk, so quitting OkBot leaves it waiting (:class:`TurnAbandoned`), not refused."""
        if call.call_id in self.answers:
            return self.answers.pop(call.call_id)
        ask = self.callbacks.ask_approval
        if ask is None:
            return False
        kept = PendingCall(
            call.call_id, call.name, call.arguments, self.user_id or 0, member.id if member else None, parent
        )
        try:
            self.pending.add(kept)
        except OkBotError as exc:  # the card still asks; only a restart would lose the call
            log.warning("the %s call is not kept for a restart: %s", call.name, exc)
        with self.timing.span(APPROVAL):
            approved = bool(ask(call.name, args))
        if self.cancel.abandoned:
            raise TurnAbandoned(call.call_id)
        try:
            self.pending.remove(call.call_id)
        except OkBotError as exc:
            log.warning("the answered %s call is still kept: %s", call.name, exc)
        return approved

    def approve(self, tool_name: str, args: dict[str, Any], reason: str) -> bool:
        """Ask the user about one call that needs it even when the tool is allowed (e.g. a path outside
        the workspace); ``reason`` is shown with the arguments. ``False`` when nobody can answer."""
        ask = self.callbacks.ask_approval
        if ask is None or self.cancel.cancelled:
            return False
        with self.timing.span(APPROVAL):
            approved = bool(ask(tool_name, {**args, "reason": reason}))
        if self.cancel.abandoned:  # not kept: the call is closed with its note on the next start
            raise TurnAbandoned(tool_name)
        return approved and not self.cancel.cancelled

    def progress(self, tool_name: str, call_id: str, text: str) -> None:
        """Report a running tool's progress (shown on its row)."""
        self.callbacks.on_event(ToolProgress(tool_name, call_id, text))

    # -- members ----------------------------------------------------------------------------
    def run_member(self, member: Member, call_id: str) -> ToolOutcome:
        """The captain's call ``call_id`` asked ``member``: its answer, as the call's result."""
        task = self._task_of(call_id)
        text, ok, note, _thought = self._work(
            member, call_id=call_id, task=task, on_delta=lambda _d: None, resumed=self.resumed.pop(call_id, None)
        )
        content = with_app_note(text.strip(), note) if note else text.strip()
        return ToolOutcome(content, ok=ok, author=member.target.id, source=member_source(member.target.id))

    def answer_directly(self, member: Member, result: TurnResult, resumed: PendingCall | None = None) -> dict[str, Any]:
        """The user addressed ``member`` with ``@``: its reply, streamed to the user, as an assistant item
        (``resumed``: the call it made before OkBot closed, answered since)."""
        text, ok, note, thought = self._work(
            member, call_id=None, task="", on_delta=self.callbacks.on_delta, resumed=resumed
        )
        status = "complete" if ok else ("interrupted" if self.cancel.cancelled else "error")
        extra = {"error": note} if status == "error" else {}
        if status != "complete":
            result.status = status
            result.error = OkBotError(note) if status == "error" else None
        source = member_source(member.target.id)
        return new_item(
            "assistant", author=member.target.id, source=source, content=text, status=status, **thought, **extra
        )

    def _work(
        self,
        member: Member,
        *,
        call_id: str | None,
        task: str,
        on_delta: Callable[[str], None],
        resumed: PendingCall | None = None,
    ) -> tuple[str, bool, str, dict[str, Any]]:
        """Run ``member``'s rounds; ``(everything it said, ok, note for the reader or "", its reasoning fields)``.

        Its reasoning streams to the user only when its words do (addressed directly). ``resumed``: the call it
        made before OkBot closed, answered since: it runs (or is refused) first and the member goes on from it."""
        squad, who = self.target, member.target
        self.callbacks.on_event(MemberActivity(who.id, who.name, "working", task))
        try:
            proj = build_context(squad, sources=self.sources, member=who.id, call_id=call_id)
        except OkBotError as exc:
            self.callbacks.on_event(MemberActivity(who.id, who.name, "failed", task))
            return "", False, f"{who.name} could not start: {exc}", {}
        messages = proj.to_messages()
        chat_part = len(messages)  # what follows is the member's own tool rounds (not in the chat's record)
        as_sent = self.sources.as_sent(squad)
        tools = self.sources.tools_for(who)
        max_rounds = captain_settings(squad)["maxMemberRounds"]
        said: list[str] = []
        thought = Round()  # every round's reasoning, for the item of a direct answer
        on_reasoning = self.callbacks.on_event if call_id is None else None
        note, ok = "", True
        if resumed is not None:
            self._run_calls(
                tools, [ToolCallDone(resumed.call_id, resumed.tool, resumed.arguments)], messages, who, call_id
            )
        for round_no in range(1, max_rounds + 2):
            offer = round_no <= max_rounds and not self.spent
            specs = tools.specs(self.sources.settings) if offer else []
            request = ChatRequest(model=self.sources.model_for(who), messages=messages, tools=specs or None)
            try:  # recorded as sent, as the captain's requests are (View context → As sent, the member's seat)
                request_id = as_sent.record(
                    proj,
                    user_id=self.user_id,
                    tools=[spec["function"]["name"] for spec in specs],
                    round_no=round_no,
                    own=messages[chat_part:],
                )
            except OkBotError as exc:  # nothing is sent that View context could not show as sent
                note, ok = f"{who.name} was not asked: the as-sent record could not be written ({exc})", False
                break
            rnd = stream_round(
                self.env.provider,
                request,
                self.cancel,
                on_delta,
                self.callbacks.on_event,
                [],
                own_count(proj, messages[chat_part:]),
                on_reasoning=on_reasoning,
                clock=self._clock,
                timing=self.timing if call_id is None else None,  # addressed directly: the reply's own rounds
            )
            status = "interrupted" if self.cancel.cancelled else ("error" if rnd.error is not None else "complete")
            record_usage(as_sent, request_id, usage_fields(rnd.usage), status)
            text = "".join(rnd.text)
            said.append(text)
            thought.reasoning += rnd.reasoning
            thought.reasoning_seconds += rnd.reasoning_seconds
            if self.cancel.cancelled:
                note, ok = f"{who.name} was stopped by the user", False
                break
            if rnd.error is not None:
                # the captain reads this: English whatever the UI's language (a ProviderError keeps both)
                note, ok = f"{who.name} failed: {getattr(rnd.error, 'english', '') or rnd.error}", False
                break
            if not rnd.calls:
                break
            if not offer:
                note = f"{who.name} reached its limit of {max_rounds} tool rounds"
                break
            self._run_calls(tools, rnd.calls, messages, who, call_id, text)
        answer = "\n\n".join(t for t in said if t.strip())
        if ok and not answer.strip():
            note, ok = f"{who.name} returned no answer", False
        state = "done" if ok else ("stopped" if self.cancel.cancelled else "failed")
        self.callbacks.on_event(MemberActivity(who.id, who.name, state, task))
        return answer, ok, note, thought.reasoning_fields()

    def _run_calls(
        self,
        tools: ToolRegistry,
        calls: Sequence[ToolCallDone],
        messages: list[dict[str, Any]],
        who: Target,
        parent: str | None,
        text: str = "",
    ) -> None:
        """A member's calls of one round and their results, added to its own messages."""
        messages.append(_calls_message(text, calls))
        for call in calls:
            outcome = self.run_tool(tools, call, target=who, parent=parent)
            result = {
                "type": "tool_result",
                "name": call.name,
                "call_id": call.call_id,
                "ok": outcome.ok,
                "source": outcome.source or "tool",  # an MCP server's result is labelled with its server
            }
            content = f"{source_label(result)}\n{outcome.content}"
            messages.append({"role": "tool", "tool_call_id": call.call_id, "content": content})

    def _task_of(self, call_id: str) -> str:
        for item in reversed(self.sources.session(self.target).tail(64)):
            if item.get("type") == "tool_call" and item.get("call_id") == call_id:
                try:
                    return str(parse_arguments(item.get("arguments", "")).get("task", ""))
                except ValueError:
                    return ""
        return ""


def _calls_message(text: str, calls: Sequence[ToolCallDone]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": text,  # "" rather than null, as in items_to_messages
        "tool_calls": [
            {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ],
    }
