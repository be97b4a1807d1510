"""Is a model provider configured, and which OpenAI-compatible servers answer on this computer?

Qt-free (plain functions, blocking I/O with short timeouts): the UI runs :func:`probe_server`
through its ``TaskRunner``, one call per candidate, so results arrive as each server answers.

"Configured" (see :func:`provider_configured`) means the app can plausibly send a request:

* the base URL points at this computer or the local network (``localhost``, ``127.0.0.0/8``,
  ``::1``, private and link-local addresses, ``*.local``) — local servers need no key; or
* ``provider.keySource`` is ``none`` — the user said the server needs no key; or
* a key is available: ``OKBOT_API_KEY`` / ``OPENAI_API_KEY`` is set, or the key source finds one
  (a key OkBot saved: system keyring, or the 0600 key file, :mod:`okbot.llm.keystore`).

Only a hosted base URL with no key anywhere needs the first-run panel.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from okbot.config.providers import DEFAULT_PROVIDER
from okbot.i18n import QT_TRANSLATE_NOOP, plural, translate
from okbot.llm.key_source import resolve_api_key
from okbot.llm.keys import env_api_key, env_key, key_needed
from okbot.llm.keystore import IMPORT_LOCK, KEYRING, KeyStore
from okbot.llm.providers import build_backend

PROBE_TIMEOUT = 0.8  # seconds per local server: connect + answer (a refused port fails at once)
MAX_PROBE_BYTES = 1_000_000  # a model list larger than this is not what we are looking for


@dataclass(frozen=True)
class LocalServerCandidate:
    """A place an OpenAI-compatible server usually listens (``base_url`` ends in ``/v1``)."""

    name: str
    base_url: str


DEFAULT_CANDIDATES: tuple[LocalServerCandidate, ...] = (
    LocalServerCandidate("Ollama", "http://127.0.0.1:11434/v1"),
    LocalServerCandidate("LM Studio", "http://127.0.0.1:1234/v1"),
    LocalServerCandidate("llama.cpp", "http://127.0.0.1:8080/v1"),
    LocalServerCandidate("vLLM", "http://127.0.0.1:8000/v1"),
)


@dataclass(frozen=True)
class ProbeResult:
    """What one candidate answered: ``found`` with its models, or why not (``problem``).

    ``needs_key`` is set when a server answered 401/403: something OpenAI-compatible is there
    but it wants a key.
    """

    candidate: LocalServerCandidate
    found: bool
    models: tuple[str, ...] = field(default=())
    needs_key: bool = False
    problem: str = ""


def probe_server(candidate: LocalServerCandidate, timeout: float = PROBE_TIMEOUT) -> ProbeResult:
    """``GET <base_url>/models`` with a short timeout; never raises for network or content problems."""
    parts = urlsplit(candidate.base_url)
    if parts.scheme != "http" or not parts.hostname:
        return ProbeResult(candidate, False, problem=translate("provider_setup", "not an http:// URL"))
    path = parts.path.rstrip("/") + "/models"
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Accept": "application/json"})
        response = conn.getresponse()
        body = response.read(MAX_PROBE_BYTES + 1)
        status = response.status
    except ConnectionRefusedError:
        return ProbeResult(candidate, False, problem=translate("provider_setup", "nothing is listening"))
    except (OSError, http.client.HTTPException) as exc:  # timeouts are OSError too
        return ProbeResult(candidate, False, problem=_why(exc))
    finally:
        conn.close()
    if status in (401, 403):
        return ProbeResult(
            candidate, True, needs_key=True, problem=translate("provider_setup", "the server wants an API key")
        )
    if status != 200:
        return ProbeResult(
            candidate, False, problem=translate("provider_setup", "answered HTTP {status}").format(status=status)
        )
    models = _model_ids(body)
    if models is None:
        return ProbeResult(candidate, False, problem=translate("provider_setup", "answered, but not with a model list"))
    return ProbeResult(candidate, True, models=models)


def _why(exc: BaseException) -> str:
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return translate("provider_setup", "no answer in time")
    return getattr(exc, "strerror", None) or type(exc).__name__


def _model_ids(body: bytes) -> tuple[str, ...] | None:
    """The ``id`` of each entry of ``{"data": [...]}``, sorted; None when the body is not that."""
    if len(body) > MAX_PROBE_BYTES:
        return None
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    ids = {e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"]}
    return tuple(sorted(ids))


KeyFinder = Callable[[str], "str | None"]


def provider_configured(settings: Any, find_key: KeyFinder = resolve_api_key) -> bool:
    """Whether ``settings`` name a provider OkBot can plausibly use (see the module docstring).

    ``find_key(key_source)`` looks the key up (default: environment / saved key); it may touch the
    system keyring, so call this off the GUI thread.
    """
    source = settings.get("provider.keySource")
    if not key_needed(settings.get("provider.baseUrl"), source) or env_api_key():
        return True
    return bool(find_key(source))


KEYRING_TEXT = QT_TRANSLATE_NOOP("provider_setup", "Saved in the system keyring, never in settings.json.")


def shown_path(path: Path) -> str:
    """``path`` as people read it: under the home folder as ``~/…``."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except (ValueError, RuntimeError):  # elsewhere, or no home folder
        return str(path)


