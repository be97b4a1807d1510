"""ChatModel: the rows of one session for the chat view, read lazily from its SessionStore.

Rows are the session's items in order, plus the coverage divider (after the last item folded into
the summary) and, while a reply streams, one row for the text so far. Opening a session never
parses its items on the GUI thread: the row -> id index is built by the store's forward scan on a
TaskRunner thread, and ``data()`` reads only the rows a view asks for, a block at a time, into a
small LRU cache. Live items (from the turn worker) are appended without touching the disk.
"""

from __future__ import annotations

import bisect
import logging
import time
from array import array
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QImage
from shiboken6 import Shiboken

from okbot.core import chat_text
from okbot.core.attachments import records_of
from okbot.core.items import is_delegation, is_member_answer, teaching_of
from okbot.core.roster import SquadInfo, SquadRoster
from okbot.core.session import SessionStore
from okbot.core.session.branches import Versions, is_marker
from okbot.core.summary import SessionSummary
from okbot.core.versions import Tail
from okbot.storage.errors import OkBotError
from okbot.ui.chat.thumbnails import image_records, read_thumbnails
from okbot.ui.tasks import TaskRunner, default_task_runner

log = logging.getLogger("okbot.ui.chat")

_Index = QModelIndex | QPersistentModelIndex
BLOCK = 32  # rows read from disk together (one open, sequential reads)
CACHE_ITEMS = 512  # items kept in memory
THUMB_ITEMS = 64  # messages whose image thumbnails are kept in memory (at most 160×120 each)
STREAM_FLUSH_MS = 40  # a streaming row is re-laid out at most this often
RETRY_LOOKBACK = 64  # how far back from the end the retryable reply is looked for

ITEM, DIVIDER, STREAM = "item", "divider", "stream"


KEPT_LINE_CHARS = 120  # of each kept message's first line, in the divider


@dataclass(frozen=True)
class Snapshot:
    """The rows of a session: the ids on its current branch (markers left out) and the version switches."""

    ids: array
    versions: dict[int, Versions]
    kept: tuple[tuple[int, str], ...] = ()  # the summary's kept words: (message id, its first line)


def snapshot_ids(store: SessionStore, summary: SessionSummary | None = None) -> Snapshot:
    """The ids of ``store``'s current branch in order, where versions show, and the first line of each
    message the summary keeps word for word (builds the store's offset index and reads the uncompressed
    tail; blocking: call off the GUI thread)."""
    summary = summary or SessionSummary()
    ids = store.branch_ids(markers=False)
    versions = Tail(store, summary).shown_versions() if store.marker_ids() else {}
    return Snapshot(ids, versions, kept_lines(store, summary))


def kept_lines(store: SessionStore, summary: SessionSummary) -> tuple[tuple[int, str], ...]:
    """``(id, first line)`` of each user message ``summary`` keeps as the user wrote it (blocking)."""
    out = []
    for item_id in sorted(summary.kept_user_ids):
        item = store.get(item_id)
        if item is None or item.get("type") != "user":
            continue  # set aside since, or not a message: nothing to open
        text = str(item.get("content") or "").strip()
        line = text.splitlines()[0] if text else ""
        out.append((item_id, line if len(line) <= KEPT_LINE_CHARS else line[: KEPT_LINE_CHARS - 1] + "…"))
    return tuple(out)


