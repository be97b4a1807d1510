"""Start the desktop app: the QApplication, the data-dir claim, the startup checks and the main window.

One GUI runs per data dir (:mod:`okbot.ui.single_instance`); a second one raises the first's
window and exits. The CLI may run alongside (the rule is in :mod:`okbot.storage.datalock`).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.storage import paths
from okbot.storage.errors import OkBotError
from okbot.ui.app_context import AppContext
from okbot.ui.main_window import MainWindow
from okbot.ui.tasks import shutdown_tasks
from okbot.ui.theme import follow_appearance
from okbot.ui.translation import apply_language

if TYPE_CHECKING:
    from okbot.storage.datalock import DataDirLock
    from okbot.ui.single_instance import SingleInstance

APP_NAME = "OkBot"
ORGANIZATION_NAME = "OkBot"
DESKTOP_ID = "io.okbot.OkBot"
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)


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
    app.setDesktopFileName(DESKTOP_ID)  # Wayland app id = the installed .desktop entry
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addFile(str(paths.resource("icons", f"okbot-{size}.png")))
    app.setWindowIcon(icon)
    return app


def quit_on_sigterm(app: QApplication) -> QTimer:
    """End the event loop cleanly on SIGTERM (logout, ``kill``), so windows close and data is flushed.

    Python runs signal handlers only between bytecodes; the returned timer wakes it now and then
    while Qt waits in C++. A SIGTERM that comes while the window is still being built ends the
    event loop as soon as it starts (the quit is queued, not dropped).
    """
    signal.signal(signal.SIGTERM, lambda *_: QTimer.singleShot(0, app, app.quit))
    wake = QTimer(app)
    wake.timeout.connect(lambda: None)
    wake.start(250)
    return wake


def startup_problems(settings: Settings, workspace: Workspace) -> list[str]:
    """Make sure the default assistant exists; return every message the user should see.

    Nothing here needs an API key or the network: a missing key is the first-run panel's matter
    (and, when the user browses on without one, a "No API key" message when a message is sent).
    """
    problems = list(settings.problems)
    try:
        workspace.ensure_default()
    except OkBotError as exc:
        problems.append(str(exc))
    except OSError as exc:  # e.g. a read-only data dir: still open the window and say why
        problems.append(
            QCoreApplication.translate("app", "Could not create the default assistant: {error}").format(
                error=exc.strerror or exc
            )
        )
    problems.extend(workspace.problems)
    return problems


def claim_data_dir(data_dir: Path) -> DataDirLock | None:
    """Make this process the data dir's GUI before anything in it is read; None if another GUI holds it.

    Only an OS file lock (well under a millisecond); the local socket comes later,
    :func:`serve_second_instances`.
    """
    from okbot.storage.datalock import DataDirLock

    lock = DataDirLock(data_dir)
    return lock if lock.try_acquire() else None


def serve_second_instances(lock: DataDirLock, window: QWidget) -> SingleInstance:
    """Listen for a second GUI on this data dir and raise ``window`` when one asks.

    Loads QtNetwork (about 7 ms), so :func:`run_gui` calls it after the first frame.
    """
    from okbot.ui.single_instance import SingleInstance

    guard = SingleInstance(lock.data_dir, lock=lock, parent=window)
    guard.listen()
    guard.raise_requested.connect(lambda: bring_to_front(window))
    return guard


def defer_to_running_instance(data_dir: Path) -> int:
    """Second GUI on ``data_dir``: raise the first one's window and return the exit code.

    0 when the first instance confirmed (a note goes to stderr); 1 with a message on stderr and
    in a dialog when it holds the data dir but cannot be reached. Nothing in the data dir is touched.
    """
    from okbot.ui.single_instance import SingleInstance

    guard = SingleInstance(data_dir)
    if guard.ask_first_to_raise():
        note = QCoreApplication.translate(
            "app", "OkBot is already running for {data_dir}; its window was brought to the front."
        )
        print(f"okbot: {note.format(data_dir=data_dir)}", file=sys.stderr)
        return 0
    pid = guard.holder_pid()
    if pid:
        text = QCoreApplication.translate(
            "app",
            "Another OkBot (process {pid}) is using the data folder {data_dir} but did not answer. Only one "
            "OkBot window can use a data folder at a time; close the other one (or end that process) and try again.",
        ).format(pid=pid, data_dir=data_dir)
    else:
        text = QCoreApplication.translate(
            "app",
            "Another OkBot is using the data folder {data_dir} but did not answer. Only one OkBot window "
            "can use a data folder at a time; close the other one (or end that process) and try again.",
        ).format(data_dir=data_dir)
    print(f"okbot: {text}", file=sys.stderr)
    QMessageBox.critical(None, QCoreApplication.translate("app", "OkBot is already running"), text)
    return 1


def bring_to_front(window: QWidget) -> None:
    """Show ``window`` un-minimized, on top and focused (as far as the window manager allows)."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


