"""web_fetch: the address guard on its own (injected resolver, no traffic), the engine against a loopback
server (127.0.0.1 only), and the tool as the model calls it. No test sends traffic anywhere but 127.0.0.1."""

from __future__ import annotations

import gzip
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from okbot.core.local_tools.web import (
    BODY_CAP,
    MAX_CHARS,
    WEB_FETCH,
    FetchError,
    check_address,
    fetch_pinned,
    html_to_text,
    make_web_fetch,
    resolve_public,
)
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

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
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


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    yield srv
    srv.close()


def loopback_tool(**kwargs: object):
    """web_fetch whose resolver sends site.test to the loopback server (the only address it lets through)."""
    dns = kwargs.pop("dns", None) or FakeDNS({"site.test": [LOOPBACK], "internal.test": ["10.0.0.5"]})
    return make_web_fetch(dns, check=only_test_server, **kwargs), dns


# -- the address guard, on its own (no traffic) ------------------------------------------------------

REFUSED = [
    "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
    "169.254.169.254", "169.254.0.1", "169.254.170.2", "100.64.0.1", "100.127.255.255", "0.0.0.0", "0.1.2.3",
    "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1", "192.0.2.1", "198.18.0.1",
    "::1", "::", "fc00::1", "fd12:3456::1", "fd00:ec2::254", "fe80::1", "fe80::1%eth0", "ff02::1", "fec0::1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:100.64.0.1", "::127.0.0.1",
    "64:ff9b::a00:1", "2002:a00:1::", "2002:a9fe:a9fe::", "2001:db8::1",
    "not an ip", "", "127.0.0.1.nip.io", "1.2.3.4/8",
]  # fmt: skip
PUBLIC = [
    "8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1",
    "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808",
]  # fmt: skip


@pytest.mark.parametrize("ip", REFUSED)
def test_check_address_refuses_non_public(ip):
    assert check_address(ip)


@pytest.mark.parametrize("ip", PUBLIC)
def test_check_address_allows_public(ip):
    assert check_address(ip) == ""


def test_check_address_names_the_reason():
    assert "metadata" in check_address("169.254.169.254")
    assert "metadata" in check_address("::ffff:169.254.169.254")
    assert "loopback" in check_address("127.0.0.1")
    assert "private" in check_address("192.168.0.10")
    assert "link-local" in check_address("fe80::1")
    assert "carrier-grade NAT" in check_address("100.64.1.1")
    assert "not an IP address" in check_address("example.com")


def test_resolve_public_returns_checked_addresses():
    dns = FakeDNS({"example.test": ["93.184.216.34", "2606:2800:220:1::1"]})
    assert resolve_public("Example.TEST.", 443, dns) == ["93.184.216.34", "2606:2800:220:1::1"]
    assert dns.calls == [("example.test", 443)]


@pytest.mark.parametrize(
    "addresses",
    [["10.0.0.5"], ["93.184.216.34", "127.0.0.1"], ["169.254.169.254"], ["::1"], ["::ffff:192.168.1.1"], ["fe80::1"]],
)
def test_resolve_public_refuses_when_any_address_is_not_public(addresses):
    dns = FakeDNS({"rebind.test": addresses})
    with pytest.raises(FetchError, match="non-public"):
        resolve_public("rebind.test", 80, dns)


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "2130706433", "0x7f000001", "0x7f.1", "127.1", "017700000001", "0", "::1", "[::1]",
     "::ffff:127.0.0.1", "169.254.169.254", "localhost", "LOCALHOST.", "app.localhost", "10.0.0.1"],
)  # fmt: skip
def test_ip_literals_and_local_names_are_refused_without_a_lookup(host):
    with pytest.raises(FetchError, match="non-public"):
        resolve_public(host, 80, no_resolver)


def test_resolver_failures_are_clear_errors():
    with pytest.raises(FetchError, match="could not resolve host 'nowhere.test'"):
        resolve_public("nowhere.test", 80, FakeDNS({}))
    with pytest.raises(FetchError, match="no addresses"):
        resolve_public("empty.test", 80, FakeDNS({"empty.test": []}))
    with pytest.raises(FetchError, match="not an IP address"):
        resolve_public("junk.test", 80, FakeDNS({"junk.test": ["banana"]}))
    with pytest.raises(FetchError, match="no host"):
        resolve_public("", 80, no_resolver)


# -- the tool as the model calls it: refused before any connection --------------------------------------


def listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind((LOOPBACK, 0))
    sock.listen(8)
    return sock


def assert_no_connection(sock: socket.socket) -> None:
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        sock.accept()  # a connection attempt would sit completed in the backlog


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "2130706433", "127.1", "0x7f.0.0.1", "site.test"]
)
def test_web_fetch_to_loopback_is_refused_without_connecting(tmp_path, host):
    sock = listening_socket()
    port = sock.getsockname()[1]
    tool = make_web_fetch(FakeDNS({"site.test": [LOOPBACK]}))  # the real address check
    try:
        out = tool.run({"url": f"http://{host}:{port}/"}, ctx(tmp_path))
        assert not out.ok
        assert "non-public" in out.content and "loopback" in out.content
        assert_no_connection(sock)
    finally:
        sock.close()


def test_default_tool_refuses_loopback_with_the_system_resolver(tmp_path):
    sock = listening_socket()
    try:
        out = WEB_FETCH.run({"url": f"http://127.0.0.1:{sock.getsockname()[1]}/admin"}, ctx(tmp_path))
        assert not out.ok and "loopback" in out.content
        assert_no_connection(sock)
    finally:
        sock.close()
    assert WEB_FETCH.name == "web_fetch" and WEB_FETCH.approval_key == "tools.web_fetch.approval"
    assert WEB_FETCH.parameters["required"] == ["url"] and "\n" not in WEB_FETCH.note


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "needs a 'url'"),
        ({"url": 123}, "needs a 'url'"),
        ({"url": ["http://a.test"]}, "needs a 'url'"),
        ({"url": "   "}, "needs a 'url'"),
        ({"url": "ftp://files.test/x"}, "only http and https"),
        ({"url": "file:///etc/passwd"}, "only http and https"),
        ({"url": "javascript:alert(1)"}, "only http and https"),
        ({"url": "example.com/page"}, "only http and https"),
        ({"url": "http://"}, "no host"),
        ({"url": "http://user:pw@site.test/"}, "user name or password"),
        ({"url": "http://site.test:99999/"}, "malformed"),
        ({"url": "http://site.test:0/"}, "port 0"),
        ({"url": "http://site.test/a b"}, "spaces or control characters"),
        ({"url": "http://site.test/\r\nX-Injected: 1"}, "spaces or control characters"),
        ({"url": "http://site.test/" + "a" * 9000}, "at most 8,000"),
        ({"url": "http://site.test/", "max_chars": "lots"}, "max_chars must be an integer"),
        ({"url": "http://site.test/", "max_chars": True}, "max_chars must be an integer"),
        ({"url": "http://site.test/", "max_chars": 12.5}, "max_chars must be an integer"),
        ({"url": "http://site.test/", "max_chars": -5}, "max_chars must be positive"),
    ],
)
def test_malformed_arguments_get_a_clear_message(tmp_path, args, message):
    out = make_web_fetch(no_resolver).run(args, ctx(tmp_path))
    assert not out.ok and out.content.startswith("web_fetch: ") and message in out.content


def test_unresolvable_host_is_a_clear_error(tmp_path):
    out = make_web_fetch(FakeDNS({})).run({"url": "https://nowhere.test/"}, ctx(tmp_path))
    assert not out.ok and "could not resolve host 'nowhere.test'" in out.content


def test_stopped_turn_fetches_nothing(tmp_path):
    runtime = Runtime()
    runtime.cancel.cancel()
    dns = FakeDNS({"site.test": ["93.184.216.34"]})
    out = make_web_fetch(dns).run({"url": "http://site.test/"}, ctx(tmp_path, runtime))
    assert not out.ok and "stopped by the user" in out.content and dns.calls == []


class StuckDNS:
    """A resolver that hangs until released (a DNS server that never answers); may stop the turn first."""

    def __init__(self, on_call: Callable[[], None] | None = None) -> None:
        self.release = threading.Event()
        self.on_call = on_call

    def __call__(self, host: str, port: int) -> list[str]:
        if self.on_call is not None:
            self.on_call()
        self.release.wait(30)
        return ["93.184.216.34"]


def test_a_hanging_lookup_ends_at_the_deadline_or_on_stop(tmp_path):
    runtime = Runtime()
    slow, stopped = StuckDNS(), StuckDNS(on_call=runtime.cancel.cancel)
    try:
        out = make_web_fetch(slow, total_timeout=0.3).run({"url": "http://slow-dns.test/"}, ctx(tmp_path))
        assert not out.ok and "lookup did not finish within the time limit" in out.content
        out = make_web_fetch(stopped).run({"url": "http://slow-dns.test/"}, ctx(tmp_path, runtime))
        assert not out.ok and "stopped by the user" in out.content
    finally:
        slow.release.set()
        stopped.release.set()


