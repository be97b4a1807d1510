"""The in-process fake provider: replies scripted in advance, every request recorded.

Tests use it in place of the real backend; it follows the same event contract as the real backend::

    provider = ScriptedProvider()
    provider.enqueue(["Hello ", "world"])                       # text deltas
    provider.enqueue([call("search_history", {"query": "x"})])  # one tool call
    provider.enqueue(["Hi", usage(120, 3, cached=100)])         # reported usage
    provider.enqueue([ProviderError("boom", kind="server")])    # a failure
    events = list(provider.stream(ChatRequest("m", messages)))
    provider.requests                                            # what it was asked

Each :meth:`ScriptedProvider.enqueue` is one reply. Plain strings become ``TextDelta``,
:func:`call` specs become ``ToolCallDelta`` + ``ToolCallDone``, :func:`usage` a reported
``UsageEvent``, :func:`pause` waits (cut short by a cancel), a ``ProviderError`` ends the reply
with ``ErrorEvent``, a ``Done`` ends it with that finish reason, and any other event object is
passed through. Missing usage is computed (four characters a token, reported as not
estimated) and ``Done`` is added with ``tool_calls`` or ``stop``.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from okbot.llm.errors import ProviderError
from okbot.llm.events import (
    Done,
    ErrorEvent,
    Event,
    TextDelta,
    ToolCallDelta,
    ToolCallDone,
    UsageEvent,
)
from okbot.llm.provider import (
    CancelToken,
    ChatRequest,
    ToolCallAssembler,
)


@dataclass(frozen=True)
class CallSpec:
    """A scripted tool call (see :func:`call`)."""

    name: str
    arguments: str
    call_id: str | None = None


@dataclass(frozen=True)
class UsageSpec:
    """Scripted reported usage (see :func:`usage`)."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int | None = None


@dataclass(frozen=True)
class PauseSpec:
    """A scripted wait in seconds (see :func:`pause`)."""

    seconds: float


def call(name: str, arguments: dict | str | None = None, call_id: str | None = None) -> CallSpec:
    """A tool call in a script; a dict is JSON-encoded, a string is sent as is."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return CallSpec(name, text, call_id)


def usage(prompt_tokens: int, completion_tokens: int, cached: int | None = None) -> UsageSpec:
    """Usage the scripted "server" reports for this reply."""
    return UsageSpec(prompt_tokens, completion_tokens, cached)


def pause(seconds: float) -> PauseSpec:
    """Wait ``seconds`` at this point of the reply (a cancel ends the wait at once)."""
    return PauseSpec(seconds)


Spec = str | CallSpec | UsageSpec | PauseSpec | ProviderError | Event
ReplyFactory = Callable[[ChatRequest], Sequence[Spec]]


def echo(request: ChatRequest) -> list[Spec]:
    """A default reply: ``ok: <the last user message, first 40 characters>``."""
    for message in reversed(request.messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return [f"ok: {content[:40] if isinstance(content, str) else ''}"]
    return ["ok"]


class ScriptedProvider:
    """A :class:`~okbot.llm.provider.Provider` that plays queued scripts and records requests.

    With an empty queue it uses ``default`` (a function of the request); without one it
    raises ``RuntimeError`` — an unscripted request is a bug in the test. ``refused`` names the
    request parameters the scripted server is known to refuse (see :meth:`refuses`).
    """

    def __init__(
        self,
        *,
        models: Iterable[str] = ("gpt-4o-mini", "fake-small"),
        default: ReplyFactory | None = None,
        refused: Iterable[str] = (),
    ) -> None:
        self.requests: list[ChatRequest] = []
        self.refused = set(refused)
        self.models = list(models)
        self.default = default
        self._queue: deque[list[Spec]] = deque()
        self._lock = threading.Lock()

    def enqueue(self, *replies: Sequence[Spec]) -> None:
        """Queue one script per argument; each request plays the oldest."""
        with self._lock:
            for reply in replies:
                if isinstance(reply, (str, bytes)):
                    raise TypeError("enqueue takes a list of specs per reply, e.g. enqueue(['hello'])")
                self._queue.append(list(reply))

    @property
    def pending(self) -> int:
        """How many scripted replies are still queued."""
        with self._lock:
            return len(self._queue)

    def _next(self, request: ChatRequest) -> list[Spec]:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        if self.default is None:
            raise RuntimeError(f"ScriptedProvider: no reply enqueued for request #{len(self.requests)}")
        return list(self.default(request))

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        """Play the next script as events, stopping with ``Done("cancelled")`` on cancel."""
        cancel = cancel or CancelToken()
        script = self._next(request)
        return self._play(request, script, cancel)

    def _play(self, request: ChatRequest, script: list[Spec], cancel: CancelToken) -> Iterator[Event]:
        """The events of one script: its specs in order, then the assembled calls, usage and ``Done``.

        A cancel (before a spec, during a pause, or by the end) ends it with ``Done("cancelled")``;
        a scripted error ends it with that ``ErrorEvent``; a scripted ``Done`` stops the specs early.
        """
        reply = _Reply()
        for spec in script:
            if cancel.cancelled:
                yield Done("cancelled")
                return
            if isinstance(spec, PauseSpec):
                if cancel.wait(spec.seconds):
                    yield Done("cancelled")
                    return
            elif isinstance(spec, (ProviderError, ErrorEvent)):
                yield spec if isinstance(spec, ErrorEvent) else ErrorEvent(spec)
                return
            elif isinstance(spec, Done):  # the end, with this finish reason (usage still comes first)
                reply.finish = spec.finish_reason
                break
            else:
                yield from _spec_events(spec, reply)
        if cancel.cancelled:
            yield Done("cancelled")
            return
        yield from _ending(request, reply)

    def complete(self, request: ChatRequest, cancel: CancelToken | None = None) -> str:
        """The scripted reply's text; a scripted error is raised as ``ProviderError``."""
        parts = []
        for event in self.stream(request, cancel):
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, ErrorEvent):
                raise event.error
            elif isinstance(event, Done) and event.finish_reason == "cancelled":
                raise ProviderError("The request was cancelled.", kind="cancelled")
        return "".join(parts)

    @property
    def local(self) -> bool:
        """A scripted provider stands in for a hosted server."""
        return False

    def refuses(self, model: str, parameter: str) -> bool:
        """Whether ``parameter`` is among the scripted ``refused`` ones (for every model)."""
        return parameter in self.refused

    def list_models(self) -> list[str]:
        """The configured model ids, sorted."""
        return sorted(self.models)


