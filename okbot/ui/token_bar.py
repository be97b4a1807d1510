"""A bar of tokens by block, stacked against the context window, with the compression threshold.

The widget only paints what it is given (:meth:`TokenBar.set_usage`): named segments, the
window and the threshold. Colours come from the widget's palette (hues spread around the
palette's highlight colour, lighter on dark themes), so it reads well in light and dark mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QHelpEvent, QPainter, QPainterPath, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

BAR_HEIGHT = 16
SWATCH = 10
GAP = 6  # between caption, bar and legend rows
MARKER_ROOM = 6  # above the bar, for the threshold notch
LEGEND_SPACING = 16  # between legend entries
MIN_SEGMENT_PX = 3.0  # a small block stays visible as a sliver even against a huge window


@dataclass(frozen=True)
class BarSegment:
    """One stacked part of the bar: a legend name, its tokens and an optional tooltip line."""

    name: str  # the part's key (a block's name); the legend shows ``label`` when set
    tokens: int
    detail: str = ""
    muted: bool = False  # drawn in a neutral colour (e.g. chat-format overhead)
    label: str = ""  # what the legend says, in the user's language (a block's title)

    @property
    def shown_name(self) -> str:
        return self.label or self.name


def is_dark(palette: QPalette) -> bool:
    """Whether ``palette`` is a dark theme (dark window background)."""
    return palette.color(QPalette.ColorRole.Window).lightnessF() < 0.5


def segment_colors(palette: QPalette, count: int) -> list[QColor]:
    """``count`` distinct colours derived from the palette's highlight, readable on its background."""
    base = palette.color(QPalette.ColorRole.Highlight)
    hue = base.hslHueF() if base.hslHueF() >= 0 else 0.58
    dark = is_dark(palette)
    colors = []
    for i in range(count):
        # the golden-ratio step keeps neighbours apart however many blocks there are
        h = (hue + i * 0.381966) % 1.0
        colors.append(QColor.fromHslF(h, 0.55 if dark else 0.60, 0.62 if dark else 0.50))
    return colors


def _fmt(n: int) -> str:
    return f"{n:,}"


