"""web_fetch as the model calls it: refused before any connection, redirects checked hop by hop, and
end to end on the loopback server (text extraction and bounds)."""

from __future__ import annotations

import gzip
import json
import socket
import threading
from collections.abc import Callable

import pytest

from okbot.core.local_tools.web.fetch import BODY_CAP
from okbot.core.local_tools.web.tool import MAX_CHARS, WEB_FETCH, make_web_fetch
from tests.unit.core.local_tools.web.fakes import (
    LOOPBACK,
    FakeDNS,
    Runtime,
    ctx,
    drip,
    listening_socket,
    loopback_tool,
    no_resolver,
    redirect,
    send,
)

# -- the tool as the model calls it: refused before any connection --------------------------------------


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
