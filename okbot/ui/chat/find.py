"""Find in chat: where a text occurs in a session, scanned off the GUI thread in chunks, newest first.

What is searched is what the rows show, not the record's JSON: a message's text as its bubble
renders it (Markdown syntax left out, code kept), a tool row's one-line digest, a delegation's
"asked Rex: …" line, a notice's text. Matching ignores case. :func:`shown_text` is a cheap, pure
approximation of what ``QTextDocument.setMarkdown`` displays (the painter finds the same needle in
the real document, so an odd Markdown corner can differ by a match; the count is this module's).

:class:`ChatFinder` scans the session's items from the newest back, :data:`CHUNK` items per job on a
TaskRunner thread, and adds each chunk's matches as it arrives, so the first matches show at once
on a 100k-item chat and the GUI thread never reads or parses the record. A new search cancels the
old one (its remaining chunks are never started, a late result is dropped). Matches are numbered
from the newest (1) back in time, so numbers already shown never change while older ones arrive;
"next" goes back in time (older), "previous" towards the newest, like a chat app's search.
"""

from __future__ import annotations

import bisect
import re
import time
from array import array
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from okbot.core import chat_text
from okbot.core.items import is_delegation, is_member_answer, split_app_note
from okbot.core.roster import SquadRoster
from okbot.core.session import SessionStore
from okbot.storage.errors import OkBotError
from okbot.ui.tasks import TaskRunner, default_task_runner

CHUNK = 1000  # items read and searched per background job
YIELD_S = 0.001  # a scanning thread offers the GIL to the GUI thread at least this often

_WORD = re.compile(r"\w+")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_BLOCK_MARK = re.compile(r"^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)+")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_EMPHASIS = re.compile(r"\*{1,3}|~~|(?<![\w])_{1,3}|_{1,3}(?![\w])")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_MARKS = re.compile(r"[*_~`\[\]<>&\\]")  # a line without these shows as written
_HIDDEN = 0xE000  # escaped punctuation is parked in the private use area while marks are dropped


def markdown_text(markdown: str) -> str:
    """The text a Markdown message shows: syntax marks dropped, code kept verbatim, paragraphs one per line."""
    out: list[str] = []
    fence = ""
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append(" ".join(paragraph))
            paragraph.clear()

    for line in markdown.split("\n"):
        opening = _FENCE.match(line)
        if fence:
            closing = opening is not None and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence)
            if closing and not line[opening.end() :].strip():
                fence = ""
            else:
                out.append(line)
            continue
        if opening is not None and not (opening.group(1)[0] == "`" and "`" in line[opening.end() :]):
            flush()
            fence = opening.group(1)
            continue
        if not line.strip() or _TABLE_RULE.match(line):
            flush()
            continue
        marked = _BLOCK_MARK.match(line)
        if marked is not None or "|" in line:
            flush()  # a heading, quote, list item or table row is a block of its own
        text = line[marked.end() :] if marked else line
        if _MARKS.search(text):
            text = _inline(text)
        if "|" in line:
            out.extend(cell.strip() for cell in text.strip().strip("|").split("|"))
        elif marked is not None:
            out.append(text.strip())
        else:
            paragraph.append(text.strip())
    flush()
    return "\n".join(out)


def _inline(text: str) -> str:
    """Inline Markdown to shown text; code spans are kept as written."""
    parts = _CODE_SPAN.split(text)
    shown = []
    for i, part in enumerate(parts):
        kind = i % 3
        if kind == 1:  # the backticks of a code span
            continue
        if kind == 2:
            shown.append(part)
            continue
        escaped = "\\" in part
        if escaped:  # an escaped mark is text: hide it from the rules below
            part = _ESCAPE.sub(lambda m: chr(_HIDDEN + ord(m.group(1))), part)
        part = _LINK.sub(r"\1", part)
        part = _AUTOLINK.sub(r"\1", part)
        part = _EMPHASIS.sub("", part)
        if escaped:
            part = "".join(chr(ord(c) - _HIDDEN) if _HIDDEN <= ord(c) < _HIDDEN + 128 else c for c in part)
        if "&" in part:
            import html  # rarely needed: not loaded at start-up

            part = html.unescape(part)
        shown.append(part)
    return "".join(shown)


