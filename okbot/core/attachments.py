"""Files attached to a user message: what is read, where the copy lives, how the model receives it.

:func:`attach` reads a file the user picked, refuses what OkBot cannot send (a binary file, a file too
large), copies it into the chat's folder (``<chat>/attachments/<sha256 prefix>-<name>``, written
atomically) and returns its record: ``name``, ``kind`` (``text`` | ``pdf`` | ``image``), ``size``
(bytes), ``sha256``, ``path`` (the copy, relative to the chat's folder), and for text and PDFs
``chars`` (the whole text's length), for PDFs ``pages`` and ``textPath`` (the text pypdf extracted,
at most :data:`TEXT_CAP_CHARS` characters, kept beside the copy so a send never parses the PDF
again; read in a bounded child process, :mod:`okbot.core.pdf_text`, and when not all of it was read,
``pagesRead``, ``pagesSkipped`` and ``stopped`` say what was not), for images ``width``, ``height``
and ``mime``. The user item carries these records under ``attachments``; the bytes never enter
``session.jsonl``.

The file to attach is opened under the file tools' guard (:mod:`okbot.core.attach_guard`): OkBot's
own data and keys are never attached, by any name.

At send time :class:`AttachmentView` reads the copy back: a text file becomes text after the
message (at most :data:`TEXT_CAP_CHARS` characters between an app-written start and end line,
:func:`frame`, then a note of what was cut), an
image becomes an ``image_url`` part (a ``data:`` URL) when the model takes images and a line saying
it was not sent otherwise. Its token count uses OpenAI's tile formula, so the gauge shows an image's
cost before sending.

Images are not decoded here (the core has no image library: Pillow is not a dependency and Qt stays
in ``okbot/ui``): their size is read from the PNG, JPEG, GIF or WebP header and the original is
sent; providers scale images down to their own limit, and the token cost is computed for that size.
"""

from __future__ import annotations

import base64
import codecs
import hashlib
import math
import os
import re
import struct
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from okbot.core import attach_guard
from okbot.core.pdf_text import PAGE_CONTENT_BYTES, SECONDS, read_pdf
from okbot.i18n import translate
from okbot.storage import paths
from okbot.storage.atomic import atomic_write_bytes
from okbot.storage.errors import OkBotError

ATTACHMENTS_DIR = "attachments"
TEXT_CAP_CHARS = 100_000  # characters of a text file the model receives; the rest is cut, with a note
MAX_FILE_BYTES = 20 * 1024 * 1024  # OpenAI's limit for one image; a text file beyond it is not a message
_SNIFF_BYTES = 8192
_UNSAFE_NAME = re.compile(r"[^\w.\- ]+", re.UNICODE)
_FRAME_TAG_CHARS = 16  # of the file's SHA-256 in its end line: 64 bits no file can hold of its own hash
_IMAGE_MIMES = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
_IMAGE_SIGNATURES = {"png": b"\x89PNG\r\n\x1a\n", "jpeg": b"\xff\xd8\xff", "gif": b"GIF8", "webp": b"RIFF"}
_IMAGE_SUFFIXES = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".gif": "gif", ".webp": "webp"}
_FORMAT_NAMES = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF", "webp": "WebP"}
_PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # the IEND chunk every whole PNG ends with
HEAD_BYTES = 64 * 1024  # what is read of a file when it is added (a JPEG's size may follow 60 KB of metadata)
_TAIL_BYTES = 1024


# ---------------------------------------------------------------------------- reading a file
@dataclass(frozen=True)
class Prepared:
    """A file read and checked, not yet copied: its record and its bytes."""

    record: dict[str, Any]
    data: bytes
    text: str = ""  # a PDF's extracted text, capped (stored beside the copy)


def prepare(source: Path) -> Prepared:
    """Read and check ``source``; :class:`OkBotError` for a missing, unreadable, too large or binary file."""
    source = Path(source)
    data = _read(source)
    name = safe_name(source.name)
    sha = hashlib.sha256(data).hexdigest()
    record: dict[str, Any] = {"name": name, "kind": "", "size": len(data), "sha256": sha}
    record["path"] = f"{ATTACHMENTS_DIR}/{sha[:12]}-{name}"
    kind = sniff(data, data[-_TAIL_BYTES:], len(data), source.name)
    extracted = ""
    if kind == "image":
        fmt, width, height = image_info(data) or ("", 0, 0)  # sniff read this header
        record.update(kind="image", mime=_IMAGE_MIMES[fmt], width=width, height=height)
    elif kind == "pdf":
        extracted, fields = pdf_text(data, source.name)
        record.update(kind="pdf", **fields, textPath=record["path"] + ".txt")
    else:
        text = decode_text(data, source.name)
        record.update(kind="text", chars=len(text))
    return Prepared(record, data, extracted)


