"""The ``web_fetch`` tool: read one public web page as text — guarded, bounded, stoppable.

Three layers, each testable on its own:

- the address guard: :func:`check_address` says whether one IP may be contacted (public only) and
  :func:`resolve_public` resolves a host once, through an injectable resolver, and refuses it unless
  every address is public;
- the engine: :func:`fetch_pinned` makes one GET to an address that was already checked, with the
  Host header and TLS SNI/certificate name of the URL's host (no second DNS lookup, so no DNS
  rebinding), a hard deadline (a watchdog shuts the socket, so a slow drip is cut) and a body cap;
- the tool: :func:`make_web_fetch` follows redirects by hand (each target checked the same way),
  extracts text (HTML → readable text; JSON, XML and plain text as is) and bounds the result.

Proxies from the environment are ignored on purpose: the checked address is the one connected to.
Only the standard library is used.
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import ipaddress
import re
import selectors
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from okbot.core.tools import Tool, ToolContext, ToolOutcome

Resolver = Callable[[str, int], list[str]]

TOTAL_TIMEOUT = 20.0  # seconds for the whole call: DNS, connects, redirects, body
BODY_CAP = 2 * 1024 * 1024  # bytes of response body read at most
MAX_CHARS = 20_000  # characters of text returned at most
MIN_CHARS = 100
MAX_REDIRECTS = 5
MAX_URL_CHARS = 8_000
PROGRESS_EVERY = 0.25  # seconds between progress lines (at most 4 per second)
USER_AGENT = "OkBot-web_fetch/1 (+text extraction)"
REDIRECTS = (301, 302, 303, 307, 308)

METADATA_IPS = frozenset({"169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200"})
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_LEGACY_IPV4 = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$", re.IGNORECASE)


class FetchError(Exception):
    """A fetch that cannot go on; the message is written for the model."""


class ConnectFailed(FetchError):
    """The TCP connection to one address failed (the next address of the host may still work)."""


# -- the address guard --------------------------------------------------------------------------


def check_address(ip: str) -> str:
    """ "" when ``ip`` is a public address a tool may contact, else the reason it is refused.

    Refused: loopback, private (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata
    service, fe80::/10), CGNAT 100.64/10, multicast, unspecified, reserved, documentation and other
    special-purpose ranges, and IPv6 forms that embed such an IPv4 address (mapped, NAT64, 6to4, Teredo).
    """
    try:
        addr = ipaddress.ip_address(ip.strip() if isinstance(ip, str) else ip)
    except ValueError:
        return f"{ip!r} is not an IP address"
    if str(addr).split("%")[0] in METADATA_IPS:
        return f"{ip} is the cloud metadata service (a link-local/internal address)"
    if isinstance(addr, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(addr)
        inner = check_address(str(embedded)) if embedded is not None else ""
        if inner:
            return f"{ip} → {inner}"
        if embedded is not None and (addr.ipv4_mapped or any(addr in net for net in _NAT64)):
            return ""  # the IPv6 form of a public IPv4 address (mapped, or NAT64 of DNS64 networks)
    for flag, kind in (
        ("is_loopback", "loopback"),
        ("is_unspecified", "unspecified"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
        ("is_site_local", "site-local"),
    ):
        if getattr(addr, flag, False):
            return f"{ip} is a {kind} address"
    if addr in _CGNAT:
        return f"{ip} is a carrier-grade NAT (shared, 100.64.0.0/10) address"
    if not addr.is_global:
        return f"{ip} is not a public address"
    return ""


def _embedded_ipv4(addr: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a mapped, NAT64, 6to4 or Teredo address leads to."""
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if any(addr in net for net in _NAT64):
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr.teredo is not None:
        return addr.teredo[1]
    return None


