"""The provider interface: one streaming generator of typed events per model request.

A :class:`Provider` turns a :class:`ChatRequest` into an iterator of
:mod:`okbot.llm.events`. A :class:`CancelToken` lets another thread (the UI's Stop button)
end a stream promptly; the stream then finishes with ``Done("cancelled")``.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from okbot.llm.events import Event, ToolCallDelta, ToolCallDone

log = logging.getLogger("okbot.llm")


@dataclass
class ChatRequest:
    """What to send: the model, OpenAI-style ``messages`` and optional ``tools`` and sampling.

    ``max_tokens`` caps the *visible* answer; the backend sends it under the parameter the model
    family wants (``max_completion_tokens`` for reasoning models, with room for hidden reasoning).
    ``temperature`` is dropped for models that refuse one. ``background`` marks the app's own calls
    (summarizer, topic check, memory): they ask reasoning models for the least effort.
    ``response_format`` (e.g. a ``json_schema``) is dropped, and remembered, where a server refuses it.
    """

    model: str
    messages: list[dict]
    tools: list[dict] | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    response_format: dict | None = None
    background: bool = False


def ask_in_background(
    provider: Any, model: str, messages: list[dict], *, max_tokens: int, response_format: dict | None = None
) -> str:
    """One of the app's own calls (memory, upkeep): temperature 0, least reasoning effort, the whole answer.

    ``provider`` is a provider or a zero-argument factory of one (the app builds providers from the
    current settings, off the GUI thread).
    """
    resolved = provider if hasattr(provider, "complete") else provider()
    request = ChatRequest(
        model=model,
        messages=messages,
        temperature=0,
        max_tokens=max_tokens,
        response_format=response_format,
        background=True,
    )
    return resolved.complete(request)


class CancelToken:
    """A one-way "stop" flag shared between the thread that streams and the one that may cancel.

    :meth:`cancel` is thread-safe and idempotent; callbacks registered with :meth:`on_cancel`
    run once, on the cancelling thread (or at once when the token is already cancelled).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._event = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        self.abandoned = False  # OkBot is quitting: what waits for the user stays waiting, on disk

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` has been called."""
        return self._event.is_set()

    def abandon(self) -> None:
        """Cancel because OkBot quits (not the user's Stop): a call waiting for approval is not refused but
        kept for the next start."""
        self.abandoned = True
        self.cancel()

    def cancel(self) -> None:
        """Set the flag and run the registered callbacks (each at most once)."""
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            _run_callback(callback)

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` on cancel (now, if already cancelled); returns a function that unregisters it."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return lambda: self._remove(callback)
        _run_callback(callback)
        return lambda: None

    def _remove(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``, waking early on cancel; returns whether the token is cancelled."""
        return self._event.wait(max(0.0, seconds))


def _run_callback(callback: Callable[[], None]) -> None:
    try:
        callback()
    except Exception:  # one failing callback must not stop the others
        log.exception("a cancel callback failed")


@runtime_checkable
class Provider(Protocol):
    """A source of model replies (the openai-SDK backend)."""

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        """Yield the reply's events; always ends with ``Done`` or ``ErrorEvent``."""
        ...

    def list_models(self) -> list[str]:
        """The model ids the server offers, sorted (raises ``ProviderError``)."""
        ...

    def complete(self, request: ChatRequest, cancel: CancelToken | None = None) -> str:
        """The whole reply text of a non-streaming request (raises ``ProviderError``)."""
        ...

    @property
    def local(self) -> bool:
        """Whether the server runs on this machine (a request costs nothing but its time)."""
        ...

    def refuses(self, model: str, parameter: str) -> bool:
        """Whether the server is known to refuse request ``parameter`` (e.g. ``response_format``) for ``model``.

        Such a parameter is dropped from the request; a caller may adapt (ask for JSON in the prompt alone).
        """
        ...


def whole_characters(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate (``"\\ud83d"`` from a server's JSON escape) replaced by
    U+FFFD and every escaped surrogate pair joined into its character: a lone one cannot be printed,
    written to a file or sent on, so left in it would crash the CLI and lose the reply."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


# ---------------------------------------------------------------- tool calls


def new_call_id() -> str:
    """A fresh tool call id for a call the server sent without one."""
    return "call_" + secrets.token_hex(12)


class ToolCallAssembler:
    """Builds complete tool calls from streamed fragments, keyed by the fragments' ``index``.

    The id and name usually arrive once (first fragment); argument fragments are concatenated.
    A fragment without an index continues the latest call unless it brings a new id or name.
    """

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, str]] = {}
        self._last: int | None = None

    def add(self, index: int | None, call_id: str | None, name: str | None, arguments: str) -> ToolCallDelta:
        """Record one fragment and return it as a :class:`ToolCallDelta`."""
        if index is None:
            starts_new = self._last is None or bool(call_id) or (bool(name) and bool(self._calls[self._last]["name"]))
            index = (max(self._calls, default=-1) + 1) if starts_new else self._last
        assert index is not None
        call = self._calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
        if call_id:
            call["id"] = call_id
        if name:
            call["name"] = call["name"] + name if call["name"] and not call_id else name
        call["arguments"] += arguments or ""
        self._last = index
        return ToolCallDelta(index, call_id or None, name or None, arguments or "")

    def __len__(self) -> int:
        return len(self._calls)

    def calls(self) -> list[ToolCallDone]:
        """The assembled calls in index order (ids generated where the server sent none)."""
        done = []
        for index in sorted(self._calls):
            call = self._calls[index]
            if not call["id"]:
                call["id"] = new_call_id()
            done.append(ToolCallDone(call["id"], whole_characters(call["name"]), whole_characters(call["arguments"])))
        return done


# Small local models write tool calls as text: inside Qwen-style tags, a ``` fence, or bare JSON. After a
# first real call, Qwen2.5-1.5B copies the <tool_response> tags its chat template put around the result.
_TAGS = ("<tool_call>", "<tools>", "<tool_response>")
_TOOL_CALL_TAGS = re.compile(r"</?(?:tool_call|tool_calls|tools|tool_response)>")
_FENCE_LINE = re.compile(r"^[ \t]*```[\w-]*[ \t]*$", re.MULTILINE)
_FENCE_LANGUAGES = ("", "json", "tool_call", "tool_calls", "tools")
TOOL_TEXT_HEAD = 256  # the start of a reply that decides whether it may still be tool calls


def could_be_tool_text(text: str) -> bool:
    """Whether a reply that starts like ``text`` may still turn out to be tool calls written as text.

    Only the start counts (a bounded look): optional ``<tool_call>`` / ``<tools>`` tags or a ``` fence
    (no language, or json), then a JSON object opening with a key (``{"``, doubled ``{{"`` too) or a list
    of them. The moment the start rules that out (prose, ``<b>``, a list of numbers), it is text.
    """
    head = text[:TOOL_TEXT_HEAD].lstrip()
    while head.startswith(_TAGS):
        head = head[head.index(">") + 1 :].lstrip()
    if any(tag.startswith(head) for tag in _TAGS):
        return True  # nothing yet, or a tag still arriving
    if head.startswith("```"):
        language, newline, head = head[3:].partition("\n")
        language = language.strip().lower()
        if not newline:
            return any(known.startswith(language) for known in _FENCE_LANGUAGES)
        if language not in _FENCE_LANGUAGES:
            return False
        head = head.lstrip()
    elif "```".startswith(head):
        return True
    if head[:1] == "[":  # a list of calls
        head = head[1:].lstrip()
    if not head:
        return True
    if head[0] != "{":
        return False
    head = head[1:].lstrip()
    if head[:1] == "{":  # doubled braces
        head = head[1:].lstrip()
    return not head or head[0] == '"'


def _one_call(item: Any, allowed: set[str] | None) -> tuple[str, str] | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name or (allowed is not None and name not in allowed):
        return None
    if "arguments" in item:
        args = item["arguments"]
    elif "parameters" in item:
        args = item["parameters"]
    else:
        return None
    if args is None:
        args = {}
    if isinstance(args, str):
        return name, args
    if isinstance(args, dict):
        return name, json.dumps(args, ensure_ascii=False)
    return None


def _calls_in(value: Any, allowed: set[str] | None) -> list[tuple[str, str]] | None:
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        value = value["tool_calls"]
    items = value if isinstance(value, list) else [value]
    calls = [_one_call(item, allowed) for item in items]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def tool_names(tools: list[dict] | None) -> set[str] | None:
    """The function names in an OpenAI ``tools`` list (None when there are none to check against)."""
    names = set()
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    return names or None


def parse_tool_text(text: str, allowed: set[str] | None = None) -> list[tuple[str, str]] | None:
    """``(name, arguments JSON)`` pairs when ``text`` is nothing but tool calls written as text.

    Accepted shapes: ``{"name": .., "arguments": ..}``, ``{"tool_calls": [...]}``, a JSON list of calls,
    or several calls one after another (one per line or pretty-printed), each optionally inside
    ``<tool_call>`` or ``<tools>`` tags or a ``` fence. Small local models also double the braces
    (``{{"name": ..}}``, copied from a chat template) or leave a stray fence; both are read. With
    ``allowed``, every name must be one of the offered tools. Anything else, including JSON nested too
    deep to read, returns None (it stays text).
    """
    body = _FENCE_LINE.sub("\n", _TOOL_CALL_TAGS.sub("\n", text))
    body = body.replace("```", "\n").strip()  # a fence glued to the JSON (``{..}} ```)
    if not body or body[0] not in "{[" or (text.count("```") % 2 and text.lstrip().startswith("```")):
        return None  # an unclosed opening fence: the model was still writing
    candidates = [body]
    if "{{" in body:
        candidates += [
            body[1:-1] if body.startswith("{{") and body.endswith("}}") else body,
            body.replace("{{", "{").replace("}}", "}"),
        ]
    for candidate in candidates:
        calls = _json_calls(candidate, allowed) or _json_calls(_without_comments(candidate), allowed)
        if calls:
            return calls
    return None


def trailing_tool_text(text: str, allowed: set[str] | None) -> list[tuple[str, str]] | None:
    """The calls in the block that ends ``text``, after prose ("I'll use the lookup tool: ```json {..}```"):
    its last ``` fence or ``<tool_call>`` block, when that is nothing but calls of the offered tools
    (``allowed``; None: no tools were offered, so nothing is a call). The prose stays the reply's text."""
    if not allowed:
        return None
    end = text.rstrip()
    if end.endswith("</tool_call>"):
        start = end.rfind("<tool_call>")
    elif end.endswith("```") and len(end) > 3:
        start = end.rfind("```", 0, len(end) - 3)
    else:
        return None
    if start <= 0:  # no block, or the whole reply (the held-text path reads that one)
        return None
    return parse_tool_text(end[start:], allowed)


def _without_comments(body: str) -> str:
    """``body`` without ``//`` line comments outside JSON strings (a 1.5B Qwen annotates its arguments:
    ``"time": "14:30",  // 24-hour format``); strings, escapes included, stay as they are."""
    if "//" not in body:
        return body
    out: list[str] = []
    in_string = escaped = False
    at = 0
    while at < len(body):
        char = body[at]
        if in_string:
            in_string = escaped or char != '"'
            escaped = not escaped and char == "\\"
        elif char == '"':
            in_string = True
        elif body.startswith("//", at):
            end = body.find("\n", at)
            at = len(body) if end < 0 else end
            continue
        out.append(char)
        at += 1
    return "".join(out)


def _json_calls(body: str, allowed: set[str] | None) -> list[tuple[str, str]] | None:
    """The calls in ``body``: JSON values one after another (whitespace or commas between), all calls."""
    decoder = json.JSONDecoder()
    calls: list[tuple[str, str]] = []
    at = 0
    while at < len(body):
        try:
            value, at = decoder.raw_decode(body, at)
            found = _calls_in(value, allowed)
        except (ValueError, RecursionError):  # not JSON, or nested past what the parser can hold
            return None
        if found is None:
            return None
        calls.extend(found)
        while at < len(body) and body[at] in " \t\r\n,":
            at += 1
    return calls or None
