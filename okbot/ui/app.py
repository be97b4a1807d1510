"""Start the desktop app: the QApplication, the data-dir claim, the startup checks and the main window.

One GUI runs per data dir (:mod:`okbot.ui.single_instance`); a second one raises the first's
window and exits. The CLI may run alongside (the rule is in :mod:`okbot.core.datalock`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from okbot.config import paths
from okbot.config.settings import Settings
from okbot.core.errors import OkBotError
from okbot.core.workspace import Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.main_window import MainWindow
from okbot.ui.tasks import shutdown_tasks

if TYPE_CHECKING:
    from okbot.ui.single_instance import SingleInstance

APP_NAME = "OkBot"
ORGANIZATION_NAME = "OkBot"


def create_application(argv: list[str]) -> QApplication:
    """The process's QApplication (created on first call), named for settings and window managers.

    No style or palette is forced, so the app follows the system theme.
    """
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORGANIZATION_NAME)
    app.setApplicationDisplayName(APP_NAME)
    return app


def startup_problems(settings: Settings, workspace: Workspace) -> list[str]:
    """Make sure the default assistant exists; return every message the user should see.

    Nothing here needs an API key or the network: a missing key is a settings matter shown
    when the user first sends a message.
    """
    problems = list(settings.problems)
    try:
        workspace.ensure_default()
    except OkBotError as exc:
        problems.append(str(exc))
    except OSError as exc:  # e.g. a read-only data dir: still open the window and say why
        problems.append(f"Could not create the default assistant: {exc.strerror or exc}")
    problems.extend(workspace.problems)
    return problems


def claim_data_dir(data_dir: Path) -> SingleInstance | None:
    """Make this process the data dir's GUI; None when another GUI already holds it.

    QtNetwork (for the local socket) is loaded here, not when this module is imported.
    """
    from okbot.ui.single_instance import SingleInstance

    guard = SingleInstance(data_dir)
    return guard if guard.acquire() else None


def defer_to_running_instance(data_dir: Path) -> int:
    """Second GUI on ``data_dir``: raise the first one's window and return the exit code.

    0 when the first instance confirmed (a note goes to stderr); 1 with a message on stderr and
    in a dialog when it holds the data dir but cannot be reached. Nothing in the data dir is touched.
    """
    from okbot.ui.single_instance import SingleInstance

    guard = SingleInstance(data_dir)
    if guard.ask_first_to_raise():
        print(f"okbot: OkBot is already running for {data_dir}; its window was brought to the front.",
              file=sys.stderr)
        return 0
    pid = guard.holder_pid()
    who = f"Another OkBot (process {pid})" if pid else "Another OkBot"
    text = (f"{who} is using the data folder {data_dir} but did not answer. Only one OkBot window "
            "can use a data folder at a time; close the other one (or end that process) and try again.")
    print(f"okbot: {text}", file=sys.stderr)
    QMessageBox.critical(None, "OkBot is already running", text)
    return 1


def bring_to_front(window: QWidget) -> None:
    """Show ``window`` un-minimized, on top and focused (as far as the window manager allows)."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


def run_gui(argv: list[str]) -> int:
    """Run the desktop app until its last window closes; returns the exit code of the event loop.

    A second GUI on the same data dir raises the first instead (see :func:`defer_to_running_instance`).
    """
    app = create_application(argv)
    data_dir = paths.data_dir()
    guard = claim_data_dir(data_dir)
    if guard is None:
        return defer_to_running_instance(data_dir)
    try:
        settings = Settings.load()
        workspace = Workspace()
        problems = startup_problems(settings, workspace)
        ctx = AppContext.create(workspace, settings)
        window = MainWindow(ctx, problems=problems)
        guard.raise_requested.connect(lambda: bring_to_front(window))
        window.show()
        ctx.warm_up()
        code = app.exec()
        window.close()
        shutdown_tasks()
        return code
    finally:
        guard.release()
