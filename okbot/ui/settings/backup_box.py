"""Settings → Advanced: the declared settings plus Back up… and Restore… (the work: :mod:`okbot.core.backup`).

Both run off the GUI thread. Restore checks the whole zip first, then asks (what is in the data folder is
moved to a dated folder beside it, never deleted), restores, and closes OkBot: the open chats, memories and
settings were read from the old data, so the app starts again on the restored one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QFileDialog, QHBoxLayout, QMessageBox, QPushButton, QWidget

from okbot.config.schema import ADVANCED_PAGE
from okbot.core.attachments import human_size
from okbot.core.backup import check_backup, create_backup, restore_backup
from okbot.i18n import plural
from okbot.storage import paths
from okbot.storage.errors import OkBotError
from okbot.ui.settings.page import NoteLabel, SettingsPage, help_label, if_alive

log = logging.getLogger("okbot.ui.settings")


def _ask(parent: QWidget) -> Callable[[str], bool]:
    def ask(text: str) -> bool:
        answer = QMessageBox.question(parent, QCoreApplication.translate("AdvancedPage", "Restore a backup"), text)
        return answer == QMessageBox.StandardButton.Yes

    return ask


def _close_app(parent: QWidget) -> Callable[[], None]:
    def close() -> None:
        QMessageBox.information(
            parent,
            QCoreApplication.translate("AdvancedPage", "Backup restored"),
            QCoreApplication.translate(
                "AdvancedPage", "The backup was restored. OkBot closes now: open it again to use it."
            ),
        )
        QApplication.quit()

    return close


class AdvancedPage(SettingsPage):
    """The Advanced page with a Backup section.

    ``confirm(text)`` asks before a restore (a dialog unless given); ``quit_app()`` runs after one (a note,
    then the app quits); ``on_thread()`` is called on the worker thread at the start of each job (tests).
    """

    def __init__(
        self,
        ctx: Any,
        parent: QWidget | None = None,
        *,
        confirm: Callable[[str], bool] | None = None,
        quit_app: Callable[[], None] | None = None,
        on_thread: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(ctx, ADVANCED_PAGE, parent)
        self._confirm = confirm or _ask(self)
        self._quit_app = quit_app or _close_app(self)
        self._on_thread = on_thread or (lambda: None)
        self.busy = False
        self.add_declared_sections()
        about = self.tr(
            "One zip of the whole data folder: chats, summaries, memories, skills, settings. Never your API keys, the"
            " logs or the trash."
        )
        form = self.add_section(self.tr("Backup"), about)
        self.backup_button = QPushButton(self.tr("Back up…"))
        self.backup_button.clicked.connect(self._on_backup_button_clicked)
        self.restore_button = QPushButton(self.tr("Restore…"))
        self.restore_button.clicked.connect(self._on_restore_button_clicked)
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.backup_button)
        box.addWidget(self.restore_button)
        box.addStretch(1)
        self.backup_note = NoteLabel()
        self.backup_note.setWordWrap(True)
        self.add_row(
            form, "", row, self.backup_note, help_label(self.tr("Data folder: {path}").format(path=paths.data_dir()))
        )
        self.finish()

    # ------------------------------------------------------------------ public
    def back_up_to(self, path: Path) -> None:
        """Write the backup to ``path`` (replacing it: the file dialog asked) off the GUI thread."""
        self._set_busy(True, self.tr("Backing up to {path}…").format(path=path))
        data_dir = paths.data_dir()

        def work() -> Any:
            self._on_thread()
            return create_backup(data_dir, path, force=True)

        def done(report: Any) -> None:
            note = plural(
                report.files,
                self.tr("Backed up {n} file ({size}) to {path}."),
                self.tr("Backed up {n} files ({size}) to {path}."),
            )
            lines = [note.format(n=f"{report.files:,}", size=human_size(report.bytes), path=path)]
            lines += [self.tr("Left out: {what}").format(what=what) for what in report.skipped]  # as the CLI says
            self._set_busy(False, "\n".join(lines))

        self.ctx.tasks.run(work, if_alive(self, done), self._failed)

    def restore_from(self, path: Path) -> None:
        """Check the backup at ``path``, ask, restore it over the data folder (the old one kept aside), close."""
        self._set_busy(True, self.tr("Checking {path}…").format(path=path))

        def work() -> Any:
            self._on_thread()
            return check_backup(path)

        self.ctx.tasks.run(work, if_alive(self, lambda checked: self._on_checked(path, checked)), self._failed)

    # ------------------------------------------------------------------ slots
    def _on_backup_button_clicked(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, self.tr("Back up OkBot"), str(Path.home() / "okbot-backup.zip"), self._zip_filter()
        )
        if name:
            self.back_up_to(Path(name) if name.lower().endswith(".zip") else Path(name + ".zip"))

    def _on_restore_button_clicked(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, self.tr("Restore a backup"), str(Path.home()), self._zip_filter())
        if name:
            self.restore_from(Path(name))

    def _on_checked(self, path: Path, checked: Any) -> None:
        data_dir = paths.data_dir()
        made = str(checked.manifest.get("createdAt", "?"))
        count = len(checked.files)
        text = plural(
            count,
            self.tr(
                "Restore the backup made {made} by OkBot {version} ({n} file, {size})?\n\n"
                "What is in {data_dir} now is moved to a dated folder beside it ({name}-before-restore-…), "
                "not deleted; your API keys stay. OkBot closes when it is done."
            ),
            self.tr(
                "Restore the backup made {made} by OkBot {version} ({n} files, {size})?\n\n"
                "What is in {data_dir} now is moved to a dated folder beside it ({name}-before-restore-…), "
                "not deleted; your API keys stay. OkBot closes when it is done."
            ),
        ).format(
            made=made,
            version=checked.manifest.get("okbotVersion", "?"),
            n=f"{count:,}",
            size=human_size(checked.bytes),
            data_dir=data_dir,
            name=data_dir.name,
        )
        if not self._confirm(text):
            self._set_busy(False, self.tr("Nothing was restored."))
            return
        self._set_busy(True, self.tr("Restoring {path}…").format(path=path))

        def work() -> Any:
            self._on_thread()
            return restore_backup(path, data_dir, replace=True, lock_held=True)

        self.ctx.tasks.run(work, if_alive(self, self._on_restored), self._failed)

    def _on_restored(self, report: Any) -> None:
        done = plural(report.files, self.tr("Restored {n} file."), self.tr("Restored {n} files.")).format(
            n=f"{report.files:,}"
        )
        if report.moved_aside:
            done += self.tr(" The data that was there is in {path}.").format(path=report.moved_aside)
        self._set_busy(False, done)
        self._quit_app()

    def _failed(self, exc: BaseException) -> None:
        if_alive(self, self._on_failed)(exc)

    def _on_failed(self, exc: BaseException) -> None:
        self._set_busy(False, "")
        if isinstance(exc, OkBotError):
            self.show_message(str(exc))
        elif isinstance(exc, OSError):
            where = exc.filename or self.tr("the file")
            self.show_message(self.tr("Cannot use {file}: {why}").format(file=where, why=exc.strerror or exc))
        else:  # a bug: said plainly, the traceback in the log
            log.error("backup or restore failed", exc_info=exc)
            self.show_message(self.tr("The backup or restore failed: {error}").format(error=exc))

    def _zip_filter(self) -> str:
        return self.tr("OkBot backup (*.zip)")

    def _set_busy(self, busy: bool, note: str) -> None:
        self.busy = busy
        self.backup_button.setEnabled(not busy)
        self.restore_button.setEnabled(not busy)
        self.backup_note.setText(note)
