"""Child process of the cold-start benchmark: start the app as ``okbot`` does, exit at its first frame.

Kept apart from ``bench_ui`` so the probe imports nothing the app itself would not.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    from okbot.cli import main as cli  # what ``okbot`` runs before the GUI: argument parsing and the log file
    from okbot.logs import setup_logging

    cli.build_parser().parse_args([])
    setup_logging()
    from PySide6.QtCore import QEvent, QObject, QTimer

    from okbot.config.settings import Settings
    from okbot.core.workspace import Workspace
    from okbot.storage import paths
    from okbot.ui.app import claim_data_dir, create_application, startup_problems
    from okbot.ui.app_context import AppContext
    from okbot.ui.main_window import MainWindow

    class FirstPaint(QObject):
        """Exits the process once the window's first frame is painted (before anything that follows it)."""

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                QTimer.singleShot(0, lambda: os._exit(0))  # skip Qt teardown: what is measured ends here
            return False

    app = create_application(sys.argv[:1])
    lock = claim_data_dir(paths.data_dir())  # one GUI per data dir, as run_gui claims it
    assert lock is not None, "another OkBot holds this data dir"
    settings = Settings.load()
    workspace = Workspace()
    problems = startup_problems(settings, workspace)
    ctx = AppContext.create(workspace, settings)
    window = MainWindow(ctx, problems=problems)
    probe = FirstPaint()
    window.centralWidget().installEventFilter(probe)
    window.show()
    ctx.warm_up()  # as run_gui does: background imports race the first frame
    app.exec()


if __name__ == "__main__":
    main()
