"""Files waiting to go with the next message: a row of removable chips above the composer's box.

A chip reads ``name · size · ≈tokens`` (an image's cost by OpenAI's tile formula, a text file's by
its size, four bytes a token). Files are only looked at here (their size, an image's header, and
the file tools' guard, and its first and last bytes: OkBot's own data and keys, a binary file and a
damaged image are refused when added): the turn reads and checks them whole off the GUI thread, and
refuses what cannot be sent before anything is written. An image
larger than the models take (2048 pixels on its longest side) is scaled down with QImage into a
temporary copy first, so the chat keeps and sends the smaller file; a pasted image is saved the
same way.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QSize, Qt, Signal
from PySide6.QtGui import QImage, QImageReader, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QScrollArea, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from okbot.core import attachments
from okbot.core.attachments import human_size, image_tokens, safe_name
from okbot.storage.errors import OkBotError
from okbot.ui.elided_label import ElidedLabel

CHIP_MIN_CHARS, CHIP_MAX_CHARS = 14, 40  # a chip's text shrinks to this many average characters, grows to that
MAX_IMAGE_SIDE = 2048  # OpenAI fits images in 2048×2048 before counting tiles; a larger one is wasted bytes
_temp_dir: Path | None = None


def _scratch() -> Path:
    """One temporary folder per run for scaled-down and pasted images (the turn copies them into the chat)."""
    global _temp_dir
    if _temp_dir is None:
        _temp_dir = Path(tempfile.mkdtemp(prefix="okbot-attach-"))
    return _temp_dir


def image_size(path: Path) -> QSize | None:
    """An image's size from its header (None when Qt cannot read it as an image)."""
    reader = QImageReader(str(path))
    size = reader.size() if reader.canRead() else QSize()
    return size if size.isValid() else None


def downscaled(path: Path) -> Path:
    """``path``, or a copy scaled down to fit MAX_IMAGE_SIDE when it is an image larger than that."""
    size = image_size(path)
    if size is None or max(size.width(), size.height()) <= MAX_IMAGE_SIDE:
        return path
    image = QImage(str(path))
    if image.isNull():
        return path
    scaled = image.scaled(
        MAX_IMAGE_SIDE, MAX_IMAGE_SIDE, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
    )
    jpeg = path.suffix.lower() in (".jpg", ".jpeg")
    out = _scratch() / f"{path.stem}-{scaled.width()}x{scaled.height()}{'.jpg' if jpeg else '.png'}"
    return out if scaled.save(str(out), "JPEG" if jpeg else "PNG", 90 if jpeg else -1) else path


