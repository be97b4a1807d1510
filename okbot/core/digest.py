"""One-line digests of session items, and the user-message checklist.

The summarizer never sees raw tool output (nor attached files: a user message's files are one
``[attached: name · kind · size]`` digest): a call becomes ``call tool(argument gist)`` and a
result ``result tool: ok, 52,310 chars, 1,204 lines: <first line gist>``. The UI's collapsed
tool rows and hidden tool results in the projection use the same digests.
"""

from __future__ import annotations

import json
import re
from typing import Any

from okbot.core.attachments import digest as attachments_digest
from okbot.core.items import is_member_answer, item_text, preview
from okbot.core.wire_names import NO_NAMES, WireNames
from okbot.storage import jsontext

# Messages that only move the work along; never offered for verbatim keeping.
_ACKS = {
    "ok",
    "okay",
    "k",
    "kk",
    "yes",
    "y",
    "yep",
    "yeah",
    "sure",
    "thanks",
    "thank you",
    "thx",
    "ty",
    "cool",
    "great",
    "nice",
    "good",
    "fine",
    "continue",
    "go on",
    "go ahead",
    "proceed",
    "next",
    "go",
    "done",
    "got it",
    "sounds good",
    "lgtm",
    "perfect",
    "alright",
    "all right",
    "carry on",
    "keep going",
    "please continue",
    "ok thanks",
    "ok, thanks",
    "好",
    "好的",
    "继续",
    "谢谢",
    "可以",
    "行",
    "嗯",
    "👍",
    "🙏",
}
_TRIM = re.compile(r"[\s.!?,;:~…。！？，]+")


# Strong markers: the message sets a constraint, prohibition, permission, preference or direction.
_STRONG_DIRECTIVE = re.compile(
    r"\b(never|always|don'?t|do not|must|mustn'?t|should(n'?t)?|only|avoid|prefer(s|red)?|make sure|ensure|"
    r"you may|you can|allowed|permission|remember|from now on|no more|instead|at most|at least|every time|"
    r"after every|constraint|rule|require[sd]?|going forward|henceforth|whenever|when i say|without asking|"
    r"by default|if i (say|write|type|send)|keep (it|this|that)|(we|you)('ll| will) need (it|this|that))\b"
    r"|不要|别|必须|总是|永远|只|请用|可以|记住|记下|以后|今后|从现在|每次|每当|一律|始终|务必|不用问|当我说|我说|如果我(写|输入|发)"
    r"|后面要用|留着|绝不|决不|绝对不|切勿|千万|不准|不许|禁止|改为",
    re.IGNORECASE,
)
# Weak markers: topical words that often come with direction but as often with chit-chat ("the deadline").
_WEAK_DIRECTIVE = re.compile(r"\b(report|deadline|budget|limit|priority|goal|plan)\b|目标|计划", re.IGNORECASE)

STRONG_DIRECTIVE = 2
WEAK_DIRECTIVE = 1
NOT_DIRECTIVE = 0


def directive_grade(text: str) -> int:
    """How surely a user message sets direction: ``STRONG_DIRECTIVE`` (never/always/must/only/from now on/
    constraint/rule/you may/permission/prefer ...), ``WEAK_DIRECTIVE`` (only topical words such as
    deadline/plan/report/goal) or ``NOT_DIRECTIVE``.

    Fallbacks without a model rank kept words by it, so chit-chat that mentions a deadline never pushes
    a constraint out.
    """
    if _STRONG_DIRECTIVE.search(text):
        return STRONG_DIRECTIVE
    return WEAK_DIRECTIVE if _WEAK_DIRECTIVE.search(text) else NOT_DIRECTIVE


def is_directive(text: str) -> bool:
    """Cheap check: does a user message look like it sets direction, a constraint, preference or permission?

    Any grade counts (see :func:`directive_grade`). Used so a message the summarizer neither kept nor
    released is kept anyway (keep more, never less).
    """
    return directive_grade(text) > NOT_DIRECTIVE


def is_trivial(text: str) -> bool:
    """True for short acknowledgements such as "ok", "continue", "thanks!"."""
    core = _TRIM.sub(" ", text.strip().lower()).strip()
    return not core or core in _ACKS


