"""Opening the main window's secondary windows: Settings and View context.

Each is imported on first use (start-up stays light) and guarded, so a missing or broken
secondary window shows a message instead of taking the main window down.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext

log = logging.getLogger("okbot.ui")


def open_context_viewer(ctx: AppContext, target: Target, item_id: int, parent: QWidget) -> QWidget | None:
    """Open the View context window for user message ``item_id`` of ``target``."""
    try:
        from okbot.ui.context_viewer import ContextViewer
    except ImportError as exc:
        log.warning("View context is not available: %s", exc)
        return None
    viewer = ContextViewer(ctx, target, item_id, parent)
    viewer.show()
    viewer.raise_()
    viewer.activateWindow()
    return viewer


def make_settings_dialog(ctx: AppContext, parent: QWidget, current_target: Target | None) -> Any | None:
    """The Settings dialog (non-modal: changes apply as they are made), or ``None`` with a message."""
    try:
        from okbot.ui.settings import SettingsDialog
    except ImportError as exc:
        log.warning("Settings are not available: %s", exc)
        QMessageBox.information(
            parent,
            QCoreApplication.translate("window_extras", "Settings"),
            QCoreApplication.translate(
                "window_extras", "The Settings window is not available in this build; use `okbot config set`."
            ),
        )
        return None
    return SettingsDialog(ctx, current_target=current_target, parent=parent)


def make_first_run_panel(ctx: AppContext) -> QWidget | None:
    """The first-run panel (no provider configured yet), or ``None`` when it is not available."""
    try:
        from okbot.ui.first_run import FirstRunPanel
    except ImportError as exc:
        log.warning("first-run panel not available: %s", exc)
        return None
    return FirstRunPanel(ctx)


def needs_first_run(settings: Any) -> bool:
    """Whether no provider is usable yet (may read the keyring: call it through the TaskRunner)."""
    try:
        from okbot.ui.first_run import FirstRunPanel
    except ImportError:
        return False
    return bool(FirstRunPanel.needs_first_run(settings))