def check_head(source: Path) -> str:
    """What attaching ``source`` would make of it (``text``, ``pdf`` or ``image``), judged when it is added.

    Only the file's first :data:`HEAD_BYTES` and last bytes are read (under the guard, like :func:`prepare`),
    so a large file costs no more than a small one: it raises what :func:`prepare` would for a protected,
    missing, too large or binary file and for a damaged image. A PDF's text and a text file's whole
    encoding are judged only when it is sent.
    """
    source = Path(source)
    fd, st = attach_guard.open_source(source)
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > MAX_FILE_BYTES:
            raise _too_large(source, st.st_size)
        try:
            head = fh.read(HEAD_BYTES)
            fh.seek(max(0, st.st_size - _TAIL_BYTES))
            tail = fh.read(_TAIL_BYTES)
        except OSError as exc:
            raise attach_guard.unreadable(source, exc) from exc
    kind = sniff(head, tail, st.st_size, source.name)
    if kind == "text":
        decode_text(head, source.name, whole=len(head) >= st.st_size)
    return kind


def sniff(head: bytes, tail: bytes, size: int, name: str) -> str:
    """``image``, ``pdf`` or ``text`` for a file of ``size`` bytes that starts with ``head`` and ends with ``tail``.

    A file that starts like a PNG, JPEG, GIF or WebP image, or is named like one, must be a whole image
    (its header read, its end where the format puts it), or it is refused as a damaged image: it would
    be neither text nor anything a model could see. Whether other files are text is for :func:`decode_text`.
    """
    fmt = _image_format(head) or _IMAGE_SUFFIXES.get(Path(name).suffix.lower(), "")
    if not fmt:
        return "pdf" if head.startswith(b"%PDF") else "text"
    found = image_info(head)
    # a JPEG's size may come after more metadata than the head holds: then only its end is judged here
    unread = found is None and fmt == "jpeg" and len(head) < size and head.startswith(_IMAGE_SIGNATURES["jpeg"])
    if (
        (found is None and not unread)
        or (found is not None and found[0] != fmt)
        or not _ends_whole(fmt, head, tail, size)
    ):
        raise OkBotError(
            translate("attachments", "{name} is a damaged image: it cannot be read as {format}").format(
                name=name, format=_FORMAT_NAMES[fmt]
            ),
            hint=translate("attachments", "open it in an image viewer and save it again, or attach another copy"),
        )
    return "image"


def _image_format(head: bytes) -> str:
    """The image format ``head`` starts like ("" for none), before its header is checked."""
    for fmt, signature in _IMAGE_SIGNATURES.items():
        if head.startswith(signature) and (fmt != "webp" or head[8:12] == b"WEBP"):
            return fmt
    return ""


def _ends_whole(fmt: str, head: bytes, tail: bytes, size: int) -> bool:
    """Whether an image of ``fmt`` ends where its format says (not cut short after its header)."""
    if fmt == "png":
        return tail.endswith(_PNG_END)
    if fmt == "jpeg":
        return b"\xff\xd9" in tail  # the end-of-image marker (some cameras pad after it)
    if fmt == "gif":
        return tail.rstrip(b"\x00").endswith(b";")  # the trailer
    return int.from_bytes(head[4:8], "little") + 8 <= size  # WebP: the RIFF size the file declares


def prepared_tokens(counter: Any, prepared: Prepared) -> int:
    """What a prepared file will add to the request (before it is copied): its capped text, or its image cost."""
    record = prepared.record
    if record["kind"] == "image":
        return image_tokens(record["width"], record["height"])
    text = prepared.text if record["kind"] == "pdf" else decode_text(prepared.data, record["name"])[:TEXT_CAP_CHARS]
    return counter.count_text(text)


def save(prepared: Prepared, chat_dir: Path) -> dict[str, Any]:
    """Copy a prepared file into ``chat_dir/attachments/`` (atomically) and return its record."""
    _store(chat_dir / prepared.record["path"], prepared.data)
    if "textPath" in prepared.record:
        _store(chat_dir / prepared.record["textPath"], prepared.text.encode("utf-8"))
    return prepared.record


