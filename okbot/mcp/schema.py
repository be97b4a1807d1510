"""An MCP tool's name and input schema, made fit for a Chat Completions ``tools`` entry.

MCP servers describe their tools with full JSON Schema; providers take a subset. OpenAI wants an
object at the top; Gemini's and many local servers' OpenAI-compatible endpoints refuse ``$ref``,
``$defs``, ``if``/``then``, ``patternProperties`` and the like outright. :func:`simplify` keeps what
every provider takes (types, properties, required, items, enums, descriptions, bounds), resolves local
``$ref``\\ s by inlining them, and returns in words what it changed, so the user can be told. The
server still validates the arguments against its own schema: a simplified schema only guides the model.

The work is bounded: a schema nested deeper than :data:`MAX_RAW_DEPTH`, or one whose references
written out would pass :data:`MAX_SCHEMA_CHARS` (a few definitions each referring to the next several
times grow exponentially), is replaced by a bare object, with a note saying so.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from okbot.config.mcp import TOOL_SEPARATOR
from okbot.i18n import translate
from okbot.mcp.said import clean
from okbot.storage.jsontext import too_deep

MAX_NAME_CHARS = 64  # Chat Completions function names: ^[a-zA-Z0-9_-]{1,64}$
MAX_SCHEMA_CHARS = 16_000  # a bigger schema, as sent or written out, is replaced by a bare object (and said so)
MAX_DEPTH = 12
MAX_RAW_DEPTH = 64  # a deeper one is not walked at all
MAX_DESCRIPTION_CHARS = 1_000

# Keywords every provider we know takes. Anything else is dropped, and named in the notes.
_KEEP = {
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "description",
    "title",
    "default",
    "anyOf",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
    "format",
    "additionalProperties",
}
_SILENT = {"$schema", "$id", "$comment", "examples", "deprecated", "readOnly", "writeOnly"}
_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def offered_name(server: str, tool: str) -> str:
    """``<server>__<tool>``, with characters a provider refuses made ``_`` and cut to 64 with a hash."""
    name = f"{server}{TOOL_SEPARATOR}{_BAD_CHARS.sub('_', tool)}"
    if len(name) <= MAX_NAME_CHARS:
        return name
    digest = hashlib.sha256(tool.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME_CHARS - 9]}_{digest}"


class _TooBig(Exception):
    """The schema's references, written out, pass :data:`MAX_SCHEMA_CHARS`."""


class _Budget:
    """The characters the written-out references may still add; each reference followed costs its definition's."""

    def __init__(self, defs: dict[str, Any], chars: int) -> None:
        self.defs = defs
        self.left = chars
        self._sizes: dict[str, int] = {}

    def spend(self, key: str) -> None:
        if key not in self._sizes:
            self._sizes[key] = len(json.dumps(self.defs[key], ensure_ascii=False))
        self.left -= self._sizes[key]
        if self.left < 0:
            raise _TooBig


def _bare(note: str) -> tuple[dict[str, Any], list[str]]:
    return {"type": "object", "properties": {}}, [note]


