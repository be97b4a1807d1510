"""Render ``resources/icons/okbot.svg`` to the PNG sizes desktops ask for (``okbot-<size>.png``).

Run it after editing the SVG: ``QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icons.py``.
The PNGs are committed, so neither the wheel nor ``make package`` needs this script.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICONS_DIR = Path(__file__).resolve().parents[1] / "resources" / "icons"


def render_icons(svg: Path, out_dir: Path, sizes: tuple[int, ...] = ICON_SIZES) -> list[Path]:
    """Render ``svg`` to square ARGB PNGs ``okbot-<size>.png`` in ``out_dir``; return their paths."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {svg}")
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        target = out_dir / f"okbot-{size}.png"
        if not image.save(str(target), "PNG"):
            raise SystemExit(f"cannot write {target}")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: render every size next to the SVG (or into ``--out``)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--svg", type=Path, default=ICONS_DIR / "okbot.svg")
    parser.add_argument("--out", type=Path, default=ICONS_DIR)
    args = parser.parse_args(argv)
    for path in render_icons(args.svg, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
