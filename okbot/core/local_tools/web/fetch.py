"""The engine of web_fetch and web_search: one request to an address the guard already checked.

The connection goes to that IP itself, with the Host header and TLS SNI/certificate name of the URL's
host, so there is no second DNS lookup and no DNS rebinding; proxies from the environment are ignored
on purpose. A hard deadline (a watchdog shuts the socket, so a slow drip is cut), Stop and a body cap
end the read; what arrived so far is returned with the reason it was cut.
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from typing import Any
from urllib.parse import quote, urlsplit

from okbot.core.local_tools.web.errors import FetchError

BODY_CAP = 2 * 1024 * 1024  # bytes of response body read at most
USER_AGENT = "OkBot-web_fetch/1 (+text extraction)"
REDIRECTS = (301, 302, 303, 307, 308)


class ConnectFailed(FetchError):
    """The TCP connection to one address failed (the next address of the host may still work)."""


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
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> Page:
    """One request of ``url`` over a connection to ``ip`` (already checked); FetchError when it fails.

    ``method``, ``headers`` (added to OkBot's User-Agent and Accept, which they may replace) and ``body``
    are what web_search's providers need (a POST with a JSON body and a key header); web_fetch sends a GET.

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
            sent = {"User-Agent": USER_AGENT, "Accept": "*/*", **(headers or {})}
            conn.request(method, parts.path, body=body, headers=sent)
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