def attach(source: Path, chat_dir: Path) -> dict[str, Any]:
    """Read ``source``, copy it into ``chat_dir/attachments/`` and return its record (nothing copied on error)."""
    return save(prepare(source), chat_dir)


def _read(source: Path) -> bytes:
    """The bytes of ``source``, read under the file tools' guard (see :mod:`okbot.core.attach_guard`)."""
    fd, st = attach_guard.open_source(source)
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > MAX_FILE_BYTES:
            raise _too_large(source, st.st_size)
        try:
            data = fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise attach_guard.unreadable(source, exc) from exc
    if len(data) > MAX_FILE_BYTES:  # it grew after the fstat
        raise _too_large(source, len(data))
    return data


def _too_large(source: Path, size: int) -> OkBotError:
    return OkBotError(
        translate("attachments", "{name} is {size}; OkBot attaches files of at most {limit}").format(
            name=source.name, size=human_size(size), limit=human_size(MAX_FILE_BYTES)
        ),
        hint=translate("attachments", "attach a smaller file or the part that matters"),
    )


def _store(path: Path, data: bytes) -> None:
    """Write the copy once (its name holds its hash, so an existing copy is the same file)."""
    if path.is_file() and path.stat().st_size == len(data):
        return
    try:
        paths.ensure_private_dir(path.parent)
        atomic_write_bytes(path, data)
    except OSError as exc:
        raise OkBotError(
            translate("attachments", "the attachment could not be copied to {path}: {error}").format(
                path=path, error=exc.strerror or exc
            )
        ) from exc


def safe_name(name: str) -> str:
    """``name`` reduced to a file name every platform accepts (no folders, no odd characters)."""
    cleaned = _UNSAFE_NAME.sub("_", Path(name).name).strip(" .")
    return cleaned[:120] or "file"


def decode_text(data: bytes, name: str, *, whole: bool = True) -> str:
    """The text of a file, or :class:`OkBotError` when it is not text (a NUL byte, not UTF-8 / UTF-16).

    ``whole=False``: ``data`` is only the file's start, which may end inside a character.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return codecs.getincrementaldecoder("utf-16")().decode(data, final=whole)
        except UnicodeDecodeError:
            pass
    elif b"\x00" not in data[:_SNIFF_BYTES]:
        try:
            return codecs.getincrementaldecoder("utf-8-sig")().decode(data, final=whole)
        except UnicodeDecodeError:
            pass
    raise OkBotError(
        translate(
            "attachments",
            "{name} is a binary file; OkBot attaches text files (UTF-8 text, code, Markdown), PDFs and images "
            "(PNG, JPEG, GIF, WebP)",
        ).format(name=name),
        hint=translate("attachments", "paste the part you need as text, or attach a text export of it"),
    )


def pdf_text(data: bytes, name: str) -> tuple[str, dict[str, Any]]:
    """``(text, record fields)`` of a PDF, read by :func:`okbot.core.pdf_text.read_pdf` (bounded by time,
    memory and :data:`TEXT_CAP_CHARS`); :class:`OkBotError` for one that cannot be read or yields no text."""
    read = read_pdf(data, TEXT_CAP_CHARS)
    if read.encrypted:
        raise OkBotError(
            translate("attachments", "{name} is a password-protected PDF").format(name=name),
            hint=translate("attachments", "attach an unprotected copy or its text"),
        )
    if read.error and not read.text:
        raise OkBotError(
            translate("attachments", "{name} cannot be read as a PDF ({error})").format(name=name, error=read.error),
            hint=translate("attachments", "attach a text export of it"),
        )
    if not read.text and read.stopped == "time":
        raise OkBotError(
            translate("attachments", "{name}: no text could be read from it within {seconds} s").format(
                name=name, seconds=f"{SECONDS:g}"
            ),
            hint=translate("attachments", "attach a text export of it"),
        )
    if not read.text and read.skipped:
        raise OkBotError(
            translate(
                "attachments", "{name}: its pages hold too much to read (over {size} of drawing instructions each)"
            ).format(name=name, size=human_size(PAGE_CONTENT_BYTES)),
            hint=translate("attachments", "attach a text export of it"),
        )
    if not read.text:
        raise OkBotError(
            translate("attachments", "{name} holds no text OkBot can read (a scanned PDF?)").format(name=name),
            hint=translate("attachments", "attach its pages as images instead"),
        )
    fields: dict[str, Any] = {"pages": read.pages, "chars": len(read.text)}
    stopped = read.stopped or ("error" if read.error else "")
    if read.read < read.pages or stopped:
        fields.update(pagesRead=read.read, pagesSkipped=read.skipped, stopped=stopped)
    return read.text, fields


def image_info(data: bytes) -> tuple[str, int, int] | None:
    """``(format, width, height)`` read from a PNG, JPEG, GIF or WebP header, or None for other data."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return "png", width, height
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return "gif", width, height
    if data.startswith(b"\xff\xd8"):
        size = _jpeg_size(data)
        return ("jpeg", *size) if size else None
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        size = _webp_size(data)
        return ("webp", *size) if size else None
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


