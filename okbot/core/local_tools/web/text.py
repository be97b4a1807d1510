"""From a response body to readable text: undo the content encoding, tell text from binary, decode
the charset, and turn HTML into plain lines (no script or style, blocks on their own lines, headings
marked). JSON, XML and plain text pass through as they are.
"""

from __future__ import annotations

import contextlib
import re
import zlib
from email.message import Message
from html.parser import HTMLParser

from okbot.core.local_tools.web.errors import FetchError

_BLOCK = frozenset(
    "address article aside blockquote body dd details dialog div dl dt fieldset figcaption figure footer form "
    "header hr html li main nav ol p pre section summary table tbody thead tfoot tr ul h1 h2 h3 h4 h5 h6".split()
)
_SKIP = frozenset("script style noscript template svg math iframe object canvas select button".split())
_KEEP = "\ue000"  # a space inside <pre>, kept through the whitespace collapse


class _TextExtractor(HTMLParser):
    """Readable text of an HTML page: no script/style, blocks on their own lines, headings marked."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self._parts: list[str] = []
        self._skip: list[str] = []
        self._in_title = False
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip.append(tag)
        elif tag == "title":
            self._in_title = True
        elif tag == "br":
            self._parts.append("\n")
        elif tag == "li":
            self._parts.append("\n- ")
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self._parts.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag in _BLOCK:
            self._parts.append("\n")
        if tag == "pre":
            self._pre += 1
        elif tag in ("td", "th"):
            self._parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if self._skip and tag == self._skip[-1]:
            self._skip.pop()
        elif tag == "title":
            self._in_title = False
        elif tag in _BLOCK and tag != "li":
            self._parts.append("\n")
        if tag == "pre" and self._pre:
            self._pre -= 1

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title += data
        elif self._pre:
            self._parts.append(data.replace(" ", _KEEP))  # kept through the whitespace collapse below
        else:
            self._parts.append(re.sub(r"\s+", " ", data))

    def text(self) -> str:
        lines = [" ".join(line.split()).replace(_KEEP, " ") for line in "".join(self._parts).split("\n")]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def html_to_text(html: str) -> tuple[str, str]:
    """(title, readable text) of an HTML document."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return " ".join(parser.title.split()), parser.text()


_TEXT_SUFFIXES = ("json", "xml", "javascript", "ecmascript", "yaml", "toml", "csv", "sql", "x-sh")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def is_text_mime(mime: str) -> bool:
    """Whether the (lower-case) content type names text: text/*, JSON, XML, scripts, YAML, TOML, CSV, SQL."""
    return mime.startswith("text/") or mime.endswith(_TEXT_SUFFIXES)


def content_kind(mime: str, body: bytes) -> str:
    """ "html", "text", or "" (binary) from the content type, sniffing when the server gave none."""
    if mime in ("text/html", "application/xhtml+xml"):
        kind = "html"
    elif is_text_mime(mime):
        kind = "text"
    elif mime in ("", "application/octet-stream") and b"\0" not in body[:8192]:
        head = body[:512].lstrip().lower()
        kind = "html" if head.startswith((b"<!doctype html", b"<html")) else "text" if mime == "" else ""
    else:
        return ""
    return "" if b"\0" in body[:8192] else kind


def decode_text(body: bytes, headers: Message, kind: str) -> str:
    """The body as a string: the charset the headers (or an HTML page's own <meta>) name, else UTF-8."""
    charset = headers.get_content_charset() or ""
    if not charset and kind == "html":
        found = _META_CHARSET.search(body[:4096])
        charset = found.group(1).decode("ascii") if found else ""
    with contextlib.suppress(LookupError):
        return body.decode(charset or "utf-8", errors="replace")
    return body.decode("utf-8", errors="replace")


def uncompress(body: bytes, encoding: str, cap: int) -> bytes:
    """The body with its Content-Encoding undone, at most ``cap`` bytes; FetchError when it cannot be."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding in ("gzip", "x-gzip", "deflate"):
        for wbits in (47, -15):  # 47: a zlib or gzip header, detected; -15: raw deflate
            with contextlib.suppress(zlib.error):
                return zlib.decompressobj(wbits).decompress(body, cap)
        raise FetchError(f"the {encoding} body could not be decompressed")
    raise FetchError(f"the server sent the body compressed with {encoding!r}, which web_fetch cannot read")
