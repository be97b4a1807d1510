"""Reading a PDF's text is bounded by time, memory and output, whatever the file holds."""

from __future__ import annotations

import pytest

from okbot.core import attachments
from okbot.core.pdf_text import PAGE_CONTENT_BYTES, read_pdf
from okbot.storage.errors import OkBotError
from tests.helpers.pdfs import HOSTILE_STREAM, shared_stream_pdf


def test_300_pages_sharing_one_19m_token_stream_are_refused_in_words_not_read_for_minutes(tmp_path):
    # 60 KB: one 7.6 MB stream of 1.9M tokens; pypdf took 64 s for its first page alone (of 300)
    source = tmp_path / "hostile.pdf"
    source.write_bytes(shared_stream_pdf(300, HOSTILE_STREAM))
    assert source.stat().st_size < 70_000
    # refused for what the pages hold (skipped unread), not stopped by the time limit after reading them
    with pytest.raises(OkBotError, match="hostile.pdf: its pages hold too much to read"):
        attachments.attach(source, tmp_path / "chat")
    assert not (tmp_path / "chat").exists()


def slow_pdf() -> bytes:
    """300 pages: the first says a line, each later one costs pypdf over a second (just under the size cap)
    and yields no text: about six minutes in all."""
    slow = b"BT /F1 12 Tf " + b"() Tj " * (PAGE_CONTENT_BYTES // 6 - 10) + b"ET"
    return shared_stream_pdf(300, slow, first=b"BT /F1 12 Tf 10 10 Td (the first page) Tj ET")


def test_reading_stops_at_the_time_limit():
    read = read_pdf(slow_pdf(), attachments.TEXT_CAP_CHARS, seconds=3)
    assert read.stopped == "time" and read.read < 300 and not read.error


@pytest.mark.slow
def test_reading_stopped_by_the_time_limit_keeps_the_pages_read_so_far():
    read = read_pdf(slow_pdf(), attachments.TEXT_CAP_CHARS, seconds=20)  # the first page: half a second idle
    assert read.stopped == "time" and read.text == "the first page"
    assert 1 <= read.read < 300 and read.pages == 300 and not read.error


def test_reading_stops_at_the_output_cap_and_the_model_is_told_what_was_cut(tmp_path):
    line = "x" * 2_000
    source = tmp_path / "long.pdf"
    source.write_bytes(shared_stream_pdf(400, f"BT /F1 12 Tf 10 10 Td ({line}) Tj ET".encode()))
    record = attachments.attach(source, tmp_path / "chat")
    assert record["pages"] == 400 and record["stopped"] == "chars"
    assert record["pagesRead"] == attachments.TEXT_CAP_CHARS // 2_000
    assert record["chars"] == attachments.TEXT_CAP_CHARS
    sent = attachments.AttachmentView(tmp_path / "chat", vision=False).text_of(record)
    assert sent.endswith(
        "[app note: long.pdf was cut: the text of 50 of its 400 pages is sent; reading stopped at 100,000 characters]"
    )