def might_show(item: dict[str, Any], word: str) -> bool:
    """False when a message or notice cannot show ``word`` (lower case, letters and digits): its text lacks it.

    A cheap test before :func:`shown_text`; it only misses a word split by Markdown inside itself
    (``foo**bar**`` shows ``foobar``), which bubbles almost never hold. Tool rows (their digest says
    more than the record, e.g. line counts, and squads name members) are always looked at.
    """
    if item.get("type") not in ("user", "assistant", "notice"):
        return True
    return word in str(item.get("content") or "").lower()


def shown_text(item: dict[str, Any], roster: SquadRoster | None = None) -> str:
    """What ``item``'s row shows, as searched (``roster``: a squad's speakers, when the view has them)."""
    item = chat_text.trim_for_cache(item)  # keys an older version stored are redacted, as on screen
    kind = item.get("type")
    if roster is not None and is_member_answer(item):
        return markdown_text(split_app_note(str(item.get("content") or ""))[0])
    if roster is not None and is_delegation(item):
        member = roster.name(roster.member_of_call(str(item.get("name") or "")))
        return chat_text.delegation_label(item, member)
    if kind in ("tool_call", "tool_result"):
        return chat_text.tool_digest(item)
    if kind in ("user", "assistant"):
        return markdown_text(str(item.get("content") or ""))
    return str(item.get("content") or "")


def scan(
    store: SessionStore, first_id: int, last_id: int, needle: str, roster: SquadRoster | None = None
) -> list[tuple[int, int]]:
    """``(item id, occurrences)`` of the items ``first_id..last_id`` that hold ``needle`` (lower case),
    newest first. Blocking: runs on a TaskRunner thread."""
    found = []
    word = max(_WORD.findall(needle), key=len, default="")
    lap = time.monotonic()
    for item in store.iter_items(first_id, last_id):
        if not word or might_show(item, word):
            count = shown_text(item, roster).lower().count(needle)
            if count:
                found.append((int(item["id"]), count))
        if time.monotonic() - lap > YIELD_S:
            time.sleep(0)  # offers the GIL: the GUI thread never waits for a whole switch interval
            lap = time.monotonic()
    found.reverse()
    return found


