"""Plain-text (Markdown) rendering of a context projection.

``okbot context`` prints it and the View-context window shows the same layout, so what a user
reads in the terminal and in the app cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from okbot.core.context import ContextProjection
from okbot.core.items import item_text, preview
from okbot.core.messages import task_text

DEFAULT_BODY_LIMIT = 2000


def _cut(text: str, limit: int | None, uncut: int = 0) -> str:
    """``text`` cut at ``limit`` characters, but never within its first ``uncut`` (the user's own words)."""
    if limit is None or len(text) <= max(limit, uncut):
        return text
    return f"{text[: max(limit, uncut)]}\n… (cut here; full length {len(text):,} chars)"


def item_heading(index: int, item: dict[str, Any], tokens: int) -> str:
    """``### [i] <type> · <role or tool>`` plus the item id and its token count."""
    kind = item.get("type", "?")
    who = item.get("name") if kind in ("tool_call", "tool_result") else item.get("author", "?")
    extra = ""
    if kind == "assistant" and item.get("status", "complete") != "complete":
        extra = f" · {item['status']}"
    return f"### [{index}] {kind} · {who}{extra} — #{item.get('id')} · {tokens:,} tokens"


def header_lines(proj: ContextProjection, approx_note: str = "") -> list[str]:
    """The lines naming target, cut-off, coverage and token use."""
    t = proj.target
    lines = [f"# Context · {t.name} ({t.kind} {t.id}) · model {proj.model}"]
    if t.kind == "squad":
        seat = f"member {proj.member_name} ({proj.member}), from their seat" if proj.member else "the captain"
        lines.append(f"Request of: {seat}")
    if proj.at is None:
        lines.append("Cut-off: the next request (everything recorded so far)")
    elif proj.at_covered:
        lines.append(f"Cut-off: user message #{proj.at} — now covered by the summary, so no session items follow")
    else:
        last = proj.items[-1] if proj.items else {}
        if last.get("type") == "tool_call":  # a member's request ends with the captain's task for it
            lines.append(
                f"Cut-off: the captain's task #{last.get('id')} “{preview(task_text(last), 60)}” "
                f"in the turn of user message #{proj.at}"
            )
        else:
            lines.append(f"Cut-off: user message #{proj.at} “{preview(item_text(last), 60)}”")
    if proj.covered_through_id:
        kept = len(proj.summary.kept_user_ids)
        lines.append(
            f"Coverage: items up to #{proj.covered_through_id} are summarized "
            f"(summary {len(proj.summary.summary):,} chars, {kept} kept user message"
            f"{'s' if kept != 1 else ''}, "
            f"trigger {proj.summary.trigger or 'n/a'}); session items below are the tail after it"
        )
    else:
        lines.append("Coverage: none — no summary yet, every item is sent")
    health = proj.summary.health
    if health.get("count") or health.get("failures"):
        lines.append(
            f"Compaction: {health.get('count', 0)} so far · last {health.get('lastTrigger') or 'n/a'} "
            f"at {health.get('lastAt') or 'n/a'} · tokens {health.get('tokensBefore', 0):,} → "
            f"{health.get('tokensAfter', 0):,}"
            + (f" · last failure: {health['lastFailure']}" if health.get("lastFailure") else "")
        )
    approx = "≈" if proj.approximate else ""
    lines.append(
        f"Tokens: {approx}{proj.calibrated_tokens:,} of {proj.window:,} window "
        f"· threshold {proj.threshold:,} (ratio {proj.ratio:.2f}) "
        f"· prepare ahead at {proj.prepare_threshold:,} "
        f"· instructions {proj.instruction_tokens:,} · items {proj.items_tokens:,} "
        f"· encoding {proj.encoding}"
    )
    if proj.approximate and approx_note:
        lines.append(f"≈ {approx_note}")
    for notice in proj.notices:
        lines.append(f"Notice: {notice}")
    return lines


def render_markdown(
    proj: ContextProjection, *, body_limit: int | None = DEFAULT_BODY_LIMIT, approx_note: str = ""
) -> str:
    """The whole projection as Markdown: header, ``## instructions``, ``## session items``."""
    out = header_lines(proj, approx_note)
    out.append("")
    out.append("## instructions")
    for block in proj.blocks:
        out.append(f"### {block.name} · {block.title} · {block.tokens:,} tokens")
        out.append(_cut(block.text, body_limit, block.uncut))
        out.append("")
    out.append("## session items")
    if not proj.items:
        out.append("(none)")
    for index, (item, tokens) in enumerate(zip(proj.items, proj.item_tokens, strict=True), start=1):
        out.append(item_heading(index, item, tokens))
        out.append(_cut(item_text(item), body_limit))
        out.append("")
    return "\n".join(out).rstrip() + "\n"