# -- redirects: each hop checked like the first --------------------------------------------------------


def test_redirect_chain_is_followed_and_reported(tmp_path, server):
    server.routes["/r1"] = redirect("/r2", 301)
    server.routes["/r2"] = redirect(server.url("/final"), 307)
    server.routes["/final"] = lambda h: send(h, 200, b"arrived", "text/plain; charset=utf-8")
    tool, dns = loopback_tool()
    out = tool.run({"url": server.url("/r1")}, ctx(tmp_path))
    assert out.ok, out.content
    assert f"URL: {server.url('/final')} (redirected from {server.url('/r1')})" in out.content
    assert out.content.rstrip().endswith("arrived")
    assert [p for p, _ in server.requests] == ["/r1", "/r2", "/final"]
    assert len(dns.calls) == 3  # one lookup per hop, each checked; the connection goes to the checked IP


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("http://internal.test/admin", "10.0.0.5 is a private address"),
        ("http://169.254.169.254/latest/meta-data/", "metadata"),
        ("http://[::ffff:169.254.169.254]/latest/meta-data/", "metadata"),
        ("http://[fd00:ec2::254]/latest/meta-data/", "metadata"),
        ("http://192.168.1.1/", "private"),
        ("http://[::1]:8080/", "loopback"),
        ("http://127.0.0.2:8080/", "loopback"),
        ("http://[fe80::1]/", "link-local"),
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("file:///etc/passwd", "only http and https"),
        ("gopher://site.test/", "only http and https"),
    ],
)
def test_redirect_to_a_non_public_target_is_refused(tmp_path, server, location, message):
    server.routes["/go"] = redirect(location)
    tool, dns = loopback_tool()
    out = tool.run({"url": server.url("/go")}, ctx(tmp_path))
    assert not out.ok and message in out.content, out.content
    assert [p for p, _ in server.requests] == ["/go"]  # the target was never contacted
    assert [h for h, _ in dns.calls] in (["site.test"], ["site.test", "internal.test"])


def test_redirect_loop_stops_after_five(tmp_path, server):
    server.routes["/loop"] = redirect("/loop")
    out = loopback_tool()[0].run({"url": server.url("/loop")}, ctx(tmp_path))
    assert not out.ok and "more than 5 redirects" in out.content
    assert len(server.requests) == 6


def test_redirect_without_location_is_returned_as_is(tmp_path, server):
    server.routes["/odd"] = lambda h: send(h, 302, b"moved somewhere", "text/plain")
    out = loopback_tool()[0].run({"url": server.url("/odd")}, ctx(tmp_path))
    assert "Status: 302" in out.content and "moved somewhere" in out.content


# -- the engine against the loopback server -------------------------------------------------------------


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


def test_engine_connects_to_the_given_address_with_the_host_name(server):
    with pytest.raises(FetchError):  # the address must be numeric: the engine never looks a name up
        fetch_pinned(server.url(), "site.test", deadline=time.monotonic() + 5)
    server.routes["/hello"] = lambda h: send(h, 200, b"hi", "text/plain")
    page = fetch_pinned(server.url("/hello?q=1 2", host="name.test").replace(" ", "%20"), LOOPBACK,
                        deadline=time.monotonic() + 10)  # fmt: skip
    assert (page.status, page.body, page.cut) == (200, b"hi", "")
    assert server.requests == [("/hello?q=1%202", f"name.test:{server.port}")]


def test_engine_cuts_a_slow_drip_at_the_deadline(server):
    server.routes["/drip"] = drip(server)
    page = fetch_pinned(server.url("/drip"), LOOPBACK, deadline=time.monotonic() + 0.5)
    assert page.cut == "time"
    assert 0 < len(page.body) < 1000 and page.declared_length == 100_000_000


def test_engine_cuts_a_huge_body_at_the_cap(server):
    body = b"a" * (3 * 1024 * 1024)
    server.routes["/big"] = lambda h: send(h, 200, body, "text/plain")
    page = fetch_pinned(server.url("/big"), LOOPBACK, deadline=time.monotonic() + 30)
    assert page.cut == "size" and len(page.body) == BODY_CAP and page.declared_length == len(body)
    small = fetch_pinned(server.url("/big"), LOOPBACK, deadline=time.monotonic() + 30, body_cap=1000)
    assert small.cut == "size" and len(small.body) == 1000


