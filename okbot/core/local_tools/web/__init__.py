"""The ``web_fetch`` and ``web_search`` tools: read one public web page as text, or search the web —
guarded, bounded, stoppable.

Layers, each testable on its own:

- the address guard (:mod:`.address`): :func:`check_address` says whether one IP may be contacted
  (public only) and :func:`resolve_public` resolves a host once, through an injectable resolver, and
  refuses it unless every address is public;
- the engine (:mod:`.fetch`): :func:`fetch_pinned` makes one request (web_fetch's GET, a search service's
  GET or POST) to an address that was already checked, with the Host header and TLS SNI/certificate name
  of the URL's host (no second DNS lookup, so no DNS rebinding), a hard deadline (a watchdog shuts the
  socket, so a slow drip is cut) and a body cap;
- the tool (:mod:`.tool`): :func:`make_web_fetch` follows redirects by hand (each target checked the
  same way), extracts text (:mod:`.text`: HTML → readable text; JSON, XML and plain text as is) and
  bounds the result;
- the search tool (:mod:`.search_tool`): :func:`make_web_search` asks one search service
  (:mod:`.search_providers`: Tavily, Brave, Serper, SearXNG; :mod:`.search_setup`: which one, with what key)
  through the same engine and guard, the configured SearXNG host alone let through.

Every layer fails with :class:`FetchError` (:mod:`.errors`), whose message is written for the model.
Proxies from the environment are ignored on purpose: the checked address is the one connected to.
Only the standard library is used.
"""
