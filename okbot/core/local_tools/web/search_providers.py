"""The search services web_search can ask — Tavily, Brave, Serper and a self-hosted SearXNG — as data: how
each one's request is made and how its answer is read. No traffic here: the tool (:mod:`.search_tool`)
sends the request through the guarded engine.

Each service in its own documented shape:

- Tavily: ``POST https://api.tavily.com/search``, JSON ``{"query", "max_results"}``, the key as
  ``Authorization: Bearer``; results at ``results[].{title, url, content}``.
- Brave: ``GET https://api.search.brave.com/res/v1/web/search?q=&count=``, the key in
  ``X-Subscription-Token``; results at ``web.results[].{title, url, description}``.
- Serper: ``POST https://google.serper.dev/search``, JSON ``{"q", "num"}``, the key in ``X-API-KEY``;
  results at ``organic[].{title, link, snippet}``.
- SearXNG: ``GET {base}/search?q=&format=json`` (no key); results at ``results[].{title, url, content}``.
  It answers 403 when its ``settings.yml`` does not list ``json`` under ``search: formats``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

MAX_RESULTS = 20  # every hosted service accepts up to 20 per request


@dataclass(frozen=True)
class Hit:
    """One search result: what the model gets of it."""

    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class SearchRequest:
    """The request to send: method, full URL, headers (the key among them) and body."""

    method: str
    url: str
    headers: dict[str, str] = field(repr=False)
    body: bytes | None = None


@dataclass(frozen=True)
class SearchService:
    """One search service: its settings id, its name in messages, its fixed endpoint ("" for SearXNG,
    whose address the user gives), whether it needs a key, and how its request is built and answer read."""

    id: str
    name: str
    endpoint: str
    needs_key: bool
    build: Callable[[str, int, str, str], SearchRequest]  # (query, count, key, endpoint)
    read: Callable[[Any], list[Hit] | None]  # None: the answer does not have this service's shape


def _json_body(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def _hits(rows: Any, title: str, url: str, snippet: str) -> list[Hit] | None:
    """The rows that are objects, as hits (missing fields empty); None when ``rows`` is not a list."""
    if not isinstance(rows, list):
        return None
    hits = []
    for row in rows:
        if isinstance(row, dict):
            hits.append(Hit(_text(row.get(title)), _text(row.get(url)), _text(row.get(snippet))))
    return hits


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _tavily(query: str, count: int, key: str, endpoint: str) -> SearchRequest:
    headers = {"Content-Type": "application/json", "Accept": "application/json", "Authorization": f"Bearer {key}"}
    return SearchRequest("POST", endpoint, headers, _json_body({"query": query, "max_results": count}))


def _read_tavily(data: Any) -> list[Hit] | None:
    return _hits(data.get("results"), "title", "url", "content") if isinstance(data, dict) else None


def _brave(query: str, count: int, key: str, endpoint: str) -> SearchRequest:
    url = f"{endpoint}?{urlencode({'q': query, 'count': count})}"
    return SearchRequest("GET", url, {"Accept": "application/json", "X-Subscription-Token": key})


def _read_brave(data: Any) -> list[Hit] | None:
    if not isinstance(data, dict):
        return None
    web = data.get("web")
    if web is None:  # Brave leaves "web" out when nothing was found
        return [] if data.get("type") == "search" else None
    return _hits(web.get("results"), "title", "url", "description") if isinstance(web, dict) else None


def _serper(query: str, count: int, key: str, endpoint: str) -> SearchRequest:
    headers = {"Content-Type": "application/json", "Accept": "application/json", "X-API-KEY": key}
    return SearchRequest("POST", endpoint, headers, _json_body({"q": query, "num": count}))


def _read_serper(data: Any) -> list[Hit] | None:
    if not isinstance(data, dict):
        return None
    if "organic" not in data:  # no organic results: Serper still echoes its searchParameters
        return [] if isinstance(data.get("searchParameters"), dict) else None
    return _hits(data.get("organic"), "title", "link", "snippet")


def _searxng(query: str, count: int, key: str, endpoint: str) -> SearchRequest:
    url = f"{endpoint.rstrip('/')}/search?{urlencode({'q': query, 'format': 'json'})}"
    return SearchRequest("GET", url, {"Accept": "application/json"})


def _read_searxng(data: Any) -> list[Hit] | None:
    return _hits(data.get("results"), "title", "url", "content") if isinstance(data, dict) else None


SERVICES: dict[str, SearchService] = {
    service.id: service
    for service in (
        SearchService("tavily", "Tavily", "https://api.tavily.com/search", True, _tavily, _read_tavily),
        SearchService(
            "brave", "Brave Search", "https://api.search.brave.com/res/v1/web/search", True, _brave, _read_brave
        ),
        SearchService("serper", "Serper", "https://google.serper.dev/search", True, _serper, _read_serper),
        SearchService("searxng", "SearXNG", "", False, _searxng, _read_searxng),
    )
}


def error_text(data: Any) -> str:
    """The message a service's error answer carries ("" when none is found): Tavily's
    ``{"detail": {"error": …}}``, Brave's ``{"error": {"detail": …}}``, Serper's ``{"message": …}``,
    or a plain ``error``/``message``/``detail`` string."""
    if not isinstance(data, dict):
        return ""
    for name in ("detail", "error", "message"):
        value = data.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, dict):
            for inner in ("error", "detail", "message", "code"):
                text = value.get(inner)
                if isinstance(text, str) and text.strip():
                    return text.strip()
    return ""