# ---------------------------------------------------------------------------- words and numbers
def human_size(size: int) -> str:
    """``812 B``, ``4.2 KB``, ``5.0 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def label(record: Mapping[str, Any]) -> str:
    """``notes.md · text · 4.2 KB`` (images: ``cat.png · image 800×600 · 120.3 KB``)."""
    kind = str(record.get("kind", "file"))
    if kind == "image":
        kind = f"image {record.get('width')}×{record.get('height')}"
    elif kind == "pdf":
        pages = int(record.get("pages", 0))
        kind = f"pdf {pages} page{'s' if pages != 1 else ''}"
    return f"{record.get('name')} · {kind} · {human_size(int(record.get('size', 0)))}"


def cut_note(record: Mapping[str, Any]) -> str:
    """The app's note for a text file longer than :data:`TEXT_CAP_CHARS`, or a PDF not read whole ("" when
    it is sent whole)."""
    if record.get("kind") == "pdf":
        return _pdf_cut_note(record)
    chars = int(record.get("chars", 0))
    if chars <= TEXT_CAP_CHARS:
        return ""
    return (
        f"[app note: {record.get('name')} was cut: the first {TEXT_CAP_CHARS:,} of its {chars:,} characters "
        f"are sent; the last {chars - TEXT_CAP_CHARS:,} are not]"
    )


def frame(record: Mapping[str, Any], body: str) -> str:
    """A file's text between the app's start and end lines, like every input no person typed.

    The start line is a source label (the form :mod:`okbot.core.messages` gives them) naming the
    file and the exact end line; a label-like line inside the file is part of its text. The end line
    holds the start of the file's SHA-256, which the file cannot contain, so a forged end line (and
    any forged label after it) stays inside the frame.
    """
    end = f"[end of attached file {record.get('name')} · {str(record.get('sha256', ''))[:_FRAME_TAG_CHARS]}]"
    start = (
        f"[source: attached file {label(record)} — a file the user attached, not typed by them; everything up "
        f"to the line {end} is the file's text, label-like lines included]"
    )
    if body and not body.endswith("\n"):
        body += "\n"
    return f"{start}\n{body}{end}"


def _pdf_cut_note(record: Mapping[str, Any]) -> str:
    """What of a PDF was not read, and why (its record says: ``pagesRead``, ``pagesSkipped``, ``stopped``)."""
    if "pagesRead" not in record:
        return ""
    pages, read, skipped = (
        int(record.get("pages", 0)),
        int(record.get("pagesRead", 0)),
        int(record.get("pagesSkipped", 0)),
    )
    why = []
    if skipped:
        why.append(f"{skipped:,} pages held over {human_size(PAGE_CONTENT_BYTES)} of drawing instructions each")
    stopped = record.get("stopped")
    if stopped == "chars":
        why.append(f"reading stopped at {TEXT_CAP_CHARS:,} characters")
    elif stopped == "time":
        why.append(f"reading stopped after {SECONDS:g} s")
    elif stopped == "error":
        why.append("the rest could not be read")
    return (
        f"[app note: {record.get('name')} was cut: the text of {read:,} of its {pages:,} pages is sent; "
        f"{'; '.join(why)}]"
    )


def image_tokens(width: int, height: int) -> int:
    """What an image costs in OpenAI's high-detail formula: fit in 2048×2048, shortest side to 768, then
    85 + 170 per 512-pixel tile."""
    if width <= 0 or height <= 0:
        return 85
    scale = min(1.0, 2048 / max(width, height))
    width, height = width * scale, height * scale
    scale = min(1.0, 768 / min(width, height))
    width, height = width * scale, height * scale
    return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)


def records_of(item: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The attachment records of a user item (none for other items and for items written before them)."""
    found = item.get("attachments") if item.get("type") == "user" else None
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def digest(item: Mapping[str, Any]) -> str:
    """``[attached: a.md · text · 4.2 KB; cat.png · image 800×600 · 120.3 KB]`` ("" without attachments)."""
    records = records_of(item)
    return f"[attached: {'; '.join(label(r) for r in records)}]" if records else ""


