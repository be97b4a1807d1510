"""PDFs built with pypdf itself for tests of bounded reading."""

from __future__ import annotations

import io

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

HOSTILE_STREAM = b"BT /F1 12 Tf 10 10 Td " + b"(ab) Tj " * 950_000 + b"ET"  # 7.6 MB, 1.9M tokens


def shared_stream_pdf(pages: int, stream: bytes, first: bytes | None = None) -> bytes:
    """A PDF whose pages all draw the same content stream (``first``: page 1 draws its own)."""
    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )

    def content(data: bytes):
        obj = DecodedStreamObject()
        obj.set_data(data)
        return writer._add_object(obj.flate_encode())

    shared = content(stream)
    for number in range(pages):
        page = writer.add_blank_page(200, 200)
        fonts = DictionaryObject({NameObject("/F1"): font})
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
        page[NameObject("/Contents")] = content(first) if number == 0 and first is not None else shared
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