def system_resolve(host: str, port: int) -> list[str]:
    """The addresses ``socket.getaddrinfo`` gives for ``host`` (TCP), without duplicates."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _literal_ip(host: str) -> str | None:
    """The address when ``host`` is an IP literal, including legacy IPv4 forms (2130706433, 0x7f.1, 127.1)."""
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(host))
    with contextlib.suppress(OSError):
        return socket.inet_ntoa(socket.inet_aton(host)) if _LEGACY_IPV4.match(host) else None
    return None


def resolve_public(
    host: str, port: int, resolve: Resolver = system_resolve, check: Callable[[str], str] = check_address
) -> list[str]:
    """Resolve ``host`` once and return its addresses, all checked; FetchError unless every one is public.

    An IP literal (legacy IPv4 forms too) is checked without calling ``resolve``; so are names that always
    mean this machine (localhost and its subdomains).
    """
    host = host.strip().strip("[]").rstrip(".").lower()
    if not host:
        raise FetchError("the URL has no host")
    literal = _literal_ip(host)
    if literal is None and (host == "localhost" or host.endswith(".localhost")):
        literal = "127.0.0.1"
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = [str(a) for a in resolve(host, port)]
        except (OSError, UnicodeError, ValueError) as exc:
            raise FetchError(f"could not resolve host {host!r}: {exc}") from exc
        if not addresses:
            raise FetchError(f"host {host!r} has no addresses")
    reasons = [reason for reason in map(check, addresses) if reason]
    if reasons:
        raise FetchError(
            f"refused: {host} leads to a non-public address ({reasons[0]}); web_fetch reads public sites only"
        )
    return addresses


# -- the engine ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UrlParts:
    """A checked http(s) URL: scheme, IDNA host, port and the request path with query."""

    url: str
    scheme: str
    host: str
    port: int
    path: str


def parse_url(url: str) -> UrlParts:
    """Split and validate an http(s) URL, or FetchError saying what is wrong with it."""
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise FetchError("the URL contains spaces or control characters; percent-encode them")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise FetchError(f"the URL is malformed ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise FetchError(
            f"only http and https URLs can be fetched, not {scheme + ':' if scheme else 'this'} ({url[:100]!r})"
        )
    if parts.username is not None or parts.password is not None:
        raise FetchError("URLs with a user name or password are not fetched")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise FetchError(f"the URL has no host ({url[:100]!r})")
    if ":" not in host:
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise FetchError(f"the host name {host!r} is not valid ({exc})") from exc
    if port == 0:
        raise FetchError("port 0 is not a valid port")
    path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
    if parts.query:
        path += "?" + quote(parts.query, safe="/%:@!$&'()*+,;=-._~?")
    return UrlParts(url, scheme, host, port or (443 if scheme == "https" else 80), path)


@dataclass(frozen=True)
class Page:
    """One response: status, headers, body (at most the cap) and why it was cut ("", "size", "time", "stopped")."""

    url: str
    status: int
    reason: str
    headers: Message
    body: bytes
    cut: str = ""
    declared_length: int | None = None


class _Watchdog:
    """Shuts the connection down when the deadline passes or the user stops, so blocked reads return."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fd = -1
        self.reason = ""

    def fire(self, reason: str) -> None:
        with self._lock:
            self.reason = self.reason or reason
            if self._fd >= 0:
                _shutdown(self._fd)

    def hold(self, fd: int) -> None:
        """Watch ``fd`` (-1: stop watching, the caller is about to close it)."""
        with self._lock:
            self._fd = fd
            if self.reason and fd >= 0:
                _shutdown(fd)


def _shutdown(fd: int) -> None:
    with contextlib.suppress(OSError):
        sock = socket.socket(fileno=fd)  # a second object on the same fd: works under TLS too
        try:
            sock.shutdown(socket.SHUT_RDWR)
        finally:
            sock.detach()


def _connect(ip: str, port: int, deadline: float, dog: _Watchdog) -> socket.socket:
    """A TCP connection to ``ip`` itself (numeric, no DNS), given up at the deadline or on Stop."""
    info = socket.getaddrinfo(ip, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)[0]
    sock = socket.socket(*info[:3])
    try:
        sock.setblocking(False)
        err = sock.connect_ex(info[4])
        with selectors.DefaultSelector() as selector:  # not select.select: fds above 1024 are fine
            selector.register(sock, selectors.EVENT_WRITE)
            while err in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY):
                left = deadline - time.monotonic()
                if dog.reason or left <= 0:
                    raise FetchError("stopped by the user" if dog.reason == "stopped" else "connection timed out")
                if selector.select(min(0.1, left)):
                    err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            raise ConnectFailed(f"could not connect to {ip} port {port}: {errno.errorcode.get(err, err)}")
        sock.setblocking(True)
        return sock
    except BaseException as exc:
        sock.close()
        if isinstance(exc, OSError):
            raise ConnectFailed(f"could not connect to {ip} port {port}: {exc}") from exc
        raise


