"""Which search service web_search uses and with what key: the settings (``webSearch.*``) and the key store.

The key of a hosted service is a credential: it is kept with the API keys (the system keyring, or the 0600
key file) under ``websearch:<service>``, never in settings.json, and registered for redaction whenever it is
read or saved. The tool is offered only while a service is ready (:func:`ready`): one is chosen and it has
its key (hosted) or its URL (SearXNG). Whether a key is saved is remembered for a few seconds, so offering
the tools at every step of a turn does not ask the keyring each time; saving or removing a key forgets it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from okbot.config.settings import Settings
from okbot.core.local_tools.web.search_providers import MAX_RESULTS, SERVICES, SearchService
from okbot.i18n import translate
from okbot.llm.keys import key_fault, remember_secret
from okbot.llm.keystore import KeyStore, KeyStoreError

KEY_PREFIX = "websearch:"
OFF = "off"
PRESENCE_SECONDS = 10.0  # how long "is a key saved" is remembered between two offers


@dataclass(frozen=True)
class SearchSetup:
    """A ready service: which one, its key ("" for SearXNG), the URL asked, results wanted by default."""

    service: SearchService
    key: str = field(repr=False)
    endpoint: str
    max_results: int


def key_name(service: str) -> str:
    """The name a service's key is kept under in the key store (namespaced: no model provider has it)."""
    return KEY_PREFIX + service


def save_key(store: KeyStore, service: str, key: str) -> str:
    """Keep ``key`` for ``service``; returns where (keyring or file). KeyStoreError says why not, never quoting it."""
    key = key.strip()
    remember_secret(key)
    if service not in SERVICES or not SERVICES[service].needs_key:
        raise KeyStoreError(translate("web_search", "{service} takes no API key.").format(service=service))
    fault = key_fault(key) if key else None
    if fault is not None:
        text = translate("web_search", "The {service} key was not saved: {fault}.")
        raise KeyStoreError(text.format(service=SERVICES[service].name, fault=fault))
    where = store.save(key, key_name(service))
    key_changed()
    return where


def delete_key(store: KeyStore, service: str) -> None:
    """Forget ``service``'s key."""
    store.delete(key_name(service))
    key_changed()


def load_key(store: KeyStore, service: str) -> str:
    """``service``'s saved key ("" when none, or when it could not travel in a header). May block."""
    saved = store.get(key_name(service))
    if saved is None:
        return ""
    remember_secret(saved.key)
    return "" if key_fault(saved.key) else saved.key


def chosen(settings: Settings) -> SearchService | None:
    """The service the settings choose (None: web search is off)."""
    return SERVICES.get(settings.get("webSearch.provider"))


def searxng_base(url: str) -> str:
    """The SearXNG address as typed, without a trailing ``/`` or ``/search`` (the tool adds ``/search``)."""
    base = url.strip().rstrip("/")
    return base.removesuffix("/search") if urlsplit(base).path.endswith("/search") else base


def setup(settings: Settings, store: KeyStore, endpoints: dict[str, str] | None = None) -> SearchSetup | str:
    """The ready service, or why web search cannot run (in words for the model). May block (the keyring).

    ``endpoints`` replaces hosted services' fixed URLs (tests point them at a local server); it is never
    read from the settings, so no setting can move a hosted service's traffic elsewhere.
    """
    service = chosen(settings)
    count = settings.get("webSearch.maxResults")
    if service is None:
        return translate("web_search", "web search is off (choose a search service in Settings → Tools → Web search)")
    if not service.needs_key:
        base = searxng_base(settings.get("webSearch.searxngUrl"))
        if not base:
            return translate("web_search", "no SearXNG URL is set (Settings → Tools → Web search)")
        return SearchSetup(service, "", base, count)
    key = load_key(store, service.id)
    if not key:
        text = translate("web_search", "no API key is saved for {service} (Settings → Tools → Web search)")
        return text.format(service=service.name)
    return SearchSetup(service, key, (endpoints or {}).get(service.id, service.endpoint), min(count, MAX_RESULTS))


_presence_lock = threading.Lock()
_presence: dict[tuple[str, str], tuple[float, bool]] = {}


def key_changed() -> None:
    """A search key was saved or removed: the next offer asks the store again."""
    with _presence_lock:
        _presence.clear()


def has_key(store: KeyStore, service: str, clock: float | None = None) -> bool:
    """Whether ``service`` has a usable key, remembered for :data:`PRESENCE_SECONDS`. May block."""
    now = time.monotonic() if clock is None else clock
    slot = (str(store.key_file), service)
    with _presence_lock:
        known = _presence.get(slot)
    if known is not None and now - known[0] < PRESENCE_SECONDS:
        return known[1]
    present = bool(load_key(store, service))
    with _presence_lock:
        _presence[slot] = (now, present)
    return present


def ready(settings: Settings, store: KeyStore) -> bool:
    """Whether web_search can run now: a service is chosen and has its key (hosted) or URL (SearXNG)."""
    service = chosen(settings)
    if service is None:
        return False
    if not service.needs_key:
        return bool(searxng_base(settings.get("webSearch.searxngUrl")))
    return has_key(store, service.id)