def attachment_line(item: Mapping[str, Any], shown: Collection[str] = ()) -> str:
    """What a chat bubble shows under the message: ``Attached: notes.md (4.2 KB), cat.png (120.3 KB)`` ("" for none).

    ``shown``: the copies (record paths) the bubble shows as themselves (an image's thumbnail), left out here.
    """
    records = [r for r in records_of(item) if r.get("path") not in shown]
    if not records:
        return ""
    return "Attached: " + ", ".join(f"{r.get('name')} ({human_size(int(r.get('size', 0)))})" for r in records)


def needs_vision(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The names of the images among ``records``."""
    return [str(r.get("name")) for r in records if r.get("kind") == "image"]


# ---------------------------------------------------------------------------- the wire
_TEXT_CACHE: OrderedDict[Path, str] = OrderedDict()
_TEXT_CACHE_SLOTS = 16
_TEXT_LOCK = threading.Lock()


@dataclass(frozen=True)
class AttachmentView:
    """Reads a chat's attachment copies back for one request: its text, its image parts, their tokens.

    ``vision``: whether the request's model takes images (otherwise an image becomes a line saying so).
    """

    chat_dir: Path
    vision: bool

    def text_of(self, record: Mapping[str, Any]) -> str:
        """A text attachment as the model reads it, framed by the app (:func:`frame`), then its cut note."""
        body = self._capped_text(record)
        if body is None:
            return f"[app note: the copy of {record.get('name')} is missing from the chat's folder]"
        return "\n".join(part for part in (frame(record, body), cut_note(record)) if part)

    def _capped_text(self, record: Mapping[str, Any]) -> str | None:
        """At most TEXT_CAP_CHARS characters of the file's text (None when its copy is missing)."""
        path = self._path(record, "textPath" if record.get("kind") == "pdf" else "path")
        with _TEXT_LOCK:
            if path in _TEXT_CACHE:
                _TEXT_CACHE.move_to_end(path)
                return _TEXT_CACHE[path]
        try:
            text = decode_text(path.read_bytes(), str(record.get("name")))[:TEXT_CAP_CHARS]
        except (OSError, OkBotError):
            return None
        with _TEXT_LOCK:
            _TEXT_CACHE[path] = text
            if len(_TEXT_CACHE) > _TEXT_CACHE_SLOTS:
                _TEXT_CACHE.popitem(last=False)
        return text

    def image_part(self, record: Mapping[str, Any]) -> dict[str, Any] | None:
        """The ``image_url`` part of an image (None when its copy is missing)."""
        try:
            data = self._path(record).read_bytes()
        except OSError:
            return None
        url = f"data:{record.get('mime', 'image/png')};base64,{base64.b64encode(data).decode('ascii')}"
        return {"type": "image_url", "image_url": {"url": url}}

    def _path(self, record: Mapping[str, Any], key: str = "path") -> Path:
        # only a name inside the chat's attachments folder: a record cannot point anywhere else
        return self.chat_dir / ATTACHMENTS_DIR / Path(str(record.get(key, ""))).name

    def content(self, item: Mapping[str, Any], text: str) -> str | list[dict[str, Any]]:
        """A user item's wire content: ``text`` with its text files appended, and its images as parts."""
        pieces, parts = [text] if text else [], []
        for record in records_of(item):
            if record.get("kind") != "image":
                pieces.append(self.text_of(record))
                continue
            part = self.image_part(record) if self.vision else None
            if part is None:
                why = "this model cannot read images" if not self.vision else "its copy is missing"
                pieces.append(f"[attached image: {label(record)} — not sent: {why}]")
            else:
                parts.append(part)
        joined = "\n\n".join(pieces)
        if not parts:
            return joined
        return [{"type": "text", "text": joined}, *parts] if joined else parts

    def tokens(self, counter: Any, item: Mapping[str, Any]) -> int:
        """What ``item``'s attachments add to its tokens (the text files and the images as sent)."""
        total = 0
        for record in records_of(item):
            if record.get("kind") == "image" and self.vision:
                total += image_tokens(int(record.get("width", 0)), int(record.get("height", 0)))
            elif record.get("kind") == "image":
                total += counter.count_text(f"\n\n[attached image: {label(record)} — not sent: x]")
            else:
                total += counter.count_text("\n\n" + self.text_of(record))
        return total
