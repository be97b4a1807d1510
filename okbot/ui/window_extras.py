"""Opening the main window's secondary windows: Settings, View context and the first-run panel.

Each module is imported on first use, so start-up does not load the Settings dialog, the context
viewer or the first-run panel before they are wanted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext

if TYPE_CHECKING:
    from okbot.ui.first_run import FirstRunPanel
    from okbot.ui.settings import SettingsDialog


def open_context_viewer(ctx: AppContext, target: Target, item_id: int, parent: QWidget) -> QWidget:
    """Open the View context window for user message ``item_id`` of ``target``."""
    from okbot.ui.context_viewer import ContextViewer

    viewer = ContextViewer(ctx, target, item_id, parent)
    viewer.show()
    viewer.raise_()
    viewer.activateWindow()
    return viewer


def make_settings_dialog(ctx: AppContext, parent: QWidget, current_target: Target | None) -> SettingsDialog:
    """The Settings dialog (non-modal: changes apply as they are made)."""
    from okbot.ui.settings import SettingsDialog

    return SettingsDialog(ctx, current_target=current_target, parent=parent)


def make_first_run_panel(ctx: AppContext) -> FirstRunPanel:
    """The first-run panel, shown while no provider is configured."""
    from okbot.ui.first_run import FirstRunPanel

    return FirstRunPanel(ctx)


def needs_first_run(settings: Any) -> bool:
    """Whether no provider is usable yet (may read the keyring: call it through the TaskRunner)."""
    from okbot.ui.first_run import FirstRunPanel

    return bool(FirstRunPanel.needs_first_run(settings))