def argument_gist(arguments: str, limit: int = 80) -> str:
    """The arguments of a tool call, shortened: ``path="src/app.py", start_line=1``."""
    try:
        value = jsontext.loads(arguments) if arguments.strip() else {}
    except ValueError:  # a recorded call must never make a later compression fail
        return preview(arguments, limit)
    if isinstance(value, dict):
        return preview(", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in value.items()), limit)
    return preview(json.dumps(value, ensure_ascii=False), limit)


def call_digest(item: dict[str, Any], limit: int = 80) -> str:
    """One line for a tool call: ``read_file(path="notes.md")``."""
    return f"{item.get('name') or 'tool'}({argument_gist(item.get('arguments', ''), limit)})"


# Exact references a digest keeps: ticket-style ids (BUG-101, FACT-4007, Q-7: their digits alone say little)
# and URLs. The summary's reference checks use the same patterns (okbot.core.compression.structure).
TICKET_ID = re.compile(r"\b[A-Z][A-Z0-9]{0,9}-\d+\b")
URL = re.compile(r"https?://[^\s)\]>\"']+")


def named_ids(text: str, limit: int = 240) -> str:
    """The ticket-style ids and URLs in ``text``, in order of first appearance, each once, joined with
    commas within ``limit`` characters ("" when there are none): what a hidden tool result's digest keeps,
    so an exact reference read earlier in a long turn still reaches the model."""
    found: dict[str, None] = {}
    for match in re.finditer(f"{URL.pattern}|{TICKET_ID.pattern}", text):
        found.setdefault(match.group(0).rstrip(".,;:"), None)
    kept: list[str] = []
    used = 0
    for ref in found:
        if used + len(ref) + 2 > limit:
            kept.append("…")
            break
        kept.append(ref)
        used += len(ref) + 2
    return ", ".join(kept)


def result_digest(
    item: dict[str, Any], limit: int = 80, *, full_chars: int | None = None, full_lines: int | None = None
) -> str:
    """One line for a tool result: ``run_shell done · 30,214 chars, 812 lines · exit 0 (…)`` (first line = gist).

    The summarizer and the chat's collapsed tool rows both use it; the full output stays in the record.
    """
    content = item.get("content", "")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    size = len(text) if full_chars is None else full_chars  # the caller may hold a cut copy of the content
    lines = full_lines if full_lines is not None else (text.count("\n") + 1 if text else 0)
    shape = f"{size:,} chars" + (f", {lines:,} lines" if lines > 1 else "")
    state = "done" if item.get("ok", True) else "failed"
    first = next((line for line in text.splitlines() if line.strip()), "")
    return f"{item.get('name') or 'tool'} {state} · {shape} · {preview(first, limit)}"


def item_digest(item: dict[str, Any], *, text_limit: int = 400, names: WireNames = NO_NAMES) -> str:
    """One line (or a short paragraph for prose) standing for ``item`` in summarizer input (``names``: a
    squad's members by the names the model knows them)."""
    kind = item.get("type")
    ref = f"#{item.get('id')}"
    author = names.label(str(item.get("author", "?")))
    if kind == "tool_call":
        return f"{ref} {author} called {call_digest({**item, 'name': names.tool(str(item.get('name')))})}"
    if is_member_answer(item):
        failed = "" if item.get("ok", True) else " [failed]"
        text = preview(item_text(item), text_limit)
        return f"{ref} member {author}{failed} answered the captain: {text}"
    if kind == "tool_result":
        return f"{ref} result: {result_digest(item)}"
    who = "user" if kind == "user" and item.get("source") == "user" else author
    status = item.get("status", "complete")
    mark = f" [{status}]" if kind == "assistant" and status != "complete" else ""
    files = attachments_digest(item)  # name, kind and size of attached files; never their text or bytes
    text = preview(item_text(item), text_limit)
    return f"{ref} {who}{mark}: {text} {files}" if files and text else f"{ref} {who}{mark}: {text or files}"


def checklist_entry(item: dict[str, Any], limit: int = 140) -> str:
    return f"[{item['id']}] {preview(item.get('content', ''), limit)}"


def user_checklist(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Covered messages typed by the user that could be kept verbatim (acknowledgements left out)."""
    return [
        it
        for it in items
        if it.get("type") == "user" and it.get("source") == "user" and not is_trivial(it.get("content", ""))
    ]
