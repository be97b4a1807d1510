"""The ``web_fetch`` tool: read one public web page as text — guarded, bounded, stoppable.

Three layers, each testable on its own:

- the address guard (:mod:`.address`): :func:`check_address` says whether one IP may be contacted
  (public only) and :func:`resolve_public` resolves a host once, through an injectable resolver, and
  refuses it unless every address is public;
- the engine (:mod:`.fetch`): :func:`fetch_pinned` makes one GET to an address that was already
  checked, with the Host header and TLS SNI/certificate name of the URL's host (no second DNS lookup,
  so no DNS rebinding), a hard deadline (a watchdog shuts the socket, so a slow drip is cut) and a
  body cap;
- the tool (:mod:`.tool`): :func:`make_web_fetch` follows redirects by hand (each target checked the
  same way), extracts text (:mod:`.text`: HTML → readable text; JSON, XML and plain text as is) and
  bounds the result.

Every layer fails with :class:`FetchError` (:mod:`.errors`), whose message is written for the model.
Proxies from the environment are ignored on purpose: the checked address is the one connected to.
Only the standard library is used.
"""

from __future__ import annotations

from okbot.core.local_tools.web.address import METADATA_IPS, Resolver, check_address, resolve_public, system_resolve
from okbot.core.local_tools.web.errors import FetchError
from okbot.core.local_tools.web.fetch import BODY_CAP, ConnectFailed, Page, UrlParts, fetch_pinned, parse_url
from okbot.core.local_tools.web.text import html_to_text
from okbot.core.local_tools.web.tool import MAX_CHARS, TOTAL_TIMEOUT, WEB_FETCH, make_web_fetch

__all__ = [
    "BODY_CAP",
    "MAX_CHARS",
    "METADATA_IPS",
    "TOTAL_TIMEOUT",
    "WEB_FETCH",
    "ConnectFailed",
    "FetchError",
    "Page",
    "Resolver",
    "UrlParts",
    "check_address",
    "fetch_pinned",
    "html_to_text",
    "make_web_fetch",
    "parse_url",
    "resolve_public",
    "system_resolve",
]