def save_pasted(image: QImage) -> Path | None:
    """A pasted image saved as PNG (scaled down when larger than MAX_IMAGE_SIDE), or None when empty."""
    if image.isNull():
        return None
    if max(image.width(), image.height()) > MAX_IMAGE_SIDE:
        image = image.scaled(
            MAX_IMAGE_SIDE,
            MAX_IMAGE_SIDE,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    out = _scratch() / f"pasted-{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns() % 1000:03d}.png"
    return out if image.save(str(out), "PNG") else None


def chip_cost(path: Path) -> int | None:
    """About how many tokens ``path`` adds to the request (None: not known before it is read, a PDF)."""
    image = image_size(path)
    if image is not None:
        return image_tokens(image.width(), image.height())
    if path.suffix.lower() == ".pdf":  # its text is read when it is sent; its size says little about it
        return None
    return max(1, path.stat().st_size // 4)


def chip_text(path: Path) -> str:
    """``notes.md · 4.2 KB · ≈1,075 tokens`` (images: ``cat.png · 800×600 · 120.3 KB · ≈765 tokens``,
    PDFs: ``paper.pdf · PDF · 1.2 MB``)."""
    size, cost, image = path.stat().st_size, chip_cost(path), image_size(path)
    if cost is None:
        return f"{safe_name(path.name)} · PDF · {human_size(size)}"
    tokens = QCoreApplication.translate("AttachmentChips", "≈{n} tokens").format(n=f"{cost:,}")
    if image is not None:
        return f"{safe_name(path.name)} · {image.width()}×{image.height()} · {human_size(size)} · {tokens}"
    return f"{safe_name(path.name)} · {human_size(size)} · {tokens}"


class AttachmentChips(QWidget):
    """The chips of the files to send; hidden while there are none. ``changed`` after every add or removal.

    The chips sit in one row that scrolls sideways when they do not fit, so the row never asks the
    window for more width (it would take it from the sidebar); a chip's text is elided ("…") to its
    room, the file's whole name and size in its tooltip. An image chip says so when the chat's model
    cannot read images (:meth:`set_model`), before sending.
    """

    changed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChips")
        self._paths: list[Path] = []
        self._labels: dict[Path, tuple[ElidedLabel, str]] = {}  # an image's chip label and its plain text
        self._tips: dict[Path, str] = {}  # each chip's tooltip: the whole name, its size
        self._no_images = ""  # the model's name when it cannot read images
        self._scrolls = False  # the chips are wider than the row: it scrolls sideways
        self._row = QWidget()
        self._row.setObjectName("attachmentChipRow")
        self._layout = QHBoxLayout(self._row)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self._scroll = QScrollArea(self)
        self._scroll.setObjectName("attachmentChipScroll")
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setWidgetResizable(True)
        self._scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self._scroll.setWidget(self._row)
        self._scroll.horizontalScrollBar().rangeChanged.connect(self._on_scroll_bar_range_changed)
        self._scroll.viewport().setAutoFillBackground(False)
        self._row.setAutoFillBackground(False)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self._scroll)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.hide()

    @property
    def paths(self) -> list[Path]:
        return list(self._paths)

    def pending_tokens(self) -> int:
        """About how many tokens the files waiting here add to the next request (the gauge shows them)."""
        total = 0
        for path in self._paths:
            try:
                total += chip_cost(path) or 0
            except OSError:
                continue
        return total

    def add(self, path: Path) -> str:
        """Add ``path`` (an image larger than the models take is scaled down first); "" or why it was not added.

        Refused here, when it is added, with the good files kept: a file OkBot never attaches (its own data,
        its keys, by any name), one too large, a binary file and a damaged image
        (:func:`okbot.core.attachments.check_head`, which reads only the file's first and last bytes).
        """
        path = Path(path)
        try:
            attachments.check_head(path)  # its first and last bytes: a binary file or a damaged image is refused now
        except OkBotError as exc:
            return str(exc)
        try:
            shown_name, size = path.name, path.stat().st_size
            path = downscaled(path)
            text = chip_text(path)
        except OSError as exc:
            return self.tr("{name} cannot be read: {error}").format(name=path.name, error=exc.strerror or exc)
        if path in self._paths:
            return ""
        self._paths.append(path)
        self._tips[path] = f"{shown_name} · {human_size(size)}\n{path.parent}"
        self._layout.insertWidget(self._layout.count() - 1, self._chip(path, text, image_size(path) is not None))
        self.show()
        self.updateGeometry()
        self.changed.emit()
        return ""

    def clear(self) -> None:
        for path in list(self._paths):
            self.remove(path)

    def remove(self, path: Path) -> None:
        if path not in self._paths:
            return
        index = self._paths.index(path)
        self._paths.pop(index)
        self._labels.pop(path, None)
        self._tips.pop(path, None)
        item = self._layout.takeAt(index)
        if item is not None and item.widget() is not None:
            item.widget().deleteLater()
        self.setVisible(bool(self._paths))
        self.updateGeometry()
        self.changed.emit()

    def set_model(self, model: str, vision: bool) -> None:
        """The chat's model: image chips warn when it cannot read them."""
        self._no_images = "" if vision else model
        for path, (label, text) in self._labels.items():
            self._show(path, label, text)

    def _on_scroll_bar_range_changed(self, _low: int, high: int) -> None:
        """The chips got wider than the row (or fit again): make room for the scroll bar under them (or not)."""
        scrolls = high > 0
        if scrolls != self._scrolls:
            self._scrolls = scrolls
            self.updateGeometry()

    def sizeHint(self) -> QSize:
        """As tall as a chip, and the sideways scroll bar when the chips are wider than the row; no width asked."""
        height = self._row.sizeHint().height()
        if self._scrolls:
            height += self._scroll.horizontalScrollBar().sizeHint().height()
        return QSize(0, height)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def _show(self, path: Path, label: ElidedLabel, text: str) -> None:
        """An image chip's text: warned (its middle elided, so the warning stays in view) when the model cannot
        read images."""
        metrics = label.fontMetrics()
        # the warning is longer than a chip: it may take more of the row
        label.setMaximumWidth(metrics.averageCharWidth() * (CHIP_MAX_CHARS * 2 if self._no_images else CHIP_MAX_CHARS))
        if self._no_images:
            label.set_elide_mode(Qt.TextElideMode.ElideMiddle)
            label.setText(self.tr("⚠ {chip} · {model} cannot read images").format(chip=text, model=self._no_images))
            label.set_tip(
                self._tips.get(path, "")
                + "\n"
                + self.tr("Remove the image or pick a vision model; sending with it is refused")
            )
        else:
            label.set_elide_mode(Qt.TextElideMode.ElideRight)
            label.setText(text)
            label.set_tip(self._tips.get(path, ""))

    def _chip(self, path: Path, text: str, image: bool) -> QFrame:
        chip = QFrame(self._row)
        chip.setObjectName("attachmentChip")
        chip.setFrameShape(QFrame.Shape.StyledPanel)
        chip.setAutoFillBackground(True)  # a chip stands out of the composer's box in dark themes too
        chip.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        row = QHBoxLayout(chip)
        row.setContentsMargins(8, 2, 2, 2)
        row.setSpacing(2)
        label = ElidedLabel(text, chip)
        label.setObjectName("attachmentChipText")
        metrics = label.fontMetrics()
        label.setMinimumWidth(min(label.sizeHint().width(), metrics.averageCharWidth() * CHIP_MIN_CHARS))
        label.setMaximumWidth(metrics.averageCharWidth() * CHIP_MAX_CHARS)
        label.set_tip(self._tips.get(path, ""))
        if image:
            self._labels[path] = (label, text)
            self._show(path, label, text)
        remove = QToolButton(chip)
        remove.setObjectName("removeAttachment")
        remove.setText("✕")
        remove.setAutoRaise(True)
        remove.setToolTip(self.tr("Remove {name}").format(name=path.name))
        remove.setAccessibleName(self.tr("Remove {name}").format(name=path.name))
        remove.clicked.connect(lambda: self.remove(path))
        row.addWidget(label, 1)
        row.addWidget(remove)
        return chip
