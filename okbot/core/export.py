"""Export one chat (an assistant's or a squad's) as Markdown to read, or as JSON holding the records as they are.

**Markdown** (:func:`write_markdown`) reads like the chat: a title, the dates, who said what (You, the
assistant's name, a squad's Captain and members by name), the summary divider where coverage ends
("Earlier messages were summarized", the summary folded in a ``<details>`` block), tool calls and results
as the chat's one-line digests (:mod:`okbot.core.chat_text`) with their full text folded, reasoning
folded, attachments named, notices as quotes. Only the **current branch** is exported: versions of a
message left behind by an edit or a regeneration are left out (the header says so when there are any),
and branch markers are not shown. Every text from the chat (what was said, reasoning, names, file names,
the summary) goes through :mod:`okbot.core.inert`: its Markdown renders, its HTML shows as text,
so only the app's own folds are markup and none can be closed from inside.

**JSON** (:func:`write_json`) is one object (not JSONL: the summary and the target's file travel with
the items, and ``json.load`` / ``jq`` read it in one go)::

    {"format": "okbot-chat-export", "formatVersion": 1, "okbotVersion": "0.1.0", "exportedAt": "...Z",
     "target": {"kind": "assistant" | "squad", "id": "...", "name": "...", "file": {assistant.json / squad.json as is}},
     "summary": {session-summary.json as is} | null,
     "items": [every valid line of session.jsonl, parsed, every version, in file order]}

Both writers stream: items are read one at a time through the session's offset index and written as
they come, so a chat of any length costs memory for one item. API keys are already redacted in the
records; nothing here adds one.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from okbot import __version__
from okbot.core import chat_text
from okbot.core.attachments import attachment_line
from okbot.core.inert import inert, inert_line
from okbot.core.items import is_delegation, is_member_answer, now_iso, split_app_note
from okbot.core.kind import Kind
from okbot.core.roster import SquadRoster
from okbot.core.session import SessionStore
from okbot.core.workspace import Target, Workspace, read_json_object
from okbot.i18n import QT_TRANSLATE_NOOP, plural, translate
from okbot.storage.atomic import atomic_open
from okbot.storage.errors import OkBotError

FORMATS = ("md", "json")
JSON_FORMAT = "okbot-chat-export"
JSON_FORMAT_VERSION = 1
SUMMARIZED = QT_TRANSLATE_NOOP("export", "Earlier messages were summarized")  # translated where written
PROGRESS_EVERY = 1000  # items between two progress reports

Progress = Callable[[int, int], None]  # (items written, items in all)


def _when(ts: Any) -> str:
    """``2026-12-01 14:03`` in local time ("" when unreadable)."""
    if not isinstance(ts, str) or not ts:
        return ""
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ""
    return (moment.astimezone() if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M")


def _fence(text: str, lang: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _folded(label: str, body: str) -> str:
    """A ``<details>`` block: ``label`` shown, ``body`` (Markdown, made inert by the caller) folded."""
    return f"<details><summary>{html.escape(label)}</summary>\n\n{body}\n\n</details>"


def _quoted(text: str, mark: str = "") -> str:
    """``text`` made inert as a quote, ``mark`` before its first line (before it is made inert: a mark put
    in front of a fence afterwards would undo it)."""
    lines = inert(f"{mark} {text}" if mark and text else mark or text).split("\n")  # not splitlines(): see inert
    return "\n".join(f"> {line}" if line else ">" for line in lines)


class _Names:
    """Who said an item, as the chat names them."""

    def __init__(self, target: Target, workspace: Workspace) -> None:
        self.target = target
        self.roster = SquadRoster.build(target, workspace.assistants()) if target.is_squad else None
        if self.roster is not None:
            self.roster.captain_label = translate("export", "Captain")

    def speaker(self, item: dict[str, Any]) -> str:
        """Who said ``item``, made inert for a heading."""
        if self.roster is None:
            return inert_line(self.target.name)
        return inert_line(self.roster.name(self.roster.speaker(item)))

    def asked(self, item: dict[str, Any]) -> str:
        """The member a delegation asks (the tool's name when it is no member), as text for a fold's label."""
        member = self.roster.member_of_call(str(item.get("name") or "")) if self.roster is not None else ""
        return self.roster.name(member) if self.roster is not None and member else str(item.get("name") or "")


def _item_markdown(item: dict[str, Any], names: _Names) -> str:
    """One item of the chat as Markdown."""
    kind = item.get("type")
    when = _when(item.get("ts"))
    stamp = f" · {when}" if when else ""
    if kind == "user":
        parts = ["### " + translate("export", "You") + stamp, "", inert(str(item.get("content") or ""))]
        files = attachment_line(item)
        if files:
            parts += ["", f"*{inert_line(files)}*"]
        return "\n".join(parts)
    if kind == "assistant":
        parts = [f"### {names.speaker(item)}{stamp}", ""]
        reasoning = str(item.get("reasoning") or "").strip()
        if reasoning:
            parts += [_folded(translate("export", "Reasoning"), inert(reasoning)), ""]
        parts.append(inert(str(item.get("content") or "")))
        status = chat_text.status_line(item)
        if status:
            parts += ["", _quoted(status, "⚠")]
        return "\n".join(parts)
    if is_member_answer(item):
        said, note = split_app_note(str(item.get("content") or ""))
        captain = names.roster.captain_label if names.roster is not None else translate("export", "Captain")
        parts = [f"### {names.speaker(item)} → {inert_line(captain)}{stamp}", "", inert(said)]
        if note:
            parts += ["", _quoted(note)]
        return "\n".join(parts)
    if kind in ("tool_call", "tool_result"):
        if is_delegation(item):
            label = chat_text.delegation_label(item, names.asked(item))
        else:
            label = chat_text.tool_digest(item)
        return _folded(f"⚙ {label}", _fence(chat_text.copy_text(item) if kind == "tool_call" else _tool_text(item)))
    level = item.get("level", "info")
    mark = {"warning": "⚠", "error": "⛔"}.get(str(level), "ℹ")
    return _quoted(str(item.get("content") or ""), mark)


def _tool_text(item: dict[str, Any]) -> str:
    content = item.get("content", "")
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def _branch_items(store: SessionStore) -> tuple[Iterator[dict[str, Any]], int, bool]:
    """The items the chat shows (current branch, no markers), streamed; their count; whether versions exist."""
    shown = store.branch_ids(markers=False)
    keep = set(shown)
    has_versions = bool(store.marker_ids())
    return (item for item in store.iter_items() if item["id"] in keep), len(shown), has_versions


def write_markdown(target: Target, workspace: Workspace, out: TextIO, *, progress: Progress | None = None) -> int:
    """Write ``target``'s chat as Markdown to ``out`` (see the module docstring); return the items written."""
    from okbot.core.summary import SummaryStore

    store = SessionStore(target.session_path)
    summary = SummaryStore(target.summary_path).load()
    items, total, has_versions = _branch_items(store)
    names = _Names(target, workspace)
    out.write(f"# {inert_line(target.name)}\n\n")
    first = store.get(store.ids()[0]) if total else None
    last = store.get(store.last_id()) if total else None
    span = f" · {_when(first.get('ts'))} – {_when(last.get('ts'))}" if first and last else ""
    out.write(f"*{_header(target.kind, total, span)}*\n")
    if target.is_squad and names.roster is not None and names.roster.members:
        members = ", ".join(inert_line(names.roster.name(m)) for m in names.roster.members)
        out.write("\n*" + translate("export", "Members: {names}").format(names=members) + "*\n")
    if has_versions:
        edited = translate("export", "Messages were edited or regenerated: only the versions on screen are exported.")
        out.write(f"\n*{edited}*\n")
    covered = summary.covered_through_id if summary.summary else 0
    below = sum(1 for i in store.branch_ids(markers=False) if i <= covered) if covered else 0
    written = 0
    divider_done = not covered
    for item in items:
        if not divider_done and item["id"] > covered:
            out.write(_divider(summary.summary, below))
            divider_done = True
        out.write("\n" + _item_markdown(item, names) + "\n")
        written += 1
        if progress is not None and written % PROGRESS_EVERY == 0:
            progress(written, total)
    if not divider_done:
        out.write(_divider(summary.summary, below))
    if progress is not None:
        progress(written, total)
    return written


def _header(kind: Kind, total: int, span: str) -> str:
    """The line under the title: what chat, how many items, from when to when, when exported."""
    if kind is Kind.SQUAD:
        text = plural(
            total,
            translate("export", "Squad chat · {n} item{span} · exported {when}"),
            translate("export", "Squad chat · {n} items{span} · exported {when}"),
        )
    else:
        text = plural(
            total,
            translate("export", "Assistant chat · {n} item{span} · exported {when}"),
            translate("export", "Assistant chat · {n} items{span} · exported {when}"),
        )
    return text.format(n=f"{total:,}", span=span, when=_when(now_iso()))


def _divider(summary: str, count: int) -> str:
    above = plural(count, translate("export", " ({n} item above)"), translate("export", " ({n} items above)")).format(
        n=f"{count:,}"
    )
    folded = _folded(translate("export", "Summary"), inert(summary))
    summarized = translate("export", SUMMARIZED)
    return f"\n---\n\n**{summarized}**{above}\n\n{folded}\n\n---\n"


def write_json(target: Target, out: TextIO, *, progress: Progress | None = None) -> int:
    """Write ``target``'s records as one JSON object to ``out`` (see the module docstring); return the items."""
    store = SessionStore(target.session_path)
    total = len(store)
    head = {
        "format": JSON_FORMAT,
        "formatVersion": JSON_FORMAT_VERSION,
        "okbotVersion": __version__,
        "exportedAt": now_iso(),
        "target": {
            "kind": target.kind,
            "id": target.id,
            "name": target.name,
            "file": read_json_object(target.meta_path),
        },
        "summary": read_json_object(target.summary_path),
    }
    text = json.dumps(head, ensure_ascii=False, indent=2)
    out.write(text[:-2] + ',\n  "items": [')  # the head without its closing brace, then the items
    written = 0
    for item in store.iter_items():
        out.write(("\n    " if not written else ",\n    ") + json.dumps(item, ensure_ascii=False))
        written += 1
        if progress is not None and written % PROGRESS_EVERY == 0:
            progress(written, total)
    out.write("\n  ]\n}\n" if written else "]\n}\n")
    if progress is not None:
        progress(written, total)
    return written


def export_chat(
    target: Target, workspace: Workspace, fmt: str, out: TextIO, *, progress: Progress | None = None
) -> int:
    """Write ``target``'s chat in ``fmt`` (``md`` or ``json``) to ``out``; return the items written."""
    if fmt == "md":
        return write_markdown(target, workspace, out, progress=progress)
    if fmt == "json":
        return write_json(target, out, progress=progress)
    raise OkBotError(
        translate("export", "unknown export format {format}").format(format=repr(fmt)),
        hint=translate("export", "use md or json"),
    )


def export_to_file(
    target: Target,
    workspace: Workspace,
    fmt: str,
    path: Path,
    *,
    force: bool = False,
    progress: Progress | None = None,
) -> int:
    """Export into ``path`` through a temp file renamed over it (never half a file); refuse an existing file
    unless ``force``. Returns the items written."""
    path = Path(path)
    if path.exists() and not force:
        raise OkBotError(
            translate("export", "{path} exists").format(path=path),
            hint=translate("export", "choose another file, or add --force to replace it"),
        )
    if not path.parent.is_dir():
        raise OkBotError(translate("export", "no folder {path}").format(path=path.parent))
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as (fh, _tmp):
        return export_chat(target, workspace, fmt, fh, progress=progress)
