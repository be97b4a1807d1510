"""The engine against the loopback server: the checked address, the deadline, the cap, Stop, TLS."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from okbot.core.local_tools.web.errors import FetchError
from okbot.core.local_tools.web.fetch import BODY_CAP, fetch_pinned
from okbot.llm.provider import CancelToken
from tests.unit.core.local_tools.web.fakes import LOOPBACK, drip, listening_socket, send


def test_engine_connects_to_the_given_address_with_the_host_name(server):
    with pytest.raises(FetchError):  # the address must be numeric: the engine never looks a name up
        fetch_pinned(server.url(), "site.test", deadline=time.monotonic() + 5)
    server.routes["/hello"] = lambda h: send(h, 200, b"hi", "text/plain")
    page = fetch_pinned(
        server.url("/hello?q=1 2", host="name.test").replace(" ", "%20"), LOOPBACK, deadline=time.monotonic() + 10
    )
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
    subject = ["-subj", "/CN=site.test", "-addext", "subjectAltName=DNS:site.test"]
    command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", *subject]
    subprocess.run([*command, "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
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
        fetch_pinned(
            url.replace("site.test", "other.test"), LOOPBACK, deadline=time.monotonic() + 10, ssl_context=trusted
        )
