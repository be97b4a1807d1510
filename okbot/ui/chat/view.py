"""ChatView: a virtualised chat list (model + delegate) that stays smooth with 100k rows.

Why not ``QListView``: with variable row heights it asks the delegate for *every* row's size on
each layout, and it re-lays out every row when one is appended or one row's height changes (as a
streaming reply does many times a second). This view keeps heights in a :class:`HeightIndex`
(estimates until a row is first shown, then measured), so an append or a height change costs
O(log n) and only the rows on screen are ever read, laid out or painted.

Scrolling keeps an *anchor*: the row at the top and the offset into it. When rows above it
are measured for the first time (scrolling up into estimated rows), the anchor stays put on
screen instead of the content jumping. At the bottom the view sticks to the bottom, so a
streaming reply stays in sight.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QGuiApplication,
    QHelpEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QRegion,
    QResizeEvent,
    QTextCursor,
)
from PySide6.QtWidgets import QAbstractItemView, QMenu, QStyle, QStyleOptionViewItem, QToolTip, QWidget
from shiboken6 import Shiboken

from okbot.core import chat_text
from okbot.core.items import is_member_answer
from okbot.core.roster import SquadRoster
from okbot.core.session import SessionStore
from okbot.core.session.branches import is_marker
from okbot.core.summary import SessionSummary
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.ui.chat.delegate import ChatDelegate
from okbot.ui.chat.find import ChatFinder
from okbot.ui.chat.find_bar import FindBar
from okbot.ui.chat.heights import HeightIndex
from okbot.ui.chat.jump_button import JumpButton
from okbot.ui.chat.layout import Action, RowLayout
from okbot.ui.chat.model import DIVIDER, ITEM, STREAM, ChatModel
from okbot.ui.chat.timing_tip import timing_tip_at
from okbot.ui.tasks import TaskRunner

_Index = QModelIndex | QPersistentModelIndex
_Hint = QAbstractItemView.ScrollHint
ESTIMATE = 90  # height of a row not shown yet
FLASH_MS = 1400  # how long "Copied ✓" stays
LOADING_TEXT = QT_TRANSLATE_NOOP("ChatView", "Loading the conversation…")  # both translated where painted
EMPTY_TEXT = QT_TRANSLATE_NOOP("ChatView", "No messages yet. Write one below to start.")
OVERLAY_MARGIN = 14  # the find bar and the jump button float this far from the view's edges
FIND_BAR_W = 430


class ChatView(QAbstractItemView):
    """The conversation of one assistant or squad; see :mod:`okbot.ui.chat` for the API."""

    retry_requested = Signal()
    edit_requested = Signal(int, str)  # your message's id and its text: put it in the composer to edit
    regenerate_requested = Signal(int)  # a reply's item id: run its turn again as a new version
    version_requested = Signal(int, int)  # the id a version switch shows under, the version index wanted
    view_context_requested = Signal(int)  # the user message's item id
    teaching_requested = Signal(int, int, str)  # a teaching card's id, the message it offers, "keep" | "not_now"
    summary_requested = Signal()  # the divider was clicked (its summary is shown inline)
    undo_compression_requested = Signal()  # the divider's menu: undo the last compression
    copied = Signal(str)  # text put on the clipboard
    loaded = Signal(int)  # the session's rows are ready

    def __init__(self, parent: QWidget | None = None) -> None:
        # state first: the calls below already reach the overrides (indexAt, scrollTo …)
        self._heights = HeightIndex(0, ESTIMATE)
        self._v = 0
        self._anchor = (0, 0)
        self._stick_bottom = True
        self._keep_anchor = False  # a version switch: the next reset keeps the rows where they are
        self._programmatic = False
        self._pressed: tuple[int, Action] | None = None
        self._placeholder = QCoreApplication.translate("ChatView", EMPTY_TEXT)
        super().__init__(parent)
        self._jump = JumpButton(self.viewport())  # first: laying out rows places it
        self._jump.clicked.connect(self._on_jump_clicked)
        self._find_bar = FindBar(self)
        self.setObjectName("chatView")
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked)
        self.setFrameShape(QAbstractItemView.Shape.NoFrame)
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)
        self.verticalScrollBar().setSingleStep(40)
        self._flash_timer = QTimer(self, singleShot=True, interval=FLASH_MS)
        self._flash_timer.timeout.connect(self._on_flash_timer_timeout)
        self._chat = ChatModel(self)
        self._delegate = ChatDelegate(self)
        self.setModel(self._chat)
        self.setItemDelegate(self._delegate)
        self._chat.rowsRemoved.connect(self._on_model_rows_removed)
        self._chat.loaded.connect(self.loaded)
        self._chat.loaded.connect(self._on_model_loaded)
        self._chat.load_failed.connect(self._on_model_load_failed)
        self._delegate.highlighter.ready.connect(self.viewport().update)
        self._finder = ChatFinder(lambda: self._chat.store, self._chat.item_ids, lambda: self._chat.roster, self)
        self._finder.changed.connect(self._on_finder_changed)
        self._finder.current_changed.connect(self._on_finder_current_changed)
        self._find_bar.query_changed.connect(self._on_find_bar_query_changed)
        self._find_bar.next_requested.connect(self._finder.next)
        self._find_bar.previous_requested.connect(self._finder.previous)
        self._find_bar.closed.connect(self._on_find_bar_closed)
        self._focus_before_find: QWidget | None = None
        self._reveal_id = 0  # the item a search across chats opened this chat at (until the user searches)

    # ------------------------------------------------------------------ public API
    def chat_model(self) -> ChatModel:
        return self._chat

    def chat_delegate(self) -> ChatDelegate:
        return self._delegate

    def set_session(
        self,
        store: SessionStore | None,
        *,
        summary: SessionSummary | None = None,
        target_name_by_id: Callable[[str], str] | None = None,
        tasks: TaskRunner | None = None,
        show_authors: bool = False,
    ) -> None:
        """Show the session in ``store`` (None: nothing); rows appear when ``loaded`` is emitted."""
        self._stick_bottom = True
        self._finder.set_tasks(tasks)
        self._finder.stop()
        self._delegate.highlighter.set_tasks(tasks)
        self._chat.set_session(
            store, summary=summary, target_name_by_id=target_name_by_id, tasks=tasks, show_authors=show_authors
        )

    def set_roster(self, roster: SquadRoster | None) -> None:
        """Name and colour a squad's speakers (see :mod:`okbot.core.roster`); call after set_session."""
        self._chat.set_roster(roster)
        self._delegate.reset_style()
        self._heights.forget_widths()
        self._relayout()

    def set_stream_author(self, author: str) -> None:
        """Who the streaming reply is by (a member answering directly); ``""`` = the captain again."""
        self._chat.set_stream_author(author)

    def append_item(self, item: dict[str, Any]) -> None:
        """Show an item the turn just wrote; a user message scrolls to the bottom.

        A branch marker re-reads the rows: an edit or a regeneration ends at the bottom, a version
        switch keeps the rows where they are on screen."""
        if item.get("type") == "user":
            self._stick_bottom = True
        if is_marker(item):
            if item.get("branch") == "switch":
                self._keep_anchor = True
            else:
                self._stick_bottom = True
        self._chat.append_item(item)
        self._finder.note_item(item)

    def stream_delta(self, text: str, author: str = "") -> None:
        """Add streamed reply text to the row at the bottom (``author``: who is replying, for squads)."""
        self._chat.stream_delta(text, author)

    def stream_reasoning(self, text: str, author: str = "") -> None:
        """Add streamed reasoning to the row at the bottom (shown folded: "Thinking… 4 s")."""
        self._chat.stream_reasoning(text, author)

    def end_stream(self) -> None:
        """The reply ended (its item, if any, has been appended)."""
        self._chat.end_stream()

    def set_summary(self, summary: SessionSummary) -> None:
        """Move the coverage divider (e.g. after Compress now)."""
        self._chat.set_summary(summary)

    def set_developer_mode(self, enabled: bool) -> None:
        """Developer mode shows View context when hovering a user message."""
        self._delegate.developer_mode = bool(enabled)
        self.viewport().update()

    def developer_mode(self) -> bool:
        return self._delegate.developer_mode

    def set_retry_enabled(self, enabled: bool) -> None:
        """Hide Retry while a turn runs."""
        self._chat.set_retry_enabled(enabled)

    def set_placeholder(self, text: str) -> None:
        """What an empty conversation shows."""
        self._placeholder = text
        self.viewport().update()

    def placeholder(self) -> str:
        return self._placeholder

    def scroll_to_bottom(self) -> None:
        self._stick_bottom = True
        self._relayout()

    def scroll_to_top(self) -> None:
        self._stick_bottom = False
        self._anchor = (0, 0)
        self._relayout()

    def is_at_bottom(self) -> bool:
        return self._stick_bottom

    # ------------------------------------------------------------------ find in chat, jump to latest
    def open_find(self) -> None:
        """Show the find bar (Ctrl+F) and focus it; its text is selected, so typing starts a new search."""
        if self._find_bar.isHidden():
            focus = QGuiApplication.focusObject()
            self._focus_before_find = focus if isinstance(focus, QWidget) else None
            if self._find_bar.text():
                self._on_find_bar_query_changed(self._find_bar.text())
        self._place_overlays()
        self._find_bar.open_bar()
        self._fit_find_room()

    def find_in_item(self, needle: str, item_id: int) -> None:
        """Open the find bar on ``needle`` with its match in item ``item_id`` current, highlighted and in view
        (a hit of the search across chats); waits for the rows when the chat is still loading."""
        self._find_bar.set_query("")  # opening the bar re-runs its old text otherwise
        self.open_find()
        self._find_bar.set_query(needle)
        self._reveal_id = item_id
        self._finder.search(needle, from_id=item_id)

    def show_message(self, item_id: int) -> bool:
        """Scroll message ``item_id`` into view and make it current (a kept message of the divider's list);
        False when this chat does not show it (another version of the chat, or set aside)."""
        row = self._chat.row_of_id(item_id)
        if row < 0:
            return False
        index = self._chat.index(row, 0)
        self.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
        self.setCurrentIndex(index)
        self.viewport().update()
        return True

    def close_find(self) -> None:
        """Hide the find bar and its highlights; focus goes back where it was."""
        if not self._find_bar.isHidden():
            self._find_bar.close_bar()  # emits closed -> _on_find_bar_closed

    def find_bar(self) -> FindBar:
        return self._find_bar

    def finder(self) -> ChatFinder:
        return self._finder

    def find_next(self) -> None:
        """The next match back in time (Enter in the find bar)."""
        self._finder.next()

    def find_previous(self) -> None:
        """The next match towards the newest (Shift+Enter)."""
        self._finder.previous()

    def jump_button(self) -> JumpButton:
        return self._jump

    def visible_rows(self) -> range:
        """The rows at least partly on screen."""
        n = len(self._heights)
        if n == 0:
            return range(0)
        first = self._heights.row_at(self._v)
        last = self._heights.row_at(self._v + max(1, self.viewport().height()) - 1)
        return range(first, last + 1)

    def action_rect(self, row: int, name: str, payload: Any = None) -> QRect | None:
        """Where action ``name`` of ``row`` is drawn (viewport coordinates), or None when it is not offered."""
        index = self._chat.index(row, 0)
        option = self._option(index)
        for action in self._delegate.actions(option, index):
            if action.name == name and (payload is None or action.payload == payload):
                return action.rect.translated(QPointF(option.rect.topLeft())).toAlignedRect()
        return None

    def time_rect(self, row: int) -> QRect | None:
        """Where the time under ``row``'s bubble is drawn while hovered (viewport coordinates), or None."""
        index = self._chat.index(row, 0)
        layout = self._layout_of(row)
        if not index.isValid() or not layout.footer_time:
            return None
        return layout.footer_time_rect.translated(QPointF(self.visualRect(index).topLeft())).toAlignedRect()

    def select_text(self, row: int) -> bool:
        """Open the read-only text selector over ``row``; False when the row has no text."""
        index = self._chat.index(row, 0)
        if not index.isValid():
            return False
        self.scrollTo(index)
        self.setCurrentIndex(index)
        return self.edit(index, QAbstractItemView.EditTrigger.AllEditTriggers, None)

    def copy_row(self, row: int) -> str:
        """Copy the message on ``row`` (its Markdown source) to the clipboard; returns the text."""
        kind = self._chat.row_kind(row)
        if kind == DIVIDER:
            text = self._chat.data(self._chat.index(row, 0), ChatModel.DividerRole)[1]
        elif kind == ITEM:
            text = chat_text.copy_text(self._chat.full_item(row) or {})
        else:
            text = self._chat.stream_text
        self._copy(text)
        return text

    # ------------------------------------------------------------------ geometry (QAbstractItemView)
    def visualRect(self, index: _Index) -> QRect:
        row = index.row() if index.isValid() else -1
        if not 0 <= row < len(self._heights):
            return QRect()
        top = self._heights.offset(row) - self._v
        return QRect(0, top, self.viewport().width(), self._heights.height(row))

    def indexAt(self, point: QPoint) -> QModelIndex:
        y = self._v + point.y()
        if not self._heights or y < 0 or y >= self._heights.total:
            return QModelIndex()
        return self._chat.index(self._heights.row_at(y), 0)

    def scrollTo(self, index: _Index, hint: _Hint = _Hint.EnsureVisible) -> None:
        row = index.row() if index.isValid() else -1
        if not 0 <= row < len(self._heights):
            return
        self._measure(row)
        top, height, view_h = self._heights.offset(row), self._heights.height(row), self.viewport().height()
        hint_enum = _Hint
        if hint == hint_enum.PositionAtTop or (hint == hint_enum.EnsureVisible and top < self._v) or height >= view_h:
            value = top
        elif hint == hint_enum.PositionAtBottom or (
            hint == hint_enum.EnsureVisible and top + height > self._v + view_h
        ):
            value = top + height - view_h
        elif hint == hint_enum.PositionAtCenter:
            value = top + height // 2 - view_h // 2
        else:
            return
        self._stick_bottom = row == len(self._heights) - 1 and hint != hint_enum.PositionAtTop and height < view_h
        self._set_anchor_for(max(0, value))
        self._relayout()

    def moveCursor(self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier) -> QModelIndex:
        n = len(self._heights)
        if n == 0:
            return QModelIndex()
        row = self.currentIndex().row() if self.currentIndex().isValid() else self.visible_rows().start
        act = QAbstractItemView.CursorAction
        page = self.viewport().height()
        if action in (act.MoveUp, act.MovePrevious):
            row -= 1
        elif action in (act.MoveDown, act.MoveNext):
            row += 1
        elif action == act.MoveHome:
            row = 0
        elif action == act.MoveEnd:
            row = n - 1
        elif action == act.MovePageUp:
            row = self._heights.row_at(self._heights.offset(row) - page)
        elif action == act.MovePageDown:
            row = self._heights.row_at(self._heights.offset(row) + page)
        return self._chat.index(max(0, min(n - 1, row)), 0)

    def horizontalOffset(self) -> int:
        return 0

    def verticalOffset(self) -> int:
        return self._v

    def isIndexHidden(self, index: _Index) -> bool:
        return False

    def setSelection(self, rect: QRect, command: QItemSelectionModel.SelectionFlag) -> None:
        if not self._heights:
            return
        first = self._heights.row_at(self._v + rect.top())
        last = self._heights.row_at(self._v + rect.bottom())
        selection = QItemSelection(self._chat.index(first, 0), self._chat.index(last, 0))
        self.selectionModel().select(selection, command)

    def visualRegionForSelection(self, selection: QItemSelection) -> QRegion:
        region = QRegion()
        visible = self.visible_rows()
        for selected in selection:
            for row in range(max(selected.top(), visible.start), min(selected.bottom(), visible.stop - 1) + 1):
                region += self.visualRect(self._chat.index(row, 0))
        return region

    def updateGeometries(self) -> None:
        self._relayout(update=False)
        super().updateGeometries()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_overlays()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        if self._programmatic:
            return
        value = self.verticalScrollBar().value()
        bar_max = self.verticalScrollBar().maximum()
        self._stick_bottom = value >= bar_max
        row, _ = self._anchor
        view_h = self.viewport().height()
        if (
            0 <= row < len(self._heights)
            and self._heights.offset(row) < value + view_h
            and self._heights.offset(row) + self._heights.height(row) > value
        ):
            self._anchor = (row, value - self._heights.offset(row))  # keep the row on screen still
        else:
            self._set_anchor_for(value)
        self._relayout()

    # ------------------------------------------------------------------ model notifications
    def reset(self) -> None:
        super().reset()
        self._heights.reset(self._chat.rowCount())
        keep, self._keep_anchor = self._keep_anchor and not self._chat.loading, False
        if not keep or self._anchor[0] >= self._chat.rowCount():
            self._anchor = (0, 0)
        self._relayout()

    def rowsInserted(self, parent: _Index, start: int, end: int) -> None:
        super().rowsInserted(parent, start, end)
        if not self._stick_bottom and start >= len(self._heights) - 1:  # at the end (or above the reply streaming)
            self._jump.set_new_content(True)
        self._heights.insert(start, end - start + 1)
        row, offset = self._anchor
        if start <= row and not self._stick_bottom:
            self._anchor = (row + end - start + 1, offset)
        self._relayout()

    def _on_model_rows_removed(self, _parent: _Index, start: int, end: int) -> None:
        count = end - start + 1
        self._heights.remove(start, count)
        row, offset = self._anchor
        if row > end:
            self._anchor = (row - count, offset)
        elif row >= start:
            self._anchor = (min(start, max(0, len(self._heights) - 1)), 0)
        self._relayout()

    def dataChanged(self, top_left: _Index, bottom_right: _Index, roles: list[int] = ()) -> None:
        super().dataChanged(top_left, bottom_right, roles)
        if not self._stick_bottom and self._chat.row_kind(bottom_right.row()) == STREAM:
            self._jump.set_new_content(True)  # the reply grows below what the user reads
        for row in range(top_left.row(), bottom_right.row() + 1):
            if 0 <= row < len(self._heights):
                self._heights.widths[row] = 0  # measure again
        self._relayout()

    def _on_model_load_failed(self, message: str) -> None:
        self.viewport().update()

    # ------------------------------------------------------------------ layout
    def _option(self, index: _Index) -> QStyleOptionViewItem:
        # built by hand: PySide6 6.12's initViewItemOption / initFrom drop a reference to None on every
        # call, which crashes the interpreter at exit after enough calls
        option = QStyleOptionViewItem()
        option.palette = self.palette()
        option.font = self.font()
        option.fontMetrics = self.fontMetrics()
        option.direction = self.layoutDirection()
        option.state = QStyle.StateFlag.State_Enabled
        if self.window().isActiveWindow():
            option.state |= QStyle.StateFlag.State_Active
        option.rect = self.visualRect(index) if index.isValid() else QRect()
        if not option.rect.isValid():
            option.rect = QRect(0, 0, self.viewport().width(), ESTIMATE)
        option.widget = self
        return option

    def _measure(self, row: int) -> bool:
        """Lay out ``row`` at the current width if not done yet; True when its height changed."""
        width = max(1, self.viewport().width())
        if self._heights.widths[row] == width:
            return False
        option = self._option(self._chat.index(row, 0))
        option.rect = QRect(0, 0, width, self._heights.height(row))
        height = self._delegate.sizeHint(option, self._chat.index(row, 0)).height()
        return self._heights.set(row, height, width)

    def _set_anchor_for(self, value: int) -> None:
        row = self._heights.row_at(value)
        self._anchor = (max(0, row), value - self._heights.offset(max(0, row)))

    def _relayout(self, *, update: bool = True) -> None:
        """Measure the rows on screen, place the anchor (or the bottom) and set the scroll bar."""
        heights, view_h = self._heights, max(1, self.viewport().height())
        n = len(heights)
        value = 0
        for _ in range(8):
            changed = False
            if n == 0:
                break
            if self._stick_bottom:
                row, filled = n - 1, 0
                while row >= 0 and filled < view_h:
                    changed |= self._measure(row)
                    filled += heights.height(row)
                    row -= 1
                value = max(0, heights.total - view_h)
            else:
                row, offset = self._anchor
                row = min(max(0, row), n - 1)
                value = max(0, min(heights.offset(row) + offset, heights.total - view_h))
                first = heights.row_at(value)
                row = first
                while row < n and heights.offset(row) < value + view_h:
                    changed |= self._measure(row)
                    row += 1
                if first > 0 and heights.offset(first) > value:  # measured rows shrank: fill the top
                    changed |= self._measure(first - 1)
            if not changed:
                break
        maximum = max(0, heights.total - view_h) if n else 0
        value = min(value, maximum)
        if not self._stick_bottom and n and value >= maximum:  # at the bottom, or the whole chat in view
            self._stick_bottom = True
        self._v = value
        if n and not self._stick_bottom:
            row, offset = self._anchor
            if not 0 <= row < n or value != heights.offset(row) + offset:
                self._set_anchor_for(value)
        bar = self.verticalScrollBar()
        self._programmatic = True
        try:
            bar.setRange(0, maximum)
            bar.setPageStep(view_h)
            bar.setValue(value)
        finally:
            self._programmatic = False
        self._sync_jump()
        if update:
            self.updateEditorGeometries()
            self.viewport().update()

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self.viewport())
        if self._chat.rowCount() == 0:
            self._paint_placeholder(painter)
            return
        exposed = event.rect()
        current = self.currentIndex()
        needs_layout = False
        for row in self.visible_rows():
            needs_layout |= self._measure(row)
            index = self._chat.index(row, 0)
            option = self._option(index)
            if not option.rect.intersects(exposed):
                continue
            if self.selectionModel().isSelected(index):
                option.state |= QStyle.StateFlag.State_Selected
            if self.hasFocus() and index == current:
                option.state |= QStyle.StateFlag.State_HasFocus
            self._delegate.paint(painter, option, index)
        painter.end()
        if needs_layout:
            QTimer.singleShot(0, self._relayout)

    def _paint_placeholder(self, painter: QPainter) -> None:
        loading = QCoreApplication.translate("ChatView", LOADING_TEXT)
        text = loading if self._chat.loading else (self._chat.error or self._placeholder)
        painter.setPen(self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        rect = self.viewport().rect().adjusted(40, 0, -40, 0)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, text)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._delegate.reset_style()
            self._heights.forget_widths()
            self._relayout()
        super().changeEvent(event)

    # ------------------------------------------------------------------ mouse and keyboard
    def _action_at(self, pos: QPoint) -> tuple[int, Action | None]:
        index = self.indexAt(pos)
        if not index.isValid():
            return -1, None
        return index.row(), self._delegate.action_at(self._option(index), index, QPointF(pos))

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            tip = self._timing_tip(event.pos())
            if tip:
                QToolTip.showText(event.globalPos(), tip, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def _timing_tip(self, pos: QPoint) -> str:
        """Over a reply's time: where its time went; "" elsewhere."""
        index = self.indexAt(pos)
        if not index.isValid() or self._chat.row_kind(index.row()) != ITEM:
            return ""
        option = self._option(index)
        layout = self._delegate.layout(option, index)
        local = QPointF(pos) - QPointF(option.rect.topLeft())
        return timing_tip_at(layout, index.data(ChatModel.ItemRole), local)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        row, action = self._action_at(pos)
        key = self._chat.index(row, 0).data(ChatModel.KeyRole) if row >= 0 else None
        hover_action = (action.name, action.payload) if action else None
        if key != self._delegate.hover_key or hover_action != self._delegate.hover_action:
            self._delegate.hover_key, self._delegate.hover_action = key, hover_action
            self.viewport().update()
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if action else Qt.CursorShape.ArrowCursor)
        if event.buttons() != Qt.MouseButton.NoButton:
            super().mouseMoveEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self._delegate.hover_key = self._delegate.hover_action = None
        self.viewport().update()
        super().leaveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        row, action = self._action_at(event.position().toPoint())
        if action is not None and event.button() == Qt.MouseButton.LeftButton:
            self._pressed = (row, action)
            event.accept()
            return
        self._pressed = None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pressed, self._pressed = self._pressed, None
        if pressed is not None:
            row, action = self._action_at(event.position().toPoint())
            if action is not None and row == pressed[0] and action.name == pressed[1].name:
                self._trigger(row, action)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        _, action = self._action_at(event.position().toPoint())
        if action is not None:
            event.accept()
            return
        super().mouseDoubleClickEvent(event)
        editor = self._delegate.editor
        if editor is not None:  # the selector just opened: select the word that was double-clicked
            cursor = editor.cursorForPosition(editor.viewport().mapFrom(self.viewport(), event.position().toPoint()))
            cursor.select(QTextCursor.SelectionType.WordUnderCursor)
            editor.setTextCursor(cursor)

    def keyPressEvent(self, event: Any) -> None:
        if self._card_key(event):
            event.accept()
            return
        if event.matches(QKeySequence.StandardKey.Find):
            self.open_find()
            event.accept()
            return
        if event.key() == Qt.Key.Key_Escape and not self._find_bar.isHidden():
            self.close_find()
            event.accept()
            return
        if event.matches(QKeySequence.StandardKey.Copy) and self.currentIndex().isValid():
            self.copy_row(self.currentIndex().row())
            event.accept()
            return
        super().keyPressEvent(event)

    def _card_key(self, event: Any) -> bool:
        """On a teaching card that waits for an answer: Left / Right move between its buttons, Enter or Space
        presses the one the focus ring is on (Keep, to begin with). True when the key was the card's."""
        index = self.currentIndex()
        if not index.isValid() or self._chat.row_kind(index.row()) != ITEM:
            return False
        layout = self._layout_of(index.row())
        if layout.style != "teaching" or not layout.actions:
            return False
        names = [a.name for a in layout.actions]
        key = index.data(ChatModel.KeyRole)
        on = self._delegate.focus_action
        focused = on[1] if on is not None and on[0] == key and on[1] in names else names[0]
        if event.key() in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            step = 1 if event.key() == Qt.Key.Key_Right else -1
            self._delegate.focus_action = (key, names[(names.index(focused) + step) % len(names)])
            self.viewport().update()
            return True
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self._trigger(index.row(), layout.actions[names.index(focused)])
            return True
        return False

    def currentChanged(self, current: _Index, previous: _Index) -> None:
        super().currentChanged(current, previous)
        self._delegate.focus_action = None
        if current.isValid() and self._chat.row_kind(current.row()) == ITEM:
            layout = self._layout_of(current.row())
            if layout.style == "teaching" and layout.actions:  # the keyboard reached a card: its ring is on Keep
                self._delegate.focus_action = (current.data(ChatModel.KeyRole), layout.actions[0].name)
        self.viewport().update()

    def contextMenuEvent(self, event: Any) -> None:
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        menu = self.context_menu(index.row())
        if menu.actions():
            menu.exec(event.globalPos())

    def context_menu(self, row: int) -> QMenu:
        """The right-click menu of ``row`` (built fresh each time)."""
        menu = QMenu(self)
        kind = self._chat.row_kind(row)
        item = self._chat.item(row) or {}
        if kind == DIVIDER:
            label = self.tr("Hide summary") if self._chat.is_expanded(row) else self.tr("Show summary")
            menu.addAction(label, lambda: self._toggle(row))
            menu.addAction(self.tr("Copy summary"), lambda: self.copy_row(row))
            menu.addSeparator()
            menu.addAction(self.tr("Undo last compression"), self.undo_compression_requested.emit)
            return menu
        layout = self._layout_of(row)
        if layout.style == "teaching":
            for action in layout.actions:
                menu.addAction(action.label, lambda a=action: self._trigger(row, a))
        menu.addAction(self.tr("Copy message"), lambda: self.copy_row(row))
        menu.addAction(self.tr("Select text"), lambda: self.select_text(row))
        more = self._layout_of(row).more
        if more is not None:
            menu.addAction(more.label, lambda: self._toggle(row))
        if item.get("type") == "tool_call" or (item.get("type") == "tool_result" and not is_member_answer(item)):
            label = self.tr("Hide details") if self._chat.is_expanded(row) else self.tr("Show details")
            menu.addAction(label, lambda: self._toggle(row))
        if item.get("type") == "user" and self.developer_mode():
            menu.addAction(self.tr("View context"), lambda: self.view_context_requested.emit(int(item["id"])))
        if self._chat.data(self._chat.index(row, 0), ChatModel.RetryableRole):
            menu.addAction(self.tr("Retry"), self.retry_requested.emit)
        self._version_menu(menu, row, item)
        return menu

    def _version_menu(self, menu: QMenu, row: int, item: dict[str, Any]) -> None:
        """Edit and resend (yours) or Regenerate (a reply); on a summarized message, disabled with the reason."""
        kind = item.get("type")
        if kind not in ("user", "assistant") or (kind == "user" and item.get("source") != "user"):
            return
        name, label = ("edit", self.tr("Edit and resend")) if kind == "user" else ("regenerate", self.tr("Regenerate"))
        if self._chat.data(self._chat.index(row, 0), ChatModel.ChangeableRole):
            menu.addAction(label, lambda: self._version_action(row, Action(name, QRectF())))
        elif self._chat.summary.covered_through_id >= int(item.get("id", 0)):
            why = menu.addAction(
                self.tr("{action} — not for summarized messages: send a new message instead").format(action=label)
            )
            why.setEnabled(False)

    # ------------------------------------------------------------------ actions
    def _trigger(self, row: int, action: Action) -> None:
        name = action.name
        if name == "copy":
            self.copy_row(row)
            self._flash(row, action)
        elif name == "copy_code":
            index = self._chat.index(row, 0)
            layout = self._delegate.layout(self._option(index), index)
            self._copy(layout.codes[action.payload].text)
            self._flash(row, action)
        elif name == "view_context" and self.developer_mode():
            self.view_context_requested.emit(self._chat.item_id(row))
        elif name == "retry":
            self.retry_requested.emit()
        elif name in ("edit", "regenerate", "version"):
            self._version_action(row, action)
        elif name == "toggle":
            self._toggle(row)
        elif name == "thought":
            self._chat.set_thought_open(row, not self._chat.is_thought_open(row))
        elif name == "open_message":
            self.show_message(int(action.payload))
        elif name in ("teach_keep", "teach_not_now"):
            answer = "keep" if name == "teach_keep" else "not_now"
            self.teaching_requested.emit(self._chat.item_id(row), int(action.payload), answer)

    def _version_action(self, row: int, action: Action) -> None:
        item_id = self._chat.item_id(row)
        if action.name == "edit":
            item = self._chat.full_item(row) or {}
            self.edit_requested.emit(item_id, str(item.get("content") or ""))
        elif action.name == "regenerate":
            self.regenerate_requested.emit(item_id)
        else:
            self.version_requested.emit(item_id, int(action.payload))

    def _toggle(self, row: int) -> None:
        expand = not self._chat.is_expanded(row)
        self._chat.set_expanded(row, expand)
        if expand and self._chat.row_kind(row) == DIVIDER:
            self.summary_requested.emit()

    def _copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.copied.emit(text)

    def _flash(self, row: int, action: Action) -> None:
        key = self._chat.index(row, 0).data(ChatModel.KeyRole)
        self._delegate.flash = (key, action.name, action.payload)
        self._flash_timer.start()
        self.viewport().update()

    def _on_flash_timer_timeout(self) -> None:
        self._delegate.flash = None
        self.viewport().update()

    # ------------------------------------------------------------------ long messages
    def edit(  # noqa: D102 - Qt API: the text selector opens over the whole message
        self,
        index: _Index,
        trigger: QAbstractItemView.EditTrigger = QAbstractItemView.EditTrigger.AllEditTriggers,
        event: QEvent | None = None,
    ) -> bool:
        opens = trigger == QAbstractItemView.EditTrigger.AllEditTriggers or bool(trigger & self.editTriggers())
        if opens and index.isValid() and self._layout_of(index.row()).collapsed:
            self._chat.set_expanded(index.row(), True)  # select in the whole text, not a clipped part
        return super().edit(index, trigger, event)

    def _layout_of(self, row: int) -> RowLayout:
        index = self._chat.index(row, 0)
        option = self._option(index)
        option.rect.setWidth(max(1, self.viewport().width()))
        return self._delegate.layout(option, index)

    # ------------------------------------------------------------------ overlays: jump to latest, find bar
    def _place_overlays(self) -> None:
        viewport = self.viewport()
        self._jump.resize(self._jump.sizeHint())
        self._jump.move(
            viewport.width() - self._jump.width() - OVERLAY_MARGIN - 6,
            viewport.height() - self._jump.height() - OVERLAY_MARGIN,
        )
        width = min(FIND_BAR_W, max(200, self.width() - 2 * OVERLAY_MARGIN))
        self._find_bar.resize(width, self._find_bar.sizeHint().height())
        self._find_bar.move(self.width() - width - OVERLAY_MARGIN - 6, 8)
        self._fit_find_room()

    def _fit_find_room(self) -> None:
        """While the find bar shows, the rows start below it: a match in the first message (which the view
        cannot scroll above) would otherwise sit under the bar."""
        top = self._find_bar.geometry().bottom() + 5 if self._find_bar.isVisible() else 0
        if self.viewportMargins().top() != top:
            self.setViewportMargins(0, top, 0, 0)

    def _sync_jump(self) -> None:
        """The jump button shows while the user is scrolled up; back at the bottom it hides and forgets "new"."""
        show = len(self._heights) > 0 and not self._stick_bottom
        if not show:
            self._jump.set_new_content(False)
        if show == self._jump.isHidden():
            self._jump.setVisible(show)
            if show:
                self._place_overlays()
                self._jump.raise_()

    def _on_jump_clicked(self) -> None:
        self.scroll_to_bottom()

    # ------------------------------------------------------------------ find in chat
    def _on_model_loaded(self, _rows: int) -> None:
        if not self._find_bar.isHidden() and self._find_bar.text():
            if self._reveal_id:  # opened at a search hit before the rows were there: that item again
                self._finder.search(self._find_bar.text(), from_id=self._reveal_id)
            else:
                self._on_find_bar_query_changed(self._find_bar.text())

    def _on_find_bar_query_changed(self, text: str) -> None:
        self._reveal_id = 0
        from_id = 0
        if not self._stick_bottom:  # start at what the user reads, not at the newest
            for row in reversed(self.visible_rows()):
                from_id = self._chat.item_id(row)
                if from_id:
                    break
        self._finder.search(text, from_id=from_id)

    def _on_find_bar_closed(self) -> None:
        self._finder.stop()
        self._fit_find_room()
        target = self._focus_before_find
        self._focus_before_find = None
        if target is not None and Shiboken.isValid(target) and target.isVisible():
            target.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self.setFocus(Qt.FocusReason.OtherFocusReason)

    def _on_finder_changed(self) -> None:
        finder = self._finder
        current = finder.current_match()
        if finder.needle:
            item_id, occurrence = current if current is not None else (0, -1)
            self._delegate.find = (finder.needle, item_id, occurrence)
        else:
            self._delegate.find = None
        self._find_bar.set_count(finder.current, finder.total, done=finder.done, error=finder.error)
        self.viewport().update()

    def _on_finder_current_changed(self) -> None:
        current = self._finder.current_match()
        if current is not None:
            self.show_match(*current)

    def show_match(self, item_id: int, occurrence: int) -> None:
        """Scroll so that match ``occurrence`` of item ``item_id`` is in the middle of the view, opening
        the message first when the match is in its collapsed part."""
        row = self._chat.row_of_id(item_id)
        if row < 0:
            return
        layout = self._layout_of(row)
        span = self._match_span(layout, occurrence)
        if layout.collapsed and span.bottom() > layout.doc_pos.y() + layout.shown_h:
            self._chat.set_expanded(row, True)
            span = self._match_span(self._layout_of(row), occurrence)
        self._measure(row)
        self._stick_bottom = False
        self._anchor = (row, round(span.center().y() - self.viewport().height() / 2))
        self._relayout()

    def match_rect(self, item_id: int, occurrence: int) -> QRect | None:
        """Where match ``occurrence`` of item ``item_id`` is drawn (viewport coordinates), or None."""
        row = self._chat.row_of_id(item_id)
        if row < 0:
            return None
        span = self._match_span(self._layout_of(row), occurrence)
        return span.translated(0, self.visualRect(self._chat.index(row, 0)).top()).toAlignedRect()

    def _match_span(self, layout: RowLayout, occurrence: int) -> QRectF:
        """Where a match is within its row (row coordinates); the whole bubble for one-line rows."""
        matches = self._delegate.doc_matches(layout) if layout.style in ("user", "assistant", "notice") else []
        if layout.doc is None or not 0 <= occurrence < len(matches):
            return QRectF(layout.bubble)
        doc = layout.doc
        start, end = matches[occurrence]
        block = doc.findBlock(start)
        rect = doc.documentLayout().blockBoundingRect(block)
        line = block.layout().lineForTextPosition(start - block.position())
        if not line.isValid():
            return rect.translated(layout.doc_pos)
        x0 = line.cursorToX(start - block.position())[0]
        x1 = line.cursorToX(min(end, block.position() + block.length() - 1) - block.position())[0]
        return QRectF(rect.left() + x0, rect.top() + line.y(), max(1.0, x1 - x0), line.height()).translated(
            layout.doc_pos
        )
