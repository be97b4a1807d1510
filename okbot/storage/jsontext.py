"""JSON that came from a model or from a file, read with bounds: never deeper than a caller can walk.

It lives in the bottom layer so that every reader of a file or a reply (keys, settings, imports,
backups, MCP servers) uses the same bounds.

``json.loads`` raises ``RecursionError`` (not ``ValueError``) on thousands of nested brackets, and a
value a few hundred levels deep still parses but breaks whoever walks it later (``json.dumps``, a
digest, a renderer running on a thread with less stack). :func:`loads` turns both into
:class:`JSONTextError`, a ``ValueError`` with a message fit for the model or the user, so one
recorded tool call can never make a later turn, compression or view fail.
"""

from __future__ import annotations

import json
from typing import Any

# Tool arguments, summaries and memory answers are a few levels deep; nothing legitimate nears this.
MAX_DEPTH = 32


class JSONTextError(ValueError):
    """The text is not JSON, or is nested deeper than the reader allows."""


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests lists and objects more than ``limit`` levels (no recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def loads(text: str | bytes, *, what: str = "the text", max_depth: int = MAX_DEPTH) -> Any:
    """``text`` parsed, or :class:`JSONTextError` saying what is wrong with ``what``."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTextError(f"{what} is nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        raise JSONTextError(f"{what} is not valid JSON ({exc.msg} at position {exc.pos})") from exc
    except ValueError as exc:  # bytes that are not UTF-8
        raise JSONTextError(f"{what} is not valid JSON ({exc})") from exc
    if too_deep(value, max_depth):
        raise JSONTextError(f"{what} is nested more than {max_depth} levels deep")
    return value
