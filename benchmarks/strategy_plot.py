"""A grouped bar chart as a PNG, drawn with Qt (already a dependency; no plotting library needed)."""

from __future__ import annotations

import os
from pathlib import Path

COLOURS = ["#3b7dd8", "#2e9d5b", "#d08a2c", "#8a5cc2"]


def bars(path: Path, title: str, groups: list[str], series: dict[str, list[float]]) -> Path:
    """One group of bars per entry of ``groups``, one bar per series (values 0..1), labelled with the value."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter, QPen

    _app = QGuiApplication.instance() or QGuiApplication([])
    width, height = 1100, 520
    left, right, top, bottom = 70, 30, 70, 90
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    font = QFont()
    font.setPixelSize(15)
    p.setFont(font)
    p.setPen(QColor("#222"))
    p.drawText(QRectF(0, 10, width, 30), Qt.AlignmentFlag.AlignCenter, title)
    plot_w, plot_h = width - left - right, height - top - bottom
    p.setPen(QPen(QColor("#ccc"), 1))
    small = QFont(font)
    small.setPixelSize(12)
    p.setFont(small)
    for i in range(6):
        y = top + plot_h * (1 - i / 5)
        p.setPen(QPen(QColor("#e2e2e2"), 1))
        p.drawLine(left, int(y), width - right, int(y))
        p.setPen(QColor("#555"))
        p.drawText(QRectF(0, y - 8, left - 8, 16), Qt.AlignmentFlag.AlignRight, f"{i / 5:.1f}")
    names = list(series)
    group_w = plot_w / max(1, len(groups))
    bar_w = group_w * 0.8 / max(1, len(names))
    for g, label in enumerate(groups):
        x0 = left + g * group_w + group_w * 0.1
        for k, name in enumerate(names):
            value = max(0.0, min(1.0, series[name][g]))
            h = plot_h * value
            rect = QRectF(x0 + k * bar_w, top + plot_h - h, bar_w - 4, h)
            p.fillRect(rect, QColor(COLOURS[k % len(COLOURS)]))
            p.setPen(QColor("#333"))
            p.drawText(QRectF(rect.x() - 6, rect.y() - 18, bar_w + 8, 16), Qt.AlignmentFlag.AlignCenter, f"{value:.2f}")
        p.setFont(font)
        p.setPen(QColor("#222"))
        p.drawText(QRectF(left + g * group_w, top + plot_h + 8, group_w, 20), Qt.AlignmentFlag.AlignCenter, label)
        p.setFont(small)
    for k, name in enumerate(names):
        x = left + k * 300
        y = height - 40
        p.fillRect(QRectF(x, y, 14, 14), QColor(COLOURS[k % len(COLOURS)]))
        p.setPen(QColor("#222"))
        p.drawText(QRectF(x + 20, y - 2, 280, 18), Qt.AlignmentFlag.AlignLeft, name)
    p.end()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(path), "PNG"):
        raise OSError(f"could not write {path}")
    return path