class _PinnedConnection(http.client.HTTPConnection):
    """http.client on a socket we opened ourselves (to the checked address, TLS already set up)."""

    def __init__(self, parts: UrlParts, opener: Callable[[], socket.socket], timeout: float) -> None:
        super().__init__(parts.host, parts.port, timeout=timeout)
        self.default_port = 443 if parts.scheme == "https" else 80  # Host header without a default port
        self._opener = opener

    def connect(self) -> None:
        self.sock = self._opener()


def fetch_pinned(
    url: str,
    ip: str,
    *,
    deadline: float,
    body_cap: int = BODY_CAP,
    cancel: Any = None,
    ssl_context: ssl.SSLContext | None = None,
    on_bytes: Callable[[int], None] | None = None,
) -> Page:
    """One GET of ``url`` over a connection to ``ip`` (already checked); FetchError when it fails.

    ``deadline`` is a ``time.monotonic()`` value: at that moment the socket is shut down and what
    arrived so far is returned with ``cut="time"``. ``cancel`` (a CancelToken) does the same with
    ``cut="stopped"``. At most ``body_cap`` bytes of body are kept (``cut="size"``). A redirect comes
    back without its body (it is never needed); ``on_bytes`` hears the body size as it grows.
    """
    parts = parse_url(url)
    dog = _Watchdog()
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), dog.fire, ("time",))
    timer.daemon = True
    timer.start()
    unregister = cancel.on_cancel(lambda: dog.fire("stopped")) if cancel is not None else (lambda: None)

    def opener() -> socket.socket:
        sock = conn.sock = _connect(ip, parts.port, deadline, dog)  # closed by conn.close() if TLS fails
        dog.hold(sock.fileno())
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        if parts.scheme == "https":
            context = ssl_context or ssl.create_default_context()
            sock = context.wrap_socket(sock, server_hostname=parts.host)  # same fd: the watchdog still holds it
        return sock

    conn = _PinnedConnection(parts, opener, timeout=max(0.01, deadline - time.monotonic()))
    try:
        try:
            conn.request("GET", parts.path, headers={"User-Agent": USER_AGENT, "Accept": "*/*"})
            resp = conn.getresponse()
        except FetchError:
            raise
        except ssl.SSLCertVerificationError as exc:
            raise FetchError(f"the TLS certificate of {parts.host} was not accepted: {exc.verify_message}") from exc
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if dog.reason == "stopped":
                raise FetchError("stopped by the user") from exc
            if dog.reason or isinstance(exc, TimeoutError):
                raise FetchError("no response within the time limit") from exc
            raise FetchError(f"could not fetch {url[:200]}: {exc or type(exc).__name__}") from exc
        if resp.status in REDIRECTS and resp.getheader("Location"):
            return Page(url, resp.status, resp.reason, resp.msg, b"")  # its body is never needed
        return _read_body(url, resp, dog, body_cap, on_bytes)
    finally:
        timer.cancel()
        unregister()
        dog.hold(-1)
        conn.close()


def _read_body(
    url: str, resp: http.client.HTTPResponse, dog: _Watchdog, cap: int, on_bytes: Callable[[int], None] | None
) -> Page:
    length = resp.getheader("Content-Length", "")
    declared = int(length) if length.strip().isdigit() else None
    chunks: list[bytes] = []
    size = 0
    cut = ""
    while True:
        try:
            data = resp.read1(65536)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if isinstance(exc, http.client.IncompleteRead) and exc.partial and size < cap:
                chunks.append(exc.partial[: cap - size])
            cut = dog.reason or ("time" if isinstance(exc, TimeoutError) else "")
            break
        if not data:
            cut = dog.reason  # a shut-down socket reads as end of stream
            break
        chunks.append(data[: cap - size])
        size += len(data)
        if on_bytes:
            on_bytes(size)
        if size > cap:
            cut = "size"
            break
    return Page(url, resp.status, resp.reason, resp.msg, b"".join(chunks), cut, declared)


# -- text extraction ---------------------------------------------------------------------------------

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


