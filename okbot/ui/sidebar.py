"""The sidebar: search by name, the list of assistants and squads, New, Rename, Delete (confirm, then undo).

The sidebar decides nothing: it asks (signals) and its owner acts on the workspace, then calls
:meth:`Sidebar.show_undo` / :meth:`Sidebar.show_message`. Delete asks for confirmation in an
inline banner (no modal dialog); the undo offer stays until dismissed or replaced.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QFontMetrics,
    QIcon,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPalette,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from okbot.core.kind import Kind
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.ui.target_list_model import STREAMING, TargetListModel

ROW_PADDING = 6  # pixels above and below each name
MINIMUM_WIDTH = 180
DOT = 7  # diameter of the unread / streaming dot
TEXT_INDENT = 12
SQUAD_TAG = QT_TRANSLATE_NOOP("Sidebar", "squad")  # the quiet tag on a squad's row


class _RowDelegate(QStyledItemDelegate):
    """The style's own item painting with air around each row, and a dot for unread / streaming."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        return QSize(size.width(), size.height() + 2 * ROW_PADDING)

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)  # background only

        status = index.data(TargetListModel.StatusRole)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        pal = opt.palette
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        right = opt.rect.right() - 10
        painter.save()
        if index.data(TargetListModel.KindRole) == Kind.SQUAD:  # a quiet tag tells squads from assistants
            tag = QCoreApplication.translate("Sidebar", SQUAD_TAG)
            tag_font = QFont(opt.font)
            tag_font.setPointSizeF(max(6.0, tag_font.pointSizeF() * 0.85))
            painter.setFont(tag_font)
            tag_width = QFontMetrics(tag_font).horizontalAdvance(tag)
            tag_left = right - tag_width - (DOT + 8 if status else 0)
            tag_rect = QRect(tag_left, opt.rect.top(), tag_width, opt.rect.height())
            painter.setPen(pal.color(text_role if selected else QPalette.ColorRole.PlaceholderText))
            painter.drawText(tag_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight), tag)
            right = tag_rect.left() - 6
        elif status:
            right -= DOT + 8
        painter.setFont(opt.font)
        painter.setPen(pal.color(text_role))
        text_rect = QRect(
            opt.rect.left() + TEXT_INDENT, opt.rect.top(), right - opt.rect.left() - TEXT_INDENT, opt.rect.height()
        )
        shown = opt.fontMetrics.elidedText(text, Qt.TextElideMode.ElideRight, max(0, text_rect.width()))
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), shown)
        if status:
            colour = QColor(pal.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Highlight))
            dot = QRectF(opt.rect.right() - DOT - 10, opt.rect.center().y() - DOT / 2 + 0.5, DOT, DOT)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            if status == STREAMING:  # a ring: replying
                painter.setPen(QPen(colour, 1.6))
                painter.setBrush(Qt.BrushStyle.NoBrush)
            else:  # a filled dot: a reply you have not seen
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
            painter.drawEllipse(dot)
        painter.restore()


class SidebarList(QListView):
    """The list itself (uniform rows, so long lists stay cheap). F2 renames, Delete deletes."""

    delete_pressed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebarList")
        self.setUniformItemSizes(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed | QAbstractItemView.EditTrigger.DoubleClicked)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setItemDelegate(_RowDelegate(self))
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Delete) or event.key() == Qt.Key.Key_Delete:
            if self.state() != QAbstractItemView.State.EditingState:
                self.delete_pressed.emit()
                event.accept()
                return
        super().keyPressEvent(event)