def test_engine_stops_when_the_turn_is_stopped(server):
    cancel = CancelToken()
    server.routes["/drip"] = drip(server, first=cancel.cancel)
    page = fetch_pinned(server.url("/drip"), LOOPBACK, deadline=time.monotonic() + 60, cancel=cancel)
    assert page.cut == "stopped"


def test_engine_reports_a_silent_server_and_a_refused_connection():
    sock = listening_socket()  # accepts (backlog) but never says a word
    url = f"http://site.test:{sock.getsockname()[1]}/"
    with pytest.raises(FetchError, match="no response within the time limit"):
        fetch_pinned(url, LOOPBACK, deadline=time.monotonic() + 0.3)
    sock.close()  # nothing listens there now
    with pytest.raises(FetchError, match="could not connect"):
        fetch_pinned(url, LOOPBACK, deadline=time.monotonic() + 10)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=site.test",
         "-addext", "subjectAltName=DNS:site.test", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_engine_https_uses_the_host_name_for_sni_and_the_certificate(server, certificate):
    cert, key = certificate
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert, key)
    names: list[str | None] = []
    served.sni_callback = lambda sslsock, name, context: names.append(name)
    server.httpd.socket = served.wrap_socket(server.httpd.socket, server_side=True)
    server.routes["/secure"] = lambda h: send(h, 200, b"secret-free", "text/plain")
    trusted = ssl.create_default_context(cafile=str(cert))
    url = f"https://site.test:{server.port}/secure"
    page = fetch_pinned(url, LOOPBACK, deadline=time.monotonic() + 10, ssl_context=trusted)
    assert page.body == b"secret-free" and names == ["site.test"]
    with pytest.raises(FetchError, match="TLS certificate of other.test was not accepted"):
        fetch_pinned(url.replace("site.test", "other.test"), LOOPBACK, deadline=time.monotonic() + 10,
                     ssl_context=trusted)  # fmt: skip


# -- the tool end to end on loopback: extraction and bounds --------------------------------------------

PAGE = b"""<!doctype html><html><head><title> Tea  &amp; Cakes </title>
<style>body { color: red }</style><script>var secret = "do not show";</script></head>
<body><nav>Home</nav><h1>Recipes</h1><p>Warm the <b>pot</b>.<br>Add leaves.</p>
<ul><li>Green</li><li>Black</li></ul><noscript>enable js</noscript><pre>a  b
  c</pre><table><tr><td>1</td><td>2</td></tr></table></body></html>"""


def test_html_is_extracted_to_readable_text(tmp_path, server):
    server.routes["/page"] = lambda h: send(h, 200, PAGE, "text/html; charset=utf-8")
    runtime = Runtime()
    out = loopback_tool()[0].run({"url": server.url("/page")}, ctx(tmp_path, runtime))
    assert out.ok, out.content
    text = out.content
    assert text.startswith("Title: Tea & Cakes\nURL: " + server.url("/page") + "\nStatus: 200 OK\n")
    assert "Content-Type: text/html; charset=utf-8" in text
    assert "# Recipes" in text and "Warm the pot.\nAdd leaves." in text and "- Green\n- Black" in text
    assert "a  b\n  c" in text and "1 2" in text
    for hidden in ("color: red", "secret", "enable js", "<p>"):
        assert hidden not in text
    assert runtime.progress_lines and any("site.test" in line for line in runtime.progress_lines)
    assert runtime.approvals == []  # nothing to approve: non-public addresses are refused outright


def test_html_charset_from_meta_and_sniffed_html(tmp_path, server):
    latin = "<html><head><meta charset='iso-8859-1'><title>Caf\xe9</title></head><p>cr\xe8me</p></html>"
    server.routes["/latin"] = lambda h: send(h, 200, latin.encode("latin-1"), "text/html")
    server.routes["/untyped"] = lambda h: send(h, 200, b"<!DOCTYPE html><title>T</title><p>x</p>", None)
    tool = loopback_tool()[0]
    out = tool.run({"url": server.url("/latin")}, ctx(tmp_path))
    assert "Title: Caf\xe9" in out.content and "cr\xe8me" in out.content
    assert "Title: T" in tool.run({"url": server.url("/untyped")}, ctx(tmp_path)).content


