"""Undo (and redo) a compression, and what the last compression changed: the use cases every front-end calls.

``okbot compress --undo``, the chat divider's menu and Settings → Context compression all call
:func:`undo_last`; View context and ``okbot compress --last`` call :func:`describe_last`. Nothing is
lost either way: ``session.jsonl`` is never shortened by a compression, and each undo and redo is one
more line of ``session-summary.history.jsonl`` (:mod:`okbot.core.compression.history`).

An undo restores the summary, coverage, kept words, pinned request and cut/hidden tool output the
newest compression still in force found, keeping the tool output hidden or cut since (after the
coverage it wrote) and the summary's health. It is refused, with a message saying why and nothing
changed, when there is nothing to undo, while a compression of the chat runs, while a turn runs
(the front-end says so), or when ``session-summary.json`` no longer holds what that compression wrote
(a hand edit, a file restored from a backup): undoing then would throw that change away.
Memories already extracted from the items it covered stay.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from okbot.core.compression.history import History, Step, SummaryHistory, ranges_text
from okbot.core.items import now_iso
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.storage.errors import OkBotError

PREVIEW_CHARS = 120


@dataclass
class Restored:
    """What an undo (or redo) did: ``step`` is the compression taken back (or brought back)."""

    kind: str  # "undo" | "redo"
    step: Step
    before: SessionSummary  # the summary it replaced
    after: SessionSummary  # the summary now
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "compression": self.step.seq,
            "compressedAt": self.step.at,
            "trigger": self.step.trigger,
            "coveredBefore": self.before.covered_through_id,
            "coveredAfter": self.after.covered_through_id,
            "summaryCharsBefore": len(self.before.summary),
            "summaryCharsAfter": len(self.after.summary),
            "message": self.message,
        }


@dataclass
class DiffLine:
    """One line of the summary diff: ``op`` is ``" "`` (unchanged), ``"+"`` (added) or ``"-"`` (removed)."""

    op: str
    text: str


@dataclass
class LastCompression:
    """What the newest compression still in force changed, and whether it can be undone now."""

    seq: int
    at: str
    trigger: str
    fallback: str
    covered_before: int
    covered_after: int
    new_ranges: list[tuple[int, int]]
    new_count: int
    kept_new: list[int]  # the user's messages it covered and keeps verbatim
    kept_dropped: list[int]  # kept verbatim before, not any more
    current_request: list[int]  # a compression inside a turn: that turn's message(s), pinned while it runs
    diff: list[DiffLine]
    summary_before: str
    summary_after: str
    undoable: bool
    why_not: str = ""  # when not undoable
    previews: dict[int, str] = field(default_factory=dict)  # kept ids -> their first words
    redoable: int = 0  # the seq a redo would bring back (0: none)
    problems: list[str] = field(default_factory=list)

    @property
    def unified_diff(self) -> str:
        """The diff as text, one ``+``/``-``/space-prefixed line per summary line."""
        return "\n".join(f"{d.op} {d.text}".rstrip() for d in self.diff)

    def to_json(self) -> dict[str, Any]:
        return {
            "compression": self.seq,
            "at": self.at,
            "trigger": self.trigger,
            "fallback": self.fallback,
            "coveredBefore": self.covered_before,
            "coveredAfter": self.covered_after,
            "newlyCovered": [list(r) for r in self.new_ranges],
            "newlyCoveredCount": self.new_count,
            "keptVerbatim": self.kept_new,
            "keptNoLonger": self.kept_dropped,
            "currentRequest": self.current_request,
            "diff": [[d.op, d.text] for d in self.diff],
            "undoable": self.undoable,
            "whyNot": self.why_not,
            "redoable": self.redoable,
            "problems": self.problems,
        }


def summary_diff(before: str, after: str) -> list[DiffLine]:
    """The summary's lines, before to after (difflib), every line shown."""
    a, b = before.splitlines(), after.splitlines()
    out: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(DiffLine(" ", line) for line in a[i1:i2])
            continue
        out.extend(DiffLine("-", line) for line in a[i1:i2])
        out.extend(DiffLine("+", line) for line in b[j1:j2])
    return out


