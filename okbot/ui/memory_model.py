"""The Memories table's model: one row per entry of the global and the assistant's stores, and the
search / show-retired filter. Read-only: the panel writes through the stores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)

from okbot.core.memory.store import MemoryEntry, MemoryStore
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.ui.chat.colors import ChatColors

COLUMNS = (
    QT_TRANSLATE_NOOP("MemoryTableModel", "Memory"),
    QT_TRANSLATE_NOOP("MemoryTableModel", "Scope"),
    QT_TRANSLATE_NOOP("MemoryTableModel", "Status"),
    QT_TRANSLATE_NOOP("MemoryTableModel", "Pinned"),
    QT_TRANSLATE_NOOP("MemoryTableModel", "Hits"),
    QT_TRANSLATE_NOOP("MemoryTableModel", "Expires"),
)
# How each memory status (okbot.core.memory.store.STATUSES) is shown.
STATUS_NAMES = {
    "candidate": QT_TRANSLATE_NOOP("MemoryTableModel", "Candidate"),
    "durable": QT_TRANSLATE_NOOP("MemoryTableModel", "Durable"),
    "retired": QT_TRANSLATE_NOOP("MemoryTableModel", "Retired"),
}
TEXT, SCOPE, STATUS, PINNED, HITS, EXPIRES = range(len(COLUMNS))
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 2
TOOLTIP_CHARS = 1200


@dataclass(frozen=True)
class MemoryRow:
    """One table row: an entry and the store it lives in."""

    store: MemoryStore
    entry: MemoryEntry

    @property
    def key(self) -> tuple[str, str]:
        return self.entry.scope, self.entry.id


def _day(iso: str | None) -> str:
    return (iso or "")[:10]


def _tr(text: str) -> str:
    return QCoreApplication.translate("MemoryTableModel", text)


def status_name(status: str) -> str:
    """A memory status as the table shows it (an unknown one as written)."""
    return _tr(STATUS_NAMES[status]) if status in STATUS_NAMES else status.capitalize()


class MemoryTableModel(QAbstractTableModel):
    """Memory entries as table rows; read-only (the panel writes through the stores)."""

    def __init__(self, scope_names: dict[str, str], parent: Any = None) -> None:
        super().__init__(parent)
        self._scope_names = scope_names
        self._rows: list[MemoryRow] = []
        self._haystacks: list[str] = []
        self._index: dict[tuple[str, str], int] = {}
        self._colors: ChatColors | None = None
        self._now = datetime.now(timezone.utc)

    # -- contents --------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[MemoryRow]) -> None:
        """Replace every row (a reload from disk)."""
        self.beginResetModel()
        self._rows = list(rows)
        self._haystacks = [self._haystack(r) for r in self._rows]
        self._index = {r.key: i for i, r in enumerate(self._rows)}
        self._now = datetime.now(timezone.utc)
        self.endResetModel()

    def replace(self, row: MemoryRow) -> None:
        """Show a changed entry (after a write) in place; appended when new."""
        at = self._index.get(row.key)
        if at is None:
            at = len(self._rows)
            self.beginInsertRows(QModelIndex(), at, at)
            self._rows.append(row)
            self._haystacks.append(self._haystack(row))
            self._index[row.key] = at
            self.endInsertRows()
            return
        self._rows[at] = row
        self._haystacks[at] = self._haystack(row)
        self.dataChanged.emit(self.index(at, 0), self.index(at, len(COLUMNS) - 1))

    def remove(self, key: tuple[str, str]) -> None:
        at = self._index.get(key)
        if at is None:
            return
        self.beginRemoveRows(QModelIndex(), at, at)
        del self._rows[at], self._haystacks[at]
        self._index = {r.key: i for i, r in enumerate(self._rows)}
        self.endRemoveRows()

    def set_colors(self, colors: ChatColors) -> None:
        self._colors = colors
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, len(COLUMNS) - 1))

    def row_at(self, row: int) -> MemoryRow:
        return self._rows[row]

    def row_of(self, key: tuple[str, str]) -> int | None:
        return self._index.get(key)

    def rows(self) -> list[MemoryRow]:
        return list(self._rows)

    def haystack(self, row: int) -> str:
        return self._haystacks[row]

    def scope_name(self, scope: str) -> str:
        return self._scope_names.get(scope, scope)

    def _haystack(self, row: MemoryRow) -> str:
        e = row.entry
        words = [e.text, self.scope_name(e.scope), e.status, status_name(e.status)]
        if e.pinned:
            words += ["pinned", self.tr("Pinned")]  # the English word too: a search typed either way finds it
        return "\n".join(words).casefold()

    # -- Qt model API ----------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _tr(COLUMNS[section])
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        entry, column = row.entry, index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(entry, column)
        if role == SORT_ROLE:
            return self._sort_key(entry, column)
        if role == ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.ForegroundRole and self._colors is not None:
            if entry.status == "retired":
                return self._colors.faint
            if column == EXPIRES and entry.expired(self._now):
                return self._colors.warning
            if column in (SCOPE, HITS, EXPIRES) or (column == STATUS and entry.status == "candidate"):
                return self._colors.muted
            return None
        if role == Qt.ItemDataRole.FontRole and entry.status == "retired" and column == TEXT:
            font = self.parent().font() if hasattr(self.parent(), "font") else None
            if font is not None:
                font.setStrikeOut(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (PINNED, HITS):
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(entry)
        return None

    def _display(self, entry: MemoryEntry, column: int) -> str:
        if column == TEXT:
            return " ".join(entry.text.split())
        if column == SCOPE:
            return self.scope_name(entry.scope)
        if column == STATUS:
            return status_name(entry.status)
        if column == PINNED:
            return self.tr("Pinned") if entry.pinned else ""
        if column == HITS:
            return str(entry.hits)
        if entry.expires is None:
            return ""
        if entry.expired(self._now):
            return self.tr("expired {day}").format(day=_day(entry.expires))
        return _day(entry.expires)

    def _sort_key(self, entry: MemoryEntry, column: int) -> Any:
        if column == HITS:
            return entry.hits
        if column == PINNED:
            return int(entry.pinned)
        if column == EXPIRES:
            return entry.expires or "9999"
        return self._display(entry, column).casefold()

    def _tooltip(self, entry: MemoryEntry) -> str:
        text = entry.text if len(entry.text) <= TOOLTIP_CHARS else entry.text[:TOOLTIP_CHARS] + "…"
        lines = [
            text,
            "",
            self.tr("{id} · {scope} · {status} · seen {seen}× · recalled {hits}×").format(
                id=entry.id,
                scope=self.scope_name(entry.scope),
                status=status_name(entry.status),
                seen=entry.evidence,
                hits=entry.hits,
            ),
        ]
        if entry.created:
            created, updated = entry.created[:16].replace("T", " "), entry.updated[:16].replace("T", " ")
            lines.append(self.tr("created {created}, updated {updated}").format(created=created, updated=updated))
        if entry.sources:
            ids = ", ".join(f"#{s}" for s in entry.sources[:12])
            lines.append(self.tr("from messages {ids}").format(ids=ids))
        if entry.note:
            lines.append(self.tr("note: {note}").format(note=entry.note))
        return "\n".join(lines)


class MemoryFilter(QSortFilterProxyModel):
    """Search (every word must occur in text, scope or status) and hide retired entries unless asked."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._words: list[str] = []
        self._show_retired = False
        self.setSortRole(SORT_ROLE)

    def set_search(self, text: str) -> None:
        words = text.casefold().split()
        if words != self._words:
            self.beginFilterChange()
            self._words = words
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def set_show_retired(self, show: bool) -> None:
        if show != self._show_retired:
            self.beginFilterChange()
            self._show_retired = show
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        model = self.sourceModel()
        if not isinstance(model, MemoryTableModel):
            return True
        if not self._show_retired and model.row_at(source_row).entry.status == "retired":
            return False
        haystack = model.haystack(source_row)
        return all(word in haystack for word in self._words)
