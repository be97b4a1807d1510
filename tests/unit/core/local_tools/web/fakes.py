"""What the web_fetch tests share: a turn stand-in, injected resolvers and a loopback HTTP server
(127.0.0.1 only; no test sends traffic anywhere else)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from okbot.core.local_tools.web.address import check_address
from okbot.core.local_tools.web.tool import make_web_fetch
from okbot.core.tools import ToolContext
from okbot.core.workspace import Target
from okbot.llm.provider import CancelToken

LOOPBACK = "127.0.0.1"


class Runtime:
    """A stand-in for the running turn (the contract a tool sees): cancel token, progress, approve."""

    def __init__(self) -> None:
        self.cancel = CancelToken()
        self.progress_lines: list[str] = []
        self.approvals: list[tuple] = []

    def progress(self, tool: str, call_id: str, text: str) -> None:
        assert tool == "web_fetch" and call_id == "call-1"
        self.progress_lines.append(text)

    def approve(self, tool: str, args: dict, reason: str) -> bool:
        self.approvals.append((tool, args, reason))
        return False


def ctx(tmp_path: Path, runtime: Runtime | None = None) -> ToolContext:
    return ToolContext(Target("assistant", "a", "A", tmp_path, {}), session=None, runtime=runtime, call_id="call-1")


def no_resolver(host: str, port: int) -> list[str]:
    """A resolver that must not be called (IP literals, local names and bad arguments never reach it)."""
    raise AssertionError(f"resolver called for {host}")


class FakeDNS:
    """An injected resolver: a fixed table, every lookup recorded."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.calls: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append((host, port))
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.table[host]


def only_test_server(ip: str) -> str:
    """The address check of the loopback tests: our 127.0.0.1 server is "public", the rest as usual."""
    return "" if ip == LOOPBACK else check_address(ip)


Route = Callable[[BaseHTTPRequestHandler], None]


class Server:
    """A loopback HTTP server whose routes each test sets; it records every request it sees."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, str]] = []  # (path, Host header)
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.requests.append((self.path, self.headers.get("Host", "")))
                route = server.routes.get(self.path.split("?")[0])
                if route is None:
                    send(self, 404, b"<html><title>Nope</title><p>not found</p></html>", "text/html")
                else:
                    route(self)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # a client that hung up mid-body is expected
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def url(self, path: str = "/", host: str = "site.test") -> str:
        return f"http://{host}:{self.port}{path}"

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def send(h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str | None, **headers: str) -> None:
    h.send_response(status)
    if ctype is not None:
        h.send_header("Content-Type", ctype)
    h.send_header("Content-Length", str(len(body)))
    for name, value in headers.items():
        h.send_header(name.replace("_", "-"), value)
    h.end_headers()
    h.wfile.write(body)


def redirect(location: str, status: int = 302) -> Route:
    return lambda h: send(h, status, b"", "text/plain", Location=location)


def loopback_tool(**kwargs: object):
    """web_fetch whose resolver sends site.test to the loopback server (the only address it lets through)."""
    dns = kwargs.pop("dns", None) or FakeDNS({"site.test": [LOOPBACK], "internal.test": ["10.0.0.5"]})
    return make_web_fetch(dns, check=only_test_server, **kwargs), dns


def listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind((LOOPBACK, 0))
    sock.listen(8)
    return sock


def drip(server: Server, first: Callable[[], None] | None = None) -> Route:
    """Headers at once, then one byte every 20 ms until the client goes away or the server stops."""

    def route(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Content-Length", "100000000")
        h.end_headers()
        sent = 0
        try:
            while not server.stop.is_set():
                h.wfile.write(b"x")
                h.wfile.flush()
                sent += 1
                if sent == 1 and first is not None:
                    first()
                time.sleep(0.02)
        except OSError:
            pass

    return route