class _Banner(QFrame):
    """An inline message with up to two buttons (delete confirmation, undo, errors)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebarBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.primary = QPushButton(self)
        self.secondary = QPushButton(self)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.secondary)
        buttons.addWidget(self.primary)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.label)
        layout.addLayout(buttons)
        self.hide()


class Sidebar(QWidget):
    """Search box, New button, the list, and an inline banner. Emits requests; the owner acts."""

    current_changed = Signal(object)  # Target | None
    create_requested = Signal()  # a new assistant
    create_squad_requested = Signal()
    edit_squad_requested = Signal(object)  # Target (a squad)
    edit_assistant_requested = Signal(object, str)  # Target (an assistant), tab: soul | memories | skills
    rename_requested = Signal(object, str)  # Target, new name
    delete_requested = Signal(object)  # Target (after the user confirmed)
    undo_requested = Signal(str)  # trash id
    search_requested = Signal()  # the search across every chat's messages

    def __init__(self, model: TargetListModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setMinimumWidth(MINIMUM_WIDTH)
        self.model = model
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterRole(Qt.ItemDataRole.DisplayRole)
        model.rename_requested.connect(self.rename_requested)

        self.search = QLineEdit(self)
        self.search.setObjectName("sidebarSearch")
        self.search.setPlaceholderText(self.tr("Filter chats"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._on_search_text_changed)

        self.find_button = QToolButton(self)
        self.find_button.setObjectName("findButton")
        self._draw_find_icon()
        self.find_button.setToolTip(self.tr("Search the messages of every chat (Ctrl+Shift+F)"))
        self.find_button.setAutoRaise(True)
        self.find_button.clicked.connect(self.search_requested)

        self.new_button = QToolButton(self)
        self.new_button.setObjectName("newButton")
        self.new_button.setText("+")
        self.new_button.setAutoRaise(True)
        self.new_button.clicked.connect(self.offer_new)
        self.new_menu = QMenu(self)
        self.new_menu.setObjectName("newMenu")
        self.new_assistant_action = self.new_menu.addAction(self.tr("New assistant"))
        self.new_assistant_action.triggered.connect(self.create_requested)
        self.new_squad_action = self.new_menu.addAction(self.tr("New squad…"))
        self.new_squad_action.triggered.connect(self.create_squad_requested)
        model.modelReset.connect(self._on_model_reset)

        self.list = SidebarList(self)
        self.list.setModel(self.proxy)
        self.list.selectionModel().currentChanged.connect(self._on_list_current_changed)
        self.list.customContextMenuRequested.connect(self._on_list_context_menu)
        self.list.delete_pressed.connect(self.ask_delete_current)

        self.empty_label = QLabel(self.tr("No matches"), self)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.hide()

        self.banner = _Banner(self)
        self.banner.primary.clicked.connect(self._on_banner_primary_clicked)
        self.banner.secondary.clicked.connect(self._on_banner_secondary_clicked)
        self._banner_kind = ""
        self._pending_delete: Target | None = None
        self._undo_trash_id = ""

        top = QHBoxLayout()
        top.setContentsMargins(8, 8, 8, 4)
        top.setSpacing(4)
        top.addWidget(self.search, 1)
        top.addWidget(self.find_button)
        top.addWidget(self.new_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.banner)

        self.rename_action = QAction(self.tr("Rename"), self)
        self.rename_action.triggered.connect(self.rename_current)
        self.delete_action = QAction(self.tr("Delete…"), self)
        self.delete_action.triggered.connect(self.ask_delete_current)
        self.edit_squad_action = QAction(self.tr("Edit squad…"), self)
        self.edit_squad_action.triggered.connect(self._on_edit_squad_action_triggered)
        self.assistant_actions = []
        for label, tab in (
            (self.tr("Persona (SOUL.md)…"), "soul"),
            (self.tr("Memories…"), "memories"),
            (self.tr("Skills…"), "skills"),
            (self.tr("Evolution…"), "evolution"),
        ):
            act = QAction(label, self)
            act.triggered.connect(lambda _checked=False, t=tab: self._on_assistant_action_triggered(t))
            self.assistant_actions.append(act)
        self._on_model_reset()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # a live theme change: the icon is drawn, not themed
            self._draw_find_icon()

    def _draw_find_icon(self) -> None:
        self.find_button.setIcon(magnifier_icon(self.palette().color(QPalette.ColorRole.ButtonText)))

    # ------------------------------------------------------------------ public
    def current_target(self) -> Target | None:
        index = self.list.currentIndex()
        return index.data(TargetListModel.TargetRole) if index.isValid() else None

    def select_source_row(self, row: int) -> bool:
        """Make source-model row ``row`` current (clearing the search if it hides that row)."""
        source = self.model.index(row, 0)
        if not source.isValid():
            return False
        index = self.proxy.mapFromSource(source)
        if not index.isValid():
            self.search.clear()
            index = self.proxy.mapFromSource(source)
        self.list.selectionModel().setCurrentIndex(index, self.list.selectionModel().SelectionFlag.ClearAndSelect)
        self.list.scrollTo(index)
        return True

    def visual_rect_of_row(self, row: int) -> Any:
        """Where source row ``row`` is drawn in the list's viewport (tests click there)."""
        return self.list.visualRect(self.proxy.mapFromSource(self.model.index(row, 0)))

    def offer_new(self) -> None:
        """Offer "New assistant" / "New squad…" in a small menu under the + button.

        A squad needs two assistants: with fewer there is nothing to choose, so a new assistant
        is created straight away, without the menu.
        """
        if not self._squad_possible():
            self.create_requested.emit()
            return
        self.new_menu.popup(self.new_button.mapToGlobal(self.new_button.rect().bottomLeft()))
        self.new_menu.setActiveAction(self.new_assistant_action)

    def rename_current(self) -> None:
        """Start editing the current row's name in place."""
        index = self.list.currentIndex()
        if index.isValid():
            self.list.edit(index)

    def ask_delete_current(self) -> None:
        """Ask (inline) whether to delete the current target."""
        target = self.current_target()
        if target is None:
            return
        self._pending_delete = target
        if target.is_squad:
            question = self.tr("Delete the squad “{name}” and its chat? You can undo this.")
        else:
            question = self.tr("Delete the assistant “{name}” and its chat? You can undo this.")
        self._show_banner(
            "confirm",
            question.format(name=target.name),
            primary=self.tr("Delete"),
            secondary=self.tr("Cancel"),
        )

    def show_undo(self, name: str, trash_id: str) -> None:
        """Offer to undo the delete of ``name`` (moved to the trash as ``trash_id``)."""
        self._undo_trash_id = trash_id
        self._show_banner(
            "undo",
            self.tr("Deleted “{name}”.").format(name=name),
            primary=self.tr("Undo"),
            secondary=self.tr("Dismiss"),
        )

    def show_message(self, text: str) -> None:
        """Show an error or note (e.g. a refused name) in the banner."""
        self._show_banner("message", text, primary=self.tr("OK"), secondary="")

    def hide_banner(self) -> None:
        self._banner_kind = ""
        self._pending_delete = None
        self.banner.hide()

    @property
    def banner_text(self) -> str:
        return self.banner.label.text() if self.banner.isVisible() or self._banner_kind else ""

    @property
    def banner_kind(self) -> str:
        """``"confirm"``, ``"undo"``, ``"message"`` or ``""``."""
        return self._banner_kind

    # ------------------------------------------------------------------- slots
    def _on_search_text_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text.strip())
        self.empty_label.setVisible(self.proxy.rowCount() == 0 and self.model.rowCount() > 0)
        if not self.list.currentIndex().isValid() and self.proxy.rowCount():
            self.list.setCurrentIndex(self.proxy.index(0, 0))

    def _on_list_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.current_changed.emit(current.data(TargetListModel.TargetRole) if current.isValid() else None)

    def _on_list_context_menu(self, pos: QPoint) -> None:
        index = self.list.indexAt(pos)
        if not index.isValid():
            return
        self.list.setCurrentIndex(index)
        menu = QMenu(self)
        menu.addAction(self.rename_action)
        self.rename_action.setEnabled(bool(index.flags() & Qt.ItemFlag.ItemIsEditable))
        readable = bool(getattr(self.current_target(), "meta", None))
        if index.data(TargetListModel.KindRole) == Kind.SQUAD:
            menu.addAction(self.edit_squad_action)
            self.edit_squad_action.setEnabled(readable)
        else:
            for act in self.assistant_actions:
                menu.addAction(act)
                act.setEnabled(readable)
        menu.addSeparator()
        menu.addAction(self.delete_action)
        menu.exec(self.list.viewport().mapToGlobal(pos))

    def _on_edit_squad_action_triggered(self) -> None:
        target = self.current_target()
        if target is not None and target.is_squad:
            self.edit_squad_requested.emit(target)

    def _on_assistant_action_triggered(self, tab: str) -> None:
        target = self.current_target()
        if target is not None and target.is_assistant:
            self.edit_assistant_requested.emit(target, tab)

    def _on_model_reset(self) -> None:
        tip = (
            self.tr("New assistant or squad (Ctrl+N)") if self._squad_possible() else self.tr("New assistant (Ctrl+N)")
        )
        self.new_button.setToolTip(tip)

    def _on_banner_primary_clicked(self) -> None:
        kind, pending, trash_id = self._banner_kind, self._pending_delete, self._undo_trash_id
        self.hide_banner()
        if kind == "confirm" and pending is not None:
            self.delete_requested.emit(pending)
        elif kind == "undo" and trash_id:
            self._undo_trash_id = ""
            self.undo_requested.emit(trash_id)

    def _on_banner_secondary_clicked(self) -> None:
        self.hide_banner()

    # --------------------------------------------------------------- internals
    def _squad_possible(self) -> bool:
        kinds = (self.model.index(row, 0).data(TargetListModel.KindRole) for row in range(self.model.rowCount()))
        return sum(kind == Kind.ASSISTANT for kind in kinds) >= 2

    def _show_banner(self, kind: str, text: str, *, primary: str, secondary: str) -> None:
        self._banner_kind = kind
        self.banner.label.setText(text)
        self.banner.primary.setText(primary)
        self.banner.secondary.setText(secondary)
        self.banner.secondary.setVisible(bool(secondary))
        self.banner.show()
        if kind == "confirm":
            self.banner.primary.setFocus()


def magnifier_icon(color: QColor, size: int = 16) -> QIcon:
    """A magnifying glass drawn in ``color`` (no icon theme or emoji font needed)."""
    pixmap = QPixmap(size * 2, size * 2)  # drawn at twice the size: sharp on high-DPI screens too
    pixmap.setDevicePixelRatio(2)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(color, 1.6)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.drawEllipse(QRectF(2.5, 2.5, 8, 8))
    painter.drawLine(QPointF(9.6, 9.6), QPointF(13.5, 13.5))
    painter.end()
    return QIcon(pixmap)