def _matches(summary: SessionSummary, state: SessionSummary) -> bool:
    """Whether ``summary`` on disk still is ``state`` (what a step wrote), as far as an undo cares."""
    return (summary.covered_through_id, summary.summary, sorted(summary.kept_user_ids)) == (
        state.covered_through_id,
        state.summary,
        sorted(state.kept_user_ids),
    )


def _restore(current: SessionSummary, state: SessionSummary) -> SessionSummary:
    """``state`` back in force, with the tool output hidden or cut since it and the health of ``current``."""
    covered = state.covered_through_id
    return replace(
        state,
        hidden_item_ids=sorted({*state.hidden_item_ids, *(i for i in current.hidden_item_ids if i > covered)}),
        cut_items={**state.cut_items, **{i: n for i, n in current.cut_items.items() if i > covered}},
        health={**current.health, "lastUndoAt": now_iso()},
        updated_at=now_iso(),
    )


def _changed_since(step: Step) -> str:
    return translate(
        "undo",
        "the session summary was changed after compression #{seq} (by hand, or restored from a backup); "
        "undoing it would throw that change away",
    ).format(seq=step.seq)


def _lock_or_refuse(target: Target) -> Any:
    from okbot.core.compression.compressor import session_lock

    lock = session_lock(target)
    if not lock.acquire(blocking=False):
        raise OkBotError(
            translate("undo", "A compression of “{name}” is running; nothing was undone.").format(name=target.name),
            hint=translate("undo", "try again when it is done"),
        )
    return lock


def _refuse_turn(target: Target, turn_running: bool) -> None:
    if turn_running:
        raise OkBotError(
            translate("undo", "A reply is being written in “{name}”; nothing was undone.").format(name=target.name),
            hint=translate("undo", "undo after it ends, or stop it first"),
        )


def undo_last(target: Target, *, turn_running: bool = False) -> Restored:
    """Take back the newest compression of ``target`` still in force; OkBotError saying why when it cannot be."""
    return _step_back_or_forth(target, "undo", turn_running)


def redo_last(target: Target, *, turn_running: bool = False) -> Restored:
    """Bring back the compression undone last (while no compression came after it); OkBotError when none."""
    return _step_back_or_forth(target, "redo", turn_running)


def _step_back_or_forth(target: Target, kind: str, turn_running: bool) -> Restored:
    _refuse_turn(target, turn_running)
    lock = _lock_or_refuse(target)
    try:
        history = SummaryHistory(target.summary_path)
        store = SummaryStore(target.summary_path)
        with history.writing() as writer:
            read = history.read()
            current = store.load()
            if store.read_only:
                raise OkBotError(store.read_only)
            if kind == "undo":
                step = _undoable(target, read, current)
                new = _restore(current, step.before)
            else:
                step = _redoable(target, read, current)
                new = _restore(current, step.after)
            store.save(new)
            writer.append(kind, current, new, of=step.seq)
    finally:
        lock.release()
    return Restored(kind, step, current, new, _restored_message(kind, step, current, new))


def _undoable(target: Target, history: History, current: SessionSummary) -> Step:
    done = history.in_force()
    if not done:
        raise OkBotError(
            translate("undo", "Nothing to undo: no compression of “{name}” is recorded.").format(name=target.name)
            if not history.undone()
            else translate("undo", "Nothing to undo: every recorded compression of “{name}” was undone.").format(
                name=target.name
            ),
            hint=_problems_hint(history),
        )
    step = done[-1]
    if not _matches(current, step.after):
        raise OkBotError(
            translate("undo", "Compression #{seq} cannot be undone: {why}.").format(
                seq=step.seq, why=_changed_since(step)
            )
        )
    return step


def _redoable(target: Target, history: History, current: SessionSummary) -> Step:
    undone = history.undone()
    if not undone:
        raise OkBotError(
            translate("undo", "Nothing to redo: no undone compression of “{name}” can come back.").format(
                name=target.name
            ),
            hint=_problems_hint(history),
        )
    step = undone[-1]
    if not _matches(current, step.before):
        raise OkBotError(
            translate("undo", "Compression #{seq} cannot be redone: the session summary was changed since.").format(
                seq=step.seq
            )
        )
    return step


def _problems_hint(history: History) -> str:
    if not history.problems:
        return ""
    return translate("undo", "{n} damaged line(s) of the history were skipped").format(n=len(history.problems))


