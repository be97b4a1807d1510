"""The chat page's surface over the virtualised chat view (:mod:`okbot.ui.chat`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from okbot.core.session import SessionStore
from okbot.core.workspace import Target
from okbot.ui.chat import ChatView
from okbot.ui.chat_surface import ChatSurface
from okbot.ui.tasks import TaskRunner

EMPTY_CHAT = "Say hello to {name}. Your conversation is saved as you go."


class ChatViewSurface(ChatSurface):
    """Adapts :class:`~okbot.ui.chat.ChatView` to what the chat page drives."""

    def __init__(self, tasks: TaskRunner, settings: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks = tasks
        self._sources: Any = None
        self.view = ChatView()
        self.view.setObjectName("chatView")
        self.view.retry_requested.connect(self.retry_requested)
        self.view.view_context_requested.connect(self.view_context_requested)
        self.view.loaded.connect(lambda _rows: self.loaded.emit())

    @property
    def widget(self) -> QWidget:
        return self.view

    def set_sources(self, sources: Any) -> None:
        """Where summaries and member names come from (squads show authors)."""
        self._sources = sources

    def set_session(self, target: Target, store: SessionStore) -> None:
        summary = None
        if self._sources is not None:
            summary, _problems = self._sources.summary(target)
        self.view.set_placeholder(EMPTY_CHAT.format(name=target.name))
        self.view.set_session(
            store,
            summary=summary,
            target_name_by_id=lambda author: target.name if author == target.id else author,
            tasks=self._tasks,
            show_authors=target.kind == "squad",
        )

    def append_item(self, item: dict[str, Any]) -> None:
        self.view.append_item(item)

    def begin_stream(self) -> None:
        """The streaming row appears with the first delta."""

    def set_roster(self, roster: Any) -> None:
        self.view.set_roster(roster)

    def set_stream_author(self, author: str) -> None:
        self.view.set_stream_author(author)

    def set_busy(self, busy: bool) -> None:
        self.view.set_retry_enabled(not busy)

    def append_delta(self, text: str) -> None:
        self.view.stream_delta(text)

    def end_stream(self) -> None:
        self.view.end_stream()

    def set_developer_mode(self, on: bool) -> None:
        self.view.set_developer_mode(on)

    def set_summary(self, summary: Any) -> None:
        self.view.set_summary(summary)

    def scroll_to_bottom(self) -> None:
        self.view.scroll_to_bottom()

    @property
    def streaming_text(self) -> str | None:
        """The reply streaming in right now (``None`` when there is no streaming row)."""
        model = self.view.chat_model()
        return model.stream_text if model.streaming else None

    def text(self) -> str:
        """Every loaded item's text and the streaming reply, one per line (for tests and copy-all)."""
        model = self.view.chat_model()
        lines = []
        for row in range(model.rowCount()):
            item = model.item(row)
            if item is not None:
                lines.append(str(item.get("content", "")))
        if model.streaming:
            lines.append(model.stream_text)
        return "\n".join(lines)
