"""An MCP tool's name and input schema, made fit for a Chat Completions ``tools`` entry.

MCP servers describe their tools with full JSON Schema; providers take a subset. OpenAI wants an
object at the top; Gemini's and many local servers' OpenAI-compatible endpoints refuse ``$ref``,
``$defs``, ``if``/``then``, ``patternProperties`` and the like outright. :func:`simplify` keeps what
every provider takes (types, properties, required, items, enums, descriptions, bounds), resolves local
``$ref``\\ s by inlining them, and returns in words what it changed, so the user can be told. The
server still validates the arguments against its own schema: a simplified schema only guides the model.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from okbot.config.mcp import TOOL_SEPARATOR
from okbot.i18n import translate

MAX_NAME_CHARS = 64  # Chat Completions function names: ^[a-zA-Z0-9_-]{1,64}$
MAX_SCHEMA_CHARS = 16_000  # a bigger schema is replaced by a bare object (and said so)
MAX_DEPTH = 12
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


def simplify(schema: Any) -> tuple[dict[str, Any], list[str]]:
    """``(a schema every provider takes, what was changed in words)`` for one tool's ``inputSchema``."""
    notes: list[str] = []
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}, [
            translate("schema", "its input schema was not an object; the model gets none")
        ]
    if len(json.dumps(schema, ensure_ascii=False)) > MAX_SCHEMA_CHARS:
        return {"type": "object", "properties": {}}, [
            translate(
                "schema", "its input schema is over {chars} characters; the model gets only the description"
            ).format(chars=f"{MAX_SCHEMA_CHARS:,}")
        ]
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    out = _walk(schema, defs, notes, depth=0, seen=())
    if out.get("type") != "object":
        notes.append(translate("schema", "its input schema was not an object at the top; the model gets a bare object"))
        out = {"type": "object", "properties": {}}
    out.setdefault("properties", {})
    return out, sorted(set(notes))


def _walk(node: Any, defs: dict[str, Any], notes: list[str], *, depth: int, seen: tuple[str, ...]) -> Any:
    if not isinstance(node, dict):
        return node
    if depth > MAX_DEPTH:
        notes.append(translate("schema", "nesting deeper than {depth} levels was cut").format(depth=MAX_DEPTH))
        return {}
    if isinstance(node.get("$ref"), str):
        return _follow(node, defs, notes, depth=depth, seen=seen)

    def walk(sub: Any) -> Any:
        return _walk(sub, defs, notes, depth=depth + 1, seen=seen)

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
    if key == "description" and isinstance(value, str) and len(value) > MAX_DESCRIPTION_CHARS:
        notes.append(
            translate("schema", "descriptions over {chars} characters were shortened").format(
                chars=f"{MAX_DESCRIPTION_CHARS:,}"
            )
        )
        return value[: MAX_DESCRIPTION_CHARS - 1] + "…"
    return value


def _follow(node: dict[str, Any], defs: dict[str, Any], notes: list[str], *, depth: int, seen: tuple[str, ...]) -> Any:
    """A ``$ref`` node written out in place (its own keywords over the referenced ones)."""
    ref = node["$ref"]
    key = ref.rsplit("/", 1)[-1]
    if not ref.startswith("#/") or key not in defs:
        notes.append(translate("schema", "a reference it could not follow ({ref}) became 'any value'").format(ref=ref))
        return {}
    if key in seen:
        notes.append(translate("schema", "a recursive reference ({ref}) was cut").format(ref=ref))
        return {}
    notes.append(translate("schema", "references ($ref) were written out in place"))
    merged = {**defs[key], **{k: v for k, v in node.items() if k != "$ref"}}
    return _walk(merged, defs, notes, depth=depth + 1, seen=(*seen, key))
