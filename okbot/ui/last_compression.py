"""View context's "Last compression" tab: what the newest compression still in force changed.

It shows :func:`okbot.core.compression.undo.describe_last` (the same description ``okbot compress --last``
prints): when and why it ran, the coverage it moved and the items it newly covered, the user's words it
keeps verbatim, and the summary before → after as a line diff (added lines green, removed lines red, on
backgrounds blended from the palette so both themes stay readable). Reading the history and the session
runs off the GUI thread through a task runner of its own.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from okbot.core.compression.history import ranges_text
from okbot.core.compression.undo import LastCompression, describe_last
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP, plural
from okbot.ui.tasks import TaskRunner
from okbot.ui.token_bar import is_dark

log = logging.getLogger("okbot.ui.last_compression")

TRIGGERS = {
    "ratio": QT_TRANSLATE_NOOP("LastCompression", "the request reached the compression threshold"),
    "topic": QT_TRANSLATE_NOOP("LastCompression", "a new topic began"),
    "manual": QT_TRANSLATE_NOOP("LastCompression", "Compress now"),
    "turn": QT_TRANSLATE_NOOP("LastCompression", "inside a long turn"),
}
MAX_KEPT_SHOWN = 5


def _tr(text: str) -> str:
    return QCoreApplication.translate("LastCompression", text)


def local_time(at: str) -> str:
    """An ISO time from the history in this machine's time zone (as written when it cannot be read)."""
    try:
        return datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return at


def _blend(a: QColor, b: QColor, t: float) -> QColor:
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * t,
        a.greenF() + (b.greenF() - a.greenF()) * t,
        a.blueF() + (b.blueF() - a.blueF()) * t,
    )


class _DiffHighlighter(QSyntaxHighlighter):
    """``+ `` lines on a green band, ``- `` lines on a red one, from the palette (dark or light)."""

    def __init__(self, document: QTextDocument, palette: QPalette) -> None:
        super().__init__(document)
        self.set_palette(palette)

    def set_palette(self, pal: QPalette) -> None:
        dark = is_dark(pal)
        text, base = pal.color(QPalette.ColorRole.Text), pal.color(QPalette.ColorRole.Base)
        self._formats = {}
        for op, hue, light_mix, dark_mix in (("+", 0.33, 0.22, 0.32), ("-", 0.0, 0.20, 0.32)):
            f = QTextCharFormat()
            f.setForeground(text)
            f.setBackground(_blend(base, QColor.fromHslF(hue, 0.6, 0.45), dark_mix if dark else light_mix))
            self._formats[op] = f
        self.rehighlight()

    def highlightBlock(self, line: str) -> None:
        f = self._formats.get(line[:1]) if line[1:2] == " " else None
        if f is not None:
            self.setFormat(0, len(line), f)


