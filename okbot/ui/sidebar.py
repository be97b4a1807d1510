"""The sidebar view: a virtualised, single-selection list of assistants and squads."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize
from PySide6.QtWidgets import QAbstractItemView, QListView, QStyledItemDelegate, QStyleOptionViewItem

ROW_PADDING = 6  # pixels above and below each name
MINIMUM_WIDTH = 160


class _RowDelegate(QStyledItemDelegate):
    """The style's own item painting, with some air above and below each row."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:  # noqa: N802
        size = super().sizeHint(option, index)
        return QSize(size.width(), size.height() + 2 * ROW_PADDING)


class Sidebar(QListView):
    """A ``QListView`` set up for the sidebar (uniform rows, so long lists stay cheap)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setUniformItemSizes(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setMinimumWidth(MINIMUM_WIDTH)
        self.setItemDelegate(_RowDelegate(self))