def _when(at: str) -> str:
    """``2026-12-02 19:08 UTC`` for an ISO time of the history (as written when it is not one)."""
    if len(at) >= 16 and at[10] == "T" and at.endswith("Z"):
        return at[:10] + " " + at[11:16] + " UTC"
    return at


def _restored_message(kind: str, step: Step, before: SessionSummary, after: SessionSummary) -> str:
    text = (
        translate(
            "undo", "Undid compression #{seq} ({when}): coverage #{before} → #{after}; summary {chars} characters."
        )
        if kind == "undo"
        else translate(
            "undo", "Redid compression #{seq} ({when}): coverage #{before} → #{after}; summary {chars} characters."
        )
    )
    return text.format(
        seq=step.seq,
        when=_when(step.at),
        before=before.covered_through_id,
        after=after.covered_through_id,
        chars=f"{len(after.summary):,}",
    )


def describe_last(target: Target, *, item_text: Callable[[int], str | None] | None = None) -> LastCompression | None:
    """What the newest compression still in force changed (``None`` when none is recorded).

    ``item_text`` (an item id -> its text, e.g. from the session store) fills the previews of the user's
    words it keeps verbatim. Reads the history and the summary; call it off the GUI thread.
    """
    history = SummaryHistory(target.summary_path).read()
    done = history.in_force()
    undone = history.undone()
    if not done:
        return None
    step = done[-1]
    current = SummaryStore(target.summary_path).load()
    before, after = step.before, step.after
    covered = {i for a, b in step.new_ranges for i in range(a, min(b, a + 100_000) + 1)}
    kept_new = sorted(i for i in after.kept_user_ids if i in covered or i not in before.kept_user_ids)
    kept_dropped = sorted(set(before.kept_user_ids) - set(after.kept_user_ids))
    previews: dict[int, str] = {}
    if item_text is not None:
        for item_id in kept_new[:50]:
            text = item_text(item_id)
            if text:
                line = " ".join(text.split())
                previews[item_id] = line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"
    undoable = _matches(current, after)
    return LastCompression(
        seq=step.seq,
        at=step.at,
        trigger=step.trigger,
        fallback=step.fallback,
        covered_before=before.covered_through_id,
        covered_after=after.covered_through_id,
        new_ranges=list(step.new_ranges),
        new_count=step.new_count,
        kept_new=kept_new,
        kept_dropped=kept_dropped,
        current_request=list(after.current_request_ids),
        diff=summary_diff(before.summary, after.summary),
        summary_before=before.summary,
        summary_after=after.summary,
        undoable=undoable,
        why_not="" if undoable else _changed_since(step),
        previews=previews,
        redoable=undone[-1].seq if undone and _matches(current, undone[-1].before) else 0,
        problems=list(history.problems),
    )


def describe_text(last: LastCompression | None) -> str:
    """``okbot compress --last``: the description as plain text."""
    if last is None:
        return translate("undo", "No compression is recorded for this chat.")
    lines = [
        translate("undo", "Compression #{seq} · {when} · trigger: {trigger}").format(
            seq=last.seq, when=_when(last.at), trigger=last.trigger or "—"
        ),
        translate("undo", "Coverage #{before} → #{after}: newly covered {ranges} ({n} item(s)).").format(
            before=last.covered_before,
            after=last.covered_after,
            ranges=ranges_text(last.new_ranges) or "—",
            n=last.new_count,
        ),
    ]
    if last.kept_new:
        lines.append(translate("undo", "Kept verbatim: {ids}.").format(ids=", ".join(f"#{i}" for i in last.kept_new)))
    if last.kept_dropped:
        lines.append(
            translate("undo", "No longer kept verbatim: {ids}.").format(
                ids=", ".join(f"#{i}" for i in last.kept_dropped)
            )
        )
    if last.fallback:
        lines.append(translate("undo", "Fallback: {what}.").format(what=last.fallback))
    if not last.undoable:
        lines.append(translate("undo", "Cannot be undone: {why}.").format(why=last.why_not))
    lines.append("")
    lines.append(last.unified_diff)
    lines.extend(last.problems)
    return "\n".join(lines) + "\n"
