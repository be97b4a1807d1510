"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: scripted replies and fault injection.

Stdlib only (``http.server.ThreadingHTTPServer`` in a daemon thread, HTTP/1.1 keep-alive). The real
``openai`` SDK runs against it unchanged; only ``base_url`` differs::

    with FakeOpenAIServer() as server:
        server.enqueue(Reply(text="Hello"), Reply(tool_calls=[tool_call("f", {"a": 1})]))
        client = openai.OpenAI(base_url=server.base_url, api_key="x")

Endpoints: ``POST /v1/chat/completions`` (SSE when ``stream`` is true, one JSON object otherwise),
``GET /v1/models`` and ``GET /v1/models/<id>`` (OpenAI's list and model objects; ``models_fault`` set to a
status makes the list fail with it). Auth and model checks run before a reply is taken from the queue;
every other outcome (including the ``reject_*`` faults) consumes one reply.

Per-model rules (:class:`ModelRules`, passed as ``rules={model: ...}``) make a model answer as OpenAI's
reasoning models do (``max_tokens`` and any temperature but 1 refused word for word, hidden reasoning
spent out of ``max_completion_tokens``) or as a server without structured output (a 400 naming
``response_format``), or enforce a context window (``ModelRules(context_window=, window_style=)``: a request
that does not fit is refused in the words of OpenAI, llama.cpp, llama-cpp-python or vLLM; see
``tests/helpers/fake_windows.py`` for how the fake counts, and :attr:`RecordedRequest.prompt_tokens`).
Refusals come before a reply is taken from the queue, as the model checks do.

``slots=1`` serves one request at a time as llama-cpp-python's server does with ``interrupt_requests`` (its
default; see :class:`SingleSlot`): a request that arrives while another is answered waits, and a stream
being answered is cut the moment one waits (a bare ``data: [DONE]``, no finish reason); ``interruptions``
records each cut. ``slots=None`` (the default) answers every request at once.

Command line (see ``tests/helpers/__main__.py``): ``python -m tests.helpers.fake_openai --port 8765 [--script f.json]``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import math
import socket
import socketserver
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.helpers.fake_windows import fake_prompt_tokens, window_refusal
from tests.helpers.patience import PATIENT_SECONDS

log = logging.getLogger("okbot.tests.fake_openai")

_ids = itertools.count(1)
KEEPALIVE_INTERVAL = 0.02  # seconds between the empty deltas of a never-ending stream
HUGE_PIECE = 64 * 1024  # characters per content delta when streaming ``huge_bytes``
_FILLER = "abcdefghijklmnopqrstuvwxyz0123456789 "


@dataclass
class ToolCallSpec:
    """One scripted tool call; ``arguments`` is raw JSON text (may be invalid on purpose)."""

    name: str
    arguments: str
    call_id: str


