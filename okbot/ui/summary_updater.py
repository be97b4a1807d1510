"""Compress ahead for one chat: after a reply, off the GUI thread, through the app's TaskRunner.

:class:`SummaryUpdater` runs :meth:`~okbot.core.compression.compressor.Compressor.compress_ahead` on a pool
thread and reports on the GUI thread: ``started`` when a compression really begins (the core's
``on_start`` callback, relayed as a queued signal), ``finished`` with its report (``None`` when
nothing was due). The chat page decides what to show.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal

from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from okbot.ui.app_context import AppContext

log = logging.getLogger("okbot.ui.chat")

# The chat page's status line while / after compressing; shown through status_text().
UPDATING_TEXT = QT_TRANSLATE_NOOP("SummaryUpdater", "Updating the summary…")
FAILED_TEXT = QT_TRANSLATE_NOOP(
    "SummaryUpdater", "Couldn't update the summary; older messages were kept as they are. Details in View context."
)


def status_text(source: str) -> str:
    """``UPDATING_TEXT`` or ``FAILED_TEXT`` in the current language."""
    return QCoreApplication.translate("SummaryUpdater", source)


class SummaryUpdater(QObject):
    """After each reply, compresses one chat's session ahead of its next request (one run at a time)."""

    started = Signal()
    finished = Signal(object)  # CompressionReport | None

    _worker_started = Signal()  # emitted on the pool thread, delivered queued on the GUI thread

    def __init__(self, ctx: AppContext, target: Target, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx, self.target = ctx, target
        self._running = False
        self._worker_started.connect(self._on_worker_started, Qt.ConnectionType.QueuedConnection)

    @property
    def running(self) -> bool:
        """True from :meth:`after_reply` until ``finished``."""
        return self._running

    def after_reply(self) -> None:
        """Compress now, in the background, if the next request is predicted to cross the prepare mark."""
        if self._running:
            return
        self._running = True
        ctx, target, started = self.ctx, self.target, self._worker_started

        def on_start() -> None:
            try:
                started.emit()
            except RuntimeError:  # the page (and this object) is gone
                log.debug("compress-ahead start dropped: its updater was deleted")

        def job() -> Any:  # the app is built here the first time: the keyring and the SDK stay off the GUI thread
            return ctx.app.compressor.compress_ahead(target, on_start=on_start)

        ctx.tasks.run(job, self._on_job_done, self._on_job_failed, owner=self)

    def _on_worker_started(self) -> None:
        if self._running:
            self.started.emit()

    def _on_job_done(self, report: Any) -> None:
        self._running = False
        self.finished.emit(report)

    def _on_job_failed(self, exc: BaseException) -> None:
        self._running = False
        log.warning("compress ahead failed for %s: %s", self.target.id, exc, exc_info=exc)
        self.finished.emit(None)
