"""A PDF's text, read with pypdf in a child process bounded by time, memory and output.

pypdf's work is not bounded by a file's size: 300 pages may share one content stream of a few
megabytes (60 KB compressed), and one ``extract_text`` call on a page of 7.6 MB of drawing
instructions runs for a minute; nothing can interrupt a call like that in its own thread. So the
text is read in a child process (``spawn``: no state of the app is copied into it) with an address
space cap of :data:`MEMORY_BYTES`, which the parent kills after :data:`SECONDS`, keeping the pages
it had sent by then. Inside the child, a page whose decoded content is over :data:`PAGE_CONTENT_BYTES`
is skipped before it is parsed (the time pypdf takes grows faster than that size), and reading stops
once ``max_chars`` characters are read. :class:`PdfText` says what was cut and why.
"""

from __future__ import annotations

import io
import multiprocessing
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

SECONDS = 30.0  # for the whole file; a normal PDF of hundreds of pages takes a few seconds
MEMORY_BYTES = 1024 * 1024 * 1024  # the child's address space
PAGE_CONTENT_BYTES = 1024 * 1024  # decoded drawing instructions of one page (about 2 s of pypdf's time)


@dataclass(frozen=True)
class PdfText:
    """What was read of a PDF: its text, its page count, and what was not read."""

    text: str
    pages: int  # in the file
    read: int  # pages whose text was read (some may hold none)
    skipped: int  # pages not read because their content is over PAGE_CONTENT_BYTES
    stopped: str = ""  # "" | "chars" (max_chars reached) | "time" (SECONDS passed): the later pages were not read
    encrypted: bool = False
    error: str = ""  # pypdf could not read the file: why


def read_pdf(data: bytes, max_chars: int, *, seconds: float = SECONDS) -> PdfText:
    """Read ``data``'s text in a child process, at most ``max_chars`` characters within ``seconds``."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_extract, args=(data, max_chars, send), name="okbot-pdf", daemon=True)
    try:
        child.start()
    except OSError as exc:  # no process could be started (out of processes or memory)
        receive.close()
        return PdfText("", 0, 0, 0, error=f"the PDF reader could not start: {exc.strerror or exc}")
    finally:
        send.close()  # the child holds the only writing end: its exit ends the pipe
    pages, texts, skipped, stopped, error, encrypted = 0, [], 0, "", "", False
    deadline = time.monotonic() + seconds
    try:
        while True:
            if not receive.poll(max(0.0, deadline - time.monotonic())):
                stopped = "time"
                break
            try:
                message = receive.recv()
            except EOFError:  # the child died: out of memory beyond what Python could report
                error = error or "the reader stopped (out of memory?)"
                break
            kind = message[0]
            if kind == "pages":
                pages = message[1]
            elif kind == "page":
                texts.append(message[1])
            elif kind == "skip":
                skipped += 1
            elif kind == "full":
                stopped = "chars"
            elif kind == "encrypted":
                encrypted = True
            elif kind == "error":
                error = message[1]
            elif kind == "done":
                break
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receive.close()
    text = "\n\n".join(page.strip() for page in texts if page.strip())
    return PdfText(text[:max_chars], pages, len(texts), skipped, stopped, encrypted, error)


def _extract(data: bytes, max_chars: int, out: Connection) -> None:
    """The child: send ``("pages", n)``, then ``("page", text)`` / ``("skip",)`` per page, then ``("done",)``."""
    _cap_memory()
    import pypdf  # imported here: only the child parses the PDF

    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            out.send(("encrypted",))
            return
        out.send(("pages", len(reader.pages)))
        total = 0
        for page in reader.pages:
            if _content_bytes(page) > PAGE_CONTENT_BYTES:
                out.send(("skip",))
                continue
            text = page.extract_text() or ""
            out.send(("page", text))
            total += len(text)
            if total >= max_chars:
                out.send(("full",))
                break
        out.send(("done",))
    except MemoryError:
        out.send(("error", "MemoryError: the PDF needs more memory than OkBot gives its reader"))
    except Exception as exc:  # pypdf raises many kinds for a broken file
        out.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        out.close()


def _content_bytes(page: Any) -> int:
    """The size of a page's decoded drawing instructions (a stream shared by pages is decoded once)."""
    contents = page.get_contents()
    return len(contents.get_data()) if contents is not None else 0


def _cap_memory() -> None:
    if sys.platform == "win32":
        return  # no RLIMIT_AS; the time limit still holds
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_BYTES, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