def _kind(mime: str, body: bytes) -> str:
    """ "html", "text", or "" (binary) from the content type, sniffing when the server gave none."""
    if mime in ("text/html", "application/xhtml+xml"):
        kind = "html"
    elif mime.startswith("text/") or mime.endswith(_TEXT_SUFFIXES):
        kind = "text"
    elif mime in ("", "application/octet-stream") and b"\0" not in body[:8192]:
        head = body[:512].lstrip().lower()
        kind = "html" if head.startswith((b"<!doctype html", b"<html")) else "text" if mime == "" else ""
    else:
        return ""
    return "" if b"\0" in body[:8192] else kind


def _decode(body: bytes, headers: Message, kind: str) -> str:
    charset = headers.get_content_charset() or ""
    if not charset and kind == "html":
        found = _META_CHARSET.search(body[:4096])
        charset = found.group(1).decode("ascii") if found else ""
    with contextlib.suppress(LookupError):
        return body.decode(charset or "utf-8", errors="replace")
    return body.decode("utf-8", errors="replace")


def _uncompress(body: bytes, encoding: str, cap: int) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    for wbits in (47, -15) if encoding in ("gzip", "x-gzip", "deflate") else ():  # 47: gzip/zlib; -15: raw
        with contextlib.suppress(zlib.error):
            return zlib.decompressobj(wbits).decompress(body, cap)
    if encoding in ("gzip", "x-gzip", "deflate"):
        raise FetchError(f"the {encoding} body could not be decompressed")
    raise FetchError(f"the server sent the body compressed with {encoding!r}, which web_fetch cannot read")


# -- the tool ------------------------------------------------------------------------------------------

NOTE = (
    "fetch a public http(s) web page and return its readable text (title, final URL, status; "
    f"at most {MAX_CHARS:,} chars); private and local addresses are refused"
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "http or https URL of a public web page"},
        "max_chars": {
            "type": "integer",
            "minimum": MIN_CHARS,
            "maximum": MAX_CHARS,
            "default": MAX_CHARS,
            "description": "at most this many characters of text are returned",
        },
    },
    "required": ["url"],
}


def _max_chars(args: dict[str, Any]) -> int:
    value = args.get("max_chars", MAX_CHARS)
    if value is None:
        return MAX_CHARS
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise FetchError(f"max_chars must be an integer between {MIN_CHARS} and {MAX_CHARS:,}")
    if value < 1:
        raise FetchError(f"max_chars must be positive (at most {MAX_CHARS:,})")
    return max(MIN_CHARS, min(MAX_CHARS, int(value)))