class _AfterFirstPaint(QObject):
    """Runs ``fn`` once, after ``widget`` first paints (or after a short fallback delay)."""

    FALLBACK_MS = 1000

    def __init__(self, widget: QWidget, fn: Callable[[], None]) -> None:
        super().__init__(widget)
        self._fn: Callable[[], None] | None = fn
        widget.installEventFilter(self)
        QTimer.singleShot(self.FALLBACK_MS, self, self._run)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self, self._run)  # after this frame is on screen
        return False

    def _run(self) -> None:
        fn, self._fn = self._fn, None
        if fn is not None:
            fn()


def keep_in_tray(window: MainWindow) -> None:
    """Give ``window`` a tray icon where the desktop shows one (closing then does what ``ui.onClose`` says)."""
    from okbot.ui.tray import Tray, tray_available

    if not tray_available():
        return
    model = window.model
    tray = Tray(
        QApplication.windowIcon(),
        lambda: [t for row in range(model.rowCount()) if (t := model.target(row)) is not None],
        parent=window,
    )
    window.attach_tray(tray)
    tray.show()


def open_main_window(settings: Settings, workspace: Workspace) -> MainWindow:
    """The main window over ``workspace``, not shown yet, with the start-up problems in its status bar.

    It shows the first-run panel whenever no working provider is configured (a hosted base URL with no
    key anywhere); that is decided off the GUI thread, since finding a key may wait on the keyring.
    """
    problems = startup_problems(settings, workspace)
    ctx = AppContext.create(workspace, settings)
    return MainWindow(ctx, problems=problems, first_run=True)


def run_gui(argv: list[str]) -> int:
    """Run the desktop app until its last window closes; returns the exit code of the event loop.

    A second GUI on the same data dir raises the first instead (see :func:`defer_to_running_instance`).
    """
    app = create_application(argv)
    data_dir = paths.data_dir()
    lock = claim_data_dir(data_dir)
    if lock is None:
        return defer_to_running_instance(data_dir)
    try:
        quit_on_sigterm(app)  # before the window: building it starts background work (the first-run check)
        settings = Settings.load()
        apply_language(settings.get("ui.language"))  # every window, message and standard dialog
        follow_appearance(app, settings)  # light/dark and the chat text size, before the first window
        window = open_main_window(settings, Workspace())
        ctx = window.ctx
        guards: list[SingleInstance] = []

        def after_first_paint() -> None:
            guards.append(serve_second_instances(lock, window))
            window.start_schedules()

        _AfterFirstPaint(window.centralWidget() or window, after_first_paint)
        window.show()
        ctx.warm_up()
        keep_in_tray(window)
        # Quit when the main window closes, explicitly: Qt's automatic quit on the last window is
        # cancelled while anything holds a quit lock, and one was seen holding it (about 1 open in 6,
        # once the chat page was built before the close), leaving a process with no window. Not while
        # the window waits in the tray (a viewer closed after it must not end OkBot).
        app.setQuitOnLastWindowClosed(False)
        app.lastWindowClosed.connect(lambda: None if window.kept_in_tray else app.quit())
        window.quit_requested.connect(app.quit)
        code = app.exec()
        window.close()
        if window.schedules is not None:
            window.schedules.stop()  # the scheduler's thread ends (a job's turn was cancelled by the close)
        shutdown_tasks()
        ctx.close()  # the MCP servers it started stop with it
        for guard in guards:
            guard.release()
        return code
    finally:
        lock.release()