def tool_call(name: str, arguments: dict | str, call_id: str | None = None) -> ToolCallSpec:
    """Build a :class:`ToolCallSpec`; a dict is JSON-encoded, a string is sent verbatim."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCallSpec(name=name, arguments=text, call_id=call_id or f"call_fake{next(_ids):06d}")


@dataclass
class Reply:
    """What the server answers to one chat completion request, including faults to inject.

    Streams send a role chunk, then the *content chunks* (text deltas of ``chunk_chars``, ``huge_bytes``
    filler in 64 KiB deltas, then per tool call a head delta and its argument fragments), then the
    finish chunk, the usage chunk and ``[DONE]``. ``cut_after_chunks`` and ``malformed_chunk_at`` count
    content chunks from 0 (the role chunk is not counted); the malformed line is inserted before that
    chunk. Non-stream analogues: cut = half the promised body, malformed = ``{not json`` as the body,
    never_end = whitespace trickled forever. ``usage=None`` computes a rough usage; ``send_usage=False``
    also drops ``usage`` from non-stream replies. stop() ends never-ending or delayed replies abruptly.
    """

    text: str = ""  # an inline <think>…</think> block goes here, as local servers send it
    # streamed before the content as DeepSeek does, ``choices[0].delta.reasoning_content`` (``content`` null);
    # ``reasoning_field="reasoning"`` as vLLM and OpenRouter name it. Non-stream: ``message.reasoning_content``.
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"
    tool_calls: list[ToolCallSpec] = field(default_factory=list)
    usage: dict | None = None
    cached_tokens: int = 0
    chunk_chars: int = 8
    chunk_delay: float = 0.0
    first_byte_delay: float = 0.0
    finish_reason: str | None = None
    # faults
    status: int = 200
    retry_after: float | None = None
    error_message: str = ""
    cut_after_chunks: int | None = None
    malformed_chunk_at: int | None = None
    non_json_body: bool = False
    wrong_content_type: bool = False
    never_end: bool = False
    end_without_finish: bool = False  # stream: the body ends cleanly after the content, no finish chunk or [DONE]
    huge_bytes: int = 0
    send_usage: bool = True
    reject_stream_options: bool = False
    reject_tools: bool = False
    tool_calls_as_text: bool = False


@dataclass
class RecordedRequest:
    """One request as the server saw it; ``time`` is ``time.monotonic()`` at arrival."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, the raw text when it is not JSON, None when there is no body
    time: float
    prompt_tokens: int | None = None  # a chat request's prompt as the fake counts it (see fake_windows)


# hidden reasoning tokens a reasoning model spends per ``reasoning_effort`` (roughly OpenAI's proportions)
REASONING_TOKENS: dict[str, int] = {"minimal": 0, "low": 64, "medium": 512, "high": 2048}
GPT5_EFFORTS = ("minimal", "low", "medium", "high")
O_SERIES_EFFORTS = ("low", "medium", "high")
MODEL_CREATED = 1_715_367_049  # a model object's "created" (Unix seconds), as OpenAI's list gives one
JSON_SCHEMA_REFUSED = "Unrecognized response_format type: 'json_schema' is not supported by this server."


@dataclass
class ModelRules:
    """How one model treats request parameters.

    ``reasoning``: an OpenAI reasoning model (o-series, gpt-5): ``max_tokens`` and a temperature other
    than 1 are refused with OpenAI's own 400s, and ``reasoning_tokens[effort]`` hidden tokens are spent
    out of ``max_completion_tokens`` before the visible answer (too small a cap: empty content,
    ``finish_reason: "length"``). ``efforts``: the ``reasoning_effort`` values accepted (None: the
    parameter itself is refused, as o1-mini and non-reasoning models do); ``default_effort`` applies
    when none is sent. ``json_schema=False`` refuses ``response_format`` of type ``json_schema`` as
    llama.cpp and older servers do; accepted, the scripted reply is returned as given.

    ``context_window``: requests whose prompt (counted by :func:`fake_windows.fake_prompt_tokens`), with the
    completion cap where that server counts it, do not fit are refused before a reply is taken, in the words
    of ``window_style``: ``"openai"``, ``"llama.cpp"``, ``"llama-cpp-python"`` or ``"vllm"``.
    """

    reasoning: bool = False
    efforts: tuple[str, ...] | None = None
    default_effort: str = "medium"
    reasoning_tokens: dict[str, int] = field(default_factory=lambda: dict(REASONING_TOKENS))
    json_schema: bool = True
    llama_cpp: bool = False  # refuses json_schema as llama-cpp-python 0.3's server does (see LLAMA_CPP_SCHEMA_ERROR)
    vision: bool = True  # False: image_url content parts refused with OpenAI's 400 (see IMAGES_REFUSED)
    context_window: int | None = None
    window_style: str = "openai"


def gpt5_rules() -> ModelRules:
    """A gpt-5 family reasoning model (accepts ``reasoning_effort`` down to ``minimal``)."""
    return ModelRules(reasoning=True, efforts=GPT5_EFFORTS)


def o_series_rules() -> ModelRules:
    """An o3 / o4-mini reasoning model (``reasoning_effort`` low, medium or high)."""
    return ModelRules(reasoning=True, efforts=O_SERIES_EFFORTS)


def o1_mini_rules() -> ModelRules:
    """o1-mini / o1-preview: reasoning, but no ``reasoning_effort`` parameter at all."""
    return ModelRules(reasoning=True)


def llama_cpp_rules(window: int | None = None) -> ModelRules:
    """llama-cpp-python 0.3's server: ``json_schema`` refused with a 500 (its request validation error),
    a schema accepted as ``{"type": "json_object", "schema": ...}``; ``window``: its ``n_ctx``."""
    return ModelRules(json_schema=False, llama_cpp=True, context_window=window, window_style="llama-cpp-python")


def llama_server_rules(window: int) -> ModelRules:
    """llama.cpp's own server (``llama-server``) started with ``--ctx-size window``."""
    return ModelRules(context_window=window, window_style="llama.cpp")


# Word for word what llama-cpp-python 0.3.36's server answers (HTTP 500) to response_format json_schema.
LLAMA_CPP_SCHEMA_ERROR = {
    "error": {
        "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
        "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
        "'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"/srv/llama_cpp/server/app.py\", "
        "line 376, in create_chat_completion\n    POST /v1/chat/completions",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else json.dumps(value)


# What OpenAI answers (400, invalid_request_error) when a model that takes no images is sent an image part.
IMAGES_REFUSED = "Invalid content type. image_url is only supported by certain models."


def _image_part_param(body: dict) -> str | None:
    """``messages.[i].content.[j].type`` of the first image part in ``body``, or None."""
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        for j, part in enumerate(content if isinstance(content, list) else []):
            if isinstance(part, dict) and part.get("type") == "image_url":
                return f"messages.[{i}].content.[{j}].type"
    return None


def refusal(rules: ModelRules, body: dict) -> tuple[str, str, str] | None:
    """``(message, param, code)`` of the 400 a model with ``rules`` answers to ``body``, or None."""
    image_param = None if rules.vision else _image_part_param(body)
    if image_param is not None:
        return IMAGES_REFUSED, image_param, ""
    if rules.reasoning and body.get("max_tokens") is not None:
        return (
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "max_tokens",
            "unsupported_parameter",
        )
    temperature = body.get("temperature")
    if rules.reasoning and temperature is not None and temperature != 1:
        return (
            f"Unsupported value: 'temperature' does not support {_number(temperature)} with this model. "
            "Only the default (1) value is supported.",
            "temperature",
            "unsupported_value",
        )
    effort = body.get("reasoning_effort")
    if effort is not None and rules.efforts is None:
        return (
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            "reasoning_effort",
            "unsupported_parameter",
        )
    if effort is not None and rules.efforts is not None and effort not in rules.efforts:
        allowed = ", ".join(f"'{e}'" for e in rules.efforts[:-1]) + f", and '{rules.efforts[-1]}'"
        return (
            f"Unsupported value: 'reasoning_effort' does not support {json.dumps(effort)} with this model. "
            f"Supported values are: {allowed}.",
            "reasoning_effort",
            "unsupported_value",
        )
    response_format = body.get("response_format")
    if not rules.json_schema and isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        return JSON_SCHEMA_REFUSED, "response_format", "unsupported_value"
    return None


def _spend_reasoning(
    rules: ModelRules, body: dict, text: str, calls: list[ToolCallSpec]
) -> tuple[str, list[ToolCallSpec], int, bool]:
    """The visible text and calls left after the hidden reasoning, the reasoning tokens, and whether the
    cap (``max_completion_tokens``) cut the reply."""
    reasoning = rules.reasoning_tokens.get(body.get("reasoning_effort") or rules.default_effort, 0)
    cap = body.get("max_completion_tokens")
    if not isinstance(cap, int) or cap <= 0:
        return text, calls, reasoning, False
    if reasoning >= cap:
        return "", [], cap, True
    room = (cap - reasoning) * 4  # four characters a token, as the rough usage counts
    if len(text) > room:
        return text[:room], [], reasoning, True
    return text, calls, reasoning, False


# status -> (error type, error code, default message), shaped like OpenAI's error bodies
_ERRORS: dict[int, tuple[str, str | None, str]] = {
    400: ("invalid_request_error", None, "Bad request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    403: ("invalid_request_error", "unsupported_country_region_territory", "Forbidden."),
    404: ("invalid_request_error", "model_not_found", "The model does not exist or you do not have access."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached. Please try again later."),
    500: ("server_error", None, "The server had an error while processing your request."),
    503: ("server_error", "overloaded", "The engine is currently overloaded, please try again later."),
}


def echo_reply(body: dict) -> Reply:
    """The default reply: ``ok: <the last user message's text, first 40 chars>``."""
    text = ""
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            text = content if isinstance(content, str) else ""
            break
    return Reply(text=f"ok: {text[:40]}")


def _pieces(text: str, size: int) -> Iterator[str]:
    size = max(1, size)
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _filler(n: int) -> str:
    return (_FILLER * (n // len(_FILLER) + 1))[:n]


@dataclass
class Interruption:
    """A stream :class:`SingleSlot` cut because another request arrived (``time``: ``time.monotonic()``)."""

    body: dict
    content_chunks: int  # content chunks the interrupted stream had sent before its bare [DONE]
    time: float


class SingleSlot:
    """llama-cpp-python's one model behind two locks (``llama_cpp/server/app.py``, ``get_llama_proxy`` and
    ``get_event_publisher``), with ``interrupt_requests`` on, as its server starts by default.

    Every chat completion and model list takes the *outer* lock, then the *inner* one, and lets the outer
    go once it holds the inner: so a request that waits for the model holds the outer lock. A stream
    checks after each chunk it sent whether the outer lock is taken; if so it sends ``data: [DONE]`` (no
    finish reason, no usage) and ends its body cleanly. A non-streaming request is never cut: the one
    waiting waits until it is answered. Both locks are FIFO here (asyncio's are) so tests are repeatable.
    """

    def __init__(self, stopping: threading.Event) -> None:
        self._cond = threading.Condition()
        self._stopping = stopping
        self._outer: deque[object] = deque()  # tickets; the head holds the outer lock once ``_outer_held``
        self._outer_held = False
        self._inner: object | None = None
        self.waiting = 0  # requests waiting for the model (outer lock held or queued for)
        self.interruptions: list[Interruption] = []

    def wake(self) -> None:
        """The server stops: waiting requests give up."""
        with self._cond:
            self._cond.notify_all()

    def acquire(self) -> object | None:
        """Wait for the model (outer, then inner); None when the server stopped meanwhile."""
        ticket = object()
        with self._cond:
            self._outer.append(ticket)
            self.waiting += 1
            self._cond.notify_all()  # wait_for_waiters
            try:
                if not self._wait(lambda: not self._outer_held and self._outer[0] is ticket):
                    self._outer.remove(ticket)
                    return None
                self._outer.popleft()
                self._outer_held = True
                got = self._wait(lambda: self._inner is None)
                self._outer_held = False  # the outer lock goes once the inner is held (or on giving up)
                self._cond.notify_all()
                if not got:
                    return None
                self._inner = ticket
                return ticket
            finally:
                self.waiting -= 1

    def release(self, ticket: object | None) -> None:
        with self._cond:
            if ticket is not None and self._inner is ticket:
                self._inner = None
                self._cond.notify_all()

    def wanted(self) -> bool:
        """``llama_outer_lock.locked()``: another request waits for the model."""
        with self._cond:
            return self._outer_held or bool(self._outer)

    def record(self, body: dict, content_chunks: int) -> None:
        with self._cond:
            self.interruptions.append(Interruption(body, content_chunks, time.monotonic()))
            self._cond.notify_all()

    def wait_for_waiters(self, n: int, timeout: float) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: self.waiting >= n, timeout=timeout):
                raise TimeoutError(f"expected {n} requests waiting for the slot within {timeout}s, got {self.waiting}")

    def _wait(self, ready: Callable[[], bool]) -> bool:
        self._cond.wait_for(lambda: ready() or self._stopping.is_set())
        return not self._stopping.is_set()


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], owner: FakeOpenAIServer) -> None:
        self.owner = owner
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        """Bind without ``HTTPServer``'s reverse DNS lookup (``getfqdn``), which can stall offline."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Log quietly instead of printing tracebacks to stderr."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ValueError)):  # client went away, socket shut down by stop()
            log.debug("fake OpenAI server: connection from %s ended: %r", client_address, exc)
        else:
            log.error("fake OpenAI server: unexpected error", exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.owner._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("fake OpenAI server: " + format, *args)

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        try:
            self.server.owner._handle(self)
        except (OSError, ValueError) as exc:  # the client closed the connection mid-response
            log.debug("fake OpenAI server: client went away: %r", exc)
            self.close_connection = True

    # --- writing helpers -------------------------------------------------------------------
    def send_bytes(self, status: int, content_type: str, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_fake{next(_ids):06d}")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self.send_bytes(status, "application/json", json.dumps(obj).encode(), headers)

    def send_error_json(
        self,
        status: int,
        message: str = "",
        *,
        code: str | None = None,
        param: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        kind, default_code, default_message = _ERRORS.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None, f"HTTP {status}")
        )
        error = {"message": message or default_message, "type": kind, "param": param, "code": code or default_code}
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else None
        self.send_json(status, {"error": error}, headers)

    def begin_chunked(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("x-request-id", f"req_fake{next(_ids):06d}")
        self.end_headers()

    def write_chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))

    def end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def cut(self) -> None:
        """Close the connection abruptly: FIN in the middle of the body, no terminating chunk."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class FakeOpenAIServer:
    """A local OpenAI-compatible server; replies come from a FIFO queue, then from a default factory."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        models: Sequence[str] = ("gpt-4o-mini", "fake-small"),
        require_key: str | None = None,
        rules: dict[str, ModelRules] | None = None,
        slots: int | None = None,
    ) -> None:
        if slots not in (None, 1):
            raise ValueError("slots is 1 (one request at a time, as llama-cpp-python serves) or None (no limit)")
        self.host = host
        self.rules = dict(rules or {})
        self.port = port
        self.models = list(models)
        self.models_fault: int | None = None  # GET /v1/models answers with this error status instead
        self.require_key = require_key
        self.base_url = ""
        self._lock = threading.Condition()
        self._requests: list[RecordedRequest] = []
        self._queue: deque[Reply] = deque()
        self._default: Callable[[dict], Reply] = echo_reply
        self._conns: dict[socket.socket, threading.Thread] = {}
        self._active_streams = 0
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._slot = SingleSlot(self._stopping) if slots == 1 else None

    # --- public API --------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request so far, in arrival order (a snapshot)."""
        with self._lock:
            return list(self._requests)

    @property
    def active_streams(self) -> int:
        """How many chat completion responses are being written right now."""
        with self._lock:
            return self._active_streams

    @property
    def interruptions(self) -> list[Interruption]:
        """Streams cut because another request arrived (``slots=1``), in order; empty otherwise."""
        return list(self._slot.interruptions) if self._slot is not None else []

    def wait_for_slot_waiters(self, n: int, timeout: float = PATIENT_SECONDS) -> None:
        """Block until ``n`` requests wait for the one slot (``slots=1``); ``TimeoutError`` otherwise."""
        if self._slot is None:
            raise RuntimeError("this server has no slot limit (slots=None)")
        self._slot.wait_for_waiters(n, timeout)

    def chat_requests(self) -> list[dict]:
        """JSON bodies of the ``POST /v1/chat/completions`` requests, in order."""
        return [
            r.body
            for r in self.requests
            if r.path.split("?")[0].rstrip("/") == "/v1/chat/completions" and isinstance(r.body, dict)
        ]

    def over_window(self) -> list[RecordedRequest]:
        """The chat requests whose counted prompt did not fit their model's ``context_window`` (all refused)."""
        return [r for r in self.requests if self._window_refusal(self._rules_of(r.body), r) is not None]

    def _rules_of(self, body: Any) -> ModelRules | None:
        model = body.get("model") if isinstance(body, dict) else None
        return self.rules.get(model) if isinstance(model, str) else None

    def _window_refusal(self, rules: ModelRules | None, request: RecordedRequest) -> tuple[int, dict] | None:
        if rules is None or not rules.context_window or request.prompt_tokens is None:
            return None
        return window_refusal(rules.window_style, rules.context_window, request.body, request.prompt_tokens)

    def enqueue(self, *replies: Reply) -> None:
        """Queue replies; each chat completion request consumes the oldest one."""
        with self._lock:
            self._queue.extend(replies)

    def set_default(self, reply_factory: Callable[[dict], Reply]) -> None:
        """Build replies from the request body once the queue is empty."""
        self._default = reply_factory

    def start(self) -> FakeOpenAIServer:
        """Bind and serve in a daemon thread; sets :attr:`base_url`."""
        if self._httpd is not None:
            raise RuntimeError("FakeOpenAIServer is already running")
        self._stopping.clear()
        self._httpd = _HTTPServer((self.host, self.port), self)
        port = self._httpd.server_address[1]
        self.base_url = f"http://{self.host}:{port}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end open (even never-ending) responses abruptly and close every socket."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        if self._slot is not None:
            self._slot.wake()
        httpd.shutdown()
        with self._lock:
            conns = dict(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for thread in conns.values():
            if thread is not threading.current_thread():
                thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for_requests(self, n: int, timeout: float = PATIENT_SECONDS) -> None:
        """Block until at least ``n`` requests arrived; ``TimeoutError`` otherwise."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self._requests) >= n, timeout=timeout):
                raise TimeoutError(f"expected {n} requests within {timeout}s, got {len(self._requests)}")

    def wait_for_idle(self, timeout: float = PATIENT_SECONDS) -> None:
        """Block until no chat completion response is being written; ``TimeoutError`` otherwise."""
        with self._lock:
            if not self._lock.wait_for(lambda: self._active_streams == 0, timeout=timeout):
                raise TimeoutError(f"{self._active_streams} responses still open after {timeout}s")

    # --- request handling (handler threads) -------------------------------------------------
    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._conns[conn] = threading.current_thread()
            else:
                self._conns.pop(conn, None)

    def _handle(self, h: _Handler) -> None:
        path = urlsplit(h.path).path.rstrip("/")
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", errors="replace")
        headers = {key.lower(): value for key, value in h.headers.items()}
        counted = fake_prompt_tokens(body) if h.command == "POST" and path == "/v1/chat/completions" else None
        recorded = RecordedRequest(h.command, h.path, headers, body, time.monotonic(), prompt_tokens=counted)
        with self._lock:
            self._requests.append(recorded)
            self._lock.notify_all()

        if self.require_key is not None and headers.get("authorization") != f"Bearer {self.require_key}":
            h.send_error_json(401)
        elif h.command == "GET" and path == "/v1/models" and self.models_fault is not None:
            h.send_error_json(self.models_fault, "The server is overloaded. Please try again later.")
        elif h.command == "GET" and path == "/v1/models":
            with self._model_slot() as held:  # llama-cpp-python's model list waits for the model too
                if not held:
                    return h.cut()
            data = [{"id": m, "object": "model", "created": MODEL_CREATED, "owned_by": "system"} for m in self.models]
            h.send_json(200, {"object": "list", "data": data})
        elif h.command == "GET" and path.startswith("/v1/models/"):
            model = path.removeprefix("/v1/models/")
            if self.models and model not in self.models:
                h.send_error_json(404, f"The model `{model}` does not exist.")
            else:
                h.send_json(200, {"id": model, "object": "model", "created": MODEL_CREATED, "owned_by": "system"})
        elif h.command == "POST" and path == "/v1/chat/completions":
            with self._lock:
                self._active_streams += 1
            try:
                with self._model_slot() as held:  # slots=1: one request at a time, the waiting one cuts a stream
                    if held:
                        self._chat(h, body, recorded)
                    else:
                        h.cut()
            finally:
                with self._lock:
                    self._active_streams -= 1
                    self._lock.notify_all()
        else:
            h.send_error_json(404, f"Unknown request URL: {h.command} {h.path}", code="unknown_url")

    @contextlib.contextmanager
    def _model_slot(self) -> Iterator[bool]:
        """Hold the one slot (``slots=1``) for a request; yields False when the server stopped while it waited."""
        if self._slot is None:
            yield True
            return
        ticket = self._slot.acquire()
        try:
            yield ticket is not None
        finally:
            self._slot.release(ticket)

    def _interrupted(self, h: _Handler, body: dict, sent: int) -> bool:
        """After a chunk: when another request waits for the slot, end the stream as llama-cpp-python does."""
        if self._slot is None or not self._slot.wanted():
            return False
        h.write_chunk(b"data: [DONE]\n\n")
        h.end_chunked()
        self._slot.record(body, sent)
        log.debug("fake OpenAI server: stream interrupted after %d content chunks", sent)
        return True

    def _next_reply(self, body: dict) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self._default(body)

    def _chat(self, h: _Handler, body: Any, recorded: RecordedRequest) -> None:
        if not isinstance(body, dict):
            return h.send_error_json(400, "We could not parse the JSON body of your request.")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            return h.send_error_json(400, "You must provide a model parameter.")
        if not isinstance(body.get("messages"), list):
            return h.send_error_json(400, "'messages' is a required property.")
        if self.models and model not in self.models:
            return h.send_error_json(404, f"The model `{model}` does not exist or you do not have access to it.")
        rules = self.rules.get(model)
        wants_schema = isinstance(body.get("response_format"), dict) and body["response_format"].get("type")
        if rules is not None and rules.llama_cpp and wants_schema == "json_schema":
            return h.send_json(500, LLAMA_CPP_SCHEMA_ERROR)
        refused = refusal(rules, body) if rules is not None else None
        if refused is not None:
            message, param, code = refused
            return h.send_error_json(400, message, code=code, param=param)
        over = self._window_refusal(rules, recorded)
        if over is not None:
            return h.send_json(*over)
        try:
            reply = self._next_reply(body)
        except Exception as exc:  # a broken test factory: say so over HTTP and in the log
            log.exception("fake OpenAI server: reply factory failed")
            return h.send_error_json(500, f"reply factory failed: {exc!r}")
        if reply.first_byte_delay and self._stopping.wait(reply.first_byte_delay):
            return h.cut()
        if reply.reject_stream_options and "stream_options" in body:
            return h.send_error_json(400, "Unrecognized request argument: stream_options")
        if reply.reject_tools and body.get("tools"):
            return h.send_error_json(400, "tools are not supported")
        if reply.status != 200:
            return h.send_error_json(reply.status, reply.error_message, retry_after=reply.retry_after)
        if reply.non_json_body:
            garbage = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
            return h.send_bytes(200, "text/html", garbage)
        if body.get("stream"):
            return self._stream(h, reply, body)
        return self._complete(h, reply, body)

    # --- reply rendering -------------------------------------------------------------------
    def _plan(self, reply: Reply, body: dict) -> tuple[str, list[ToolCallSpec], str, dict]:
        """Final text, tool calls, finish reason and usage of a reply (``huge_bytes`` not included)."""
        text, calls = reply.text, list(reply.tool_calls)
        if reply.tool_calls_as_text and calls:
            lines = []
            for call in calls:
                try:
                    args: Any = json.loads(call.arguments)
                except ValueError:
                    args = call.arguments
                lines.append(json.dumps({"name": call.name, "arguments": args}))
            text = "\n".join(([text] if text else []) + lines)
            calls = []
        reasoning, cut = 0, False
        rules = self.rules.get(body.get("model"))
        if rules is not None and rules.reasoning:
            text, calls, reasoning, cut = _spend_reasoning(rules, body, text, calls)
        finish = "length" if cut else reply.finish_reason or ("tool_calls" if calls else "stop")
        usage = reply.usage
        if usage is None:
            prompt = max(1, len(json.dumps(body.get("messages"))) // 4)
            produced = (
                len(text) + len(reply.reasoning) + reply.huge_bytes + sum(len(c.name) + len(c.arguments) for c in calls)
            )
            completion = math.ceil(produced / 4) + reasoning
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
                "completion_tokens_details": {"reasoning_tokens": reasoning},
            }
        return text, calls, finish, usage

    def _complete(self, h: _Handler, reply: Reply, body: dict) -> None:
        text, calls, finish, usage = self._plan(reply, body)
        if reply.huge_bytes:
            text += _filler(reply.huge_bytes)
        message: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": None}
        if reply.reasoning:
            message[reply.reasoning_field] = reply.reasoning
        if calls:
            message["tool_calls"] = [
                {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in calls
            ]
        obj: dict[str, Any] = {
            "id": f"chatcmpl-fake{next(_ids):06d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        }
        if reply.send_usage:
            obj["usage"] = usage
        data = json.dumps(obj).encode()
        content_type = "text/html" if reply.wrong_content_type else "application/json"
        if reply.malformed_chunk_at is not None:
            data = b"{not json"
        if reply.never_end:  # headers, then whitespace trickling until the client or the server gives up
            h.begin_chunked(content_type)
            while not self._stopping.wait(KEEPALIVE_INTERVAL):
                h.write_chunk(b" ")
            return h.cut()
        if reply.cut_after_chunks is not None:  # promise the whole body, deliver half of it
            h.send_response(200)
            h.send_header("Content-Type", content_type)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data[: len(data) // 2])
            return h.cut()
        h.send_bytes(200, content_type, data)

    def _stream(self, h: _Handler, reply: Reply, body: dict) -> None:  # noqa: C901
        text, calls, finish, usage = self._plan(reply, body)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        base = {
            "id": f"chatcmpl-fake{next(_ids):06d}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body["model"],
            "system_fingerprint": "fp_fake",
        }

        def chunk(delta: dict, finish_reason: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            obj: dict[str, Any] = dict(base, choices=[choice])
            if include_usage:
                obj["usage"] = None
            return b"data: " + json.dumps(obj).encode() + b"\n\n"

        def content_events() -> Iterator[bytes]:
            for piece in _pieces(reply.reasoning, reply.chunk_chars):
                yield chunk({"content": None, reply.reasoning_field: piece})
            for piece in _pieces(text, reply.chunk_chars):
                yield chunk({"content": piece})
            if reply.huge_bytes:
                size = max(reply.chunk_chars, HUGE_PIECE)
                full, rest = divmod(reply.huge_bytes, size)
                line = chunk({"content": _filler(size)})
                for _ in range(full):
                    yield line
                if rest:
                    yield chunk({"content": _filler(rest)})
            for index, call in enumerate(calls):
                head = {"index": index, "id": call.call_id, "type": "function"}
                yield chunk({"tool_calls": [dict(head, function={"name": call.name, "arguments": ""})]})
                for piece in _pieces(call.arguments, reply.chunk_chars):
                    yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})

        malformed = b"data: {not json\n\n"
        content_type = "text/html; charset=utf-8" if reply.wrong_content_type else "text/event-stream; charset=utf-8"
        h.begin_chunked(content_type)
        h.write_chunk(chunk({"role": "assistant", "content": "", "refusal": None}))
        sent = 0
        if self._interrupted(h, body, sent):
            return None
        for event in content_events():
            if reply.cut_after_chunks is not None and sent >= reply.cut_after_chunks:
                return h.cut()
            if sent and reply.chunk_delay and self._stopping.wait(reply.chunk_delay):
                return h.cut()
            h.write_chunk((malformed if reply.malformed_chunk_at == sent else b"") + event)
            sent += 1
            if self._interrupted(h, body, sent):
                return None
        if reply.cut_after_chunks is not None:
            return h.cut()
        if reply.malformed_chunk_at is not None and reply.malformed_chunk_at >= sent:
            h.write_chunk(malformed)
        if reply.never_end:
            keepalive = chunk({"content": ""})
            while not self._stopping.wait(KEEPALIVE_INTERVAL):
                h.write_chunk(keepalive)
                if self._interrupted(h, body, sent):
                    return None
            return h.cut()
        if reply.end_without_finish:  # a clean end of the body where the finish chunk and [DONE] belong
            return h.end_chunked()
        tail = chunk({}, finish)
        if include_usage and reply.send_usage:
            tail += b"data: " + json.dumps(dict(base, choices=[], usage=usage)).encode() + b"\n\n"
        h.write_chunk(tail + b"data: [DONE]\n\n")
        h.end_chunked()


if __name__ == "__main__":
    from tests.helpers.__main__ import main

    sys.exit(main())
