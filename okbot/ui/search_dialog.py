"""Search every chat (Ctrl+Shift+F): type words, see the messages that hold them, open one where it is.

Each hit shows the chat's name, the date, who wrote it and a snippet with the matched words in bold;
Enter or a double-click opens that chat scrolled to the message, the words highlighted (the chat's own
find bar takes over). The index (:mod:`okbot.core.search`) catches up on a worker thread when the dialog
opens (built from the records when it is missing), and every query runs on a worker too: the window
never waits for the index or the disk.
"""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from okbot.i18n import QT_TRANSLATE_NOOP

DEBOUNCE_MS = 200
LIMIT = 50
# who wrote a hit that no assistant wrote (translated in hit_html)
_WHO = {
    "user": QT_TRANSLATE_NOOP("SearchDialog", "You"),
    "tool_result": QT_TRANSLATE_NOOP("SearchDialog", "a tool"),
    "tool_call": QT_TRANSLATE_NOOP("SearchDialog", "a tool call"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate("SearchDialog", text)


def hit_html(hit: Any, names: dict[str, str] | None = None) -> str:
    """The two lines of one hit: chat · date · who (· an earlier version), then the snippet, matches in bold.
    ``names`` maps assistant ids to their names (who spoke in a squad)."""
    when = _date(hit.ts)
    who = _tr(_WHO[hit.type]) if hit.type in _WHO else (names or {}).get(hit.author, hit.author)
    parts = [f"<b>{html.escape(hit.target_name)}</b>", html.escape(when), html.escape(who)]
    if hit.replaced:
        replaced = QCoreApplication.translate("SearchDialog", "an earlier version, since replaced")
        parts.append(f"<i>{html.escape(replaced)}</i>")
    snippet, at = [], 0
    for start, end in hit.spans:
        snippet += [html.escape(hit.snippet[at:start]), f"<b>{html.escape(hit.snippet[start:end])}</b>"]
        at = end
    snippet.append(html.escape(hit.snippet[at:]))
    return " · ".join(parts) + "<br>" + "".join(snippet)


def needle_of(hit: Any) -> str:
    """What the chat's find bar looks for to highlight the hit: its first matched text (else the snippet)."""
    if hit.spans:
        start, end = hit.spans[0]
        return hit.snippet[start:end]
    return hit.snippet[:40]


def _date(ts: str) -> str:
    try:
        # the date's layout is the language's (a strftime format: 2 Dec 2026 14:05 / 2026年12月2日 14:05)
        return (
            datetime.fromisoformat(ts.replace("Z", "+00:00"))
            .astimezone()
            .strftime(QCoreApplication.translate("SearchDialog", "%-d %b %Y %H:%M"))
        )
    except (ValueError, TypeError):
        return ts or "?"


class SearchDialog(QDialog):
    """The search box and its hits; ``hit_chosen(Hit)`` when the user opens one (the dialog then hides)."""

    hit_chosen = Signal(object)
    indexing = Signal(int, int)  # bytes read, bytes to read (emitted by the worker; delivered queued)

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchDialog")
        self.setWindowTitle(self.tr("Search all chats"))
        self.ctx = ctx
        self.resize(640, 480)
        self.hits: list[Any] = []
        self.names: dict[str, str] = {}  # assistant id -> name, for who spoke
        self._generation = 0
        self._caught_up = False
        self._catching_up = False

        self.edit = QLineEdit(self)
        self.edit.setObjectName("searchEdit")
        self.edit.setPlaceholderText(self.tr("Search the messages of every chat"))
        self.edit.setClearButtonEnabled(True)
        self.edit.textChanged.connect(self._on_edit_text_changed)
        self.edit.installEventFilter(self)
        self.status = QLabel(self)
        self.status.setObjectName("searchStatus")
        self.list = QListWidget(self)
        self.list.setObjectName("searchHits")
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # rows wrap to the width
        self.list.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)  # so the width never moves
        self.list.viewport().installEventFilter(self)  # a resize re-fits the rows
        self.list.itemActivated.connect(self._on_list_item_activated)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self.search_now)
        self.indexing.connect(self._on_indexing, Qt.ConnectionType.QueuedConnection)

        layout = QVBoxLayout(self)
        layout.addWidget(self.edit)
        layout.addWidget(self.status)
        layout.addWidget(self.list, 1)

    # ------------------------------------------------------------------ public API
    def open_dialog(self) -> None:
        """Show (or raise) the dialog, its text selected, and bring the index up to date in the background."""
        self.show()
        self.raise_()
        self.activateWindow()
        self.edit.setFocus()
        self.edit.selectAll()
        self.catch_up()

    def catch_up(self) -> None:
        """Index what the chats gained (the whole index when it is missing) on a worker; then search again."""
        if self._catching_up:
            return
        self._catching_up = True
        self._show_status(self.tr("Updating the search index…"))
        index, report = self.ctx.search_index, self.indexing.emit
        self.ctx.tasks.run(
            lambda: index.catch_up(progress=report), self._on_caught_up, self._on_catch_up_failed, owner=self
        )

    def search_now(self) -> None:
        """Run the query in the box now (on a worker); older answers still arriving are dropped."""
        self._debounce.stop()
        query = self.edit.text().strip()
        self._generation += 1
        if not query:
            self._show_hits([])
            self._show_status("")
            return
        generation = self._generation
        index, workspace = self.ctx.search_index, self.ctx.workspace

        def find() -> tuple[list[Any], dict[str, str]]:
            hits = index.search(query, limit=LIMIT)
            return hits, {a.id: a.name for a in workspace.assistants()} if hits else {}

        self.ctx.tasks.run(
            find,
            lambda found: self._on_found(generation, *found),
            lambda exc: self._on_search_failed(generation, exc),
            owner=self,
        )

    def choose(self, row: int) -> None:
        """Open hit ``row`` (Enter, a double-click)."""
        if 0 <= row < len(self.hits):
            self.hide()
            self.hit_chosen.emit(self.hits[row])

    # ------------------------------------------------------------------ slots
    def _on_edit_text_changed(self, _text: str) -> None:
        self._debounce.start()

    def _on_list_item_activated(self, item: QListWidgetItem) -> None:
        self.choose(self.list.row(item))

    def _on_indexing(self, done: int, total: int) -> None:
        if self._catching_up and total:
            self._show_status(
                self.tr("Building the search index from your chats… {percent}%").format(percent=100 * done // total)
            )

    def _on_caught_up(self, _done: Any) -> None:
        self._catching_up, self._caught_up = False, True
        self.search_now()

    def _on_catch_up_failed(self, exc: BaseException) -> None:
        self._catching_up = False
        busy = type(exc).__name__ == "IndexBusy"  # another OkBot process is writing it: search what is there
        if busy:
            self._show_status(self.tr("Another OkBot is updating the index; the newest messages may be missing."))
        else:
            self._show_status(self.tr("The search index could not be updated: {error}").format(error=exc))
        self.search_now()

    def _on_found(self, generation: int, hits: list[Any], names: dict[str, str]) -> None:
        if generation != self._generation:
            return
        self.names = names
        self._show_hits(hits)
        indexing = self._catching_up and not self._caught_up
        more = self.tr(" (still indexing)") if indexing else ""
        if not hits and indexing:  # not an answer yet: the search runs again once the index is built
            self._show_status(self.tr("Nothing found yet: the search index is still being built from your chats…"))
        elif not hits:
            self._show_status(self.tr("No messages found."))
        elif len(hits) >= LIMIT:
            self._show_status(
                self.tr("The newest {n} found{more} — Enter opens the chat there").format(n=LIMIT, more=more)
            )
        else:
            self._show_status(
                self.tr("{n} found{more} — Enter opens the chat there").format(n=f"{len(hits):,}", more=more)
            )

    def _on_search_failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self._show_hits([])
            self._show_status(self.tr("Could not search: {error}").format(error=exc))

    # ------------------------------------------------------------------ internals
    def _show_hits(self, hits: list[Any]) -> None:
        self.hits = list(hits)
        self.list.clear()
        for hit in self.hits:
            item = QListWidgetItem(self.list)
            label = QLabel(hit_html(hit, self.names))
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)
            label.setContentsMargins(6, 4, 6, 4)
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            item.setToolTip(hit.snippet)
            self.list.setItemWidget(item, label)
        self._fit_rows()
        if self.hits:
            self.list.setCurrentRow(0)

    def _fit_rows(self) -> None:
        """Each row as wide as the list shows and as tall as its wrapped text."""
        width = max(100, self.list.viewport().width())
        for row in range(self.list.count()):
            item = self.list.item(row)
            label = self.list.itemWidget(item)
            if label is not None and item.sizeHint().width() != width:
                item.setSizeHint(QSize(width, label.heightForWidth(width)))

    def _show_status(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def eventFilter(self, watched: Any, event: Any) -> bool:
        if watched is self.list.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_rows()
            return False
        if watched is self.edit and isinstance(event, QKeyEvent) and event.type() == QKeyEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up) and self.hits:
                step = 1 if key == Qt.Key.Key_Down else -1
                self.list.setCurrentRow(max(0, min(len(self.hits) - 1, self.list.currentRow() + step)))
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self._debounce.isActive() or not self.hits:
                    self.search_now()
                else:
                    self.choose(max(0, self.list.currentRow()))
                return True
        return super().eventFilter(watched, event)
