"""Context windows for the fake OpenAI server: how it counts a prompt, and each real server's refusal word for word.

**The count** (:func:`fake_prompt_tokens`) is plain arithmetic, the same on every machine, and deliberately not
OkBot's tiktoken estimate: a real server counts with its own tokenizer and chat template, so OkBot can never
assume the two agree. Per message 4 tokens of template (role markers, as a ChatML template spends), plus its
text: every ASCII character 1/3.5 of a token (a little denser than tiktoken's ~4 characters a token for
English), every other character one token (CJK text comes close to that in the tokenizers of local models);
an image part 256 tokens; an assistant message's tool calls by the characters of their names and arguments.
The tools offered count by the characters of their JSON, and 3 tokens open the reply (the generation prompt).

**The refusals** (:func:`window_refusal`), each copied from the server's source or its recorded answers:

- ``"llama.cpp"`` — llama.cpp's server, ``tools/server/server-context.cpp`` (the prompt check before a slot
  starts: ``task->n_tokens() >= slot.n_ctx``) and ``server-common.cpp::format_error_response``
  (``ERROR_TYPE_EXCEED_CONTEXT_SIZE`` → type ``exceed_context_size_error``, code 400) with ``n_prompt_tokens`` and
  ``n_ctx`` added by ``server-task.cpp::server_task_result_error::to_json``; the HTTP status is the body's
  ``code``. Only the prompt counts (generation just stops at the window). A streamed request gets the same
  400: the server sends its headers only once the prompt is being processed.
- ``"llama-cpp-python"`` — abetlen/llama-cpp-python, ``llama_cpp/server/errors.py``
  (``ErrorResponseFormatters.context_length_exceeded``, HTTP 400) over ``llama.py``'s
  ``len(prompt_tokens) >= self._n_ctx`` check; ``max_tokens`` is only *named* (``None`` when not sent, as its
  chat request model defaults it) and otherwise shortened to fit, never refused.
- ``"vllm"`` — vllm-project/vllm, ``vllm/entrypoints/openai/serving_engine.py::_validate_input`` (commit
  7ded96b3, the 0.9 series: ``max_completion_tokens or max_tokens`` counted with the prompt) and the flat
  ``ErrorResponse`` of ``protocol.py`` (``object: "error"``, ``type: "BadRequestError"``, ``code: 400``) that
  ``api_server.py`` answers with status ``code``. Later releases reword it; this is one release, exactly.
- ``"openai"`` — OpenAI's API as its users recorded it (e.g. chathub-dev/chathub#126, conghaonet/hao_chatgpt#4):
  ``context_length_exceeded``; with a completion cap, prompt and cap together against the window.
"""

from __future__ import annotations

import json
import math
from typing import Any

MESSAGE_OVERHEAD = 4  # template tokens around each message
REPLY_PRIMING = 3  # the generation prompt that opens the assistant's turn
IMAGE_TOKENS = 256
ASCII_CHARS_PER_TOKEN = 3.5
WINDOW_STYLES = ("openai", "llama.cpp", "llama-cpp-python", "vllm")


def _text_tokens(text: str) -> int:
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / ASCII_CHARS_PER_TOKEN) + (len(text) - ascii_chars)


def _content_tokens(content: Any) -> int:
    if isinstance(content, str):
        return _text_tokens(content)
    if not isinstance(content, list):
        return 0
    total = 0
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            total += IMAGE_TOKENS
        elif isinstance(part.get("text"), str):
            total += _text_tokens(part["text"])
    return total


def _calls_tokens(calls: Any) -> int:
    total = 0
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            total += _text_tokens(str(function.get("name") or "") + str(function.get("arguments") or ""))
    return total


def fake_prompt_tokens(body: Any) -> int | None:
    """The prompt tokens the fake counts for a chat request ``body`` (see the module docstring); None when the
    body has no list of messages."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return None
    total = REPLY_PRIMING
    for message in messages:
        if isinstance(message, dict):
            total += (
                MESSAGE_OVERHEAD + _content_tokens(message.get("content")) + _calls_tokens(message.get("tool_calls"))
            )
    tools = body.get("tools")
    if tools:
        total += _text_tokens(json.dumps(tools, ensure_ascii=False))
    return total


def _cap(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def window_refusal(style: str, window: int, body: dict, prompt: int) -> tuple[int, dict] | None:
    """``(status, body)`` of the refusal a server of ``style`` with ``window`` answers to ``body`` whose prompt
    counts ``prompt`` tokens, or None when it fits."""
    if style == "llama.cpp":
        if prompt < window:
            return None
        message = f"request ({prompt} tokens) exceeds the available context size ({window} tokens), try increasing it"
        error = {"code": 400, "message": message, "type": "exceed_context_size_error"}
        return 400, {"error": {**error, "n_prompt_tokens": prompt, "n_ctx": window}}
    if style == "llama-cpp-python":
        if prompt < window:
            return None
        named = body.get("max_tokens") if _cap(body.get("max_tokens")) else None
        message = (
            f"This model's maximum context length is {window} tokens. However, you requested {(named or 0) + prompt} "
            f"tokens ({prompt} in the messages, {named} in the completion). "
            "Please reduce the length of the messages or completion."
        )
        return 400, {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        }
    cap = _cap(body.get("max_completion_tokens")) or _cap(body.get("max_tokens"))
    head = f"This model's maximum context length is {window} tokens. However, you requested"
    both = (
        f"{head} {prompt + (cap or 0)} tokens ({prompt} in the messages, {cap} in the completion). "
        "Please reduce the length of the messages or completion."
    )
    if style == "vllm":
        if cap is None and prompt >= window:
            message = f"{head} {prompt} tokens in the messages, Please reduce the length of the messages."
        elif cap is not None and prompt + cap > window:
            message = both
        else:
            return None
        return 400, {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}
    if style == "openai":
        if cap is not None and prompt + cap > window:
            message = both
        elif prompt > window:
            message = (
                f"This model's maximum context length is {window} tokens. However, your messages resulted in "
                f"{prompt} tokens. Please reduce the length of the messages."
            )
        else:
            return None
        error = {"message": message, "type": "invalid_request_error", "param": "messages"}
        return 400, {"error": {**error, "code": "context_length_exceeded"}}
    raise ValueError(f"unknown window style {style!r} (one of {', '.join(WINDOW_STYLES)})")
