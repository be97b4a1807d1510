"""Settings → Context compression: when to compress, what to keep, and Compress now (and Undo last compression)
for the current chat."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from okbot.config.schema import COMPRESSION_PAGE
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP, plural
from okbot.storage.errors import OkBotError
from okbot.ui.settings.page import NoteLabel, SettingsPage, help_label, if_alive

NO_CHAT = QT_TRANSLATE_NOOP(
    "CompressionPage", "Select an assistant or squad first; Compress now works on the chat that is open."
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("CompressionPage", text)


def describe_report(report: Any) -> str:
    """A ``CompressionReport`` in one sentence for the page."""
    if not getattr(report, "ok", False):
        return str(
            getattr(report, "message", "") or QCoreApplication.translate("CompressionPage", "Nothing was compressed.")
        )
    said = str(getattr(report, "message", "") or "")
    if said:  # the compressor's own sentence: what it covered, by id, and the tokens before and after
        return said
    covered = int(getattr(report, "covered_items", 0))
    before, after = int(getattr(report, "tokens_before", 0)), int(getattr(report, "tokens_after", 0))
    return plural(
        covered,
        QCoreApplication.translate("CompressionPage", "Summarized {n} item: about {before} → {after} tokens."),
        QCoreApplication.translate("CompressionPage", "Summarized {n} items: about {before} → {after} tokens."),
    ).format(n=covered, before=f"{before:,}", after=f"{after:,}")


class CompressionPage(SettingsPage):
    """Compression settings and the Compress now button.

    ``compress_finished(report)`` fires with the ``CompressionReport`` when Compress now is done
    (also when it found nothing to do: ``report.ok`` is then False).
    """

    compress_finished = Signal(object)
    undo_finished = Signal(object)

    def __init__(self, ctx: Any, parent: QWidget | None = None, *, current_target: Target | None = None) -> None:
        super().__init__(ctx, COMPRESSION_PAGE, parent)
        self._target = current_target
        self._running = False
        # whether a reply is being written in a chat (the main window knows): an undo waits for it to end
        self.turn_running: Callable[[Target], bool] = lambda _target: False

        self.add_declared_sections()
        now = self.add_section(self.tr("Compress now"))
        self.compress_button = QPushButton(self.tr("Compress now"))
        self.compress_button.clicked.connect(self._on_compress_button_clicked)
        self.undo_button = QPushButton(self.tr("Undo last compression"))
        self.undo_button.clicked.connect(self._on_undo_button_clicked)
        self.target_label = help_label("")
        self.result_label = NoteLabel()
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QWidget()
        row_layout = QHBoxLayout(row)
        row_layout.setContentsMargins(0, 0, 0, 0)
        row_layout.addWidget(self.compress_button)
        row_layout.addWidget(self.undo_button)
        row_layout.addWidget(self.target_label, 1)
        self.add_row(now, "", row, self.result_label)
        self.finish()
        self._update_button()

    # ------------------------------------------------------------------ public
    @property
    def current_target(self) -> Target | None:
        return self._target

    def set_current_target(self, target: Target | None) -> None:
        """The chat Compress now works on (``None``: no chat open)."""
        if target is not self._target:
            self.result_label.clear()
        self._target = target
        self._update_button()

    def compress_now(self) -> None:
        """Compress the current chat in the background; the result shows under the button."""
        target, ctx = self._target, self.ctx
        if target is None or self._running:
            return

        def job() -> Any:  # a provider that cannot be used fails here, saying why
            return ctx.app.compress_now(target)

        self._running = True
        self._update_button()
        self.result_label.setText(self.tr("Compressing “{name}”…").format(name=target.name))
        self.ctx.tasks.run(job, if_alive(self, self._on_compress_done), if_alive(self, self._on_compress_failed))

    def undo_last(self) -> None:
        """Undo the current chat's last compression in the background; what was restored shows under the button.

        ``undo_finished(restored)`` fires when it is done (not when it was refused: the reason shows instead).
        """
        target = self._target
        if target is None or self._running:
            return
        from okbot.core.compression.undo import undo_last

        busy = self.turn_running(target)
        self._running = True
        self._update_button()
        self.ctx.tasks.run(
            lambda: undo_last(target, turn_running=busy),
            if_alive(self, self._on_undo_done),
            if_alive(self, self._on_undo_failed),
        )

    # ------------------------------------------------------------------ slots
    def _on_compress_button_clicked(self) -> None:
        self.compress_now()

    def _on_undo_button_clicked(self) -> None:
        self.undo_last()

    def _on_undo_done(self, restored: Any) -> None:
        self._running = False
        self._update_button()
        self.result_label.setText("✓ " + restored.message)
        self.undo_finished.emit(restored)

    def _on_undo_failed(self, exc: BaseException) -> None:
        self._running = False
        self._update_button()
        if isinstance(exc, OkBotError):
            self.result_label.setText(str(exc))
        else:
            self.result_label.setText(self.tr("Something went wrong in OkBot: {error}").format(error=exc))

    def _on_compress_done(self, report: Any) -> None:
        self._running = False
        self._update_button()
        ok = bool(getattr(report, "ok", False))
        self.result_label.setText(("✓ " if ok else "") + describe_report(report))
        self.compress_finished.emit(report)

    def _on_compress_failed(self, exc: BaseException) -> None:
        self._running = False
        self._update_button()
        if isinstance(exc, OkBotError):
            text = str(exc)
        else:
            text = self.tr("Something went wrong in OkBot: {error}").format(error=exc)
        self.result_label.setText(self.tr("⚠ Not compressed: {why}").format(why=text))

    # --------------------------------------------------------------- internals
    def _update_button(self) -> None:
        reason = _tr(NO_CHAT) if self._target is None else ""
        self.compress_button.setEnabled(not reason and not self._running)
        self.compress_button.setToolTip(reason or self.tr("Fold the older part of this chat into its summary now"))
        self.undo_button.setEnabled(not reason and not self._running)
        self.undo_button.setToolTip(
            reason or self.tr("Bring back the summary and coverage from before this chat's last compression")
        )
        if self._target is not None:
            self.target_label.setText(self.tr("Current chat: {name}").format(name=self._target.name))
        else:
            self.target_label.setText(reason)