def test_json_and_plain_text_are_returned_as_is(tmp_path, server):
    data = json.dumps({"a": [1, 2], "b": "<p>not html</p>"}, indent=1).encode()
    server.routes["/data"] = lambda h: send(h, 200, data, "application/json")
    server.routes["/plain"] = lambda h: send(h, 200, b"  line one\n\n\n\nline two  ", "text/plain")
    tool = loopback_tool()[0]
    out = tool.run({"url": server.url("/data")}, ctx(tmp_path))
    assert out.ok and out.content.endswith(data.decode())
    assert tool.run({"url": server.url("/plain")}, ctx(tmp_path)).content.endswith("  line one\n\n\n\nline two  ")


@pytest.mark.parametrize(
    ("body", "ctype", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "image/png", "image/png"),
        (b"%PDF-1.7\n\0binary", "application/pdf", "application/pdf"),
        (b"MZ\x90\0\x03\0\0\0", "application/octet-stream", "application/octet-stream"),
        (b"text with a \0 NUL byte", "text/plain", "binary"),  # wrong content type: says text, is binary
        (b"\0\x01\x02\x03", None, "unknown"),
    ],
)
def test_binary_bodies_are_refused(tmp_path, server, body, ctype, message):
    server.routes["/bin"] = lambda h: send(h, 200, body, ctype)
    out = loopback_tool()[0].run({"url": server.url("/bin")}, ctx(tmp_path))
    assert not out.ok and "not text" in out.content and message in out.content


def test_slow_drip_is_cut_at_the_deadline_and_said_so(tmp_path, server):
    server.routes["/drip"] = drip(server)
    out = loopback_tool(total_timeout=0.5)[0].run({"url": server.url("/drip")}, ctx(tmp_path))
    assert out.ok and "body cut at the 0.5 s time limit" in out.content and "xx" in out.content


def test_stop_ends_a_running_fetch(tmp_path, server):
    runtime = Runtime()
    server.routes["/drip"] = drip(server, first=runtime.cancel.cancel)
    out = loopback_tool()[0].run({"url": server.url("/drip")}, ctx(tmp_path, runtime))
    assert not out.ok and "stopped by the user" in out.content


def test_huge_body_is_cut_at_the_cap_and_text_at_max_chars(tmp_path, server):
    body = b"word " * 1_000_000  # 5 MB
    server.routes["/huge"] = lambda h: send(h, 200, body, "text/plain")
    out = loopback_tool()[0].run({"url": server.url("/huge")}, ctx(tmp_path))
    assert out.ok
    assert f"(body cut at the {BODY_CAP:,}-byte cap; the server announced {len(body):,} bytes)" in out.content
    assert f"(text cut: showing the first {MAX_CHARS:,} of {BODY_CAP:,} characters)" in out.content
    assert len(out.content) < MAX_CHARS + 1000
    small = loopback_tool()[0].run({"url": server.url("/huge"), "max_chars": 500}, ctx(tmp_path))
    assert "showing the first 500 of" in small.content and len(small.content) < 1500
    clamped = loopback_tool()[0].run({"url": server.url("/huge"), "max_chars": 10**12}, ctx(tmp_path))
    assert f"showing the first {MAX_CHARS:,} of" in clamped.content


def test_gzip_body_is_decoded_and_http_errors_are_not_ok(tmp_path, server):
    packed = gzip.compress(b"unpacked text")
    server.routes["/gz"] = lambda h: send(h, 200, packed, "text/plain", Content_Encoding="gzip")
    server.routes["/br"] = lambda h: send(h, 200, b"\x0b\x02\x80", "text/plain", Content_Encoding="br")
    tool = loopback_tool()[0]
    assert tool.run({"url": server.url("/gz")}, ctx(tmp_path)).content.endswith("unpacked text")
    assert "cannot read" in tool.run({"url": server.url("/br")}, ctx(tmp_path)).content
    missing = tool.run({"url": server.url("/missing")}, ctx(tmp_path))
    assert not missing.ok and "Status: 404" in missing.content and "Title: Nope" in missing.content


def test_html_to_text_handles_broken_markup():
    title, text = html_to_text("<title>x</title><div><p>one<p>two</div><script>if (a < b) {}</script>three")
    assert title == "x" and text.split() == ["one", "two", "three"]
    assert html_to_text("")[1] == "" and html_to_text("<<<>>>&&&")[1]
