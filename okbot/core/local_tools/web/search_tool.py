"""The ``web_search`` tool as the model calls it: asks the chosen search service (:mod:`.search_setup`) one
question through the guarded engine and returns the results' titles, URLs and snippets.

A hosted service's fixed host goes through the same address guard as web_fetch (public addresses only);
the SearXNG server the user configured may be on this computer or the local network, so its host alone is
let through — the request is built from that setting, never from the model's words, and no redirect is
followed, so nothing else is reached. Every failure (a refused key, a rate limit, a timeout, an answer that
is not the service's JSON) is a failed outcome written for the model, with the key redacted from it.
"""

from __future__ import annotations

import html
import re
import ssl
import time
from collections.abc import Callable
from typing import Any

from okbot.core.local_tools.web.address import METADATA_IPS, Resolver, check_address, resolve_public, system_resolve
from okbot.core.local_tools.web.errors import FetchError
from okbot.core.local_tools.web.fetch import REDIRECTS, ConnectFailed, Page, fetch_pinned, parse_url
from okbot.core.local_tools.web.search_providers import MAX_RESULTS, Hit, SearchRequest, error_text
from okbot.core.local_tools.web.search_setup import SearchSetup, ready, setup
from okbot.core.local_tools.web.text import uncompress
from okbot.core.local_tools.web.tool import resolve_by
from okbot.core.tools import Tool, ToolContext, ToolOutcome
from okbot.llm.keys import redact
from okbot.llm.keystore import KeyStore
from okbot.storage import jsontext
from okbot.storage.redaction import REDACTED

TOTAL_TIMEOUT = 20.0  # seconds for the whole call: DNS, connect, answer
BODY_CAP = 1024 * 1024  # bytes of answer read at most (a page of results is a few KiB)
MAX_QUERY_CHARS = 400
TITLE_CHARS = 200
URL_CHARS = 500
SNIPPET_CHARS = 500
DETAIL_CHARS = 200  # of a service's own error message
QUOTA_STATUSES = (402, 432, 433)  # no credits left (Serper), a plan's or pay-as-you-go limit (Tavily)

NOTE = (
    f"search the web and return the results' titles, URLs and snippets (at most {MAX_RESULTS}); "
    "read a result's page with web_fetch"
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "what to search for, as you would type it into a search engine"},
        "max_results": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "description": "at most this many results (default: the user's setting)",
        },
    },
    "required": ["query"],
}


def _checked_args(args: dict[str, Any]) -> tuple[str, int | None]:
    """The query (one line, not empty, not overlong) and the results wanted (None: the setting's)."""
    query = args.get("query") if isinstance(args, dict) else None
    if not isinstance(query, str) or not (query := " ".join(query.split())):
        raise FetchError("needs a 'query' string (what to search for)")
    if len(query) > MAX_QUERY_CHARS:
        raise FetchError(f"the query is {len(query):,} characters long; at most {MAX_QUERY_CHARS} are accepted")
    wanted = args.get("max_results")
    if wanted is None:
        return query, None
    if isinstance(wanted, bool) or not isinstance(wanted, int | float) or int(wanted) != wanted or wanted < 1:
        raise FetchError(f"max_results must be a whole number from 1 to {MAX_RESULTS}")
    return query, min(int(wanted), MAX_RESULTS)


def _allow_configured_host(ip: str) -> str:
    """The address check for the SearXNG host the user configured: private and local addresses are fine
    (that is where a self-hosted server lives); only the cloud metadata service is never contacted."""
    return check_address(ip) if ip.split("%")[0] in METADATA_IPS else ""


def _send(
    request: SearchRequest,
    found: SearchSetup,
    *,
    resolve: Resolver,
    check: Callable[[str], str],
    deadline: float,
    cancel: Any,
    body_cap: int,
    ssl_context: ssl.SSLContext | None,
    progress: Callable[[str], None],
) -> Page:
    """The service's answer to ``request``, from the first of its host's checked addresses that connects."""
    parts = parse_url(request.url)
    guard = check if found.service.needs_key else _allow_configured_host
    if not found.service.needs_key and parts.host != parse_url(found.endpoint).host:
        raise FetchError(f"refused: {parts.host} is not the configured SearXNG host")  # never: the URL is built from it
    addresses = resolve_by(deadline, cancel, lambda: resolve_public(parts.host, parts.port, resolve, guard))
    progress(f"{request.method} {request.url[:200]}")
    error = FetchError("no address to connect to")
    for ip in addresses:
        try:
            return fetch_pinned(
                request.url,
                ip,
                deadline=deadline,
                body_cap=body_cap,
                cancel=cancel,
                ssl_context=ssl_context,
                method=request.method,
                headers=request.headers,
                body=request.body,
            )
        except ConnectFailed as exc:
            error = exc  # the host's next address may answer
    raise error


def _clean(text: str, limit: int) -> str:
    """One line of plain text: no tags (Brave marks matches with <strong>), entities and whitespace resolved,
    control characters dropped, at most ``limit`` characters."""
    text = html.unescape(re.sub(r"<[^<>]{0,200}>", "", text))
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _parsed(page: Page, body_cap: int) -> Any:
    """The answer's JSON, or None when it is not JSON."""
    body = uncompress(page.body, page.headers.get("Content-Encoding", "") or "", body_cap)
    try:
        return jsontext.loads(body.decode("utf-8", errors="strict"), what="the answer")
    except (ValueError, UnicodeDecodeError):
        return None


