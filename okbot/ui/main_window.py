"""OkBot's main window: the sidebar of assistants and squads, and the pane for the selected one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QSizePolicy, QSplitter

from okbot.core.workspace import Target, Workspace
from okbot.ui.sidebar import Sidebar
from okbot.ui.target_list_model import TargetListModel
from okbot.ui.target_pane import TargetPane

WINDOW_TITLE = "OkBot"
DEFAULT_SIZE = (1100, 720)
SIDEBAR_WIDTH = 240


class MainWindow(QMainWindow):
    """The top-level window. It owns no business logic: it shows what ``workspace`` lists.

    ``problems`` are startup messages (settings repaired, template missing …) shown in the
    status bar together with whatever the workspace reports while listing.
    """

    def __init__(self, workspace: Workspace, *, problems: Sequence[str] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self._startup_problems = list(problems)
        self._problems: list[str] = []
        self.setWindowTitle(WINDOW_TITLE)
        self.resize(*DEFAULT_SIZE)
        self.setMinimumSize(640, 420)

        self.model = TargetListModel(parent=self)
        self.sidebar = Sidebar()
        self.sidebar.setModel(self.model)
        self.sidebar.selectionModel().currentChanged.connect(self._on_sidebar_current_changed)

        self.pane = TargetPane()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(self.pane)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(1, False)
        splitter.setSizes([SIDEBAR_WIDTH, DEFAULT_SIZE[0] - SIDEBAR_WIDTH])
        self.setCentralWidget(splitter)

        self.problems_label = QLabel(objectName="problems")
        self.problems_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A long message is clipped (full text in the tooltip) instead of widening the window.
        self.problems_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.statusBar().addWidget(self.problems_label, 1)

        self.reload()

    # ------------------------------------------------------------------ public
    def reload(self) -> None:
        """Re-read the workspace, keeping the selection when that target still exists."""
        current = self.selected_target()
        self.model.set_targets(self.workspace.list())
        self._show_problems([*self._startup_problems, *self.workspace.problems])
        row = self.model.row_of(current.kind, current.id) if current else -1
        self.select_row(row if row >= 0 else self._first_healthy_row())
        if self.model.rowCount() == 0:
            self.pane.show_target(None, empty_workspace=True)

    def selected_target(self) -> Target | None:
        """The target selected in the sidebar, or ``None``."""
        index = self.sidebar.currentIndex()
        return self.model.target(index.row()) if index.isValid() else None

    def select_row(self, row: int) -> None:
        """Select (and make current) sidebar row ``row``; out-of-range rows are ignored."""
        index = self.model.index(row, 0)
        if index.isValid():
            self.sidebar.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )

    def problems(self) -> list[str]:
        """The messages currently listed in the status bar."""
        return list(self._problems)

    # ------------------------------------------------------------------- slots
    def _on_sidebar_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.pane.show_target(
            self.model.target(current.row()) if current.isValid() else None,
            empty_workspace=self.model.rowCount() == 0,
        )

    # --------------------------------------------------------------- internals
    def _first_healthy_row(self) -> int:
        """The first row whose files could be read (row 0 when every one has a problem)."""
        for row in range(self.model.rowCount()):
            target = self.model.target(row)
            if target is not None and not target.problem:
                return row
        return 0

    def _show_problems(self, problems: Sequence[str]) -> None:
        self._problems = [p for p in dict.fromkeys(problems) if p]
        if not self._problems:
            self.problems_label.clear()
            self.problems_label.setToolTip("")
            return
        first = self._problems[0]
        more = len(self._problems) - 1
        self.problems_label.setText(f"⚠ {first}" + (f"  (+{more} more; hover for all)" if more else ""))
        self.problems_label.setToolTip("\n".join(self._problems))
