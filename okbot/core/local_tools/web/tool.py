"""The ``web_fetch`` tool as the model calls it: checks its arguments, follows redirects by hand (each
target checked by the address guard and fetched by the engine), extracts text and bounds the result.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin

from okbot.core.local_tools.web.address import Resolver, check_address, resolve_public, system_resolve
from okbot.core.local_tools.web.errors import FetchError
from okbot.core.local_tools.web.fetch import BODY_CAP, REDIRECTS, ConnectFailed, Page, fetch_pinned, parse_url
from okbot.core.local_tools.web.text import content_kind, decode_text, html_to_text, is_text_mime, uncompress
from okbot.core.tools import Tool, ToolContext, ToolOutcome
from okbot.i18n import translate

TOTAL_TIMEOUT = 20.0  # seconds for the whole call: DNS, connects, redirects, body
MAX_CHARS = 20_000  # characters of text returned at most
MIN_CHARS = 100
MAX_REDIRECTS = 5
MAX_URL_CHARS = 8_000
PROGRESS_EVERY = 0.25  # seconds between progress lines (at most 4 per second)

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
    """The max_chars argument clamped to MIN_CHARS..MAX_CHARS (MAX_CHARS when absent); FetchError when unusable."""
    value = args.get("max_chars", MAX_CHARS)
    if value is None:
        return MAX_CHARS
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise FetchError(f"max_chars must be an integer between {MIN_CHARS} and {MAX_CHARS:,}")
    if value < 1:
        raise FetchError(f"max_chars must be positive (at most {MAX_CHARS:,})")
    return max(MIN_CHARS, min(MAX_CHARS, int(value)))


def _checked_args(args: dict[str, Any]) -> tuple[str, int]:
    """The call's URL (stripped, non-empty, not overlong) and its max_chars; FetchError when either is unusable."""
    url = args.get("url") if isinstance(args, dict) else None
    if not isinstance(url, str) or not (url := url.strip()):
        raise FetchError("needs a 'url' string (an http or https URL)")
    if len(url) > MAX_URL_CHARS:
        raise FetchError(f"the URL is {len(url):,} characters long; at most {MAX_URL_CHARS:,} are accepted")
    return url, _max_chars(args)


def _progress_for(ctx: ToolContext) -> Callable[[str], None]:
    """A progress reporter for this call that passes on at most one line per PROGRESS_EVERY seconds."""
    last = [-1e9]

    def progress(text: str) -> None:
        if ctx.runtime is not None and time.monotonic() - last[0] >= PROGRESS_EVERY:
            last[0] = time.monotonic()
            ctx.runtime.progress("web_fetch", ctx.call_id, text)

    return progress


def _follow_redirects(
    url: str,
    *,
    resolve: Resolver,
    check: Callable[[str], str],
    deadline: float,
    cancel: Any,
    progress: Callable[[str], None],
    body_cap: int,
    ssl_context: ssl.SSLContext | None,
) -> tuple[Page, list[str]]:
    """Fetch ``url`` and follow its redirects by hand, each hop's host resolved and checked by the address guard
    before it is fetched; gives the last page and the chain of URLs visited (the first one is ``url``).
    """
    chain = [url]
    while True:
        parts = parse_url(chain[-1])
        addresses = resolve_by(deadline, cancel, lambda p=parts: resolve_public(p.host, p.port, resolve, check))
        progress(f"GET {chain[-1][:200]}")
        page = _fetch_any(chain[-1], addresses, deadline, cancel, progress, body_cap, ssl_context)
        location = page.headers.get("Location")
        if page.status not in REDIRECTS or not location:
            return page, chain
        if len(chain) > MAX_REDIRECTS:
            raise FetchError(f"more than {MAX_REDIRECTS} redirects (last one to {location[:200]!r})")
        chain.append(urljoin(chain[-1], location.strip()))


def _fetch_any(
    url: str,
    addresses: list[str],
    deadline: float,
    cancel: Any,
    progress: Callable[[str], None],
    body_cap: int,
    ssl_context: ssl.SSLContext | None,
) -> Page:
    """Fetch ``url`` from the first of the host's checked addresses that accepts the connection."""
    error = FetchError("no address to connect to")
    options = {"body_cap": body_cap, "cancel": cancel, "ssl_context": ssl_context}
    for ip in addresses:
        try:
            return fetch_pinned(
                url,
                ip,
                deadline=deadline,
                on_bytes=lambda n: progress(translate("tool", "received {bytes} bytes").format(bytes=f"{n:,}")),
                **options,
            )
        except ConnectFailed as exc:
            error = exc  # the host's next address may answer
    raise error


def resolve_by(deadline: float, cancel: Any, job: Callable[[], list[str]]) -> list[str]:
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
            url, max_chars = _checked_args(args)
            cancel = ctx.runtime.cancel if ctx.runtime is not None else None
            if cancel is not None and cancel.cancelled:
                raise FetchError("stopped by the user")
            deadline = time.monotonic() + total_timeout
            page, chain = _follow_redirects(
                url,
                resolve=resolve,
                check=check,
                deadline=deadline,
                cancel=cancel,
                progress=_progress_for(ctx),
                body_cap=body_cap,
                ssl_context=ssl_context,
            )
            return _outcome(page, chain, max_chars, body_cap, total_timeout)
        except FetchError as exc:
            return ToolOutcome(f"web_fetch: {exc}.", ok=False)

    return Tool(name="web_fetch", note=NOTE, parameters=PARAMETERS, run=run, approval_key="tools.web_fetch.approval")


def _outcome(page: Page, chain: list[str], max_chars: int, body_cap: int, total_timeout: float) -> ToolOutcome:
    """Turn the last page into the tool's outcome: a head (title, final URL, status, type and size), the text cut
    to ``max_chars`` and notes on what was cut; a refusal when the body is not text.
    """
    content_type = page.headers.get("Content-Type", "") or ""
    mime = content_type.split(";")[0].strip().lower()
    body = uncompress(page.body, page.headers.get("Content-Encoding", "") or "", body_cap)
    partial = page.declared_length not in (None, len(page.body))
    size = f"{len(page.body):,} bytes" + (f" of {page.declared_length:,}" if partial else "")
    head = [
        f"URL: {page.url}" + (f" (redirected from {chain[0]})" if len(chain) > 1 else ""),
        f"Status: {page.status} {page.reason}".rstrip(),
        f"Content-Type: {content_type or '(none)'} · {size}",
    ]
    kind = content_kind(mime, body)
    if not kind:
        what = "binary" if is_text_mime(mime) else (mime or "unknown")
        refusal = f"web_fetch: refused: the response is not text ({what}, {size}); it returns text only (HTML, JSON, …)"
        return ToolOutcome(refusal + ".\n" + "\n".join(head), ok=False)
    text = decode_text(body, page.headers, kind)
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