class ChatModel(QAbstractListModel):
    """A lazy list model over one session; see the module docstring.

    ``fetched`` counts the items read from disk so far (tests use it to show that opening and
    scrolling a long session reads only what is shown).
    """

    KindRole = Qt.ItemDataRole.UserRole + 1  # ITEM | DIVIDER | STREAM
    ItemRole = Qt.ItemDataRole.UserRole + 2  # the item dict (read on demand)
    IdRole = Qt.ItemDataRole.UserRole + 3  # the item id (no read); 0 for other rows
    KeyRole = Qt.ItemDataRole.UserRole + 4  # hashable layout key (same key -> same layout)
    ExpandedRole = Qt.ItemDataRole.UserRole + 5  # tool rows and the divider open; a long message shows in full
    RetryableRole = Qt.ItemDataRole.UserRole + 6  # the latest reply, interrupted or failed
    AuthorRole = Qt.ItemDataRole.UserRole + 7  # display name above an assistant bubble ("" = none)
    DividerRole = Qt.ItemDataRole.UserRole + 8  # (covered item count, summary text)
    SquadRole = Qt.ItemDataRole.UserRole + 9  # SquadInfo for squad rows with a roster, else None
    VersionsRole = Qt.ItemDataRole.UserRole + 10  # (index, count) of a message with versions, else None
    ChangeableRole = Qt.ItemDataRole.UserRole + 11  # the message can be edited or its reply regenerated
    ThoughtOpenRole = Qt.ItemDataRole.UserRole + 12  # a reply's folded reasoning is unfolded
    TeachingRole = Qt.ItemDataRole.UserRole + 13  # a teaching card's state: offered | kept | declined | busy
    ThumbsRole = Qt.ItemDataRole.UserRole + 14  # a user message's image thumbnails read so far: {copy path: QImage}

    loaded = Signal(int)  # the session's rows are ready (row count)
    load_failed = Signal(str)  # the session could not be read (the message to show)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store: SessionStore | None = None
        self._tasks: TaskRunner | None = None
        self._names: Callable[[str], str] = str
        self._name_cache: dict[str, str] = {}
        self._show_authors = False
        self._roster: SquadRoster | None = None
        self._ids = array("q")
        self._versions: dict[int, Versions] = {}
        self._cache: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._pending: list[dict[str, Any]] = []
        self._generation = 0
        self._loading = False
        self._error = ""
        self._summary = SessionSummary()
        self._kept: tuple[tuple[int, str], ...] = ()  # Snapshot.kept, for the divider
        self._divider: int | None = None  # row of the divider, if any
        self._expanded: set[Any] = set()
        self._retry_id = 0
        self._retry_enabled = True
        self._attempts: dict[int, int] = {}  # a failed reply's attempt number, when earlier ones were folded in
        self._stream: list[str] | None = None
        self._thoughts_open: set[int] = set()  # replies whose reasoning is unfolded
        self._teachings: dict[int, str] = {}  # a teaching card's id -> its state (none known: offered)
        # a user message's id -> its images' thumbnails (None: being read), the newest THUMB_ITEMS kept
        self._thumbs: OrderedDict[int, dict[str, QImage] | None] = OrderedDict()
        self._stream_reasoning: list[str] = []
        self._thinking_since: float | None = None  # the streaming reply is thinking (monotonic start)
        self._thought_seconds = 0.0
        self._stream_revision = 0
        self._stream_author = ""
        self._stream_timer = QTimer(self, singleShot=True, interval=STREAM_FLUSH_MS)
        self._stream_timer.timeout.connect(self._on_stream_timer_timeout)
        self.fetched = 0

    # ------------------------------------------------------------------ session
    def set_session(
        self,
        store: SessionStore | None,
        *,
        summary: SessionSummary | None = None,
        target_name_by_id: Callable[[str], str] | None = None,
        tasks: TaskRunner | None = None,
        show_authors: bool = False,
    ) -> None:
        """Show ``store`` (None: nothing). Rows appear when the background index is ready (``loaded``)."""
        self._generation += 1
        self.beginResetModel()
        self._store = store
        self._tasks = tasks or self._tasks
        self._names = target_name_by_id or str
        self._name_cache.clear()
        self._show_authors = show_authors
        if not show_authors:
            self._roster = None
        self._ids = array("q")
        self._versions = {}
        self._cache.clear()
        self._pending = []
        self._summary = summary or SessionSummary()
        self._kept = ()
        self._divider = None
        self._expanded.clear()
        self._thoughts_open.clear()
        self._thumbs.clear()
        self._retry_id = 0
        self._attempts = {}
        self._stream = None
        self._reset_thinking()
        self._stream_timer.stop()
        self._error = ""
        self._loading = store is not None
        self.endResetModel()
        if store is None:
            return
        self._load()

    def refresh_branch(self) -> None:
        """Read the current branch again (after an edit, a regeneration or a version switch): the rows
        stay until the new ones are ready, and items arriving meanwhile are kept."""
        if self._store is None:
            return
        self._generation += 1
        self._loading = True
        self._load()

    def versions(self, item_id: int) -> Versions | None:
        """The versions shown under item ``item_id`` (None: it has one)."""
        return self._versions.get(item_id)

    def _load(self) -> None:
        store, summary, generation = self._store, self._summary, self._generation
        assert store is not None
        runner = self._tasks or default_task_runner()
        runner.run(
            lambda: snapshot_ids(store, summary),
            lambda snap: self._on_index_ready(generation, snap),
            lambda exc: self._on_index_failed(generation, exc),
            owner=self,
        )

    @property
    def store(self) -> SessionStore | None:
        return self._store

    @property
    def loading(self) -> bool:
        """True while the session's index is being built."""
        return self._loading

    @property
    def error(self) -> str:
        """Why the session could not be read ("" when it could)."""
        return self._error

    @property
    def show_authors(self) -> bool:
        """True in squads: assistant bubbles carry their author's name and avatar."""
        return self._show_authors

    @property
    def roster(self) -> SquadRoster | None:
        """The squad's speakers (names, colour slots), when the view shows a squad."""
        return self._roster

    def set_roster(self, roster: SquadRoster | None) -> None:
        """Name a squad's speakers from ``roster`` (the captain, members, deleted members by id).

        Turns on author names; the view re-lays out its rows (see :meth:`ChatView.set_roster`).
        """
        self._roster = roster
        self._name_cache.clear()
        if roster is not None:
            self._show_authors = True

    @property
    def summary(self) -> SessionSummary:
        return self._summary

    @property
    def item_count(self) -> int:
        return len(self._ids)

    def item_ids(self) -> array:
        """Every item id shown, in order (a copy: find-in-chat scans it on another thread)."""
        return array("q", self._ids)

    def set_summary(self, summary: SessionSummary) -> None:
        """Move the coverage divider to ``summary.covered_through_id`` (e.g. after Compress now); the kept
        words it lists are read again off the GUI thread."""
        self._summary = summary
        self._place_divider()
        store, generation = self._store, self._generation
        if store is None or not summary.kept_user_ids:
            self._set_kept(())
            return
        (self._tasks or default_task_runner()).run(
            lambda: kept_lines(store, summary),
            lambda kept: self._set_kept(kept) if self._current(generation) and summary is self._summary else None,
            lambda exc: log.warning("reading the kept messages failed: %s", exc),
            owner=self,
        )

    def kept_words(self) -> tuple[tuple[int, str], ...]:
        """The messages the summary keeps word for word, as the divider lists them: (id, first line)."""
        return self._kept

    def _set_kept(self, kept: tuple[tuple[int, str], ...]) -> None:
        if kept == self._kept:
            return
        self._kept = kept
        if self._divider is not None:
            index = self.index(self._divider, 0)
            self.dataChanged.emit(index, index)

    def set_retry_enabled(self, enabled: bool) -> None:
        """Hide the Retry affordance while a turn runs (the shell calls this)."""
        if enabled != self._retry_enabled:
            self._retry_enabled = enabled
            self._touch_id(self._retry_id)

    # ------------------------------------------------------------------ live updates
    def append_item(self, item: dict[str, Any]) -> None:
        """Show an item just written to the session (ignored when it is already a row)."""
        item_id = int(item.get("id", 0))
        if item_id <= 0:
            raise ValueError("append_item needs a stored item (with its id)")
        if is_marker(item):  # a new branch: the rows after it change
            self.refresh_branch()
            return
        if self._loading:
            self._pending.append(item)
            return
        if self._store is None or (self._ids and item_id <= self._ids[-1]):
            return
        if item.get("type") == "assistant" and self._stream is not None:
            self._drop_stream()  # the streamed text is now this item
            self._expanded.add(item_id)  # read as it streamed: a long reply stays open (not collapsed)
        if _failed(item):
            self._fold_failed_attempt(item_id)
        row = self._stream_row() if self._stream is not None else self.rowCount()
        self.beginInsertRows(QModelIndex(), row, row)
        self._ids.append(item_id)
        self._put(item)
        self.endInsertRows()
        if item.get("type") in ("user", "assistant"):
            self._set_retry(item)

    def stream_delta(self, text: str, author: str = "") -> None:
        """Add streamed reply text (one row shows it until the reply's item arrives).

        ``author`` (an assistant id) names the streaming bubble in squads; the first one given counts.
        """
        self._open_stream(author)
        if self._thinking_since is not None and text:  # the answer began: thinking time stops
            self._thought_seconds += time.monotonic() - self._thinking_since
            self._thinking_since = None
        assert self._stream is not None
        self._stream.append(text)
        if not self._stream_timer.isActive():
            self._stream_timer.start()

    def stream_reasoning(self, text: str, author: str = "") -> None:
        """Add streamed reasoning: the streaming row shows "Thinking… 4 s" above the answer so far."""
        self._open_stream(author)
        if self._thinking_since is None:
            self._thinking_since = time.monotonic()
        self._stream_reasoning.append(text)
        if not self._stream_timer.isActive():
            self._stream_timer.start()

    def _open_stream(self, author: str) -> None:
        if author and not self._stream_author:
            self._stream_author = author
        if self._stream is None:
            row = self.rowCount()
            self.beginInsertRows(QModelIndex(), row, row)
            self._stream = []
            self._stream_revision += 1
            self.endInsertRows()

    def _reset_thinking(self) -> None:
        self._stream_reasoning = []
        self._thinking_since = None
        self._thought_seconds = 0.0

    def end_stream(self) -> None:
        """The reply is over: remove the streaming row if its item did not replace it already."""
        if self._stream is not None:
            self._drop_stream()

    @property
    def streaming(self) -> bool:
        return self._stream is not None

    @property
    def stream_text(self) -> str:
        return "".join(self._stream or ())

    # ------------------------------------------------------------------ rows
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        return len(self._ids) + (self._divider is not None) + (self._stream is not None)

    def row_kind(self, row: int) -> str:
        """ITEM, DIVIDER or STREAM for a valid row."""
        if self._divider is not None and row == self._divider:
            return DIVIDER
        if self._stream is not None and row == self.rowCount() - 1:
            return STREAM
        return ITEM

    def item_id(self, row: int) -> int:
        """The id of the item on ``row`` (0 for the divider and the streaming row); no disk read."""
        pos = self._pos(row)
        return self._ids[pos] if pos is not None else 0

    def row_of_id(self, item_id: int) -> int:
        """The row showing item ``item_id``, or -1."""
        pos = bisect.bisect_left(self._ids, item_id)
        if pos == len(self._ids) or self._ids[pos] != item_id:
            return -1
        return pos + (1 if self._divider is not None and pos >= self._divider else 0)

    def item(self, row: int) -> dict[str, Any] | None:
        """The item on ``row`` (cached; reads its block from disk when needed), or None."""
        pos = self._pos(row)
        if pos is None:
            return None
        return self._fetch(pos)

    def full_item(self, row: int) -> dict[str, Any] | None:
        """The item on ``row`` with nothing cut (re-read when the cached copy was trimmed)."""
        item = self.item(row)
        if item is not None and "_full_chars" in item and self._store is not None:
            try:
                return self._store.get(item["id"]) or item
            except OkBotError as exc:
                log.warning("could not re-read item %s: %s", item["id"], exc)
        return item

    def set_teaching_states(self, states: dict[int, str]) -> None:
        """The states of teaching cards, by the card's item id (``offered``, ``kept``, ``declined`` or ``busy``
        while Keep or Not now is written); the rows whose state changed are drawn again."""
        changed = {i for i in {*states, *self._teachings} if states.get(i, "") != self._teachings.get(i, "")}
        self._teachings.update(states)
        for card_id in changed:
            self._touch_id(card_id)

    def teaching_state(self, item_id: int) -> str:
        """The state of teaching card ``item_id`` (``offered`` until told otherwise)."""
        return self._teachings.get(item_id) or "offered"

    def set_expanded(self, row: int, expanded: bool) -> None:
        key = self._expand_key(row)
        if key is None or (key in self._expanded) == expanded:
            return
        (self._expanded.add if expanded else self._expanded.discard)(key)
        index = self.index(row, 0)
        self.dataChanged.emit(index, index, [self.ExpandedRole, self.KeyRole])

    def is_expanded(self, row: int) -> bool:
        return self._expand_key(row) in self._expanded

    def set_thought_open(self, row: int, shown: bool) -> None:
        """Unfold (or fold) the reasoning of the reply on ``row``."""
        item_id = self.item_id(row) if self.row_kind(row) == ITEM else 0
        if not item_id or (item_id in self._thoughts_open) == shown:
            return
        (self._thoughts_open.add if shown else self._thoughts_open.discard)(item_id)
        index = self.index(row, 0)
        self.dataChanged.emit(index, index, [self.ThoughtOpenRole, self.KeyRole])

    def is_thought_open(self, row: int) -> bool:
        item_id = self.item_id(row) if 0 <= row < self.rowCount() and self.row_kind(row) == ITEM else 0
        return bool(item_id) and item_id in self._thoughts_open

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = index.row()
        kind = self.row_kind(row)
        if role == self.KindRole:
            return kind
        if role == self.IdRole:
            return self.item_id(row)
        if role == self.ExpandedRole:
            return self.is_expanded(row)
        if role == self.ThoughtOpenRole:
            return self.is_thought_open(row)
        if kind == DIVIDER:
            return self._divider_data(role)
        if kind == STREAM:
            return self._stream_data(role)
        item = self.item(row)
        if item is None:
            return None
        if role == self.ItemRole:
            return item
        if role == self.KeyRole:
            return (
                ITEM,
                item["id"],
                self.is_expanded(row),
                self._show_authors,
                self._retryable(item),
                self._version_pair(item),
                self._changeable(item),
                item["id"] in self._thoughts_open,
                self._teachings.get(item["id"], ""),
                len(self._thumbs.get(item["id"]) or ()),
            )
        return self._item_data(item, role)

    def _item_data(self, item: dict[str, Any], role: int) -> Any:
        """An item row's other roles."""
        if role == self.VersionsRole:
            return self._version_pair(item)
        if role == self.ChangeableRole:
            return self._changeable(item)
        if role == self.RetryableRole:
            return self._retryable(item)
        if role == self.AuthorRole:
            return self._author_name(item)
        if role == self.SquadRole:
            return self._squad_info(item)
        if role == self.TeachingRole:
            return self.teaching_state(item["id"]) if teaching_of(item) is not None else None
        if role == self.ThumbsRole:
            return self._thumbnails(item)
        if role == Qt.ItemDataRole.DisplayRole:
            return chat_text.copy_text(item)
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
        if self.row_kind(index.row()) != DIVIDER:
            flags |= Qt.ItemFlag.ItemIsEditable  # "editing" opens the read-only text selector
        return flags

    # ------------------------------------------------------------------ internals
    def _pos(self, row: int) -> int | None:
        if row < 0 or row >= self.rowCount():
            return None
        kind = self.row_kind(row)
        if kind != ITEM:
            return None
        return row - 1 if self._divider is not None and row > self._divider else row

    def _stream_row(self) -> int:
        return self.rowCount() - 1

    def _fetch(self, pos: int) -> dict[str, Any]:
        item_id = self._ids[pos]
        hit = self._cache.get(item_id)
        if hit is not None:
            self._cache.move_to_end(item_id)
            return hit
        lo = pos - pos % BLOCK
        hi = min(lo + BLOCK, len(self._ids)) - 1
        try:
            assert self._store is not None
            for item in self._store.iter_items(self._ids[lo], self._ids[hi]):
                self.fetched += 1
                self._put(item)
        except OkBotError as exc:
            return {
                "id": item_id,
                "type": "notice",
                "level": "error",
                "author": "app",
                "content": f"This message could not be read: {exc}",
            }
        hit = self._cache.get(item_id)
        if hit is None:  # the file changed under us (edited outside OkBot)
            return {
                "id": item_id,
                "type": "notice",
                "level": "warning",
                "author": "app",
                "content": f"Item #{item_id} is no longer in the session file.",
            }
        return hit

    def _put(self, item: dict[str, Any]) -> None:
        cached = chat_text.trim_for_cache(item)
        if item["id"] in self._attempts:
            cached = {**cached, "attempt": self._attempts[item["id"]]}
        self._cache[item["id"]] = cached
        self._cache.move_to_end(item["id"])
        while len(self._cache) > CACHE_ITEMS:
            self._cache.popitem(last=False)

    def _current(self, generation: int) -> bool:
        """True when a background result is for this session and the model still exists (a closed
        chat page deletes it while the index may still be building)."""
        return Shiboken.isValid(self) and generation == self._generation

    def _on_index_ready(self, generation: int, snap: Snapshot) -> None:
        if not self._current(generation):
            return
        self.beginResetModel()
        self._ids = snap.ids
        self._versions = snap.versions
        self._kept = snap.kept
        self._loading = False
        for item in self._pending:
            if not self._ids or item["id"] > self._ids[-1]:
                self._ids.append(item["id"])
                self._put(item)
        self._pending = []
        self._fold_failed_tail()
        self._divider = self._divider_pos()
        self.endResetModel()
        self._find_retry()
        self.loaded.emit(self.rowCount())

    def _on_index_failed(self, generation: int, exc: BaseException) -> None:
        if not self._current(generation):
            return
        if not isinstance(exc, (OkBotError, OSError)):
            log.error("reading the session failed", exc_info=exc)
        self.beginResetModel()
        self._loading = False
        self._error = self.tr("This conversation could not be read: {error}").format(error=exc)
        self.endResetModel()
        self.load_failed.emit(self._error)

    def _divider_pos(self) -> int | None:
        covered = self._summary.covered_through_id
        if covered <= 0 or not self._ids:
            return None
        count = bisect.bisect_right(self._ids, covered)
        return count if count > 0 else None

    def _place_divider(self) -> None:
        new = self._divider_pos() if not self._loading else None
        old = self._divider
        if old is not None:
            self.beginRemoveRows(QModelIndex(), old, old)
            self._divider = None
            self.endRemoveRows()
        if new is not None:
            self.beginInsertRows(QModelIndex(), new, new)
            self._divider = new
            self.endInsertRows()

    def _divider_data(self, role: int) -> Any:
        count = self._divider or 0
        if role == self.DividerRole:
            return (count, self._summary.summary, self._kept)
        if role == self.KeyRole:
            return (DIVIDER, count, DIVIDER in self._expanded, hash((self._summary.summary, self._kept)))
        if role == Qt.ItemDataRole.DisplayRole:
            return chat_text.divider_label(count)
        return None

    def _stream_data(self, role: int) -> Any:
        if role == self.ItemRole:
            return self._stream_item()
        if role == self.KeyRole:
            return (STREAM, self._stream_revision)
        if role == Qt.ItemDataRole.DisplayRole:
            return self.stream_text
        if role in (self.RetryableRole, self.ExpandedRole):
            return False
        if role == self.AuthorRole:
            item = self._stream_item()
            return self._author_name(item) if item["author"] else ""
        if role == self.SquadRole:
            return self._squad_info(self._stream_item())
        return None

    def set_stream_author(self, author: str) -> None:
        """Who the reply streaming now (or next) is by: a member answering directly, or the captain."""
        if author == self._stream_author:
            return
        self._stream_author = author
        if self._stream is not None:
            self._stream_revision += 1
            index = self.index(self._stream_row(), 0)
            self.dataChanged.emit(index, index, [self.AuthorRole, self.SquadRole, self.KeyRole])

    def _stream_item(self) -> dict[str, Any]:
        author = self._stream_author or (self._roster.squad_id if self._roster is not None else "")
        item = {"id": 0, "type": "assistant", "author": author, "status": "streaming", "content": self.stream_text}
        if self._stream_reasoning:
            seconds = self._thought_seconds
            if self._thinking_since is not None:
                seconds += time.monotonic() - self._thinking_since
                item["thinking"] = True
            item["reasoning"] = "".join(self._stream_reasoning)
            item["reasoningSeconds"] = seconds
        return item

    def _drop_stream(self) -> None:
        self._stream_timer.stop()
        self._stream_author = ""
        row = self._stream_row()
        self.beginRemoveRows(QModelIndex(), row, row)
        self._stream = None
        self._reset_thinking()
        self.endRemoveRows()

    def _on_stream_timer_timeout(self) -> None:
        if self._stream is None:
            return
        self._stream_revision += 1
        index = self.index(self._stream_row(), 0)
        self.dataChanged.emit(index, index, [self.ItemRole, self.KeyRole])

    def _version_pair(self, item: dict[str, Any]) -> tuple[int, int] | None:
        found = self._versions.get(item["id"])
        return None if found is None else (found.index, found.count)

    def _changeable(self, item: dict[str, Any]) -> bool:
        """A message in the uncompressed tail: yours can be edited, a reply regenerated."""
        if item["id"] <= self._summary.covered_through_id or self._store is None or self._store.read_only:
            return False
        kind = item.get("type")
        return (kind == "user" and item.get("source") == "user") or kind == "assistant"

    def _retryable(self, item: dict[str, Any]) -> bool:
        return self._retry_enabled and item["id"] == self._retry_id

    def _expand_key(self, row: int) -> Any:
        kind = self.row_kind(row) if 0 <= row < self.rowCount() else None
        if kind == DIVIDER:
            return DIVIDER
        if kind == ITEM:
            return self.item_id(row)
        return None

    def _author_name(self, item: dict[str, Any]) -> str:
        if not self._show_authors:
            return ""
        if self._roster is not None:
            if item.get("type") == "assistant" or is_member_answer(item):
                return self._roster.name(self._roster.speaker(item))
            return ""
        if item.get("type") != "assistant":
            return ""
        author = str(item.get("author") or "")
        if author not in self._name_cache:
            try:
                self._name_cache[author] = self._names(author) or author
            except Exception:  # noqa: BLE001 - a deleted member still shows its id
                self._name_cache[author] = author
        return self._name_cache[author]

    def _squad_info(self, item: dict[str, Any]) -> SquadInfo | None:
        roster = self._roster
        if roster is None:
            return None
        if is_delegation(item) and not is_member_answer(item):
            member = roster.member_of_call(str(item.get("name") or ""))
            return SquadInfo(
                name=roster.name(roster.speaker(item)),
                slot=roster.slot(roster.speaker(item)),
                captain=True,
                to_name=roster.name(member),
                to_slot=roster.slot(member),
            )
        speaker = roster.speaker(item)
        if not speaker:
            return None
        return SquadInfo(
            name=roster.name(speaker),
            slot=roster.slot(speaker),
            captain=roster.is_captain(speaker),
            to_captain=is_member_answer(item),
        )

    def _find_retry(self) -> None:
        """Look back from the end for the last user/assistant item (reads at most a block or two)."""
        start = len(self._ids) - 1
        for pos in range(start, max(-1, start - RETRY_LOOKBACK), -1):
            item = self._fetch(pos)
            if item.get("type") in ("user", "assistant"):
                self._set_retry(item)
                return

    def _set_retry(self, item: dict[str, Any]) -> None:
        old = self._retry_id
        failed = item.get("type") == "assistant" and item.get("status", "complete") != "complete"
        self._retry_id = item["id"] if failed else 0
        if old != self._retry_id:
            self._touch_id(old)
            self._touch_id(self._retry_id)

    # -- failed attempts of one turn: the chat shows the latest, the record keeps every one
    def _fold_failed_attempt(self, item_id: int) -> None:
        """A failed reply arrives: the turn's previous failed attempt (the retry target) leaves the view."""
        old = self._retry_id
        row = self.row_of_id(old) if old else -1
        if row < 0 or not _failed(self.item(row) or {}):
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._ids[bisect.bisect_left(self._ids, old)]
        if self._divider is not None and row < self._divider:
            self._divider -= 1
        self.endRemoveRows()
        self._retry_id = 0
        self._attempts[item_id] = self._attempts.pop(old, 1) + 1

    def _fold_failed_tail(self) -> None:
        """On load: a failed reply at the end whose turn failed before (no user message between) shows
        alone, numbered; the look-back is bounded like the Retry's."""
        failed: list[int] = []  # positions of the turn's failed replies, newest first
        start = len(self._ids) - 1
        for pos in range(start, max(-1, start - RETRY_LOOKBACK), -1):
            item = self._fetch(pos)
            if item.get("type") == "user" or (item.get("type") == "assistant" and not _failed(item)):
                break
            if _failed(item):
                failed.append(pos)
        if len(failed) < 2:
            return
        newest = self._ids[failed[0]]
        self._attempts[newest] = len(failed)
        if newest in self._cache:
            self._cache[newest] = {**self._cache[newest], "attempt": len(failed)}
        for pos in failed[1:]:  # newest first, so the positions still to delete stay valid
            del self._ids[pos]

    def _thumbnails(self, item: dict[str, Any]) -> dict[str, QImage]:
        """The thumbnails of the images sent with ``item`` read so far; the first ask reads them on a pool thread
        (the row is drawn again when they arrive)."""
        item_id = item["id"]
        if item_id in self._thumbs:
            self._thumbs.move_to_end(item_id)
            return self._thumbs[item_id] or {}
        paths = image_records(records_of(item))
        if not paths or self._store is None:
            return {}
        self._thumbs[item_id] = None
        while len(self._thumbs) > THUMB_ITEMS:
            self._thumbs.popitem(last=False)
        chat_dir, generation = self._store.path.parent, self._generation
        (self._tasks or default_task_runner()).run(
            lambda: read_thumbnails(chat_dir, paths),
            lambda found: self._on_thumbnails_read(generation, item_id, found),
            lambda exc: log.warning("thumbnails of item %s not read: %s", item_id, exc),
            owner=self,
        )
        return {}

    def _on_thumbnails_read(self, generation: int, item_id: int, found: dict[str, QImage]) -> None:
        if not self._current(generation) or item_id not in self._thumbs:
            return
        self._thumbs[item_id] = found
        if found:
            self._touch_id(item_id)

    def _touch_id(self, item_id: int) -> None:
        row = self.row_of_id(item_id) if item_id else -1
        if row >= 0:
            index = self.index(row, 0)
            self.dataChanged.emit(index, index, [self.RetryableRole, self.KeyRole])


def _failed(item: dict[str, Any]) -> bool:
    """A reply that ended in an error (a stopped one is not: its text is the user's to keep)."""
    return item.get("type") == "assistant" and item.get("status") == "error"
