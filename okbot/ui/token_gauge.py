"""The live token gauge: this chat's estimated prompt size against the model's window.

:class:`TokenGaugeFeed` builds the context with :func:`okbot.core.context.build_context` off the
GUI thread (through the app's :class:`~okbot.ui.tasks.TaskRunner`), one build at a time: asking
again while one runs just marks the reading stale and builds once more afterwards.
:class:`TokenGauge` only paints a :class:`GaugeReading`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from okbot.core.sources import ContextSources
from okbot.core.workspace import Target
from okbot.ui.tasks import TaskRunner

BAR_WIDTH = 120
BAR_HEIGHT = 6


@dataclass(frozen=True)
class GaugeReading:
    """What the gauge shows: calibrated tokens, the window, the compression threshold."""

    tokens: int
    window: int
    threshold: int
    approximate: bool = False

    @property
    def fraction(self) -> float:
        return self.tokens / self.window if self.window > 0 else 0.0

    @property
    def label(self) -> str:
        """E.g. ``≈1.2k / 128k`` (``≈`` when the count is approximate)."""
        return f"{'≈' if self.approximate else ''}{_short(self.tokens)} / {_short(self.window)}"

    @property
    def tooltip(self) -> str:
        if self.approximate:
            text = QCoreApplication.translate(
                "TokenGauge",
                "This chat's next request: about {tokens} tokens of a {window}-token window ({percent}); "
                "approximate (no exact tokenizer for this model).\nCompression starts at {threshold} tokens.",
            )
        else:
            text = QCoreApplication.translate(
                "TokenGauge",
                "This chat's next request: about {tokens} tokens of a {window}-token window ({percent}); "
                "calibrated estimate.\nCompression starts at {threshold} tokens.",
            )
        return text.format(
            tokens=f"{self.tokens:,}",
            window=f"{self.window:,}",
            percent=f"{self.fraction:.0%}",
            threshold=f"{self.threshold:,}",
        )


def reading_for(target: Target, sources: ContextSources) -> GaugeReading:
    """Build the context for ``target`` and read it off (blocking: run it through a TaskRunner)."""
    from okbot.core.context import build_context  # runs on a pool thread; keeps start-up lean

    sources.loaded_counter(target)  # the first reading after start-up is exact, not an early estimate
    proj = build_context(target, sources=sources)
    return GaugeReading(proj.calibrated_tokens, proj.window, proj.threshold, proj.approximate)


def _short(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M".replace(".0M", "M")
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    return f"{n:,}"  # below 10k the exact figure is short enough (and 4,096 reads better than 4.1k)


class TokenGaugeFeed(QObject):
    """Computes :class:`GaugeReading` for a target off the GUI thread, coalescing requests."""

    reading_ready = Signal(object)  # GaugeReading
    failed = Signal(str)

    def __init__(self, sources: ContextSources, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._sources, self._tasks = sources, tasks
        self._target: Target | None = None
        self._busy = False
        self._stale = False
        self.builds = 0  # how many builds ran (tests check coalescing with it)

    def refresh(self, target: Target | None) -> None:
        """Ask for a fresh reading of ``target`` (``None`` stops updates)."""
        self._target = target
        if target is None:
            return
        if self._busy:
            self._stale = True
            return
        self._start(target)

    def _start(self, target: Target) -> None:
        self._busy, self._stale = True, False
        self.builds += 1
        sources = self._sources
        self._tasks.run(
            lambda: (target, reading_for(target, sources)), self._on_build_done, self._on_build_error, owner=self
        )

    def _on_build_done(self, value: tuple[Target, GaugeReading]) -> None:
        self._busy = False
        target, reading = value
        if self._stale and self._target is not None:
            self._start(self._target)
            return
        if self._target is not None and target.dir == self._target.dir:
            self.reading_ready.emit(reading)

    def _on_build_error(self, exc: BaseException) -> None:
        self._busy = False
        if self._stale and self._target is not None:
            self._start(self._target)
            return
        self.failed.emit(str(exc))


class TokenGauge(QWidget):
    """A thin bar with the threshold marked and a ``≈1.2k / 128k`` label; colours from the palette."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("tokenGauge")
        self._reading: GaugeReading | None = None
        self._pending = 0  # tokens of the files waiting to be sent with the next message
        self._problem = ""
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setToolTip(self.tr("Counting tokens…"))

    @property
    def reading(self) -> GaugeReading | None:
        """What the gauge shows: the chat's next request, with the files waiting to go with it."""
        if self._reading is None or not self._pending:
            return self._reading
        return replace(self._reading, tokens=self._reading.tokens + self._pending)

    def text(self) -> str:
        """The label as painted (``…`` before the first reading)."""
        if self._problem:
            return self.tr("tokens: ?")
        reading = self.reading
        return reading.label if reading else "…"

    def set_pending(self, tokens: int) -> None:
        """Count ``tokens`` of attached files not sent yet (0: none), so their cost shows before sending."""
        self._pending = max(0, int(tokens))
        self._show_tooltip()
        self.updateGeometry()
        self.update()

    def _show_tooltip(self) -> None:
        reading = self.reading
        if reading is None:
            return
        tip = reading.tooltip
        if self._pending:
            tip += "\n" + self.tr("Includes about {n} tokens of the files attached to the next message.").format(
                n=f"{self._pending:,}"
            )
        self.setToolTip(tip)
        self.setAccessibleDescription(tip)

    def set_reading(self, reading: GaugeReading) -> None:
        self._reading, self._problem = reading, ""
        self._show_tooltip()
        self.updateGeometry()
        self.update()

    def set_problem(self, message: str) -> None:
        self._problem = message
        self.setToolTip(self.tr("Could not count this chat's tokens: {error}").format(error=message))
        self.update()

    def sizeHint(self) -> QSize:
        fm = self.fontMetrics()
        label_w = fm.horizontalAdvance("≈000.0k / 000k")
        return QSize(BAR_WIDTH + 8 + label_w, max(fm.height(), BAR_HEIGHT) + 4)

    def paintEvent(self, _event: QPaintEvent) -> None:
        pal = self.palette()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        bar = QRectF(0.5, (self.height() - BAR_HEIGHT) / 2, BAR_WIDTH, BAR_HEIGHT)
        track = QColor(pal.color(QPalette.ColorRole.PlaceholderText))
        track.setAlphaF(0.25)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(track)
        painter.drawRoundedRect(bar, BAR_HEIGHT / 2, BAR_HEIGHT / 2)
        reading = self.reading
        if reading and reading.window > 0:
            fill = QRectF(bar)
            fill.setWidth(max(BAR_HEIGHT, bar.width() * min(1.0, reading.fraction)))
            over = reading.tokens >= reading.threshold
            painter.setBrush(self._warning_colour() if over else pal.color(QPalette.ColorRole.Highlight))
            painter.drawRoundedRect(fill, BAR_HEIGHT / 2, BAR_HEIGHT / 2)
            x = bar.left() + bar.width() * min(1.0, reading.threshold / reading.window)
            painter.setPen(QPen(pal.color(QPalette.ColorRole.Text), 1.5))
            painter.drawLine(int(x), int(bar.top() - 3), int(x), int(bar.bottom() + 3))
        painter.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
        text_rect = self.rect().adjusted(BAR_WIDTH + 8, 0, 0, 0)
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), self.text())
        painter.end()

    def _warning_colour(self) -> QColor:
        # an orange that reads on light and dark bases alike, blended toward the text colour
        base = QColor(230, 140, 30)
        return base.lighter(115) if self.palette().color(QPalette.ColorRole.Base).lightness() < 128 else base
