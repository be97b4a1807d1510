"""The one real backend: the openai SDK against any OpenAI-compatible base URL.

The SDK's own retries are off; :class:`OpenAIProvider` retries itself so that ``Retry-After``
is honoured, every wait is visible as a ``Retrying`` event, and nothing is retried once the
user has seen part of the reply. Capabilities a server lacks (usage while streaming, tools)
are dropped once per ``(base_url, model)`` and reported as ``Degraded`` events.

Request parameters follow the model's family (:mod:`okbot.llm.families`, data in
``resources/models.json``): reasoning models get ``max_completion_tokens`` with headroom for their
hidden reasoning, no temperature, and the least ``reasoning_effort`` for the app's own calls. A
server's 400 naming a parameter (``max_tokens``, ``temperature``, ``reasoning_effort``,
``response_format``) is learnt the same way: asked again at once without it, remembered for the
process (providers are built fresh per turn; what a server refuses does not change that often).

Stopping: every request's socket is captured (httpcore's ``trace`` extension) so that a
cancel from another thread can shut it down, which wakes a read blocked in the SDK at once —
before the first byte as well as mid-stream. Connections are therefore not kept alive
between requests (a reused connection would not be seen again); one TCP/TLS handshake per
model request is small next to a model's reply time.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import openai

from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.llm.capabilities import Capabilities, CapabilityMemory
from okbot.llm.errors import (
    MalformedReply,
    NoAnswer,
    NoKey,
    ProviderError,
    ReplyTooLarge,
    ReplyTooLong,
    StreamCut,
    classify,
)
from okbot.llm.events import (
    Degraded,
    Done,
    ErrorEvent,
    Event,
    ReasoningDelta,
    Retrying,
    TextDelta,
    ToolCallDelta,
    UsageEvent,
)
from okbot.llm.families import learnt_headroom
from okbot.llm.keys import redact
from okbot.llm.provider import (
    TOOL_TEXT_HEAD,
    CancelToken,
    ChatRequest,
    ToolCallAssembler,
    could_be_tool_text,
    parse_tool_text,
    tool_names,
    trailing_tool_text,
    whole_characters,
)
from okbot.llm.slots import key_identity
from okbot.llm.think import ThinkSplitter, split_think
from okbot.storage.redaction import redact_url

try:  # openai >= 3 ships httpx2; older releases use httpx
    import httpx2 as httpx  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the installed SDK
    import httpx  # type: ignore[no-redef]

log = logging.getLogger("okbot.llm")

BACKOFF_BASE = 0.5
BACKOFF_CAP = 20.0
RETRY_AFTER_CAP = 60.0
MAX_REPLY_CHARS = 2_000_000  # a reply past this is a model looping, not an answer (~500k tokens)
CONNECT_TIMEOUT = 10.0

DEGRADED_STREAM_OPTIONS = QT_TRANSLATE_NOOP(
    "openai_backend", "this server does not report usage while streaming; token use is estimated"
)
DEGRADED_TOOLS = QT_TRANSLATE_NOOP("openai_backend", "this model cannot call tools; running without them")
DEGRADED_USAGE = QT_TRANSLATE_NOOP(
    "openai_backend", "the server did not report token use for this reply; it is estimated"
)
DEGRADED_TOOL_TEXT = QT_TRANSLATE_NOOP(
    "openai_backend", "the model wrote its tool calls as text; OkBot read them as tool calls"
)

_TRANSPORT_ERRORS = (httpx.TransportError,)
# words of a 400 that refuses a parameter by name (OpenAI: "Unsupported parameter/value ... not supported")
_REFUSED = (
    "unsupported",
    "not supported",
    "does not support",
    "unrecognized",
    "unknown",
    "not allowed",
    "not permitted",
)


def _response_format(wanted: dict[str, Any], caps: Capabilities) -> dict[str, Any]:
    """``wanted`` as this server takes it (a json_schema as llama-cpp-python's schema-bearing json_object)."""
    if caps.schema_as_json_object and wanted.get("type") == "json_schema":
        schema = (wanted.get("json_schema") or {}).get("schema")
        return {"type": "json_object", **({"schema": schema} if schema else {})}
    return wanted


class _Wire:
    """The sockets of one request, so another thread can shut them down (cancel or overlong reply)."""

    def __init__(self, cancel: CancelToken, max_seconds: float) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.closed = False
        self.expired = False
        self._unregister = cancel.on_cancel(self.close)
        self._guard = threading.Timer(max_seconds, self.expire)
        self._guard.daemon = True
        self._guard.start()

    def release(self) -> None:
        """The request is over: stop the duration guard and forget the cancel callback."""
        self._guard.cancel()
        self._unregister()

    def trace(self, name: str, info: dict[str, Any]) -> None:
        """httpcore ``trace`` callback: remember each socket the request connects."""
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                with self._lock:
                    self._sockets.append(sock)
                    closed = self.closed
                if closed:
                    _shutdown(sock)

    def close(self) -> None:
        """Shut every socket down; a read blocked on one returns at once."""
        with self._lock:
            self.closed = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shutdown(sock)

    def expire(self) -> None:
        """The total-duration guard fired."""
        self.expired = True
        self.close()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except (OSError, ValueError):
        pass  # already closed


@dataclass
class _Reply:
    """What one attempt produced so far."""

    text: str = ""
    reasoning: str = ""  # reasoning_content / reasoning deltas and an inline <think> block
    think: ThinkSplitter = field(default_factory=ThinkSplitter)
    held: str = ""  # text kept back while it may still turn out to be tool calls written as text
    tools: ToolCallAssembler = field(default_factory=ToolCallAssembler)
    finish_reason: str | None = None
    usage: UsageEvent | None = None
    chunks: int = 0
    size: int = 0  # characters of text and tool-call arguments received
    split_surrogate: str = ""  # a high surrogate whose low half may come in the next chunk


def _end_split_surrogate(reply: _Reply) -> None:
    """The stream is over: a high surrogate still waiting for its low half becomes U+FFFD, held as text."""
    if reply.split_surrogate:
        reply.held += whole_characters(reply.split_surrogate)
        reply.split_surrogate = ""


class OpenAIProvider:
    """A :class:`~okbot.llm.provider.Provider` over the openai SDK (any OpenAI-compatible URL).

    ``sleep`` is how retry waits happen (inject a recorder in tests); with the default the wait
    is cut short by a cancel. Where the server reports no usage, the :class:`UsageEvent` says so
    (``estimated``, no figures): the core counts the request with its own tokenizer.
    ``max_reply_seconds`` bounds one reply's total duration. ``capabilities`` remembers what servers
    refused; the provider pool (:mod:`okbot.llm.providers`) hands every backend it builds its own.
    With ``key_required`` and no ``api_key`` every call fails at once with "No API key for <host>"
    (kind ``no_key``), before anything is sent.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout: float = 60,
        max_retries: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        max_reply_seconds: float = 600,
        max_reply_chars: int = MAX_REPLY_CHARS,
        default_model: str | None = None,
        capabilities: CapabilityMemory | None = None,
        key_required: bool = False,
        key_var: str = "",
    ) -> None:
        self.base_url = base_url
        self._shown_url = _without_credentials(base_url, api_key)
        self.default_model = default_model
        self._key = api_key or None
        self._no_key = key_required and self._key is None
        self._key_var = key_var
        self._max_retries = max(0, int(max_retries))
        self._sleep = sleep
        self._max_reply_seconds = max_reply_seconds
        self._max_reply_chars = max_reply_chars
        self._capabilities = capabilities if capabilities is not None else CapabilityMemory()
        self._local = threading.local()
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=0)
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout)),
            limits=limits,
            follow_redirects=True,
            event_hooks={"request": [self._on_http_request]},
        )
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            max_retries=0,
            timeout=httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout)),
            http_client=self._http,
        )

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIProvider(base_url={self._shown_url!r}, key={'set' if self._key else 'none'})"

    def close(self) -> None:
        """Release the HTTP client."""
        self._client.close()

    def __enter__(self) -> OpenAIProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ plumbing

    def _on_http_request(self, request: Any) -> None:
        wire = getattr(self._local, "wire", None)
        if wire is not None:
            request.extensions = {**request.extensions, "trace": wire.trace}

    def _caps(self, model: str) -> Capabilities:
        return self._capabilities.get(self.base_url, model)

    @property
    def server_identity(self) -> tuple[str, str]:
        """``(base URL, key identity)``: which server's slots this backend's requests take (never the key)."""
        return (self.base_url, key_identity(self._key))

    @property
    def shown_url(self) -> str:
        """The base URL fit for logs (no user:password part, no key)."""
        return self._shown_url

    @property
    def local(self) -> bool:
        """Whether the base URL names this machine (a llama.cpp, Ollama or LM Studio server here)."""
        host = (urlsplit(self.base_url).hostname or "").lower()
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    def refuses(self, model: str, parameter: str) -> bool:
        """Whether this server is known to refuse ``parameter`` for ``model`` (learnt from a 400, or its family).

        ``parameter`` is a request field (``response_format``, ``temperature``, ``tools``, ``max_tokens``,
        ``stream_options``). A caller can, for instance, ask for JSON edits in the prompt alone
        once ``response_format`` is refused.
        """
        caps = self._caps(model)
        refused = {
            "response_format": not caps.response_format,
            "temperature": not caps.temperature,
            "tools": not caps.tools,
            "max_tokens": caps.token_limit != "max_tokens",
            "stream_options": not caps.stream_options,
        }
        return refused.get(parameter, False)

    def _classify(self, exc: BaseException, model: str) -> ProviderError:
        return classify(exc, model=model, secrets=(self._key,))

    def _no_key_error(self) -> ProviderError | None:
        """The "No API key" error when this server needs a key and none is set, else None."""
        if not self._no_key:
            return None
        error = classify(NoKey(self._shown_url, self._key_var))
        log.warning("model request not sent: %s", error.message)
        return error

    def _delay(self, error: ProviderError, failures: int) -> float:
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), RETRY_AFTER_CAP)
        ceiling = min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (failures - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def _wait(self, seconds: float, cancel: CancelToken) -> None:
        if self._sleep is time.sleep:
            cancel.wait(seconds)
        else:
            self._sleep(seconds)

    def _params(self, request: ChatRequest, caps: Capabilities, *, stream: bool) -> dict[str, Any]:
        params: dict[str, Any] = {"model": request.model, "messages": request.messages}
        if stream:
            params["stream"] = True
            if caps.stream_options:
                params["stream_options"] = {"include_usage": True}
        if request.tools and caps.tools:
            params["tools"] = request.tools
        if request.temperature is not None and caps.temperature:
            params["temperature"] = request.temperature
        if request.max_tokens is not None:
            if caps.token_limit == "max_tokens":
                params["max_tokens"] = request.max_tokens
            else:  # hidden reasoning counts against this cap: room for it on top of the visible answer
                params["max_completion_tokens"] = request.max_tokens + caps.reasoning_headroom
        if request.background and caps.reasoning_effort is not None:
            params["reasoning_effort"] = caps.reasoning_effort
        if request.response_format is not None and caps.response_format:
            params["response_format"] = _response_format(request.response_format, caps)
        return params

    def _call(self, wire: _Wire, **params: Any) -> Any:
        """One SDK call with ``wire`` catching its sockets."""
        self._local.wire = wire
        try:
            return self._client.chat.completions.create(**params)
        finally:
            self._local.wire = None

    def _fallback(
        self, error: ProviderError, request: ChatRequest, caps: Capabilities, *, stream: bool
    ) -> list[Degraded] | None:
        """Drop what the server refused (remembered) so the request can be sent again at once.

        None: nothing to drop, the error stands; otherwise the Degraded events to report (maybe none).
        """
        if error.kind == "context_length":  # it names max_tokens or functions, but nothing was refused by name
            return None
        detail = error.detail.lower()
        # llama-cpp-python's server answers a response_format it cannot validate with a 500
        if error.status == 500 and "response_format" in detail and self._learn_parameter(detail, request, caps):
            return []
        if error.status not in (400, 404, 422):
            return None
        if error.status in (400, 422) and self._learn_parameter(detail, request, caps):
            return []
        if (
            stream
            and caps.stream_options
            and error.status == 400
            and ("stream_options" in detail or "include_usage" in detail)
        ):
            caps.stream_options = False
            log.info(
                "%s does not accept stream_options for %s; usage will be estimated", self._shown_url, request.model
            )
            return [Degraded("stream_options", translate("openai_backend", DEGRADED_STREAM_OPTIONS))]
        mentions_tools = any(word in detail for word in ("tool", "function"))
        if request.tools and caps.tools and (mentions_tools or (error.status in (404, 422) and "model" not in detail)):
            caps.tools = False
            log.info("%s refused tools for %s; running without them", self._shown_url, request.model)
            return [Degraded("tools", translate("openai_backend", DEGRADED_TOOLS))]
        return None

    def _learn_parameter(self, detail: str, request: ChatRequest, caps: Capabilities) -> bool:
        """Learn from a 400 that refuses a parameter this request sent, by name; whether to send it again."""
        sent = self._params(request, caps, stream=False)
        refused = any(word in detail for word in _REFUSED)
        if "max_tokens" in sent and "max_tokens" in detail and refused:
            caps.token_limit = "max_completion_tokens"
            caps.reasoning_headroom = max(caps.reasoning_headroom, learnt_headroom())
            learnt = "wants max_completion_tokens"
        elif "temperature" in sent and "temperature" in detail and refused:
            caps.temperature = False
            learnt = "refuses a temperature"
        elif "reasoning_effort" in sent and "reasoning_effort" in detail and (refused or "invalid" in detail):
            caps.reasoning_effort = None
            learnt = f"refuses reasoning_effort={sent['reasoning_effort']!r}"
        elif (
            "response_format" in sent
            and sent["response_format"].get("type") == "json_schema"
            and "json_object" in detail
            and not caps.schema_as_json_object
        ):
            caps.schema_as_json_object = True
            learnt = "takes a schema only as response_format json_object"
        elif (
            "response_format" in sent
            and any(word in detail for word in ("response_format", "json_schema"))
            and (refused or "invalid" in detail or "should be" in detail)
        ):
            caps.response_format = False
            learnt = "refuses response_format (structured output)"
        else:
            return False
        log.info("%s %s for %s; sending the request again without it", self._shown_url, learnt, request.model)
        return True

    # ------------------------------------------------------------------ streaming

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        """Yield the reply as events (see :mod:`okbot.llm.events`); never raises ProviderError."""
        no_key = self._no_key_error()
        if no_key is not None:
            yield ErrorEvent(no_key)
            return
        cancel = cancel or CancelToken()
        caps = self._caps(request.model)
        if request.tools and not caps.tools:
            yield Degraded("tools", translate("openai_backend", DEGRADED_TOOLS))
        if not caps.stream_options:
            yield Degraded("stream_options", translate("openai_backend", DEGRADED_STREAM_OPTIONS))
        failures = 0
        shown = False
        while True:
            if cancel.cancelled:
                yield Done("cancelled")
                return
            reply = _Reply()
            wire = _Wire(cancel, self._max_reply_seconds)
            try:
                for event in self._attempt(request, caps, wire, reply):
                    if isinstance(event, (TextDelta, ReasoningDelta, ToolCallDelta)):
                        shown = True
                    yield event
            except ProviderError as error:
                if cancel.cancelled:
                    yield Done("cancelled")
                    return
                degraded = None if shown else self._fallback(error, request, caps, stream=True)
                if degraded is not None:
                    yield from degraded
                    continue
                failures += 1
                if shown or not error.retryable or failures > self._max_retries:
                    log.warning("model request failed (%s): %s", error.kind, error.message)
                    yield from self._flush_held(reply, cut=True)
                    yield ErrorEvent(error)
                    return
                delay = self._delay(error, failures)
                log.info(
                    "model request failed (%s); retry %d of %d in %.2f s",
                    error.kind,
                    failures,
                    self._max_retries,
                    delay,
                )
                yield Retrying(failures, delay, error.message, self._max_retries + 1, error.kind)
                self._wait(delay, cancel)
                continue
            finally:
                wire.release()
            if cancel.cancelled:
                yield Done("cancelled")
                return
            yield from self._finish(request, reply)
            return

    def _attempt(self, request: ChatRequest, caps: Capabilities, wire: _Wire, reply: _Reply) -> Iterator[Event]:
        """One request: yields content events; raises ProviderError on failure (cancel included)."""
        deadline = time.monotonic() + self._max_reply_seconds
        params = self._params(request, caps, stream=True)
        offered_tools = bool(request.tools)
        stream = None
        try:
            stream = self._call(wire, **params)
            for chunk in stream:
                if wire.expired or time.monotonic() > deadline:
                    raise ReplyTooLong(self._max_reply_seconds)
                reply.chunks += 1
                yield from self._on_chunk(chunk, reply, offered_tools)
                if reply.size > self._max_reply_chars:
                    raise ReplyTooLarge(self._max_reply_chars)
        except (openai.OpenAIError, ValueError, *_TRANSPORT_ERRORS) as exc:
            failure: BaseException = exc
            if wire.expired:
                failure = ReplyTooLong(self._max_reply_seconds)
            elif (
                stream is not None
                and isinstance(exc, (openai.APIConnectionError, *_TRANSPORT_ERRORS))
                and not isinstance(exc, openai.APITimeoutError)
            ):
                failure = StreamCut(str(exc))  # the reply had begun: the connection dropped mid-reply
            raise self._classify(failure, request.model) from None
        except (ReplyTooLong, ReplyTooLarge) as exc:
            raise self._classify(exc, request.model) from None
        finally:
            if stream is not None:
                stream.close()
        if wire.expired:
            raise self._classify(ReplyTooLong(self._max_reply_seconds), request.model)
        if reply.chunks == 0 and not wire.closed:
            raise self._classify(MalformedReply("no readable event in the reply"), request.model)
        if reply.finish_reason is None and not wire.closed:
            # the body ended cleanly but the reply did not: no finish reason (nor, then, [DONE]) came
            raise self._classify(StreamCut("the stream ended before the reply's last chunk"), request.model)

    def _on_chunk(self, chunk: Any, reply: _Reply, offered_tools: bool) -> Iterator[Event]:
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            reply.usage = _usage_event(usage)
        for choice in getattr(chunk, "choices", None) or []:
            if getattr(choice, "index", 0) not in (0, None):
                continue
            delta = getattr(choice, "delta", None)
            reasoning = _reasoning_of(delta)
            if reasoning:
                reply.size += len(reasoning)
                reply.reasoning += reasoning
                yield ReasoningDelta(reasoning)
            content = getattr(delta, "content", None) if delta is not None else None
            if isinstance(content, str) and content:
                reply.size += len(content)
                yield from self._on_text(content, reply, offered_tools)
            for call in (getattr(delta, "tool_calls", None) or []) if delta is not None else []:
                function = getattr(call, "function", None)
                reply.size += len(getattr(function, "arguments", None) or "")
                event = reply.tools.add(
                    getattr(call, "index", None),
                    getattr(call, "id", None),
                    getattr(function, "name", None),
                    getattr(function, "arguments", None) or "",
                )
                yield event
            if getattr(choice, "finish_reason", None):
                reply.finish_reason = choice.finish_reason

    def _on_text(self, content: str, reply: _Reply, offered_tools: bool) -> Iterator[Event]:
        content = reply.split_surrogate + content
        # a pair escaped as two surrogates may be split across chunks: the high half waits for the low one
        reply.split_surrogate = content[-1] if "\ud800" <= content[-1] <= "\udbff" else ""
        content = whole_characters(content[: len(content) - len(reply.split_surrogate)])
        reasoning, content = reply.think.feed(content)
        if reasoning:
            reply.reasoning += reasoning
            yield ReasoningDelta(reasoning)
        if not content:
            return
        if offered_tools and not reply.text and could_be_tool_text(reply.held[:TOOL_TEXT_HEAD] + content):
            reply.held += content
            return
        text = reply.held + content
        reply.held = ""
        reply.text += text
        yield TextDelta(text)

    def _flush_held(self, reply: _Reply, *, cut: bool = False) -> Iterator[Event]:
        _end_split_surrogate(reply)
        reasoning, answer = reply.think.flush(cut=cut)
        if reasoning:
            reply.reasoning += reasoning
            yield ReasoningDelta(reasoning)
        reply.held += answer
        if reply.held:
            text, reply.held = reply.held, ""
            reply.text += text
            yield TextDelta(text)

    def _finish(self, request: ChatRequest, reply: _Reply) -> Iterator[Event]:
        reasoning, answer = reply.think.flush()
        if reasoning:
            reply.reasoning += reasoning
            yield ReasoningDelta(reasoning)
        reply.held += answer
        if reply.split_surrogate and not reply.held:
            yield from self._flush_held(reply)
        if reply.held:
            calls = parse_tool_text(reply.held, tool_names(request.tools)) if not reply.tools.calls() else None
            if calls:
                yield Degraded("tool_text", translate("openai_backend", DEGRADED_TOOL_TEXT))
                for n, (name, arguments) in enumerate(calls):
                    reply.tools.add(n, None, name, arguments)
                if reply.finish_reason in (None, "stop"):
                    reply.finish_reason = "tool_calls"
                reply.held = ""
            else:
                yield from self._flush_held(reply)
        if not reply.tools.calls() and reply.finish_reason in (None, "stop"):
            trailing = trailing_tool_text(reply.text, tool_names(request.tools))
            if trailing:  # prose, then a call written as text: the prose was shown, the call runs
                yield Degraded("tool_text", translate("openai_backend", DEGRADED_TOOL_TEXT))
                for n, (name, arguments) in enumerate(trailing):
                    reply.tools.add(n, None, name, arguments)
                reply.finish_reason = "tool_calls"
        produced = reply.text
        for call in reply.tools.calls():
            yield call
            produced += call.name + call.arguments
        usage = reply.usage
        if usage is None:
            caps = self._caps(request.model)
            if caps.stream_options:  # otherwise the stream_options notice already said so
                yield Degraded("usage", translate("openai_backend", DEGRADED_USAGE))
            usage = UsageEvent(0, 0, None, True)  # the core counts what was sent and produced
        yield usage
        if reply.finish_reason == "length" and not produced.strip():  # all spent on hidden reasoning
            yield ErrorEvent(
                self._classify(NoAnswer(None if usage.estimated else usage.completion_tokens), request.model)
            )
            return
        yield Done(reply.finish_reason)

    # ------------------------------------------------------------------ other calls

    def complete(self, request: ChatRequest, cancel: CancelToken | None = None) -> str:
        """The reply text of one non-streaming request (same retries); raises ProviderError.

        Only the answer: ``reasoning_content`` is ignored and an inline ``<think>`` block cut off, so the
        app's own calls (summaries, memories, upkeep) never read a model's thinking as its answer.
        """
        no_key = self._no_key_error()
        if no_key is not None:
            raise no_key
        cancel = cancel or CancelToken()
        caps = self._caps(request.model)
        failures = 0
        while True:
            if cancel.cancelled:
                raise ProviderError(translate("openai_backend", "The request was cancelled."), kind="cancelled")
            wire = _Wire(cancel, self._max_reply_seconds)
            try:
                completion = self._call(wire, **self._params(request, caps, stream=False))
                if not hasattr(completion, "choices") or not completion.choices:
                    raise MalformedReply("the reply has no choices")
                choice = completion.choices[0]
                content = whole_characters(choice.message.content) if isinstance(choice.message.content, str) else ""
                content = split_think(content)[1]
                if not content.strip() and choice.finish_reason == "length":
                    raise NoAnswer(*_spent_tokens(completion))
                return content
            except (openai.OpenAIError, ValueError, MalformedReply, NoAnswer, *_TRANSPORT_ERRORS) as exc:
                if cancel.cancelled:
                    raise ProviderError(
                        translate("openai_backend", "The request was cancelled."), kind="cancelled"
                    ) from None
                failure: BaseException = exc
                if wire.expired:
                    failure = ReplyTooLong(self._max_reply_seconds)
                elif isinstance(exc, _TRANSPORT_ERRORS):  # the body broke off after the headers
                    failure = StreamCut(str(exc))
                error = self._classify(failure, request.model)
            finally:
                wire.release()
            if self._fallback(error, request, caps, stream=False) is not None:
                continue
            failures += 1
            if not error.retryable or failures > self._max_retries:
                raise error
            delay = self._delay(error, failures)
            log.info("completion failed (%s); retry %d of %d in %.2f s", error.kind, failures, self._max_retries, delay)
            self._wait(delay, cancel)

    def list_models(self) -> list[str]:
        """The ids the server lists under ``/models``, sorted; raises ProviderError."""
        no_key = self._no_key_error()
        if no_key is not None:
            raise no_key
        try:
            page = self._client.models.list()
            ids = {str(model.id) for model in page.data if getattr(model, "id", None)}
        except (openai.OpenAIError, ValueError, AttributeError, TypeError, *_TRANSPORT_ERRORS) as exc:
            failure: BaseException = exc
            if isinstance(exc, (AttributeError, TypeError)):  # not a model list at all
                failure = MalformedReply(str(exc))
            raise self._classify(failure, "") from None
        return sorted(ids)


def _without_credentials(url: str, key: str | None) -> str:
    """``url`` fit for logs: no user:password part, no key."""
    return redact(redact_url(url), key)


def _reasoning_of(delta: Any) -> str:
    """A delta's reasoning text: ``reasoning_content`` (DeepSeek and compatible) or ``reasoning`` (vLLM,
    OpenRouter); the SDK keeps such fields it does not know as extra attributes."""
    if delta is None:
        return ""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(delta, name, None)
        if isinstance(value, str) and value:
            return whole_characters(value)
    return ""


def _spent_tokens(completion: Any) -> tuple[int | None, int | None]:
    """``(completion_tokens, reasoning_tokens)`` of a reply, where the server reported them."""
    usage = getattr(completion, "usage", None)
    details = getattr(usage, "completion_tokens_details", None)
    tokens, reasoning = getattr(usage, "completion_tokens", None), getattr(details, "reasoning_tokens", None)
    return (tokens if isinstance(tokens, int) else None, reasoning if isinstance(reasoning, int) else None)


def _usage_event(usage: Any) -> UsageEvent:
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return UsageEvent(
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cached_tokens=int(cached) if isinstance(cached, (int, float)) and not math.isnan(cached) else None,
        estimated=False,
    )
