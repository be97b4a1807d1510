"""The Skills tab of the Assistant dialog: the assistant's skills/<name>/SKILL.md files.

Lists each skill with its description, or its problem (bad front matter, unreadable file) in the
palette's error colour; opens SKILL.md or the skills folder in the system's handlers
(QDesktopServices); creates a skill from the shipped template. Reading and creating run through
``ctx.tasks``; the dialog's FileWatcher calls :meth:`SkillsPanel.on_disk_changed` when skills/ changes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFont, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from okbot.core.skills import Skill, SkillCatalog, create_skill
from okbot.core.workspace import Target
from okbot.i18n import plural
from okbot.storage.errors import OkBotError
from okbot.ui.chat.colors import ChatColors
from okbot.ui.message_bar import MessageBar

if TYPE_CHECKING:
    from okbot.ui.app_context import AppContext

log = logging.getLogger("okbot.ui.skills_panel")

SKILL_FILE = "SKILL.md"
NAME_COLUMN, DESCRIPTION_COLUMN = 0, 1


class CreateSkillDialog(QDialog):
    """Asks for a new skill's folder name and description; ``submitted(name, description)`` on Create.

    The dialog stays open until the panel reports the result (:meth:`show_error` or :meth:`accept`).
    """

    submitted = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("createSkillDialog")
        self.setWindowTitle(self.tr("New skill"))
        self.setMinimumWidth(440)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("e.g. release-notes"))
        self.description_edit = QLineEdit()
        self.description_edit.setPlaceholderText(self.tr("When the assistant should load it, in one line"))
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {ChatColors.from_palette(self.palette()).error.name()};")
        self.error.hide()
        hint = QLabel(self.tr("Creates skills/<name>/SKILL.md from the template; edit it afterwards."))
        hint.setWordWrap(True)
        hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        form = QFormLayout()
        form.addRow(self.tr("Name"), self.name_edit)
        form.addRow(self.tr("Description"), self.description_edit)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Create"))
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()
        self.buttons.setEnabled(True)

    def _on_buttons_accepted(self) -> None:
        name = self.name_edit.text().strip()
        if not name:
            self.show_error(self.tr("Give the skill a name."))
            return
        self.error.hide()
        self.buttons.setEnabled(False)  # until the panel answers
        self.submitted.emit(name, self.description_edit.text().strip())


class SkillsPanel(QWidget):
    """The skills of one assistant. ``loaded`` after a (re)load is shown; ``created(Path)`` after Create."""

    loaded = Signal()
    created = Signal(object)  # Path of the new SKILL.md
    failed = Signal(str)

    def __init__(self, ctx: AppContext, target: Target, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("skillsPanel")
        self.ctx, self.target = ctx, target
        self.directory: Path | None = target.skills_dir
        self.catalog = SkillCatalog(self.directory)
        self._skills: list[Skill] = []
        self._loading = False
        self._reload_again = False
        self._select_name: str | None = None
        self.create_dialog: CreateSkillDialog | None = None
        self._build()
        self.refresh()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.problems_bar = MessageBar("warning", object_name="skillsProblems")
        self.error_bar = MessageBar("error", object_name="skillsError")
        self.error_bar.add_button(self.tr("Dismiss"), self.error_bar.hide, name="dismiss")
        self.tree = QTreeWidget(objectName="skillsList")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels([self.tr("Skill"), self.tr("Description")])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setWordWrap(False)
        self.tree.header().setStretchLastSection(True)
        self.tree.header().setSectionResizeMode(NAME_COLUMN, QHeaderView.ResizeMode.Interactive)
        self.tree.header().resizeSection(NAME_COLUMN, self.fontMetrics().horizontalAdvance("m" * 18))
        self.tree.itemSelectionChanged.connect(self._on_tree_selection_changed)
        self.tree.itemActivated.connect(self._on_tree_item_activated)
        self.empty_label = QLabel(objectName="skillsEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty_label.hide()

        self.open_button = QPushButton(self.tr("Open"))
        self.open_button.setToolTip(self.tr("Open SKILL.md in your editor"))
        self.create_button = QPushButton(self.tr("Create…"))
        self.create_button.setToolTip(self.tr("Make a new skill from the template"))
        self.folder_button = QPushButton(self.tr("Open folder"))
        self.folder_button.setToolTip(self.tr("Show the skills folder in your file manager"))
        self.count_label = QLabel(objectName="skillsCount")
        for button in (self.open_button, self.create_button, self.folder_button):
            button.setAutoDefault(False)
        self.open_button.clicked.connect(self._on_open_clicked)
        self.create_button.clicked.connect(self._on_create_clicked)
        self.folder_button.clicked.connect(self._on_folder_clicked)
        usable = self.directory is not None
        self.create_button.setEnabled(usable)
        self.folder_button.setEnabled(usable)

        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.create_button)
        buttons.addWidget(self.folder_button)
        buttons.addStretch(1)
        buttons.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.problems_bar)
        layout.addWidget(self.error_bar)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.empty_label, 1)
        layout.addLayout(buttons)
        self._update_buttons()

    # -- reading -----------------------------------------------------------------------------
    def watched_paths(self) -> list[Path]:
        """The skills folder (for the dialog's FileWatcher)."""
        return [self.directory] if self.directory is not None else []

    @property
    def skills(self) -> list[Skill]:
        """The skills shown, sorted by name."""
        return list(self._skills)

    def refresh(self) -> None:
        """Re-read the skills off the GUI thread (coalesced)."""
        if self._loading:
            self._reload_again = True
            return
        self._loading, self._reload_again = True, False
        catalog = self.catalog
        self.ctx.tasks.run(catalog.skills, self._on_read_done, self._on_read_failed, owner=self)

    def on_disk_changed(self) -> None:
        """skills/ changed on disk: reload."""
        self.refresh()

    def _on_read_done(self, skills: list[Skill]) -> None:
        self._loading = False
        if self._reload_again:
            self.refresh()
            return
        self._show(skills)
        self.loaded.emit()

    def _on_read_failed(self, exc: BaseException) -> None:
        self._loading = False
        self.error_bar.show_message(self.tr("Could not read the skills: {error}").format(error=exc))
        if self._reload_again:
            self.refresh()

    def _show(self, skills: list[Skill]) -> None:
        current = self.selected_skill()
        keep = self._select_name or (current.name if current else None)
        self._select_name = None
        self._skills = list(skills)
        colors = ChatColors.from_palette(self.palette())
        self.tree.clear()
        bold = QFont(self.tree.font())
        bold.setBold(True)
        row_height = self.tree.fontMetrics().height() + 12
        for skill in self._skills:
            item = QTreeWidgetItem([skill.name, skill.problem or skill.description])
            item.setData(NAME_COLUMN, Qt.ItemDataRole.UserRole, skill)
            item.setFont(NAME_COLUMN, bold)
            item.setSizeHint(NAME_COLUMN, QSize(0, row_height))
            item.setToolTip(NAME_COLUMN, str(skill.path))
            if skill.problem:
                item.setForeground(DESCRIPTION_COLUMN, colors.error)
                item.setForeground(NAME_COLUMN, colors.error)
                item.setToolTip(DESCRIPTION_COLUMN, skill.problem)
            else:
                item.setForeground(DESCRIPTION_COLUMN, colors.muted)
                item.setToolTip(DESCRIPTION_COLUMN, skill.description)
            self.tree.addTopLevelItem(item)
            if skill.name == keep:
                self.tree.setCurrentItem(item)
        bad = sum(1 for s in self._skills if s.problem)
        if bad:
            text = plural(
                bad,
                self.tr(
                    "{n} skill cannot be offered to the assistant until its SKILL.md is fixed (shown in red below)."
                ),
                self.tr(
                    "{n} skills cannot be offered to the assistant until their SKILL.md is fixed (shown in red below)."
                ),
            )
            self.problems_bar.show_message(text.format(n=bad))
        else:
            self.problems_bar.hide()
        empty = not self._skills
        self.tree.setVisible(not empty)
        self.empty_label.setVisible(empty)
        if self.directory is None:
            self.empty_label.setText(self.tr("Squads have no skills; each member assistant has its own."))
        else:
            self.empty_label.setText(
                self.tr(
                    "No skills yet.\nA skill is a SKILL.md the assistant loads when it needs it: "
                    "use Create… to start one from the template."
                )
            )
        n = len(self._skills)
        self.count_label.setText("" if empty else plural(n, self.tr("{n} skill"), self.tr("{n} skills")).format(n=n))
        self.count_label.setStyleSheet(f"color: {colors.muted.name()};")
        self._update_buttons()

    # -- actions -------------------------------------------------------------------------------
    def selected_skill(self) -> Skill | None:
        item = self.tree.currentItem()
        return item.data(NAME_COLUMN, Qt.ItemDataRole.UserRole) if item is not None else None

    def select(self, name: str) -> bool:
        """Make the skill called ``name`` current; ``False`` when it is not listed."""
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.text(NAME_COLUMN) == name:
                self.tree.setCurrentItem(item)
                return True
        return False

    def open_skill(self, skill: Skill | None = None) -> bool:
        """Open SKILL.md of ``skill`` (default: the selected one) with the system's handler."""
        skill = skill or self.selected_skill()
        if skill is None:
            return False
        if not skill.path.exists():
            self.error_bar.show_message(self.tr("{path} no longer exists.").format(path=skill.path))
            self.refresh()
            return False
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(skill.path))):
            self.error_bar.show_message(self.tr("No application could open {path}.").format(path=skill.path))
            return False
        return True

    def open_folder(self) -> bool:
        """Open the skills folder (created first when missing) in the file manager."""
        if self.directory is None:
            return False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.error_bar.show_message(
                self.tr("Could not create {path}: {error}").format(path=self.directory, error=exc.strerror or exc)
            )
            return False
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.directory))):
            self.error_bar.show_message(self.tr("No application could open {path}.").format(path=self.directory))
            return False
        return True

    def create(
        self,
        name: str,
        description: str = "",
        on_error: Callable[[str], None] | None = None,
        on_done: Callable[[Path], None] | None = None,
    ) -> None:
        """Create ``skills/<name>/SKILL.md`` from the template in the background; ``created`` on success."""
        directory = self.directory
        if directory is None:
            return

        def done(path: Path) -> None:
            self._select_name = path.parent.name
            self.error_bar.hide()
            if on_done is not None:
                on_done(path)
            self.created.emit(path)
            self.refresh()

        def failed(exc: BaseException) -> None:
            message = (
                str(exc)
                if isinstance(exc, OkBotError)
                else self.tr("Could not create the skill: {error}").format(error=exc)
            )
            if not isinstance(exc, OkBotError):
                log.error("creating a skill failed", exc_info=exc)
            if on_error is not None:
                on_error(message)
            else:
                self.error_bar.show_message(message)
            self.failed.emit(message)

        self.ctx.tasks.run(lambda: create_skill(directory, name, description), done, failed, owner=self)

    def _update_buttons(self) -> None:
        self.open_button.setEnabled(self.selected_skill() is not None)

    # -- slots ---------------------------------------------------------------------------------
    def _on_tree_selection_changed(self) -> None:
        self._update_buttons()

    def _on_tree_item_activated(self, item: QTreeWidgetItem, _column: int) -> None:
        self.open_skill(item.data(NAME_COLUMN, Qt.ItemDataRole.UserRole))

    def _on_open_clicked(self) -> None:
        self.open_skill()

    def _on_folder_clicked(self) -> None:
        self.open_folder()

    def _on_create_clicked(self) -> None:
        dialog = CreateSkillDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.submitted.connect(self._on_create_dialog_submitted)
        self.create_dialog = dialog
        dialog.open()

    def _on_create_dialog_submitted(self, name: str, description: str) -> None:
        dialog = self.create_dialog

        def on_error(message: str) -> None:
            if dialog is not None:
                dialog.show_error(message)

        def on_done(_path: Path) -> None:
            if dialog is not None:
                dialog.accept()

        self.create(name, description, on_error, on_done)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "tree") and self._skills:
            self._show(self._skills)
        super().changeEvent(event)
