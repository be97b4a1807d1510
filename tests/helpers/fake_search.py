"""Fake web search services on 127.0.0.1 for tests: Tavily, Brave, Serper and SearXNG, each answering in its
documented shape (request and answer, error bodies included), with faults a test switches on.

Stdlib only (``ThreadingHTTPServer`` in a daemon thread); every request is recorded (method, path, headers,
body). One server plays every service at its own path; :meth:`FakeSearch.endpoints` gives the URLs to hand
``make_web_search(endpoints=…)``, and :meth:`FakeSearch.searxng_url` the address for ``webSearch.searxngUrl``.

The shapes, as the services document them:

- Tavily ``POST /search`` with ``{"query", "max_results"}`` and ``Authorization: Bearer <key>``: answers
  ``{"query", "answer", "images", "results": [{"title", "url", "content", "score", "raw_content"}],
  "response_time"}``; a wrong key gets 401 ``{"detail": {"error": "Unauthorized: missing or invalid API key."}}``.
- Brave ``GET /res/v1/web/search?q=&count=`` with ``X-Subscription-Token``: answers ``{"type": "search",
  "query": {"original"}, "web": {"type": "search", "results": [{"title", "url", "description"}]}}``; a wrong
  key gets 422 ``{"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", …}}``.
- Serper ``POST /search`` with ``{"q", "num"}`` and ``X-API-KEY``: answers ``{"searchParameters": {…},
  "organic": [{"title", "link", "snippet", "position"}]}``; a wrong key gets 403
  ``{"message": "Unauthorized.", "statusCode": 403}``.
- SearXNG ``GET /search?q=&format=json``: answers ``{"query", "number_of_results", "results": [{"url",
  "title", "content", "engine"}]}``; without ``json`` in its ``search: formats`` it answers 403 Forbidden.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

LOOPBACK = "127.0.0.1"
TAVILY_PATH = "/tavily/search"
BRAVE_PATH = "/brave/res/v1/web/search"
SERPER_PATH = "/serper/search"
SEARXNG_PATH = "/searxng"  # the base URL's path: the server answers at /searxng/search

# Three results every service returns, each in its own field names.
RESULTS = (
    (
        "Python (programming language) - Wikipedia",
        "https://en.wikipedia.org/wiki/Python_(programming_language)",
        "Python is a high-level, general-purpose programming language.",
    ),
    ("Welcome to Python.org", "https://www.python.org/", "The official home of the Python Programming Language."),
    (
        "The Python Tutorial — Python 3 documentation",
        "https://docs.python.org/3/tutorial/",
        "Python is an easy to learn, powerful programming language.",
    ),
)

TAVILY_BAD_KEY = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
TAVILY_RATE_LIMIT = {"detail": {"error": "Your request has been blocked due to excessive requests."}}
BRAVE_BAD_KEY = {
    "type": "ErrorResponse",
    "error": {
        "id": "4c1e2c6e-7d7e-4f52-9c7e-2a3f9c1f2b7d",
        "status": 422,
        "code": "SUBSCRIPTION_TOKEN_INVALID",
        "detail": "The provided subscription token is invalid.",
        "meta": {"component": "authentication"},
    },
    "time": 1733300000,
}
BRAVE_RATE_LIMIT = {
    "type": "ErrorResponse",
    "error": {
        "id": "9d1b8f3a-6a0e-4a4b-8f0e-3c2d1b0a9e8f",
        "status": 429,
        "code": "RATE_LIMITED",
        "detail": "Request rate limit exceeded for plan.",
        "meta": {"plan": "Free", "rate_limit": 1, "rate_current": 2, "quota_limit": 2000, "quota_current": 13},
    },
    "time": 1733300000,
}
SERPER_BAD_KEY = {"message": "Unauthorized.", "statusCode": 403}
SEARXNG_FORBIDDEN = (
    b"<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n"
    b"<p>You don&#39;t have the permission to access the requested resource. It is either read-protected or not "
    b"readable by the server.</p>\n"
)


@dataclass
class Seen:
    """One request the fake received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.path).query)


@dataclass
class Fault:
    """What the next answers do instead of the right one (all off: every service answers properly)."""

    status: int = 0  # answer this status with ``body``
    body: bytes = b""
    content_type: str = "application/json"
    delay: float = 0.0  # seconds before answering (a timeout test)
    redirect_to: str = ""
    extra: dict[str, str] = field(default_factory=dict)