class ChatFinder(QObject):
    """The matches of one needle in the chat's session, found in the background; see the module docstring.

    ``chunks`` counts the background jobs run for the current search (tests use it).
    """

    changed = Signal()  # matches arrived, the search ended, or the current match moved
    current_changed = Signal()  # the current match moved: show it

    def __init__(
        self,
        store: Callable[[], SessionStore | None],
        ids: Callable[[], array],
        roster: Callable[[], SquadRoster | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store, self._all_ids, self._roster = store, ids, roster
        self._tasks: TaskRunner | None = None
        self._generation = 0
        self.needle = ""
        self.done = True
        self.error = ""
        self.chunks = 0
        self._ids: list[int] = []  # items with matches, newest first
        self._prefix: list[int] = [0]  # matches before each of them (one more entry: the total)
        self._current = -1
        self._from_id = 0
        self._newest_id = 0

    def set_tasks(self, tasks: TaskRunner | None) -> None:
        self._tasks = tasks

    @property
    def total(self) -> int:
        return self._prefix[-1]

    @property
    def current(self) -> int:
        """Index of the current match (0 = the newest), -1 when none is chosen yet."""
        return self._current

    def search(self, text: str, *, from_id: int = 0) -> None:
        """Look for ``text`` (any case); the first current match is the newest at or before item ``from_id``
        (0: the newest of all)."""
        self._generation += 1
        self.needle = text.lower()
        self._ids, self._prefix, self._current = [], [0], -1
        self._from_id = from_id
        self.error = ""
        self.chunks = 0
        ids = self._all_ids()
        store = self._store()
        self._newest_id = ids[-1] if ids else 0
        self.done = not self.needle or store is None or not ids
        if not self.done:
            self._next_chunk(store, ids, len(ids), self._generation)
        self.changed.emit()

    def stop(self) -> None:
        """Forget the search (the find bar closed)."""
        self._generation += 1
        self.needle = ""
        self._ids, self._prefix, self._current = [], [0], -1
        self.done = True
        self.changed.emit()

    def match(self, index: int) -> tuple[int, int]:
        """``(item id, occurrence within the item)`` of match ``index``."""
        pos = bisect.bisect_right(self._prefix, index) - 1
        return self._ids[pos], index - self._prefix[pos]

    def current_match(self) -> tuple[int, int] | None:
        return self.match(self._current) if self._current >= 0 else None

    def next(self) -> None:
        """The next match back in time (wraps to the newest once the search has ended)."""
        if self.total:
            if self._current + 1 < self.total:
                self._set_current(self._current + 1)
            elif self.done:
                self._set_current(0)

    def previous(self) -> None:
        """The next match towards the newest (wraps to the oldest once the search has ended)."""
        if self.total:
            if self._current > 0:
                self._set_current(self._current - 1)
            elif self.done:
                self._set_current(self.total - 1)

    def note_item(self, item: dict[str, Any]) -> None:
        """An item was appended while searching: count it in (as the newest), keeping the current match."""
        item_id = int(item.get("id", 0))
        if not self.needle or item_id <= self._newest_id:
            return
        self._newest_id = item_id
        count = shown_text(item, self._roster()).lower().count(self.needle)
        if not count:
            return
        self._ids.insert(0, item_id)
        self._prefix = [0] + [n + count for n in self._prefix]
        if self._current >= 0:
            self._current += count
        self.changed.emit()

    # ------------------------------------------------------------------ background scan
    def _next_chunk(self, store: SessionStore, ids: array, end: int, generation: int) -> None:
        start = max(0, end - CHUNK)
        first, last, needle, roster = ids[start], ids[end - 1], self.needle, self._roster()
        self.chunks += 1
        (self._tasks or default_task_runner()).run(
            lambda: scan(store, first, last, needle, roster),
            lambda found: self._on_chunk_found(store, ids, start, generation, found),
            lambda exc: self._on_chunk_failed(generation, exc),
            owner=self,
        )

    def _on_chunk_found(
        self, store: SessionStore, ids: array, start: int, generation: int, found: list[tuple[int, int]]
    ) -> None:
        if generation != self._generation:
            return
        total, first_new = self.total, len(self._ids)
        for item_id, count in found:
            self._ids.append(item_id)
            total += count
            self._prefix.append(total)
        if start > 0:
            self._next_chunk(store, ids, start, generation)
        else:
            self.done = True
        if self._current < 0:
            self._choose_first(first_new)
        self.changed.emit()

    def _on_chunk_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        if not isinstance(exc, (OkBotError, OSError)):
            raise exc
        self.error = self.tr("Could not search: {error}").format(error=exc)
        self.done = True
        self.changed.emit()

    def _choose_first(self, first_new: int) -> None:
        """The newest match at or before ``from_id`` once found (only the matches that just arrived can be
        it: the ones before were newer); the newest of all when the search ends without one."""
        if not self.total:
            return
        for pos in range(first_new, len(self._ids)):
            if not self._from_id or self._ids[pos] <= self._from_id:
                self._set_current(self._prefix[pos])
                return
        if self.done:
            self._set_current(0)

    def _set_current(self, index: int) -> None:
        self._current = index
        self.changed.emit()
        self.current_changed.emit()