def make_web_fetch(
    resolve: Resolver = system_resolve,
    *,
    check: Callable[[str], str] = check_address,
    total_timeout: float = TOTAL_TIMEOUT,
    body_cap: int = BODY_CAP,
    ssl_context: ssl.SSLContext | None = None,
) -> Tool:
    """The web_fetch tool with its resolver, address check and limits (tests inject their own)."""

    def run(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            return _run(args, ctx)
        except FetchError as exc:
            return ToolOutcome(f"web_fetch: {exc}.", ok=False)

    def _run(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        url = args.get("url") if isinstance(args, dict) else None
        if not isinstance(url, str) or not (url := url.strip()):
            raise FetchError("needs a 'url' string (an http or https URL)")
        if len(url) > MAX_URL_CHARS:
            raise FetchError(f"the URL is {len(url):,} characters long; at most {MAX_URL_CHARS:,} are accepted")
        max_chars = _max_chars(args)
        cancel = ctx.runtime.cancel if ctx.runtime is not None else None
        if cancel is not None and cancel.cancelled:
            raise FetchError("stopped by the user")
        deadline = time.monotonic() + total_timeout
        last = [-1e9]

        def progress(text: str) -> None:  # at most one line per PROGRESS_EVERY seconds
            if ctx.runtime is not None and time.monotonic() - last[0] >= PROGRESS_EVERY:
                last[0] = time.monotonic()
                ctx.runtime.progress("web_fetch", ctx.call_id, text)

        chain = [url]
        while True:
            parts = parse_url(chain[-1])
            addresses = _resolve_by(deadline, cancel, lambda p=parts: resolve_public(p.host, p.port, resolve, check))
            progress(f"GET {chain[-1][:200]}")
            page = _fetch_any(chain[-1], addresses, deadline, cancel, progress)
            location = page.headers.get("Location")
            if page.status not in REDIRECTS or not location:
                break
            if len(chain) > MAX_REDIRECTS:
                raise FetchError(f"more than {MAX_REDIRECTS} redirects (last one to {location[:200]!r})")
            chain.append(urljoin(chain[-1], location.strip()))
        return _outcome(page, chain, max_chars, body_cap, total_timeout)

    def _fetch_any(url: str, addresses: list[str], deadline: float, cancel: Any, progress: Callable) -> Page:
        error = FetchError("no address to connect to")
        options = {"body_cap": body_cap, "cancel": cancel, "ssl_context": ssl_context}
        for ip in addresses:
            try:
                return fetch_pinned(
                    url, ip, deadline=deadline, on_bytes=lambda n: progress(f"received {n:,} bytes"), **options
                )
            except ConnectFailed as exc:
                error = exc  # the host's next address may answer
        raise error

    def _resolve_by(deadline: float, cancel: Any, job: Callable[[], list[str]]) -> list[str]:
        """Run the (blocking) lookup in a helper thread so the deadline and Stop still end the call."""
        box: list[Any] = []
        done = threading.Event()

        def work() -> None:
            try:
                box.append(job())
            except Exception as exc:  # noqa: BLE001 - handed back to the caller below
                box.append(exc)
            done.set()

        threading.Thread(target=work, name="okbot-web-resolve", daemon=True).start()
        unregister = cancel.on_cancel(done.set) if cancel is not None else (lambda: None)
        done.wait(max(0.0, deadline - time.monotonic()))
        unregister()
        if cancel is not None and cancel.cancelled:
            raise FetchError("stopped by the user")
        if not box:
            raise FetchError("the host name lookup did not finish within the time limit")
        if isinstance(box[0], Exception):
            raise box[0]
        return box[0]

    return Tool(name="web_fetch", note=NOTE, parameters=PARAMETERS, run=run, approval_key="tools.web_fetch.approval")


def _outcome(page: Page, chain: list[str], max_chars: int, body_cap: int, total_timeout: float) -> ToolOutcome:
    content_type = page.headers.get("Content-Type", "") or ""
    mime = content_type.split(";")[0].strip().lower()
    body = _uncompress(page.body, page.headers.get("Content-Encoding", "") or "", body_cap)
    partial = page.declared_length not in (None, len(page.body))
    size = f"{len(page.body):,} bytes" + (f" of {page.declared_length:,}" if partial else "")
    head = [
        f"URL: {page.url}" + (f" (redirected from {chain[0]})" if len(chain) > 1 else ""),
        f"Status: {page.status} {page.reason}".rstrip(),
        f"Content-Type: {content_type or '(none)'} · {size}",
    ]
    kind = _kind(mime, body)
    if not kind:
        what = "binary" if mime.startswith("text/") or mime.endswith(_TEXT_SUFFIXES) else (mime or "unknown")
        refusal = f"web_fetch: refused: the response is not text ({what}, {size}); it returns text only (HTML, JSON, …)"
        return ToolOutcome(refusal + ".\n" + "\n".join(head), ok=False)
    text = _decode(body, page.headers, kind)
    title = ""
    if kind == "html":
        title, text = html_to_text(text)
    if title:
        head.insert(0, f"Title: {title}")
    notes = []
    if page.cut == "size":
        announced = f"; the server announced {page.declared_length:,} bytes" if page.declared_length else ""
        notes.append(f"(body cut at the {body_cap:,}-byte cap{announced})")
    elif page.cut == "time":
        notes.append(f"(body cut at the {total_timeout:g} s time limit after {len(page.body):,} bytes)")
    elif page.cut == "stopped":
        notes.append(f"(stopped by the user after {len(page.body):,} bytes)")
    if len(text) > max_chars:
        notes.append(f"(text cut: showing the first {max_chars:,} of {len(text):,} characters)")
        text = text[:max_chars]
    out = "\n".join(head) + "\n\n" + (text or "(no readable text)") + ("\n\n" + "\n".join(notes) if notes else "")
    return ToolOutcome(out, ok=page.status < 400 and page.cut != "stopped")


WEB_FETCH = make_web_fetch()
