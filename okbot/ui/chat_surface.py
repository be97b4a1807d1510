"""Where the chat page shows the conversation: the chat view when it is there, else a plain transcript.

:class:`ChatSurface` is the small interface the chat page drives (load a session, append live
items, stream a reply). :func:`make_surface` picks the virtualised ``okbot.ui.chat`` view when
that package is importable and falls back to :class:`PlainTranscript`, a read-only Markdown
transcript of the last :data:`TRANSCRIPT_TAIL` items, so the app works while the chat view is
being built or if it fails to load.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFrame, QTextBrowser, QWidget

from okbot.core.session import SessionStore
from okbot.core.workspace import Target
from okbot.ui.tasks import TaskRunner

log = logging.getLogger("okbot.ui.chat")

TRANSCRIPT_TAIL = 200
_STREAM_REPAINT_MS = 50


class ChatSurface(QObject):
    """The chat page's view of a conversation. Subclasses adapt a concrete widget."""

    retry_requested = Signal()
    view_context_requested = Signal(int)
    loaded = Signal()

    @property
    def widget(self) -> QWidget:
        raise NotImplementedError

    def set_session(self, target: Target, store: SessionStore) -> None:
        """Show ``store`` (loaded off the GUI thread)."""
        raise NotImplementedError

    def append_item(self, item: dict[str, Any]) -> None:
        """An item the running turn just wrote."""
        raise NotImplementedError

    def begin_stream(self) -> None:
        raise NotImplementedError

    def append_delta(self, text: str) -> None:
        raise NotImplementedError

    def end_stream(self) -> None:
        raise NotImplementedError

    def set_developer_mode(self, on: bool) -> None:  # noqa: B027 - optional
        """Show developer affordances (View context)."""

    def set_sources(self, sources: Any) -> None:  # noqa: B027 - optional
        """Where the surface may read the summary and squad members' names."""

    def set_summary(self, summary: Any) -> None:  # noqa: B027 - optional
        """Coverage moved (compression): move the divider."""

    def set_roster(self, roster: Any) -> None:  # noqa: B027 - optional
        """Squads: who the captain and members are (names, colours) for bubbles."""

    def set_stream_author(self, author: str) -> None:  # noqa: B027 - optional
        """Who is speaking in the reply that streams now ("" = the chat's own assistant or captain)."""

    def set_busy(self, busy: bool) -> None:  # noqa: B027 - optional
        """A turn is running (hide Retry affordances meanwhile)."""

    def scroll_to_bottom(self) -> None:  # noqa: B027 - optional
        """Scroll to the newest message."""


class PlainTranscript(ChatSurface):
    """The fallback: a QTextBrowser rendering the tail of the session as Markdown."""

    def __init__(self, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks = tasks
        self._view = QTextBrowser()
        self._view.setObjectName("plainTranscript")
        self._view.setFrameShape(QFrame.Shape.NoFrame)
        self._view.setOpenExternalLinks(True)
        self._items: list[dict[str, Any]] = []
        self._stream: list[str] | None = None
        self._generation = 0
        self._repaint = QTimer(self)
        self._repaint.setSingleShot(True)
        self._repaint.setInterval(_STREAM_REPAINT_MS)
        self._repaint.timeout.connect(self._render)

    @property
    def widget(self) -> QWidget:
        return self._view

    @property
    def shown_items(self) -> list[dict[str, Any]]:
        return list(self._items)

    @property
    def streaming_text(self) -> str | None:
        return "".join(self._stream) if self._stream is not None else None

    def text(self) -> str:
        """The transcript as plain text (tests read it)."""
        self._flush()
        return self._view.toPlainText()

    def set_session(self, target: Target, store: SessionStore) -> None:
        self._generation += 1
        generation = self._generation
        self._items, self._stream = [], None
        self._render()
        self._tasks.run(
            lambda: store.tail(TRANSCRIPT_TAIL), lambda items: self._on_tail_loaded(generation, items), owner=self._view
        )

    def append_item(self, item: dict[str, Any]) -> None:
        if any(it.get("id") == item.get("id") for it in self._items[-4:]):
            return
        self._items.append(item)
        del self._items[:-TRANSCRIPT_TAIL]
        self._render()

    def begin_stream(self) -> None:
        self._stream = []
        self._render()

    def append_delta(self, text: str) -> None:
        if self._stream is None:
            self._stream = []
        self._stream.append(text)
        if not self._repaint.isActive():
            self._repaint.start()

    def end_stream(self) -> None:
        self._stream = None
        self._render()

    def scroll_to_bottom(self) -> None:
        bar = self._view.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _on_tail_loaded(self, generation: int, items: list[dict[str, Any]]) -> None:
        if generation != self._generation:
            return  # another session was shown meanwhile
        known = {it.get("id") for it in items}
        self._items = items + [it for it in self._items if it.get("id") not in known]
        self._render()
        self.loaded.emit()

    def _flush(self) -> None:
        if self._repaint.isActive():
            self._repaint.stop()
            self._render()

    def _render(self) -> None:
        parts = [_markdown(it) for it in self._items]
        if self._stream is not None:
            parts.append("**Assistant** · replying…\n\n" + "".join(self._stream))
        at_bottom = self._view.verticalScrollBar().value() >= self._view.verticalScrollBar().maximum() - 4
        self._view.setMarkdown("\n\n---\n\n".join(p for p in parts if p))
        if at_bottom:
            self.scroll_to_bottom()


def _markdown(item: dict[str, Any]) -> str:
    kind = item.get("type")
    content = item.get("content", "")
    if kind == "user":
        return f"**You**\n\n{content}"
    if kind == "assistant":
        status = item.get("status")
        mark = {"interrupted": " · *stopped*", "error": f" · *failed: {item.get('error', '')}*"}.get(status, "")
        return f"**Assistant**{mark}\n\n{content}"
    if kind == "tool_call":
        return f"*→ {item.get('name', '')}({item.get('arguments', '')})*"
    if kind == "tool_result":
        first = " ".join(str(content).split())[:100]
        return f"*← {item.get('name', '')}: {first}*"
    if kind == "notice":
        return f"*{content}*"
    return ""


def make_surface(tasks: TaskRunner, settings: Any, parent: QObject | None = None) -> ChatSurface:
    """The chat view adapter when ``okbot.ui.chat`` is available, else the plain transcript."""
    try:
        from okbot.ui.chat_view_surface import ChatViewSurface
    except ImportError as exc:
        log.info("chat view not available (%s); using the plain transcript", exc)
        return PlainTranscript(tasks, parent)
    try:
        return ChatViewSurface(tasks, settings, parent)
    except Exception:  # noqa: BLE001 - a broken chat view must not take the app down
        log.exception("chat view failed to load; using the plain transcript")
        return PlainTranscript(tasks, parent)
