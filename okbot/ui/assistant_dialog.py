"""The Assistant dialog: one assistant's SOUL.md, memories, skills and evolution, following edits made on disk.

Non-modal; the caller keeps one instance per assistant and calls :meth:`AssistantDialog.show_tab`.
One :class:`~okbot.ui.file_watch.FileWatcher` watches SOUL.md, the global and the assistant's
memory folders, its skills folder, its evolution log and staged changes and assistant.json while
the dialog is visible, and tells the tab concerned.
Hiding the dialog stops the watcher; showing it again re-reads everything and starts it again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from okbot.config.mcp import MCP_KEY
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.llm.providers import models_by_provider
from okbot.storage.errors import OkBotError
from okbot.ui.evolution_panel import EvolutionPanel
from okbot.ui.file_watch import FileWatcher
from okbot.ui.mcp_choice import McpServersChoice
from okbot.ui.memory_panel import MemoryPanel
from okbot.ui.model_picker import ModelPicker
from okbot.ui.settings_relay import subscribe_weakly
from okbot.ui.skills_panel import SkillsPanel
from okbot.ui.soul_editor import SoulEditor

if TYPE_CHECKING:
    from okbot.ui.app_context import AppContext

TABS = ("soul", "memories", "skills", "evolution")
TAB_TITLES = {
    "soul": "SOUL.md",
    "memories": QT_TRANSLATE_NOOP("AssistantDialog", "Memories"),
    "skills": QT_TRANSLATE_NOOP("AssistantDialog", "Skills"),
    "evolution": QT_TRANSLATE_NOOP("AssistantDialog", "Evolution"),
}


class AssistantDialog(QDialog):
    """SOUL.md / Memories / Skills / Evolution of ``target`` in tabs; live on disk changes while shown.

    ``soul``, ``memories``, ``skills`` and ``evolution`` are the tab widgets (:class:`SoulEditor`,
    :class:`MemoryPanel`, :class:`SkillsPanel`, :class:`EvolutionPanel`); ``watcher`` is the dialog's
    FileWatcher. ``target_changed(Target)`` when assistant.json was written here (the learning switch),
    so whoever holds the target can take the new one.
    """

    target_changed = Signal(object)
    settings_changed = Signal(str)

    def __init__(self, ctx: AppContext, target: Target, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("assistantDialog")
        self.setModal(False)
        self.setWindowFlag(Qt.WindowType.WindowContextHelpButtonHint, False)
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        self.ctx, self.target = ctx, target
        self.setWindowTitle(self.tr("{name} — Assistant").format(name=target.name))
        self.resize(860, 620)

        self.soul = SoulEditor(target.soul_path)
        self.memories = MemoryPanel(ctx, target)
        self.skills = SkillsPanel(ctx, target)
        self.evolution = EvolutionPanel(ctx, target)
        self.tabs = QTabWidget(objectName="assistantTabs")
        self.tabs.setDocumentMode(True)
        for key, page in (
            ("soul", self.soul),
            ("memories", self.memories),
            ("skills", self.skills),
            ("evolution", self.evolution),
        ):
            self.tabs.addTab(page, self._tab_title(key))
        self.soul.modified_changed.connect(self._on_soul_modified_changed)
        self.evolution.switched.connect(self._on_evolution_switched)

        # the model this assistant talks to: the same picker as the chat header, written to assistant.json
        self.model_picker = ModelPicker(ctx.tasks, lambda: models_by_provider(ctx.settings), self)
        self.model_picker.chosen.connect(self._on_model_picker_chosen)
        self._show_model()
        model_row = QHBoxLayout()
        model_row.addWidget(QLabel(self.tr("Model:"), self))
        model_row.addWidget(self.model_picker)
        model_row.addStretch(1)

        # the MCP servers whose tools it may use, written to assistant.json (mcpServers)
        self.mcp_choice = McpServersChoice(self)
        self.mcp_choice.chosen.connect(self._on_mcp_choice_chosen)
        self._show_mcp_servers()
        mcp_row = QHBoxLayout()
        mcp_row.addWidget(QLabel(self.tr("MCP servers it may use:"), self))
        mcp_row.addWidget(self.mcp_choice, 1)
        self.settings_changed.connect(self._on_settings_changed)
        subscribe_weakly(ctx.settings, self, "settings_changed")

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAutoDefault(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 12)
        layout.setSpacing(8)
        layout.addLayout(model_row)
        layout.addLayout(mcp_row)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)

        self.watcher = FileWatcher(parent=self)
        self.watcher.changed.connect(self._on_watcher_changed)
        self._watching = False
        self._stale = False  # hidden meanwhile: re-read everything when shown again

    # -- public API ------------------------------------------------------------------------
    def show_tab(self, name: str) -> None:
        """Switch to the ``"soul"``, ``"memories"``, ``"skills"`` or ``"evolution"`` tab and show / raise the dialog."""
        key = name.strip().casefold().removesuffix(".md")
        if key not in TABS:
            raise ValueError(f"unknown tab {name!r}; expected one of {', '.join(TABS)}")
        self.tabs.setCurrentIndex(TABS.index(key))
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def current_tab(self) -> str:
        """The key of the tab shown (``"soul"``, ``"memories"``, ``"skills"`` or ``"evolution"``)."""
        return TABS[self.tabs.currentIndex()]

    def watched_paths(self) -> list[Path]:
        """Everything the dialog follows on disk."""
        soul = [self.target.soul_path] if self.target.soul_path is not None else []
        return soul + self.memories.watched_paths() + self.skills.watched_paths() + self.evolution.watched_paths()

    def refresh(self) -> None:
        """Re-read everything from disk (SOUL.md keeps unsaved edits and offers Reload instead)."""
        self.soul.on_disk_changed()
        self.memories.refresh()
        self.skills.refresh()
        self.evolution.refresh()

    # -- watching --------------------------------------------------------------------------
    def _start_watching(self) -> None:
        if not self._watching:
            self.watcher.set_paths(self.watched_paths())
            self._watching = True

    def _stop_watching(self) -> None:
        if self._watching:
            self.watcher.stop()
            self._watching = False

    def _on_watcher_changed(self, changed: list[str]) -> None:
        soul = self.target.soul_path
        if soul is not None and os.path.abspath(soul) in changed:
            self.soul.on_disk_changed()
        if any(os.path.abspath(p) in changed for p in self.memories.watched_paths()):
            self.memories.on_disk_changed()
        if any(os.path.abspath(p) in changed for p in self.skills.watched_paths()):
            self.skills.on_disk_changed()
        if any(os.path.abspath(p) in changed for p in self.evolution.watched_paths()):
            self.evolution.on_disk_changed()

    def _on_evolution_switched(self, target: Target) -> None:
        self.target = target
        self.target_changed.emit(target)

    def _show_model(self) -> None:
        default = self.ctx.settings.get("provider.model")
        own = self.ctx.sources.own_model(self.target)
        self.model_picker.set_model(self.target.name, own or default, default, own=own is not None)

    def _on_model_picker_chosen(self, model: str) -> None:
        """Remember the model picked for this assistant (assistant.json); its chat and next request follow."""
        try:
            target = self.ctx.workspace.set_meta(self.target, "model", model or None)
        except (OkBotError, OSError) as exc:
            QMessageBox.warning(
                self, self.tr("Model not changed"), self.tr("The model was not changed: {error}").format(error=exc)
            )
            return
        self.target = target
        self._show_model()
        self.target_changed.emit(target)

    def _show_mcp_servers(self) -> None:
        declared = [config.name for config in self.ctx.settings.mcp_servers.all()]
        self.mcp_choice.set_servers(declared, self.target.mcp_servers)

    def _on_mcp_choice_chosen(self, names: list[str]) -> None:
        """Remember which MCP servers this assistant may use (assistant.json); its next turn follows."""
        try:
            target = self.ctx.workspace.set_meta(self.target, MCP_KEY, names)
        except (OkBotError, OSError) as exc:
            QMessageBox.warning(
                self,
                self.tr("MCP servers not changed"),
                self.tr("The MCP servers were not changed: {error}").format(error=exc),
            )
            self._show_mcp_servers()
            return
        self.target = target
        self.target_changed.emit(target)

    def _on_settings_changed(self, key: str) -> None:
        if key == MCP_KEY:  # a server added or removed in Settings
            self.target = self.ctx.workspace.load(self.target.kind, self.target.dir)[0]
            self._show_mcp_servers()

    def _tab_title(self, key: str) -> str:
        return QCoreApplication.translate("AssistantDialog", TAB_TITLES[key])

    def _on_soul_modified_changed(self, modified: bool) -> None:
        self.tabs.setTabText(TABS.index("soul"), self._tab_title("soul") + (" •" if modified else ""))

    # -- closing ---------------------------------------------------------------------------
    def _may_close(self) -> bool:
        """Ask about unsaved SOUL.md edits; ``False`` keeps the dialog open."""
        if not self.soul.modified:
            return True
        self.tabs.setCurrentIndex(TABS.index("soul"))
        answer = QMessageBox.question(
            self,
            self.tr("Unsaved SOUL.md"),
            self.tr("Save the changes to {name}'s SOUL.md?").format(name=self.target.name),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.soul.save()
        if answer == QMessageBox.StandardButton.Discard:
            self.soul.revert()
            return True
        return False

    def reject(self) -> None:  # Esc, the Close button and the window's close (QDialog.closeEvent calls it)
        if self._may_close():
            super().reject()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if event.spontaneous():
            return  # un-minimized: the watcher kept running
        self._start_watching()
        if self._stale:
            self._stale = False
            self.refresh()

    def hideEvent(self, event: QHideEvent) -> None:
        if not event.spontaneous():  # really hidden or closed, not minimized
            self._stop_watching()
            self._stale = True
        super().hideEvent(event)
