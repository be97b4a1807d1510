"""Script files for the fake OpenAI server, and its command line.

``python -m tests.helpers.fake_openai --port 8765 [--script replies.json]`` (or ``python -m tests.helpers``)
prints the base URL on the first line of stdout and serves until Ctrl+C. A script is a JSON list of
:class:`~tests.helpers.fake_openai.Reply` field objects, with ``tool_calls`` as ``[{"name", "arguments"}]``
(``arguments`` an object or a raw JSON string, optional ``call_id``), served in order; then the echo default.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call

_CHECKS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "dict": lambda v: isinstance(v, dict),
}


def reply_from_dict(data: Any) -> Reply:
    """Build a :class:`Reply` from JSON data; ``tool_calls`` is a list of ``{"name", "arguments"}``.

    Raises ``ValueError`` naming the offending field on unknown fields or wrong types.
    """
    if not isinstance(data, dict):
        raise ValueError(f"a reply must be a JSON object, got {type(data).__name__}")
    known = {f.name: str(f.type) for f in fields(Reply)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown reply field(s): {', '.join(unknown)}; known fields: {', '.join(known)}")
    kwargs = dict(data)
    calls = kwargs.pop("tool_calls", [])
    if not isinstance(calls, list):
        raise ValueError('tool_calls must be a list of {"name", "arguments"} objects')
    specs = []
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ValueError(f'tool_calls[{i}] must be an object with a string "name"')
        args = call.get("arguments", {})
        if not isinstance(args, (dict, str)):
            raise ValueError(f"tool_calls[{i}].arguments must be an object or a JSON string")
        specs.append(tool_call(call["name"], args, call.get("call_id")))
    for name, value in kwargs.items():
        kinds = [k.strip() for k in known[name].split("|")]
        if not (value is None and "None" in kinds) and not any(_CHECKS[k](value) for k in kinds if k in _CHECKS):
            raise ValueError(f"reply field {name!r} must be {known[name]}, got {value!r}")
    return Reply(tool_calls=specs, **kwargs)


def load_script(path: str | Path) -> list[Reply]:
    """Read a JSON list of reply objects; ``ValueError`` says which entry and field is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read script {path}: {exc}") from exc
    if not isinstance(data, list):
        raise ValueError(f"script {path} must be a JSON list of replies, got {type(data).__name__}")
    replies = []
    for i, entry in enumerate(data):
        try:
            replies.append(reply_from_dict(entry))
        except ValueError as exc:
            raise ValueError(f"script {path}, reply #{i}: {exc}") from exc
    return replies


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until Ctrl+C; prints the base URL on the first line of stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.helpers.fake_openai", description="Serve a fake OpenAI-compatible API."
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--script", help="JSON list of Reply field objects, served in order")
    parser.add_argument("--model", action="append", help="accepted model (repeatable); default: the usual two")
    parser.add_argument("--any-model", action="store_true", help="accept any model name")
    parser.add_argument("--require-key", help="answer 401 unless Authorization is 'Bearer <key>'")
    args = parser.parse_args(argv)
    try:
        replies = load_script(args.script) if args.script else []
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    models: Sequence[str] = [] if args.any_model else (args.model or ("gpt-4o-mini", "fake-small"))
    server = FakeOpenAIServer(host=args.host, port=args.port, models=models, require_key=args.require_key)
    server.enqueue(*replies)
    server.start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
