"""The sidebar's list model: the workspace's assistants and squads, one row each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from okbot.core.workspace import Target

KIND_LABELS = {"assistant": "Assistant", "squad": "Squad"}

_Index = QModelIndex | QPersistentModelIndex


class TargetListModel(QAbstractListModel):
    """A read-only list of :class:`~okbot.core.workspace.Target` (assistants first, then squads).

    Rows show the display name; :attr:`TargetRole` returns the ``Target`` itself so views never
    look anything up by row number.
    """

    TargetRole = Qt.ItemDataRole.UserRole + 1
    KindRole = Qt.ItemDataRole.UserRole + 2
    IdRole = Qt.ItemDataRole.UserRole + 3

    def __init__(self, targets: Sequence[Target] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self._targets: list[Target] = list(targets)

    def set_targets(self, targets: Sequence[Target]) -> None:
        """Replace every row (views drop their selection; callers restore it by key)."""
        self.beginResetModel()
        self._targets = list(targets)
        self.endResetModel()

    def target(self, row: int) -> Target | None:
        """The target at ``row``, or ``None`` when out of range."""
        return self._targets[row] if 0 <= row < len(self._targets) else None

    def row_of(self, kind: str, target_id: str) -> int:
        """Row of the target with this kind and id, or ``-1``."""
        for row, target in enumerate(self._targets):
            if target.kind == kind and target.id == target_id:
                return row
        return -1

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 (Qt API)
        return 0 if parent.isValid() else len(self._targets)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        target = self.target(index.row()) if index.isValid() else None
        if target is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return target.name
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(target)
        if role == self.TargetRole:
            return target
        if role == self.KindRole:
            return target.kind
        if role == self.IdRole:
            return target.id
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


def _tooltip(target: Target) -> str:
    lines = [f"{KIND_LABELS.get(target.kind, target.kind)} · id: {target.id}"]
    if target.role_line:
        lines.append(target.role_line)
    if target.problem:
        lines.append(f"Problem: {target.problem}")
    return "\n".join(lines)
