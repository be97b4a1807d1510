"""The sidebar's list model: the workspace's assistants and squads, one row each, with live status."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt, Signal

from okbot.core.kind import Kind
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP

# What each kind is called; shown through kind_label (translated where shown).
KIND_LABELS = {
    Kind.ASSISTANT: QT_TRANSLATE_NOOP("TargetListModel", "Assistant"),
    Kind.SQUAD: QT_TRANSLATE_NOOP("TargetListModel", "Squad"),
}
STREAMING = "streaming"
UNREAD = "unread"

_Index = QModelIndex | QPersistentModelIndex


class TargetListModel(QAbstractListModel):
    """A list of :class:`~okbot.core.workspace.Target` (assistants first, then squads).

    Rows show the display name; :attr:`TargetRole` returns the ``Target`` itself so views never
    look anything up by row number. :attr:`StatusRole` is ``"streaming"``, ``"unread"`` or ``""``
    (kept by kind and id, so it survives a reload). Editing a name does not rename anything: it
    emits ``rename_requested(target, new_name)`` and the owner renames and reloads.
    """

    TargetRole = Qt.ItemDataRole.UserRole + 1
    KindRole = Qt.ItemDataRole.UserRole + 2
    IdRole = Qt.ItemDataRole.UserRole + 3
    StatusRole = Qt.ItemDataRole.UserRole + 4

    rename_requested = Signal(object, str)  # Target, new name

    def __init__(self, targets: Sequence[Target] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self._targets: list[Target] = list(targets)
        self._status: dict[tuple[str, str], str] = {}

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

    def set_status(self, kind: str, target_id: str, status: str) -> None:
        """Mark a target ``"streaming"``, ``"unread"`` or ``""`` (nothing)."""
        key = (kind, target_id)
        if self._status.get(key, "") == status:
            return
        if status:
            self._status[key] = status
        else:
            self._status.pop(key, None)
        row = self.row_of(kind, target_id)
        if row >= 0:
            index = self.index(row, 0)
            self.dataChanged.emit(index, index, [self.StatusRole, Qt.ItemDataRole.ToolTipRole])

    def status(self, kind: str, target_id: str) -> str:
        return self._status.get((kind, target_id), "")

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._targets)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        target = self.target(index.row()) if index.isValid() else None
        if target is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return target.name
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(target, self.status(target.kind, target.id))
        if role == self.StatusRole:
            return self.status(target.kind, target.id)
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
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
        target = self.target(index.row())
        if target is not None and target.meta:  # a target whose JSON could not be read cannot be renamed
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        target = self.target(index.row()) if index.isValid() else None
        if target is None or role != Qt.ItemDataRole.EditRole or not isinstance(value, str):
            return False
        if value.strip() != target.name:  # an empty or bad name is refused by the owner, with a message
            self.rename_requested.emit(target, value.strip())
        return False  # the row changes when the owner reloads after renaming


def kind_label(kind: Kind) -> str:
    """What a target of ``kind`` is called, in the current language ("Assistant", "Squad")."""
    label = KIND_LABELS.get(kind)
    return QCoreApplication.translate("TargetListModel", label) if label else kind


def _tooltip(target: Target, status: str = "") -> str:
    lines = [
        QCoreApplication.translate("TargetListModel", "{kind} · id: {id}").format(
            kind=kind_label(target.kind), id=target.id
        )
    ]
    if status == STREAMING:
        lines.append(QCoreApplication.translate("TargetListModel", "Replying…"))
    elif status == UNREAD:
        lines.append(QCoreApplication.translate("TargetListModel", "New reply"))
    if target.role_line:
        lines.append(target.role_line)
    if target.problem:
        lines.append(QCoreApplication.translate("TargetListModel", "Problem: {problem}").format(problem=target.problem))
    return "\n".join(lines)