def key_file_text(key_file: Path) -> str:
    """What the UI says, before a key is saved, when there is no system keyring."""
    return translate(
        "provider_setup",
        "This computer has no system keyring, so OkBot keeps the key in a file only your user account "
        "can read (mode 0600; not encrypted, never settings.json):\n{path}\n"
        "Or leave this empty and set OKBOT_API_KEY before starting OkBot.",
    ).format(path=shown_path(key_file))


def where_text(where: str, key_file: Path) -> str:
    """Where a saved key goes (:data:`KEYRING` or :data:`FILE`), in words."""
    return translate("provider_setup", KEYRING_TEXT) if where == KEYRING else key_file_text(key_file)


def saved_text(where: str, key_file: Path) -> str:
    """Where a key was just saved, in words."""
    if where == KEYRING:
        return translate("provider_setup", "Key saved in the system keyring.")
    return translate("provider_setup", "Key saved in {path} (readable by your user only).").format(
        path=shown_path(key_file)
    )


LIST_TIMEOUT = 10.0  # seconds for listing models / testing the connection (never the chat timeout)


def list_models(settings: Any, timeout: float = LIST_TIMEOUT) -> list[str]:
    """The model ids the configured server lists under ``/models``; raises ProviderError.

    Blocking (network): run it through the TaskRunner.
    """
    with IMPORT_LOCK:
        from okbot.llm.slots import listed_models

    provider = build_backend(settings, settings.providers.get(DEFAULT_PROVIDER), timeout=timeout, max_retries=0)
    try:
        return listed_models(provider)
    finally:
        provider.close()


def list_models_at(base_url: str, api_key: str | None, timeout: float = LIST_TIMEOUT) -> list[str]:
    """The model ids a server lists, for a base URL and key not saved yet; raises ProviderError."""
    with IMPORT_LOCK:
        from okbot.llm.openai_backend import OpenAIProvider
        from okbot.llm.slots import listed_models

    provider = OpenAIProvider(base_url, api_key, timeout=timeout, max_retries=0)
    try:
        return listed_models(provider)
    finally:
        provider.close()


@dataclass(frozen=True)
class ConnectionCheck:
    """The outcome of Test connection: ``ok`` when the server answered and lists the model."""

    ok: bool
    message: str
    models: tuple[str, ...] = ()


def check_connection(settings: Any, timeout: float = LIST_TIMEOUT) -> ConnectionCheck:
    """Ask the configured server for its models and say whether the chosen model is among them.

    Blocking (network): run it through the TaskRunner. Provider failures become a
    ``ConnectionCheck`` with ``ok=False`` and the provider's own message.
    """
    from okbot.llm.errors import ProviderError

    url = settings.get("provider.baseUrl")
    model = settings.get("provider.model")
    try:
        models = tuple(list_models(settings, timeout))
    except ProviderError as exc:
        return ConnectionCheck(
            False, translate("provider_setup", "Could not connect to {url}: {error}").format(url=url, error=exc)
        )
    count = plural(
        len(models), translate("provider_setup", "{n} model"), translate("provider_setup", "{n} models")
    ).format(n=len(models))
    if not models or model in models:
        ready = translate("provider_setup", "Connected to {url} ({count}); “{model}” is ready.")
        return ConnectionCheck(True, ready.format(url=url, count=count, model=model), models)
    missing = translate(
        "provider_setup", "Connected to {url} ({count}), but it does not list “{model}”. Pick one of its models."
    )
    return ConnectionCheck(False, missing.format(url=url, count=count, model=model), models)


def key_status(settings: Any, keys: KeyStore) -> str:
    """Where the API key for ``settings`` comes from, in words (may touch the keyring)."""
    if env_key("OKBOT_API_KEY"):
        return translate("provider_setup", "Using the key in OKBOT_API_KEY (it takes precedence over the key source).")
    source = settings.get("provider.keySource")
    if source == "none":
        return translate("provider_setup", "No key is sent: the server needs none.")
    if source == "keyring":
        saved = keys.get()
        if saved is not None and saved.where == KEYRING:
            return translate("provider_setup", "Using the key saved in the system keyring.")
        if saved is not None:
            return translate("provider_setup", "Using the key saved in {path} (readable by your user only).").format(
                path=shown_path(keys.key_file)
            )
        if keys.problem:
            return keys.problem
        if env_api_key():
            return translate("provider_setup", "No key saved yet; using the one from the environment (OPENAI_API_KEY).")
        return translate("provider_setup", "No key saved yet.")
    if env_api_key():
        return translate("provider_setup", "Using the key from the environment (OPENAI_API_KEY).")
    if not key_needed(settings.get("provider.baseUrl"), source):
        return translate("provider_setup", "No key set; local servers usually need none.")
    return translate("provider_setup", "No key: save one here, or set OKBOT_API_KEY or OPENAI_API_KEY.")