class LastCompressionView(QWidget):
    """The tab: header lines and the summary diff of ``target``'s last compression.

    ``loaded`` fires after each refresh showed its result (also "none recorded"); :attr:`description` is
    what is on show.
    """

    loaded = Signal()

    def __init__(self, ctx: Any, target: Target, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lastCompression")
        self.ctx, self.target = ctx, target
        self._tasks = TaskRunner(self)  # its own: the viewer's build queue stays one job deep
        self._description: LastCompression | None = None
        self._generation = 0
        self.heading = QLabel(objectName="lastCompressionHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = QLabel(objectName="lastCompressionDetails")
        self.details.setWordWrap(True)
        self.details.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.diff_view = QPlainTextEdit(objectName="lastCompressionDiff")
        self.diff_view.setReadOnly(True)
        self.diff_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.diff_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff_view.document().setDocumentMargin(10)
        self._highlighter = _DiffHighlighter(self.diff_view.document(), self.palette())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 0)
        layout.setSpacing(4)
        layout.addWidget(self.heading)
        layout.addWidget(self.details)
        layout.addWidget(self.diff_view, 1)
        self.heading.setText(self.tr("Reading the compression history…"))
        self.details.hide()

    @property
    def description(self) -> LastCompression | None:
        return self._description

    def diff_text(self) -> str:
        return self.diff_view.toPlainText()

    def refresh(self) -> None:
        """Read the description again, off the GUI thread."""
        self._generation += 1
        generation, target = self._generation, self.target
        session = self.ctx.sources.session(target)

        def read() -> LastCompression | None:
            return describe_last(target, item_text=lambda i: (session.get(i) or {}).get("content"))

        self._tasks.run(
            read, lambda last: self._on_read_done(generation, last), lambda exc: self._on_read_failed(generation, exc)
        )

    # -- slots -----------------------------------------------------------------------------
    def _on_read_done(self, generation: int, last: LastCompression | None) -> None:
        if generation != self._generation:
            return
        self._description = last
        if last is None:
            self.heading.setText(self.tr("No compression of this chat is recorded yet."))
            self.details.setText(
                self.tr(
                    "Compressions are recorded from this version of OkBot on; an undone one is not shown here "
                    "(okbot compress --redo brings it back)."
                )
            )
            self.details.show()
            self.diff_view.setPlainText("")
        else:
            self._show(last)
        self.loaded.emit()

    def _on_read_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        log.warning("the compression history could not be read: %s", exc)
        self.heading.setText(self.tr("⚠ The compression history could not be read: {why}").format(why=exc))
        self.loaded.emit()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "_highlighter"):
            self._highlighter.set_palette(self.palette())
        super().changeEvent(event)

    # -- internals -------------------------------------------------------------------------
    def _show(self, last: LastCompression) -> None:
        why = _tr(TRIGGERS[last.trigger]) if last.trigger in TRIGGERS else last.trigger or "—"
        self.heading.setText(
            self.tr("Compression #{seq} · {when} · {why}").format(seq=last.seq, when=local_time(last.at), why=why)
        )
        lines = [
            plural(
                last.new_count,
                self.tr("Coverage #{before} → #{after}: newly covered {ranges} ({n} item)."),
                self.tr("Coverage #{before} → #{after}: newly covered {ranges} ({n} items)."),
            ).format(
                before=last.covered_before,
                after=last.covered_after,
                ranges=ranges_text(last.new_ranges) or "—",
                n=last.new_count,
            )
        ]
        if last.kept_new:
            lines.append(self.tr("Kept verbatim (your own words):"))
            for item_id in last.kept_new[:MAX_KEPT_SHOWN]:
                preview = last.previews.get(item_id, "")
                lines.append(f"  #{item_id}  {preview}".rstrip())
            if len(last.kept_new) > MAX_KEPT_SHOWN:
                lines.append(self.tr("  … and {n} more").format(n=len(last.kept_new) - MAX_KEPT_SHOWN))
        if last.kept_dropped:
            lines.append(
                self.tr("No longer kept verbatim: {ids}").format(ids=", ".join(f"#{i}" for i in last.kept_dropped))
            )
        if last.current_request:
            lines.append(
                self.tr("Pinned while its turn runs: {ids}").format(
                    ids=", ".join(f"#{i}" for i in last.current_request)
                )
            )
        if last.fallback:
            lines.append(self.tr("Without the model: {what}").format(what=last.fallback))
        if last.undoable:
            lines.append(self.tr("It can be undone from the chat's summary divider or Settings → Context compression."))
        else:
            lines.append(self.tr("It cannot be undone: {why}.").format(why=last.why_not))
        lines.extend(last.problems)
        self.details.setText("\n".join(lines))
        self.details.show()
        if not any(d.op != " " for d in last.diff):
            self.diff_view.setPlainText(self.tr("The summary's text did not change (only its coverage moved)."))
            return
        self.diff_view.setPlainText("\n".join(f"{d.op} {d.text}" for d in last.diff))