def simplify(schema: Any) -> tuple[dict[str, Any], list[str]]:
    """``(a schema every provider takes, what was changed in words)`` for one tool's ``inputSchema``."""
    notes: list[str] = []
    if not isinstance(schema, dict):
        return _bare(translate("schema", "its input schema was not an object; the model gets none"))
    if too_deep(schema, MAX_RAW_DEPTH):
        return _bare(
            translate(
                "schema", "its input schema is nested more than {depth} levels; the model gets only the description"
            ).format(depth=MAX_RAW_DEPTH)
        )
    size = len(json.dumps(schema, ensure_ascii=False))
    if size > MAX_SCHEMA_CHARS:
        return _bare(
            translate(
                "schema", "its input schema is over {chars} characters; the model gets only the description"
            ).format(chars=f"{MAX_SCHEMA_CHARS:,}")
        )
    defs = {**_mapping(schema.get("definitions")), **_mapping(schema.get("$defs"))}
    try:
        out = _walk(schema, _Budget(defs, MAX_SCHEMA_CHARS - size), notes, depth=0, seen=())
    except _TooBig:
        return _bare(
            translate(
                "schema",
                "its input schema, its references written out, is over {chars} characters; "
                "the model gets only the description",
            ).format(chars=f"{MAX_SCHEMA_CHARS:,}")
        )
    if out.get("type") != "object":
        notes.append(translate("schema", "its input schema was not an object at the top; the model gets a bare object"))
        out = {"type": "object", "properties": {}}
    out.setdefault("properties", {})
    return out, sorted({clean(note, one_line=True) for note in notes})  # they quote the server's keywords


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _walk(node: Any, budget: _Budget, notes: list[str], *, depth: int, seen: tuple[str, ...]) -> Any:
    if not isinstance(node, dict):
        return node
    if depth > MAX_DEPTH:
        notes.append(translate("schema", "nesting deeper than {depth} levels was cut").format(depth=MAX_DEPTH))
        return {}
    if isinstance(node.get("$ref"), str):
        return _follow(node, budget, notes, depth=depth, seen=seen)

    def walk(sub: Any) -> Any:
        return _walk(sub, budget, notes, depth=depth + 1, seen=seen)

    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$defs", "definitions"):
            continue
        if key == "allOf" and isinstance(value, list) and len(value) == 1:  # allOf of one schema is that schema
            out.update(walk(value[0]))
            continue
        if key == "const":  # the same meaning, in a keyword every provider takes
            key, value = "enum", [value]
        if key in ("oneOf", "allOf") and isinstance(value, list):  # reads to the model like anyOf
            notes.append(translate("schema", "'{keyword}' became 'anyOf'").format(keyword=key))
            key = "anyOf"
        if key not in _KEEP:
            if key not in _SILENT:
                notes.append(translate("schema", "the keyword '{keyword}' was left out").format(keyword=key))
            continue
        out[key] = _keep(key, value, walk, notes)
    if isinstance(out.get("type"), list):
        # ["string", "null"] is refused by some servers; an optional value can be left out instead.
        kinds = [t for t in out["type"] if t != "null"]
        if len(kinds) == 1:
            out["type"] = kinds[0]
    if isinstance(out.get("properties"), dict) and isinstance(out.get("required"), list):
        out["required"] = [name for name in out["required"] if name in out["properties"]]
    return out


def _keep(key: str, value: Any, walk: Any, notes: list[str]) -> Any:
    """One kept keyword's value, its sub-schemas simplified."""
    if key == "properties" and isinstance(value, dict):
        return {name: walk(sub) for name, sub in value.items()}
    if key in ("items", "additionalProperties") and isinstance(value, dict):
        return walk(value)
    if key == "anyOf" and isinstance(value, list):
        return [walk(sub) for sub in value]
    if key in ("description", "title") and isinstance(value, str):
        value = clean(value)
    if key == "description" and isinstance(value, str) and len(value) > MAX_DESCRIPTION_CHARS:
        notes.append(
            translate("schema", "descriptions over {chars} characters were shortened").format(
                chars=f"{MAX_DESCRIPTION_CHARS:,}"
            )
        )
        return value[: MAX_DESCRIPTION_CHARS - 1] + "…"
    return value


def _follow(node: dict[str, Any], budget: _Budget, notes: list[str], *, depth: int, seen: tuple[str, ...]) -> Any:
    """A ``$ref`` node written out in place (its own keywords over the referenced ones)."""
    ref = node["$ref"]
    key = ref.rsplit("/", 1)[-1]
    if not ref.startswith("#/") or key not in budget.defs:
        notes.append(translate("schema", "a reference it could not follow ({ref}) became 'any value'").format(ref=ref))
        return {}
    if key in seen:
        notes.append(translate("schema", "a recursive reference ({ref}) was cut").format(ref=ref))
        return {}
    budget.spend(key)
    notes.append(translate("schema", "references ($ref) were written out in place"))
    merged = {**_mapping(budget.defs[key]), **{k: v for k, v in node.items() if k != "$ref"}}
    return _walk(merged, budget, notes, depth=depth + 1, seen=(*seen, key))
