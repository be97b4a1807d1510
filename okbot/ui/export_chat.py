"""The chat's "Export chat…": choose a file, then write it off the GUI thread (a 100,000-item chat never
freezes the window); the writing is :func:`okbot.core.export.export_to_file`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from okbot.core.export import export_to_file
from okbot.core.workspace import Target, Workspace
from okbot.i18n import plural
from okbot.storage.errors import OkBotError
from okbot.ui.tasks import TaskRunner

log = logging.getLogger("okbot.ui.export")
FORMATS = ("md", "json")  # in the order of the dialog's filters (see _filters)

Export = Callable[..., int]


def choose_export_file(target: Target, parent: QWidget) -> tuple[Path, str] | None:
    """Ask where to write ``target``'s chat and in which format (None: cancelled). The dialog asks before
    replacing a file."""
    filters = _filters()
    name, chosen = QFileDialog.getSaveFileName(
        parent,
        QCoreApplication.translate("ChatExporter", "Export “{name}”").format(name=target.name),
        str(Path.home() / f"{target.id}.md"),
        ";;".join(filters),
    )
    if not name:
        return None
    fmt = FORMATS[filters.index(chosen)] if chosen in filters else "md"
    path = Path(name)
    if path.suffix.lower() == ".json":
        fmt = "json"
    elif not path.suffix:
        path = path.with_suffix(f".{fmt}")
    return path, fmt


def _filters() -> list[str]:
    """The save dialog's file filters, one per entry of FORMATS."""
    return [
        QCoreApplication.translate("ChatExporter", "Markdown") + " (*.md)",
        QCoreApplication.translate("ChatExporter", "JSON — the records as they are") + " (*.json)",
    ]


class ChatExporter(QObject):
    """Writes a chat to a file on a pool thread; ``finished(path, items)`` or ``failed(message)`` on the GUI thread.

    ``export`` is :func:`~okbot.core.export.export_to_file` unless another is given (tests spy on the thread).
    """

    finished = Signal(str, int)
    failed = Signal(str)

    def __init__(
        self, tasks: TaskRunner, workspace: Workspace, parent: QObject | None = None, *, export: Export | None = None
    ) -> None:
        super().__init__(parent)
        self._tasks = tasks
        self._workspace = workspace
        self._export: Export = export or export_to_file
        self.running = False

    def start(self, target: Target, fmt: str, path: Path) -> None:
        """Export ``target`` as ``fmt`` into ``path`` (replacing it: the file dialog asked already)."""
        self.running = True
        workspace, export = self._workspace, self._export

        def work() -> int:
            return export(target, workspace, fmt, path, force=True)

        self._tasks.run(work, lambda items: self._on_done(str(path), items), self._on_error, owner=self)

    def _on_done(self, path: str, items: int) -> None:
        self.running = False
        self.finished.emit(path, items)

    def _on_error(self, exc: BaseException) -> None:
        self.running = False
        if isinstance(exc, OkBotError):
            self.failed.emit(str(exc))
        elif isinstance(exc, OSError):
            if exc.filename:
                text = self.tr("Cannot write {file}: {error}").format(file=exc.filename, error=exc.strerror or exc)
            else:
                text = self.tr("Cannot write the file: {error}").format(error=exc.strerror or exc)
            self.failed.emit(text)
        else:  # a bug: say so, with the traceback in the log
            log.error("export failed", exc_info=exc)
            self.failed.emit(self.tr("The export failed: {error}").format(error=exc))


def export_message(path: str, items: int) -> str:
    """The chat's status line after an export."""
    one = QCoreApplication.translate("ChatExporter", "Exported {n} item to {path}")
    other = QCoreApplication.translate("ChatExporter", "Exported {n} items to {path}")
    return plural(items, one, other).format(n=f"{items:,}", path=path)
