"""Thumbnails of the images sent with a message, read from the chat's own copies on a pool thread.

A user item's attachment records name their copies relative to the chat's folder
(:mod:`okbot.core.attachments`). :func:`read_thumbnails` decodes each image at most
:data:`THUMB_MAX` in size (``QImageReader.setScaledSize``: a large image is never decoded whole),
keeping its aspect. It does file I/O and decoding, so it runs off the GUI thread; ``QImage`` may be
made there and painted on the GUI thread. A copy that is missing, outside the chat's folder or not
decodable has no thumbnail: the bubble keeps its text line for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage, QImageReader

THUMB_MAX = (160, 120)  # a thumbnail fits this box (width, height), its aspect kept


def image_records(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The copies' paths (relative to the chat's folder) of the images among ``records``."""
    return [str(r["path"]) for r in records if r.get("kind") == "image" and isinstance(r.get("path"), str)]


def read_thumbnails(chat_dir: Path, paths: Iterable[str]) -> dict[str, QImage]:
    """Each readable image among ``paths`` (relative to ``chat_dir``) as a thumbnail, by its path."""
    found: dict[str, QImage] = {}
    folder = chat_dir.resolve()
    for relative in paths:
        source = (folder / relative).resolve()
        if not source.is_relative_to(folder):  # a record never points out of its chat
            continue
        image = read_thumbnail(source)
        if image is not None:
            found[relative] = image
    return found


def read_thumbnail(source: Path) -> QImage | None:
    """``source`` decoded to fit :data:`THUMB_MAX` (None when it is missing or not an image)."""
    reader = QImageReader(str(source))
    reader.setAutoTransform(True)
    size = reader.size()
    if not size.isValid() or size.isEmpty():
        return None
    box = QSize(*THUMB_MAX)
    if size.width() > box.width() or size.height() > box.height():
        reader.setScaledSize(size.scaled(box, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    return None if image.isNull() else image
