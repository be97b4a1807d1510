"""Every provider a user has, behind one :class:`~okbot.llm.provider.Provider`: requests go where their model
reference points.

A request's ``model`` is a reference ``[PROVIDER/]MODEL`` (:mod:`okbot.config.providers`): the pool sends
it, with the bare model name, to that provider's server, using that provider's key. One backend per
provider is built on first use and kept, so the whole turn (a squad's members included) and its
compression run over the same pool, each assistant against its own server. Every request waits for a
slot of its server (:mod:`okbot.llm.slots`): the user's chat first, OkBot's own calls when no chat runs.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from okbot.config.providers import DEFAULT_PROVIDER, ProviderConfig, resolve_model
from okbot.config.schema import SettingError
from okbot.llm import slots
from okbot.llm.capabilities import CapabilityMemory
from okbot.llm.errors import ProviderError
from okbot.llm.events import ErrorEvent, Event
from okbot.llm.key_source import key_for, key_source_of
from okbot.llm.keys import key_needed
from okbot.llm.provider import CancelToken, ChatRequest

Factory = Callable[[Any, ProviderConfig], Any]


def build_backend(settings: Any, config: ProviderConfig, **kwargs: Any) -> Any:
    """An :class:`~okbot.llm.openai_backend.OpenAIProvider` for ``config``: its key by :func:`key_for`,
    timeouts and retries from settings, and for the default provider ``provider.model`` as its model."""
    from okbot.llm.keystore import IMPORT_LOCK

    with IMPORT_LOCK:  # the SDK loads on first use, maybe in a worker thread
        from okbot.llm.openai_backend import OpenAIProvider

    source = key_source_of(config)
    options: dict[str, Any] = {}
    for name, key in (("timeout", "provider.timeout"), ("max_retries", "provider.maxRetries")):
        try:
            options[name] = settings.get(key)
        except SettingError:  # a schema without the key: keep the default
            continue
    options["key_required"] = key_needed(config.base_url, source)
    options["key_var"] = config.key_env if source == "env" else ""
    if config.name == DEFAULT_PROVIDER:
        options["default_model"] = settings.get("provider.model")
    options.update(kwargs)
    return OpenAIProvider(config.base_url, key_for(config), **options)


def list_every_model(settings: Any, timeout: float = 10.0, factory: Factory | None = None) -> list[str]:
    """Every model reference :func:`models_by_provider` lists, in its order."""
    return [ref for _name, refs in models_by_provider(settings, timeout, factory) for ref in refs]


def models_by_provider(
    settings: Any, timeout: float = 10.0, factory: Factory | None = None
) -> list[tuple[str, list[str]]]:
    """What the model picker offers, per provider (``(name, references)``, providers with no model left out):
    the default provider's models by name, then every other provider's as ``NAME/MODEL`` (listed by its
    server now, else as last listed). Blocking (network): run it off the GUI thread. Raises the first
    ProviderError when nothing at all could be listed."""
    from okbot.llm.errors import ProviderError

    build = factory or (lambda s, config: build_backend(s, config, timeout=timeout, max_retries=0))
    found: list[tuple[str, list[str]]] = []
    failure: ProviderError | None = None
    for config in settings.providers.all():
        try:
            backend = build(settings, config)
            try:
                models = slots.listed_models(backend)
            finally:
                _close(backend)
        except ProviderError as exc:
            failure = failure or exc
            models = list(config.models)
        prefix = "" if config.name == DEFAULT_PROVIDER else f"{config.name}/"
        if models:
            found.append((config.name, [prefix + model for model in models]))
    if not found and failure is not None:
        raise failure
    return found


class ProviderPool:
    """A provider that routes each request by its model reference to that provider's backend.

    ``factory(settings, config)`` builds a backend (default :func:`build_backend`; tests inject a recorder).
    Backends are kept per provider name, so one pool serves the application for as long as it runs: a
    backend is rebuilt when what it was built from changes (the provider's entry, the request timeout and
    retries, the default model and key source), when :meth:`forget` is told its key changed, and after the
    server refused its key (the next request reads the key afresh). A replaced backend is closed with the
    pool, as a reply may still be streaming from it.
    """

    def __init__(self, settings: Any, factory: Factory | None = None) -> None:
        self.settings = settings
        self.capabilities = CapabilityMemory()  # what its servers refused, kept across rebuilt backends
        self._factory = factory or functools.partial(build_backend, capabilities=self.capabilities)
        self._lock = threading.Lock()
        self._backends: dict[str, tuple[tuple[Any, ...], Any]] = {}
        self._superseded: list[Any] = []  # backends of changed providers, closed with the pool

    def route(self, ref: str | None) -> tuple[Any, str]:
        """``(backend, model name)`` for the model reference ``ref``."""
        config, model = resolve_model(self.settings, ref)
        built_from = self._built_from(config)
        with self._lock:
            held = self._backends.get(config.name)
            if held is not None and held[0] == built_from:
                return held[1], model
        backend = self._factory(self.settings, config)  # may read the keyring: outside the lock
        with self._lock:
            old = self._backends.get(config.name)
            if old is not None and old[0] == built_from:  # another thread built it meanwhile: use that one
                spare, backend = backend, old[1]
            else:
                self._backends[config.name] = (built_from, backend)
                spare = None
                if old is not None:  # the provider's settings changed: a reply may still stream from it
                    self._superseded.append(old[1])
        if spare is not None:
            _close(spare)  # an unused twin
        return backend, model

    def _built_from(self, config: ProviderConfig) -> tuple[Any, ...]:
        """What a backend for ``config`` is built from, besides its key (a change means a new backend)."""
        values = []
        for key in ("provider.timeout", "provider.maxRetries", "provider.keySource", "provider.model"):
            try:
                values.append(self.settings.get(key))
            except SettingError:
                values.append(None)
        return (config, *values)

    def forget(self, name: str | None = None) -> None:
        """Build provider ``name``'s backend (every one's, when None) afresh on its next request: its key
        changed. The old one is closed with the pool."""
        with self._lock:
            for held in [n for n in self._backends if name is None or n == name]:
                self._superseded.append(self._backends.pop(held)[1])

    def _refused_key(self, ref: str | None, backend: Any, error: Any) -> None:
        """A server that refused the key: the next request builds the backend again, reading the key afresh."""
        if getattr(error, "kind", "") == "auth":
            config, _model = resolve_model(self.settings, ref)
            with self._lock:
                held = self._backends.get(config.name)
                if held is not None and held[1] is backend:
                    self._superseded.append(self._backends.pop(config.name)[1])

    def scheduler(self, ref: str | None) -> slots.Scheduler:
        """The scheduler of the server the model reference ``ref`` goes to (its slots, what it learnt)."""
        return self._scheduled(ref)[2]

    def _scheduled(self, ref: str | None) -> tuple[Any, str, slots.Scheduler]:
        config, _model = resolve_model(self.settings, ref)
        backend, model = self.route(ref)
        return backend, model, slots.scheduler_for(backend, config.slots)

    def stream(self, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        backend, model, scheduler = self._scheduled(request.model)
        for event in scheduler.stream(backend, replace(request, model=model), cancel):
            if isinstance(event, ErrorEvent):
                self._refused_key(request.model, backend, event.error)
            yield event

    def complete(self, request: ChatRequest, cancel: CancelToken | None = None) -> str:
        backend, model, scheduler = self._scheduled(request.model)
        try:
            return scheduler.complete(backend, replace(request, model=model), cancel)
        except ProviderError as exc:
            self._refused_key(request.model, backend, exc)
            raise

    def list_models(self) -> list[str]:
        """The default provider's models (list another's with ``route("NAME/x")[0].list_models()``); a
        one-slot server is asked between requests, as its model list waits for the model too."""
        backend, _model, scheduler = self._scheduled(None)
        return scheduler.call(lambda _token: backend.list_models(), slots.Priority.CHAT)  # (its configured slots)

    @property
    def local(self) -> bool:
        """Whether the default provider runs on this machine."""
        return bool(self.route(None)[0].local)

    def refuses(self, model: str, parameter: str) -> bool:
        backend, bare = self.route(model)
        return bool(backend.refuses(bare, parameter))

    def close(self) -> None:
        """Close every backend built so far."""
        with self._lock:
            held = [backend for _config, backend in self._backends.values()] + self._superseded
            self._backends, self._superseded = {}, []
        for backend in held:
            _close(backend)


def _close(backend: Any) -> None:
    close = getattr(backend, "close", None)
    if close is not None:
        close()
