"""Plain-text (Markdown) rendering of a context projection, of its as-sent record, and of compaction health.

``okbot context`` prints it and the View-context window shows the same layout, so what a user
reads in the terminal and in the app cannot drift apart. The viewer's As-sent tab
(:func:`as_sent_markdown`) and compaction-health row (:func:`health_lines`) are written here too;
``okbot context`` shows the same health text in its header.

Everything shown is passed through :func:`okbot.llm.keys.scrub` (so a key a reply echoed, even
one an older version stored, reads ``[redacted]``), and bodies can never pass for the layout:
each body line is indented by four spaces (an indented code block in Markdown), and line breaks
other than ``\\n`` and control characters (a carriage return or escape sequence could redraw a
terminal line) become visible symbols. Only lines that start at column 0 belong to the layout.

The layout's own words (headings, header keys such as ``Cut-off``, notes) are the user's language
(context ``render``); each header key and ``##`` heading is a translation unit of its own, so a reader
of the layout finds a line by ``translate("render", "Cut-off") + ":"``. What the request holds (block
texts, items, tool names) is shown as it was sent.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from typing import Any

from okbot.core.assent import AsSentRequest
from okbot.core.items import item_text, preview
from okbot.core.messages import PIN_KEY, task_text
from okbot.core.projection import ContextProjection
from okbot.core.prompt_cache import prompt_cache_text
from okbot.core.sent_request import SentRequest
from okbot.core.summary import SessionSummary
from okbot.core.wire_names import NO_NAMES, WireNames
from okbot.i18n import QT_TRANSLATE_NOOP, plural, translate
from okbot.llm.key_source import resolve_api_key
from okbot.llm.keys import scrub

DEFAULT_BODY_LIMIT = 2000
BODY_INDENT = "    "

# C0 controls but tab and newline, DEL, and C1 controls: shown as symbols, never sent to a terminal raw.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


# How each compression trigger (okbot.core.summary.TRIGGERS) is named to the reader.
_TRIGGER_WORDS = {
    "ratio": QT_TRANSLATE_NOOP("render", "ratio"),
    "topic": QT_TRANSLATE_NOOP("render", "topic"),
    "manual": QT_TRANSLATE_NOOP("render", "manual"),
    "turn": QT_TRANSLATE_NOOP("render", "inside a turn"),
}


def trigger_words(trigger: str) -> str:
    """A compression trigger as the reader reads it (an unknown one as it is stored)."""
    return translate("render", _TRIGGER_WORDS[trigger]) if trigger in _TRIGGER_WORDS else trigger


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ … ␟
    return "\u2421" if code == 0x7F else f"\\x{code:02x}"


def shown_line(text: str) -> str:
    """``text`` as one line of the layout: secrets redacted, line breaks and controls made visible."""
    return _CONTROLS.sub(_visible, "\u21b5".join(scrub(text).splitlines()))


def _cut(text: str, limit: int | None, uncut: int = 0) -> str:
    """``text`` cut at ``limit`` characters, but never within its first ``uncut`` (the user's own words)."""
    if limit is None or len(text) <= max(limit, uncut):
        return text
    note = translate("render", "… (cut here; full length {n} chars)").format(n=f"{len(text):,}")
    return f"{text[: max(limit, uncut)]}\n{note}"


def body_text(text: str, limit: int | None = None, uncut: int = 0) -> str:
    """``text`` as a body of the layout: secrets redacted, cut (see :func:`_cut`), every line indented.

    Every kind of line break (``\\r``, ``\\u2028`` …) ends a line here, so the indent is on
    whatever a terminal or the viewer shows as a line; empty lines stay empty.
    """
    lines = _cut(scrub(text), limit, uncut).splitlines()
    return "\n".join(BODY_INDENT + _CONTROLS.sub(_visible, line) if line else "" for line in lines)


def redacted(value: Any) -> Any:
    """A JSON value with :func:`~okbot.llm.keys.scrub` applied to every string in it (keys too)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [redacted(v) for v in value]
    if isinstance(value, dict):
        return {redacted(k): redacted(v) for k, v in value.items()}
    return value


def remember_api_keys(settings: Any) -> None:
    """Resolve the configured API key so that what is rendered next has it redacted.

    The same sources the provider reads (``OKBOT_API_KEY`` always wins, then
    ``provider.keySource``): a command that shows a context without building a provider must
    still know the key to hide it. Resolving remembers it (:func:`~okbot.llm.keys.remember_secret`).
    """
    resolve_api_key("env")
    source = settings.get("provider.keySource")
    if source == "keyring":
        resolve_api_key(source)


def item_heading(index: int, item: dict[str, Any], tokens: int, names: WireNames = NO_NAMES) -> str:
    """``### [i] <type> · <speaker or tool>`` plus the item id and its token count, on one line; ``names``
    names speakers and tools as the model knew them (:func:`speakers`)."""
    kind = item.get("type", "?")
    if kind in ("tool_call", "tool_result"):
        who = names.tool(str(item.get("name")))
    else:
        who = names.label(str(item.get("author", "?")))
    extra = ""
    if kind == "assistant" and item.get("status", "complete") != "complete":
        extra = f" · {item['status']}"
    if item.get(PIN_KEY):
        extra += " · " + translate("render", "the current request, pinned (coverage passed it)")
    if "cut" in item:
        extra += " · " + translate("render", "cut to fit the window")
    count = _tokens(tokens)
    return shown_line(f"### [{index}] {kind} · {who}{extra} — #{item.get('id')} · {count}")


def _tokens(n: int) -> str:
    """``1,234 tokens`` in the user's language."""
    return translate("render", "{n} tokens").format(n=f"{n:,}")


def _line(key: str, text: str) -> str:
    """One header line: its (translated) key, a colon, its text."""
    return f"{key}: {text}"


def header_lines(proj: ContextProjection, approx_note: str = "") -> list[str]:
    """The lines naming target, cut-off, coverage and token use."""
    t = proj.target
    title = translate("render", "{name} ({kind}) · model {model}").format(name=t.name, kind=t.kind, model=proj.model)
    lines = ["# " + translate("render", "Context") + " · " + title]
    if t.is_squad:
        if proj.member:
            seat = translate("render", "member {name}, from their seat").format(name=proj.names.label(proj.member))
        else:
            seat = translate("render", "the captain")
        lines.append(_line(translate("render", "Request of"), seat))
    cut_off = translate("render", "Cut-off")
    if proj.at is None:
        lines.append(_line(cut_off, translate("render", "the next request (everything recorded so far)")))
    elif proj.at_covered:
        lines.append(
            _line(
                cut_off,
                translate(
                    "render", "user message #{id} — now covered by the summary, so no session items follow"
                ).format(id=proj.at),
            )
        )
    else:
        last = proj.items[-1] if proj.items else {}
        if last.get("type") == "tool_call":  # a member's request ends with the captain's task for it
            text = translate(
                "render", "the captain's task #{task_id} “{task}” in the turn of user message #{id}"
            ).format(task_id=last.get("id"), task=preview(task_text(last), 60), id=proj.at)
        else:
            text = translate("render", "user message #{id} “{text}”").format(
                id=proj.at, text=preview(item_text(last), 60)
            )
        lines.append(_line(cut_off, text))
    coverage = translate("render", "Coverage")
    if proj.covered_through_id:
        kept = len(proj.summary.kept_user_ids)
        kept_text = plural(
            kept,
            translate("render", "{n} kept user message"),
            translate("render", "{n} kept user messages"),
        ).format(n=kept)
        lines.append(
            _line(
                coverage,
                translate(
                    "render",
                    "items up to #{id} are summarized (summary {chars} chars, {kept}, trigger {trigger}); "
                    "session items below are the tail after it",
                ).format(
                    id=proj.covered_through_id,
                    chars=f"{len(proj.summary.summary):,}",
                    kept=kept_text,
                    trigger=trigger_words(proj.summary.trigger) if proj.summary.trigger else translate("render", "n/a"),
                ),
            )
        )
    else:
        lines.append(_line(coverage, translate("render", "none — no summary yet, every item is sent")))
    health = proj.summary.health
    if health.get("count") or health.get("failures"):
        health_line, failure = health_lines(health, None)
        lines.append(health_line)
        if failure:
            lines.append(failure)
    approx = "≈" if proj.approximate else ""
    lines.append(
        _line(
            translate("render", "Tokens"),
            translate(
                "render",
                "{approx}{tokens} of {window} window · threshold {threshold} (ratio {ratio}) "
                "· prepare ahead at {prepare} · instructions {instructions} · items {items} · encoding {encoding}",
            ).format(
                approx=approx,
                tokens=f"{proj.calibrated_tokens:,}",
                window=f"{proj.window:,}",
                threshold=f"{proj.threshold:,}",
                ratio=f"{proj.ratio:.2f}",
                prepare=f"{proj.prepare_threshold:,}",
                instructions=f"{proj.instruction_tokens:,}",
                items=f"{proj.items_tokens:,}",
                encoding=proj.encoding,
            ),
        )
    )
    if proj.approximate and approx_note:
        lines.append("≈ " + translate("tokens", approx_note))  # approx_note: tokens.APPROX_NOTE
    for notice in proj.notices:
        lines.append(_line(translate("render", "Notice"), notice))
    return [shown_line(line) for line in lines]


def render_markdown(
    proj: ContextProjection, *, body_limit: int | None = DEFAULT_BODY_LIMIT, approx_note: str = ""
) -> str:
    """The whole projection as Markdown: header, ``## instructions``, ``## session items``."""
    out = header_lines(proj, approx_note)
    out.append("")
    out.append("## " + translate("render", "instructions"))
    for block in proj.blocks:
        out += _block_lines(f"{block.name} · {block.title}", block.tokens, block.text, body_limit, block.uncut)
    out += _items_section(
        [(item, tokens) for item, tokens in zip(proj.items, proj.item_tokens, strict=True)],
        body_limit,
        proj.files,
        speakers(proj.target, proj.names),
    )
    return "\n".join(out).rstrip() + "\n"


def _block_lines(heading: str, tokens: int, text: str | None, limit: int | None, uncut: int = 0) -> list[str]:
    """One instruction block of the layout: its heading with the token count, its indented body."""
    out = [shown_line(f"### {heading} · {_tokens(tokens)}")]
    out.append(body_text(text, limit, uncut) if text is not None else translate("render", MISSING_BLOCK))
    out.append("")
    return out


def _shown_text(item: dict[str, Any], files: Any) -> str:
    """An item's body as the model read it: a user message with its attached files' text (an image as one
    ``[image: name]`` line, never its bytes); any other item its text."""
    if item.get("type") != "user" or not item.get("attachments") or files is None:
        return item_text(item)
    content = files.content(item, item_text(item))
    if isinstance(content, str):
        return content
    images = iter([r.get("name", "?") for r in item["attachments"] if r.get("kind") == "image"])
    parts = []
    for part in content:
        if part.get("type") == "text":
            parts.append(str(part.get("text", "")))
        else:
            parts.append(translate("render", "[image: {name} · sent as an image part]").format(name=next(images, "?")))
    return "\n".join(parts)


def speakers(target: Any, names: WireNames) -> WireNames:
    """``names`` with the target itself named too: an assistant by its name, a squad's own items as the
    captain's (the record holds ids; the view shows what the model knew them as)."""
    own = target.name if target.is_assistant else translate("render", "the captain")
    return WireNames(labels={**names.labels, target.id: own}, tools=names.tools)


def _items_section(
    rows: list[tuple[dict[str, Any] | int, int]], limit: int | None, files: Any = None, names: WireNames = NO_NAMES
) -> list[str]:
    """``## session items``: each item's heading and body (``files``: attached files read back, so a message
    shows the file text it was sent with); an ``int`` in place of an item is an id the record names that
    the session no longer holds, said where it was."""
    out = ["## " + translate("render", "session items")]
    if not rows:
        out.append(translate("render", "(none)"))
    for index, (item, tokens) in enumerate(rows, start=1):
        if isinstance(item, int):
            out.append(f"### [{index}] " + translate("render", "missing item") + f" — #{item}")
            out.append(translate("render", MISSING_ITEM).format(id=item))
        else:
            out.append(item_heading(index, item, tokens, names))
            out.append(body_text(_shown_text(item, files), limit))
        out.append("")
    return out


# Shown as translate("render", …).
MISSING_BLOCK = QT_TRANSLATE_NOOP("render", "(this block's text is missing from as-sent/blocks)")
MISSING_ITEM = QT_TRANSLATE_NOOP(
    "render",
    "(item #{id} was sent, but session.jsonl no longer holds it: its line was damaged and set aside "
    "— see session.quarantine.jsonl)",
)


def render_json(
    proj: ContextProjection, prompt_cache: dict[str, Any] | None = None, timing: dict[str, Any] | None = None
) -> str:
    """The projection as JSON (``okbot context --json``), with secrets redacted from every string;
    ``prompt_cache``: that of the request the message's turn sent (:mod:`okbot.core.prompt_cache`); ``timing``:
    where the turn's time went (:func:`okbot.core.turn.timing.turn_timing`)."""
    shown = {**proj.to_json(), "promptCache": prompt_cache, "timing": timing}
    return json.dumps(redacted(shown), ensure_ascii=False, indent=2)


def _item_range(first: int | None, last: int | None, count: int) -> str:
    if not count:
        return translate("render", "no session items")
    return translate("render", "items #{first}–#{last} ({count})").format(first=first, last=last, count=f"{count:,}")


def _diff(before: str, after: str, name: str) -> str:
    """A unified diff of a block's text, as an indented body (so no line of it can pass for a heading)."""
    lines = difflib.unified_diff(
        before.splitlines(),
        after.splitlines(),
        translate("render", "{name} (as sent)").format(name=name),
        translate("render", "{name} (now)").format(name=name),
        lineterm="",
    )
    return body_text("\n".join(lines) or translate("render", "(only whitespace at line ends differs)"))


#: marks the headings of the As-sent text's last section, whose bodies are unified diffs
DIFF_MARK = " · diff · "
# Shown as translate("render", …); the first word alone in the "Instructions since sent" line.
_STATE_WORDS = {
    "changed": QT_TRANSLATE_NOOP("render", "changed since sent"),
    "removed": QT_TRANSLATE_NOOP("render", "removed since sent"),
    "added": QT_TRANSLATE_NOOP("render", "added since sent"),
}
_STATE_SHORT = {
    "changed": QT_TRANSLATE_NOOP("render", "changed"),
    "removed": QT_TRANSLATE_NOOP("render", "removed"),
    "added": QT_TRANSLATE_NOOP("render", "added"),
}


def as_sent_header_lines(sent: SentRequest, live: ContextProjection) -> list[str]:
    """The lines naming the recorded request, where it sits in its turn, what it held and its own numbers."""
    req = sent.request
    title = translate("render", "request #{id} · {label} · {time} · model {model}").format(
        id=req.id, label=req.label(), time=sent_time(req), model=req.model or "?"
    )
    head = [
        "# " + translate("render", "As sent") + " · " + title,
        _line(
            translate("render", "Sent"),
            translate("render", "{items} · coverage through #{id}").format(
                items=_item_range(req.first_item_id, req.last_item_id, req.item_count), id=req.covered_through_id
            ),
        ),
    ]
    live_ids = (live.items[0]["id"], live.items[-1]["id"]) if live.items else (None, None)
    if (live_ids, len(live.items), live.covered_through_id) != (
        (req.first_item_id, req.last_item_id),
        req.item_count,
        req.covered_through_id,
    ):
        head.append(
            _line(
                translate("render", "Now"),
                translate(
                    "render", "{items} · coverage through #{id} (the summary or the turn moved on since this was sent)"
                ).format(items=_item_range(*live_ids, len(live.items)), id=live.covered_through_id),
            )
        )
    head.append(_line(translate("render", "Tokens"), as_sent_tokens_text(sent, live)))
    head.append(_line(translate("render", "Provider reported"), usage_text(req)))
    head.append(_line(translate("render", "Prompt cache"), prompt_cache_text(sent.cache)))
    head.append(_line(translate("render", "Tools offered"), ", ".join(req.tools) or translate("render", "none")))
    for note in as_sent_notices(sent):
        head.append(_line(translate("render", "Notice"), note))
    return [shown_line(line) for line in head]  # model, tool names …: each kept on its one line


def sent_time(req: AsSentRequest) -> str:
    """When a request was sent, to the second (``2026-12-01 20:10:21``), as the record's UTC stamp says."""
    return f"{req.ts[:19].replace('T', ' ')} UTC" if req.ts else translate("render", "time unknown")


def as_sent_window(sent: SentRequest, live: ContextProjection) -> tuple[int, int, bool]:
    """``(window, threshold, recorded)``: the request's own window and threshold, or today's when the
    record (an older OkBot's) kept none."""
    req = sent.request
    if req.window is None:
        return live.window, live.threshold, False
    ratio = req.ratio if req.ratio is not None else live.ratio
    return req.window, int(req.window * ratio), True


def as_sent_tokens_text(sent: SentRequest, live: ContextProjection) -> str:
    """The request's own numbers: tokens (reported, else estimated), its window and threshold, its parts."""
    req = sent.request
    window, threshold, recorded = as_sent_window(sent, live)
    reported = req.prompt_tokens
    if reported is not None:
        total = translate("render", "{n} prompt tokens reported (estimate {estimate})").format(
            n=f"{reported:,}", estimate=f"{req.estimate:,}"
        )
    else:
        total = translate("render", "≈{estimate} estimated (the provider reported none)").format(
            estimate=f"{req.estimate:,}"
        )
    if recorded:
        where = translate("render", "of {window} window · threshold {threshold}")
    else:
        where = translate("render", "of {window} window · threshold {threshold} (today's: not recorded then)")
    where = where.format(window=f"{window:,}", threshold=f"{threshold:,}")
    parts = translate("render", "instructions {instructions} · items {items} · overhead {overhead}").format(
        instructions=f"{sent.instruction_tokens:,}",
        items=f"{sent.items_tokens:,}",
        overhead=f"{sent.overhead_tokens:,}",
    )
    return f"{total} {where} · {parts}"


def as_sent_notices(sent: SentRequest) -> list[str]:
    """What the view must say about the record itself: lost items, an older record's limits."""
    notes = []
    missing = sent.missing_ids
    if missing:
        ids = ", ".join(f"#{i}" for i in missing[:10]) + (" …" if len(missing) > 10 else "")
        notes.append(
            plural(
                len(missing),
                translate(
                    "render",
                    "{n} item of this request is no longer in session.jsonl ({ids}); each is marked where it was",
                ),
                translate(
                    "render",
                    "{n} items of this request are no longer in session.jsonl ({ids}); each is marked where it was",
                ),
            ).format(n=f"{len(missing):,}", ids=ids)
        )
    if not sent.exact:
        notes.append(
            translate(
                "render",
                "an older OkBot recorded only the range of items this request held: shown are the range's messages "
                "(a tool output hidden to fit the window then is shown whole)",
            )
        )
    if sent.request.items_tokens is None and sent.items:
        notes.append(
            translate("render", "item tokens counted now ({encoding}); this record kept only the total").format(
                encoding=sent.encoding
            )
        )
    return notes


def as_sent_markdown(
    sent: SentRequest,
    live: ContextProjection,
    states: list[tuple[str, str]],
    *,
    body_limit: int | None = DEFAULT_BODY_LIMIT,
) -> str:
    """The recorded request as it was sent, in the Context tab's layout: the header with its own numbers,
    ``## instructions`` (every block's sent text), ``## session items`` (every item it held), then
    ``## changed since sent``: a diff against ``live`` for each block that changed since."""
    req = sent.request
    out = as_sent_header_lines(sent, live)
    changed = [(n, s) for n, s in states if s != "same"]
    since = (
        translate("render", "unchanged")
        if not changed
        else " · ".join(n + " " + translate("render", _STATE_SHORT[s]) for n, s in changed)
    )
    out.append(shown_line(_line(translate("render", "Instructions since sent"), since)))
    out.append("")
    out.append("## " + translate("render", "instructions"))
    state_of = dict(states)
    for block in req.blocks:
        name = str(block.get("name", "?"))
        heading = f"{name} · {block.get('title') or name}"
        if state_of.get(name, "same") != "same":
            heading += " · " + translate("render", _STATE_WORDS[state_of[name]])
        uncut = block.get("uncut") if isinstance(block.get("uncut"), int) else 0
        out += _block_lines(heading, int(block.get("tokens") or 0), block.get("text"), body_limit, uncut)
    rows = [(s.item if s.item is not None else s.id, s.tokens) for s in sent.items]
    out += _items_section(rows, body_limit, sent.files, speakers(live.target, req.names))
    out += _own_rounds_section(sent, body_limit)
    if changed:
        out.append("## " + translate("render", "changed since sent"))
        live_blocks = {b.name: b for b in live.blocks}
        sent_blocks = {b.get("name"): b for b in req.blocks}
        for name, state in changed:
            before, now = sent_blocks.get(name, {}), live_blocks.get(name)
            was, is_now = int(before.get("tokens") or 0), now.tokens if now is not None else 0
            change = translate("render", "{before} → {after} tokens").format(before=f"{was:,}", after=f"{is_now:,}")
            state_word = translate("render", _STATE_WORDS[state])
            out.append(shown_line(f"### {name} · {state_word}{DIFF_MARK}{change}"))
            text = before.get("text") if state != "added" else ""
            if text is None:
                out.append(
                    translate("render", "(the sent text is missing from as-sent/blocks, so no diff can be shown)")
                )
            else:
                out.append(_diff(text, now.text if now is not None else "", name))
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _own_rounds_section(sent: SentRequest, body_limit: int | None) -> list[str]:
    """A squad member's request: the messages of its own earlier tool rounds, sent after the chat's items
    (they live only in the as-sent record)."""
    if sent.request.member is None or sent.own == []:
        return []
    out = ["## " + translate("render", "the member's own tool rounds"), ""]
    if sent.own is None:
        return [*out, translate("render", "(the sent messages are missing from as-sent/blocks)"), ""]
    for message in sent.own:
        calls = [c.get("function", {}) for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        heading = str(message.get("role", "?"))
        if calls:
            heading += " · " + ", ".join(str(c.get("name", "?")) for c in calls)
        out.append(shown_line(f"### {heading}"))
        text = str(message.get("content") or "")
        if calls:
            text = "\n".join([text, *(f"{c.get('name', '?')}({c.get('arguments', '')})" for c in calls)]).strip()
        out.append(body_text(text, body_limit))
        out.append("")
    return out


def as_sent_json(sent: SentRequest, states: list[tuple[str, str]]) -> str:
    """The recorded request as JSON (``okbot context --as-sent --json``): its place in the turn, numbers,
    blocks, items (a lost one as ``{"id", "missing": true}``) and the ``messages`` it sent; secrets redacted."""
    req = sent.request
    state_of = dict(states)
    data = {
        "request": req.id,
        "userId": req.user_id,
        "member": req.member,
        "attempt": req.attempt,
        "attempts": req.attempts,
        "round": req.round_in_attempt,
        "rounds": req.rounds,
        "outcome": req.outcome(),
        "ts": req.ts,
        "model": req.model,
        "window": req.window,
        "ratio": req.ratio,
        "coveredThroughId": req.covered_through_id,
        "exact": sent.exact,
        "promptCache": sent.cache.to_json() if sent.cache is not None else None,
        "tokens": {
            "reported": req.prompt_tokens,
            "estimate": req.estimate,
            "instructions": sent.instruction_tokens,
            "items": sent.items_tokens,
            "overhead": sent.overhead_tokens,
        },
        "usage": req.usage,
        "status": req.status,
        "tools": req.tools,
        "blocks": [
            {
                "name": b.get("name"),
                "title": b.get("title") or b.get("name"),
                "tokens": b.get("tokens"),
                "text": b.get("text"),
                "sinceSent": state_of.get(b.get("name"), "same"),
            }
            for b in req.blocks
        ],
        "items": [
            {**s.item, "tokens": s.tokens} if s.item is not None else {"id": s.id, "missing": True} for s in sent.items
        ],
        "missingIds": sent.missing_ids,
        "messages": sent.to_messages(),
        "turn": [
            {"request": r.id, "attempt": r.attempt, "round": r.round_in_attempt, "label": r.label()}
            for r in sent.choices
        ],
    }
    return json.dumps(redacted(data), ensure_ascii=False, indent=2)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_text(sent: AsSentRequest | None) -> str:
    """What the provider reported for a recorded request: prompt tokens and the cached part."""
    if sent is None:
        return translate("render", "no as-sent record for this message")
    usage = sent.usage if isinstance(sent.usage, Mapping) else {}
    prompt, cached = _int(usage.get("prompt_tokens")), _int(usage.get("cached_tokens"))
    status = sent.extra.get("status")
    if prompt is None:
        if status:
            return translate("render", "no usage ({status})").format(status=status)
        return translate("render", "no usage recorded (the reply never finished)")
    parts = [
        translate("render", "{n} prompt tokens").format(n=f"{prompt:,}"),
        translate("render", "{n} cached").format(n=f"{cached:,}")
        if cached is not None
        else translate("render", "cache not reported"),
    ]
    completion = _int(usage.get("completion_tokens"))
    if completion is not None:
        parts.append(translate("render", "{n} completion tokens").format(n=f"{completion:,}"))
    if usage.get("estimated"):
        parts.append(translate("render", "estimated by OkBot (the provider sent no usage)"))
    if status and status != "complete":
        parts.append(str(status))
    return " · ".join(parts)


def health_lines(
    health: Mapping[str, Any], sent: AsSentRequest | None, summary: SessionSummary | None = None
) -> tuple[str, str]:
    """``(text, last failure or "")`` for the compaction-health row (a second line for the request's usage)."""
    count = _int(health.get("count")) or 0
    compaction = translate("render", "Compaction")
    if count:
        runs = plural(count, translate("render", "{n} run"), translate("render", "{n} runs")).format(n=f"{count:,}")
        parts = [_line(compaction, runs)]
        trigger, at = health.get("lastTrigger"), health.get("lastAt")
        if trigger or at:
            when = str(at)[:16].replace("T", " ") if at else ""
            last = trigger_words(trigger) if trigger else translate("render", "run")
            if when:
                parts.append(translate("render", "last {trigger} at {when}").format(trigger=last, when=when))
            else:
                parts.append(translate("render", "last {trigger}").format(trigger=last))
        before, after = _int(health.get("tokensBefore")), _int(health.get("tokensAfter"))
        if before is not None and after is not None:
            parts.append(
                translate("render", "{before} → {after} tokens").format(before=f"{before:,}", after=f"{after:,}")
            )
        summarizer = _int(health.get("summarizerTokens"))
        if summarizer is not None:
            parts.append(translate("render", "summarizer used {n} tokens").format(n=f"{summarizer:,}"))
    elif summary is not None and summary.covered_through_id:
        when = summary.updated_at[:16].replace("T", " ")
        trigger = trigger_words(summary.trigger) if summary.trigger else translate("render", "unknown")
        last = f"{trigger}, {when}" if when else trigger
        parts = [
            _line(
                compaction,
                translate(
                    "render", "summary covers items up to #{id} (last trigger {last}); no run statistics kept"
                ).format(id=summary.covered_through_id, last=last),
            )
        ]
    else:
        parts = [_line(compaction, translate("render", "none on this session yet"))]
    line = " · ".join(parts)
    if sent is not None:
        line += "\n" + _line(translate("render", "This message's request"), usage_text(sent))
    failure = health.get("lastFailure")
    if isinstance(failure, Mapping):
        failure = failure.get("message") or failure.get("error") or str(dict(failure))
    return line, (_line(translate("render", "Last compaction failure"), str(failure)) if failure else "")
