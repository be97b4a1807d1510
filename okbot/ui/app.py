"""Start the desktop app: the QApplication, the startup checks and the main window."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from okbot.config.settings import Settings
from okbot.core.errors import OkBotError
from okbot.core.workspace import Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.main_window import MainWindow
from okbot.ui.tasks import shutdown_tasks

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


def run_gui(argv: list[str]) -> int:
    """Run the desktop app until its last window closes; returns the exit code of the event loop."""
    app = create_application(argv)
    settings = Settings.load()
    workspace = Workspace()
    problems = startup_problems(settings, workspace)
    ctx = AppContext.create(workspace, settings)
    window = MainWindow(ctx, problems=problems)
    window.show()
    ctx.warm_up()
    code = app.exec()
    window.close()
    shutdown_tasks()
    return code