class TokenBar(QWidget):
    """Tokens by block stacked against the window, the threshold line, a caption and a legend."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._segments: list[BarSegment] = []
        self._window = 0
        self._threshold = 0
        self._approximate = False
        self._total: int | None = None
        self._total_note = ""
        self._label = ""
        self.setObjectName("tokenBar")
        self.setMouseTracking(True)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    # -- data --------------------------------------------------------------------------------
    def set_usage(
        self,
        segments: Sequence[BarSegment],
        *,
        window: int,
        threshold: int,
        approximate: bool = False,
        total: int | None = None,
        total_note: str = "",
        label: str = "",
    ) -> None:
        """Show ``segments`` against ``window`` with the line at ``threshold``.

        ``total`` replaces the summed segments in the caption (e.g. an estimate calibrated by what
        the provider reported); ``total_note`` says so in the tooltip. ``label`` names whose numbers
        these are at the start of the caption (e.g. ``As sent``); empty for the live projection.
        """
        self._segments = [s for s in segments if s.tokens > 0]
        self._window = max(0, int(window))
        self._threshold = max(0, int(threshold))
        self._approximate = approximate
        self._total = total
        self._total_note = total_note
        self._label = label
        self.setAccessibleDescription(self.caption())
        self.updateGeometry()
        self.update()

    def clear(self) -> None:
        """Show an empty bar."""
        self.set_usage([], window=0, threshold=0)

    @property
    def segments(self) -> list[BarSegment]:
        return list(self._segments)

    @property
    def total(self) -> int:
        """The sum of the segments (what the bar draws)."""
        return sum(s.tokens for s in self._segments)

    @property
    def shown_total(self) -> int:
        """The total the caption states (the ``total`` given to :meth:`set_usage`, else the sum)."""
        return self.total if self._total is None else self._total

    @property
    def scale(self) -> int:
        """Tokens spanned by the full bar width: the window, or the total when it overflows."""
        return max(self._window, self.total, 1)

    def caption(self) -> str:
        """The line above the bar: total against the window and the threshold."""
        if not self._window:
            return self.tr("No token counts yet")
        approx = "≈ " if self._approximate else ""
        total = self.shown_total
        pct = 100.0 * total / self._window
        share = 100.0 * self._threshold / self._window
        label = f"{self._label}: " if self._label else ""
        caption = self.tr("{total} of {window} tokens ({pct}%) · compression at {threshold} ({share}%)").format(
            total=_fmt(total),
            window=_fmt(self._window),
            pct=f"{pct:.1f}",
            threshold=_fmt(self._threshold),
            share=f"{share:.0f}",
        )
        over = self.tr(" — over the window!") if total > self._window else ""
        return f"{label}{approx}{caption}{over}"

    # -- geometry ----------------------------------------------------------------------------
    def _legend_entries(self) -> list[tuple[BarSegment, str]]:
        return [(s, f"{s.shown_name} {_fmt(s.tokens)}") for s in self._segments]

    def _legend_rows(self, width: int) -> list[list[tuple[int, BarSegment, str]]]:
        """Legend entries flowed into rows that fit ``width``: (x, segment, text)."""
        fm = QFontMetrics(self.font())
        rows: list[list[tuple[int, BarSegment, str]]] = [[]]
        x = 0
        for seg, text in self._legend_entries():
            w = SWATCH + 5 + fm.horizontalAdvance(text)
            if rows[-1] and x + w > width:
                rows.append([])
                x = 0
            rows[-1].append((x, seg, text))
            x += w + LEGEND_SPACING
        return rows if rows[0] else []

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        line = QFontMetrics(self.font()).height()
        rows = len(self._legend_rows(max(1, width)))
        return line + GAP + MARKER_ROOM + BAR_HEIGHT + 4 + (GAP + rows * (line + 2) if rows else 0)

    def sizeHint(self) -> QSize:
        return QSize(480, self.heightForWidth(480))

    def minimumSizeHint(self) -> QSize:
        return QSize(160, self.heightForWidth(160))

    def _bar_rect(self) -> QRectF:
        line = QFontMetrics(self.font()).height()
        return QRectF(0.5, line + GAP + MARKER_ROOM + 0.5, self.width() - 1.0, BAR_HEIGHT)

    def x_for(self, tokens: int) -> float:
        """The x coordinate of ``tokens`` on the bar."""
        bar = self._bar_rect()
        return bar.left() + bar.width() * min(tokens, self.scale) / self.scale

    def spans(self) -> list[tuple[float, float]]:
        """``(x0, x1)`` of each segment as drawn: to scale, but never thinner than a sliver."""
        out = []
        x = self.x_for(0)
        start = 0
        for seg in self._segments:
            x1 = max(self.x_for(start + seg.tokens), x + MIN_SEGMENT_PX)
            out.append((x, x1))
            x, start = x1, start + seg.tokens
        return out

    def segment_at(self, x: float) -> int | None:
        """Index of the segment drawn under ``x``, or ``None``."""
        for i, (x0, x1) in enumerate(self.spans()):
            if x0 <= x < x1:
                return i
        return None

    # -- painting ----------------------------------------------------------------------------
    def paintEvent(self, _event: Any) -> None:
        pal = self.palette()
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = QFontMetrics(self.font())
        text_color = pal.color(QPalette.ColorRole.WindowText)
        muted_text = pal.color(QPalette.ColorRole.PlaceholderText)

        p.setPen(text_color)
        p.drawText(QRectF(0, 0, self.width(), fm.height()), Qt.AlignmentFlag.AlignLeft, self.caption())

        bar = self._bar_rect()
        clip = QPainterPath()
        clip.addRoundedRect(bar, 4, 4)
        trough = pal.color(QPalette.ColorRole.Base if is_dark(pal) else QPalette.ColorRole.AlternateBase)
        p.fillPath(clip, trough)
        p.save()
        p.setClipPath(clip)
        colors = segment_colors(pal, len(self._segments))
        neutral = pal.color(QPalette.ColorRole.Mid)
        for seg, color, (x0, x1) in zip(self._segments, colors, self.spans(), strict=True):
            p.fillRect(QRectF(x0, bar.top(), x1 - x0, bar.height()), neutral if seg.muted else color)
        p.restore()
        p.setPen(QPen(pal.color(QPalette.ColorRole.Mid), 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(clip)

        if self._window:
            self._draw_marker(p, self.x_for(self._threshold), bar, text_color)
            if self.total > self._window:  # the window itself sits inside the bar
                self._draw_marker(p, self.x_for(self._window), bar, pal.color(QPalette.ColorRole.Highlight))

        y = bar.bottom() + 4 + GAP
        for row in self._legend_rows(self.width()):
            for x, seg, text in row:
                color = neutral if seg.muted else colors[self._segments.index(seg)]
                swatch = QRectF(x + 0.5, y + (fm.height() - SWATCH) / 2, SWATCH, SWATCH)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(color)
                p.drawRoundedRect(swatch, 2, 2)
                p.setPen(muted_text if seg.muted else text_color)
                p.drawText(QPointF(x + SWATCH + 5, y + fm.ascent()), text)
            y += fm.height() + 2
        p.end()

    def _draw_marker(self, p: QPainter, x: float, bar: QRectF, color: QColor) -> None:
        """A vertical line through the bar with a small notch above it."""
        p.setPen(QPen(color, 2))
        p.drawLine(QPointF(x, bar.top() - 3), QPointF(x, bar.bottom() + 3))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(color)
        top = bar.top() - 3
        p.drawPolygon(QPolygonF([QPointF(x - 4, top - 4), QPointF(x + 4, top - 4), QPointF(x, top)]))

    # -- tooltips ----------------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            pos = QPointF(event.pos())
            index = self.segment_at(pos.x()) if self._bar_rect().adjusted(0, -4, 0, 4).contains(pos) else None
            if index is None:
                tip = self.caption() + (f"\n{self._total_note}" if self._total_note else "")
                QToolTip.showText(event.globalPos(), tip, self)
            else:
                seg = self._segments[index]
                share = 100.0 * seg.tokens / self._window if self._window else 0.0
                lines = [
                    self.tr("{name}: {tokens} tokens ({share}% of the window)").format(
                        name=seg.shown_name, tokens=_fmt(seg.tokens), share=f"{share:.1f}"
                    )
                ]
                if seg.detail:
                    lines.append(seg.detail)
                QToolTip.showText(event.globalPos(), "\n".join(lines), self)
            return True
        return super().event(event)