@dataclass
class _Reply:
    """What a playing script has produced so far (see :meth:`ScriptedProvider._play`)."""

    tools: ToolCallAssembler = field(default_factory=ToolCallAssembler)
    text: str = ""
    reported: UsageEvent | None = None
    finish: str | None = None


def _spec_events(spec: Spec, reply: _Reply) -> Iterator[Event]:
    """The events of one spec that neither waits nor ends the reply, noting its text, calls and usage in ``reply``."""
    if isinstance(spec, str):
        reply.text += spec
        yield TextDelta(spec)
    elif isinstance(spec, CallSpec):
        index = len(reply.tools)
        yield reply.tools.add(index, spec.call_id, spec.name, "")
        yield reply.tools.add(index, None, None, spec.arguments)
    elif isinstance(spec, UsageSpec):
        reply.reported = UsageEvent(spec.prompt_tokens, spec.completion_tokens, spec.cached_tokens, False)
    elif isinstance(spec, UsageEvent):
        reply.reported = spec
    elif isinstance(spec, TextDelta):
        reply.text += spec.text
        yield spec
    elif isinstance(spec, ToolCallDelta):
        yield reply.tools.add(spec.index, spec.call_id, spec.name, spec.arguments)
    else:
        yield spec  # ToolCallDone, Degraded, Retrying: passed through as scripted


def _ending(request: ChatRequest, reply: _Reply) -> Iterator[Event]:
    """The end of a played reply: the assembled tool calls, the usage (reported or estimated), then ``Done``."""
    produced = reply.text
    calls = reply.tools.calls()
    for done in calls:
        produced += done.name + done.arguments
        yield done
    if reply.reported is not None:
        yield reply.reported
    else:
        yield UsageEvent(_quarter(json.dumps(request.messages, default=str)), _quarter(produced), None, False)
    yield Done(reply.finish or ("tool_calls" if calls else "stop"))


def collect(events: Iterable[Event]) -> dict[str, Any]:
    """Summarise a finished stream: text, tool calls, usage and the terminal event (for tests and the CLI)."""
    out: dict[str, Any] = {"text": "", "tool_calls": [], "usage": None, "end": None, "events": []}
    for event in events:
        out["events"].append(event)
        if isinstance(event, TextDelta):
            out["text"] += event.text
        elif isinstance(event, ToolCallDone):
            out["tool_calls"].append(event)
        elif isinstance(event, UsageEvent):
            out["usage"] = event
        elif isinstance(event, (Done, ErrorEvent)):
            out["end"] = event
    return out


def _quarter(text: str) -> int:
    """What the script reports as the server's count: a quarter of the characters, rounded up."""
    return -(-len(text) // 4)