def _token_invalid(data: Any) -> bool:
    """Brave's answer to a key it does not know: HTTP 422 with the code SUBSCRIPTION_TOKEN_INVALID."""
    error = data.get("error") if isinstance(data, dict) else None
    return isinstance(error, dict) and error.get("code") == "SUBSCRIPTION_TOKEN_INVALID"


def _status_problem(page: Page, found: SearchSetup, data: Any) -> str:
    """Why an answer with an error status failed, in words for the model."""
    name, status = found.service.name, page.status
    detail = _clean(error_text(data), DETAIL_CHARS)
    detail = f": {detail}" if detail else ""
    if not found.service.needs_key and status == 403:
        return (
            f"the SearXNG server at {found.endpoint} refused format=json (HTTP 403 Forbidden{detail}); enable the "
            "json format in its settings.yml (search: formats: [html, json]) and restart it"
        )
    if status in (401, 403) or _token_invalid(data):
        return (
            f"{name} refused the API key (HTTP {status}{detail}); check or replace the key in Settings → Tools → "
            "Web search"
        )
    if status == 429:
        return f"{name}'s rate limit was reached (HTTP 429{detail}); wait a while before searching again"
    if status in QUOTA_STATUSES:
        return f"{name} says the plan's searches or credits are used up (HTTP {status}{detail})"
    if status >= 500:
        return f"{name} had a server error (HTTP {status} {page.reason}{detail}); try again later"
    return f"{name} answered HTTP {status} {page.reason}{detail}"


def _results(page: Page, found: SearchSetup, count: int, body_cap: int) -> list[Hit]:
    """The hits of a complete answer; FetchError saying what is wrong with any other answer."""
    name = found.service.name
    if page.cut == "stopped":
        raise FetchError("stopped by the user")
    if page.status in REDIRECTS:
        location = (page.headers.get("Location", "") or "")[:200]
        raise FetchError(f"{name} answered with a redirect (HTTP {page.status}) to {location!r}, which is not followed")
    data = _parsed(page, body_cap) if not page.cut else None
    if page.status >= 400:
        raise FetchError(_status_problem(page, found, data))
    if page.cut:
        why = "the time limit" if page.cut == "time" else f"the {body_cap:,}-byte cap"
        raise FetchError(f"{name}'s answer was cut at {why} before it was complete")
    if data is None:
        content_type = page.headers.get("Content-Type", "") or "(none)"
        raise FetchError(f"{name}'s answer is not valid JSON (HTTP {page.status}, Content-Type {content_type[:100]})")
    hits = found.service.read(data)
    if hits is None:
        raise FetchError(f"{name}'s answer is JSON but has no results in the shape {name} documents")
    return [hit for hit in hits if hit.url.strip()][:count]


def _text(query: str, found: SearchSetup, hits: list[Hit]) -> str:
    """The results as the model reads them: a head line, then each hit's title, URL and snippet."""
    head = f'Web search: "{query}" · {found.service.name} · {len(hits)} result{"" if len(hits) == 1 else "s"}'
    if not hits:
        return head + "\n\nNo results."
    rows = []
    for n, hit in enumerate(hits, 1):
        row = [f"{n}. {_clean(hit.title, TITLE_CHARS) or '(no title)'}", f"   {_clean(hit.url, URL_CHARS)}"]
        snippet = _clean(hit.snippet, SNIPPET_CHARS)
        if snippet:
            row.append(f"   {snippet}")
        rows.append("\n".join(row))
    return head + "\n\n" + "\n\n".join(rows)


def make_web_search(
    keys: KeyStore | None = None,
    *,
    resolve: Resolver = system_resolve,
    check: Callable[[str], str] = check_address,
    endpoints: dict[str, str] | None = None,
    total_timeout: float = TOTAL_TIMEOUT,
    body_cap: int = BODY_CAP,
    ssl_context: ssl.SSLContext | None = None,
) -> Tool:
    """The web_search tool with its key store, resolver, address check and limits (tests inject their own;
    ``endpoints`` points hosted services at a local fake server, as no setting can)."""
    store = keys or KeyStore()

    def run(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        key = ""
        try:
            query, wanted = _checked_args(args)
            runtime = ctx.runtime
            if runtime is None:
                raise FetchError("it runs only inside a turn")
            if runtime.cancel is not None and runtime.cancel.cancelled:
                raise FetchError("stopped by the user")
            found = setup(runtime.sources.settings, store, endpoints)
            if isinstance(found, str):
                raise FetchError(found)
            key = found.key
            count = wanted or found.max_results
            page = _send(
                found.service.build(query, count, key, found.endpoint),
                found,
                resolve=resolve,
                check=check,
                deadline=time.monotonic() + min(total_timeout, ctx.seconds_left),  # never past the turn's tool time
                cancel=runtime.cancel,
                body_cap=body_cap,
                ssl_context=ssl_context,
                progress=lambda text: runtime.progress("web_search", ctx.call_id, redact(text, key)),
            )
            hits = _results(page, found, count, body_cap)
            text = _text(query, found, hits)
            return ToolOutcome(text.replace(key, REDACTED) if key else text)  # a page quoting the key
        except FetchError as exc:
            return ToolOutcome(redact(f"web_search: {exc}.", key), ok=False)

    return Tool(
        name="web_search",
        note=NOTE,
        parameters=PARAMETERS,
        run=run,
        approval_key="tools.web_search.approval",
        available=lambda settings: ready(settings, store),
    )


WEB_SEARCH = make_web_search()