class FakeSearch:
    """One loopback server playing all four services; ``key`` is the key every hosted one accepts."""

    def __init__(self, key: str = "tvly-test-KEY-0123456789abcdef", *, searxng_json: bool = True) -> None:
        self.key = key
        self.searxng_json = searxng_json
        self.fault: Fault | None = None
        self.seen: list[Seen] = []
        self.results: tuple[tuple[str, str, str], ...] = RESULTS
        self._stop = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                owner._answer(self, b"")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                owner._answer(self, self.rfile.read(length))

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # a client that gave up mid-answer is expected
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    # -- addresses ------------------------------------------------------------------------------------
    def url(self, path: str) -> str:
        return f"http://{LOOPBACK}:{self.port}{path}"

    def endpoints(self) -> dict[str, str]:
        """The hosted services' URLs on this server (``make_web_search(endpoints=…)``)."""
        return {"tavily": self.url(TAVILY_PATH), "brave": self.url(BRAVE_PATH), "serper": self.url(SERPER_PATH)}

    def searxng_url(self, host: str = LOOPBACK) -> str:
        return f"http://{host}:{self.port}{SEARXNG_PATH}"

    def close(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeSearch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- answers --------------------------------------------------------------------------------------
    def _answer(self, h: BaseHTTPRequestHandler, body: bytes) -> None:
        self.seen.append(Seen(h.command, h.path, {k: v for k, v in h.headers.items()}, body))
        fault = self.fault
        if fault is not None:
            if fault.delay:
                self._stop.wait(fault.delay)
            if fault.redirect_to:
                return _send(h, 302, b"", "text/plain", {"Location": fault.redirect_to})
            if fault.status:
                return _send(h, fault.status, fault.body, fault.content_type, fault.extra)
        path = urlsplit(h.path).path
        if path == TAVILY_PATH and h.command == "POST":
            return self._tavily(h, body)
        if path == BRAVE_PATH and h.command == "GET":
            return self._brave(h)
        if path == SERPER_PATH and h.command == "POST":
            return self._serper(h, body)
        if path == SEARXNG_PATH + "/search" and h.command == "GET":
            return self._searxng(h)
        _json(h, 404, {"detail": "Not Found"})

    def _tavily(self, h: BaseHTTPRequestHandler, body: bytes) -> None:
        if h.headers.get("Authorization") != f"Bearer {self.key}":
            return _json(h, 401, TAVILY_BAD_KEY)
        ask = json.loads(body)
        rows = self.results[: int(ask.get("max_results", 5))]
        _json(
            h,
            200,
            {
                "query": ask["query"],
                "follow_up_questions": None,
                "answer": None,
                "images": [],
                "results": [
                    {"title": t, "url": u, "content": c, "score": 0.9 - n / 10, "raw_content": None}
                    for n, (t, u, c) in enumerate(rows)
                ],
                "response_time": 1.09,
            },
        )

    def _brave(self, h: BaseHTTPRequestHandler) -> None:
        if h.headers.get("X-Subscription-Token") != self.key:
            return _json(h, 422, BRAVE_BAD_KEY)
        query = parse_qs(urlsplit(h.path).query)
        rows = self.results[: int(query.get("count", ["20"])[0])]
        _json(
            h,
            200,
            {
                "type": "search",
                "query": {"original": query["q"][0], "show_strict_warning": False, "more_results_available": True},
                "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": False}]},
                "web": {
                    "type": "search",
                    "results": [
                        {
                            "title": t.replace("Python", "<strong>Python</strong>", 1),
                            "url": u,
                            "is_source_local": False,
                            "description": c.replace("Python", "<strong>Python</strong>"),
                            "language": "en",
                            "family_friendly": True,
                        }
                        for t, u, c in rows
                    ],
                    "family_friendly": True,
                },
            },
        )

    def _serper(self, h: BaseHTTPRequestHandler, body: bytes) -> None:
        if h.headers.get("X-API-KEY") != self.key:
            return _json(h, 403, SERPER_BAD_KEY)
        ask = json.loads(body)
        rows = self.results[: int(ask.get("num", 10))]
        _json(
            h,
            200,
            {
                "searchParameters": {"q": ask["q"], "type": "search", "num": ask.get("num", 10), "engine": "google"},
                "organic": [
                    {"title": t, "link": u, "snippet": c, "position": n} for n, (t, u, c) in enumerate(rows, 1)
                ],
                "credits": 1,
            },
        )

    def _searxng(self, h: BaseHTTPRequestHandler) -> None:
        query = parse_qs(urlsplit(h.path).query)
        if query.get("format") != ["json"] or not self.searxng_json:
            return _send(h, 403, SEARXNG_FORBIDDEN, "text/html; charset=utf-8")
        _json(
            h,
            200,
            {
                "query": query["q"][0],
                "number_of_results": 0,
                "results": [
                    {"url": u, "title": t, "content": c, "engine": "duckduckgo", "engines": ["duckduckgo"]}
                    for t, u, c in self.results
                ],
                "answers": [],
                "corrections": [],
                "infoboxes": [],
                "suggestions": [],
                "unresponsive_engines": [],
            },
        )


def _json(h: BaseHTTPRequestHandler, status: int, value: Any) -> None:
    _send(h, status, json.dumps(value).encode(), "application/json")


def _send(
    h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None
) -> None:
    try:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            h.send_header(name, value)
        h.end_headers()
        h.wfile.write(body)
    except OSError:
        pass  # the client gave up (a timeout test)
