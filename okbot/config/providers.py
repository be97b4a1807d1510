"""Providers: the OpenAI-compatible servers a user has, and model references ``[PROVIDER/]MODEL``.

The provider called :data:`DEFAULT_PROVIDER` is the one ``provider.baseUrl`` / ``provider.keySource``
describe (``OKBOT_BASE_URL`` still overrides its URL without saving); any others are listed under
``providers`` in settings.json::

    "providers": [
      {"name": "default", "baseUrl": "https://api.openai.com/v1", "keySource": "env"},
      {"name": "router", "baseUrl": "https://openrouter.ai/api/v1", "keySource": "env",
       "keyEnv": "OPENROUTER_API_KEY", "models": ["meta-llama/Llama-3"], "contextWindows": {"meta-llama/Llama-3": 8192},
       "slots": 4}
    ]

A model reference names a model, optionally after a provider: ``router/meta-llama/Llama-3``. A model
name may contain ``/`` itself, so the part before the first ``/`` is a provider only when a provider
of that name exists; otherwise the whole reference is a model of the default provider.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from okbot.config.schema import SettingError
from okbot.i18n import translate
from okbot.storage.redaction import holds_userinfo, redact_url

DEFAULT_PROVIDER = "default"  # the same name okbot.llm.keystore files the default key under
KEY_SOURCES = ("env", "keyring", "none")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
_ENV_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_SLOTS = 64  # requests a provider's server may be sent at once


@dataclass(frozen=True)
class ProviderConfig:
    """One provider: where it is, where its key comes from (never the key), and what it is known to serve.

    ``key_env`` names the variable holding the key when ``key_source`` is ``env`` (empty: ``OKBOT_API_KEY``
    then ``OPENAI_API_KEY``). ``models`` is the server's model list as last fetched; ``context_windows``
    the user's window per model of this provider; ``slots`` how many requests its server answers at once
    (None: :func:`okbot.llm.slots.default_slots`, 1 for a server on this machine).
    """

    name: str
    base_url: str
    key_source: str = "env"
    key_env: str = ""
    models: tuple[str, ...] = ()
    context_windows: dict[str, int] = field(default_factory=dict, compare=False)
    slots: int | None = field(default=None, compare=False)  # requests at once; None: 1 on this machine, else 4

    def to_json(self) -> dict[str, Any]:
        """The entry written under ``providers`` (empty fields left out)."""
        out: dict[str, Any] = {"name": self.name, "baseUrl": self.base_url, "keySource": self.key_source}
        if self.key_env:
            out["keyEnv"] = self.key_env
        if self.models:
            out["models"] = list(self.models)
        if self.context_windows:
            out["contextWindows"] = dict(self.context_windows)
        if self.slots is not None:
            out["slots"] = self.slots
        return out

    def key_where(self, saved_in: str = "keyring") -> str:
        """Where the key is read from, in words (never the key). ``saved_in`` is where a saved key is kept
        on this machine: ``keyring``, or ``file`` when there is no system keyring (``KeyStore.where()``)."""
        if self.key_source == "none":
            return translate("providers", "no key")
        if self.key_source == "keyring" and saved_in == "file":
            return translate("providers", "key file ({name})").format(name=self.name)
        if self.key_source == "keyring":
            return translate("providers", "keyring ({name})").format(name=self.name)
        var = self.key_env or "OKBOT_API_KEY / OPENAI_API_KEY"
        return translate("providers", "env {var}").format(var=var)


def check_name(name: str) -> str:
    """``name`` if it can name a provider, else :class:`SettingError`."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise SettingError(
            translate(
                "providers",
                "provider name {name} is not allowed; use letters, digits, '-', '_' or '.' (up to 40), no '/'",
            ).format(name=repr(name))
        )
    return name


def check_base_url(url: str, *, hint: str = "") -> str:
    """``url`` stripped if a provider may be added with it, else :class:`SettingError` (with ``hint``, or the
    CLI's: where the key goes instead).

    A user name or password in it is refused: settings.json is no place for a secret (it is not private
    and it goes into backups), and a token is often given as the user name. The key goes where keys go.
    """
    url = url.strip()
    if holds_userinfo(url):
        raise SettingError(
            translate(
                "providers",
                "the base URL {url} holds a user name or password; OkBot keeps no secret in settings.json",
            ).format(url=redact_url(url)),
            hint=hint
            or translate("providers", "give the URL without it and the key with --key-stdin (or --key-env VAR)"),
        )
    return url


def provider_from_json(entry: Any) -> ProviderConfig:
    """A validated :class:`ProviderConfig` from a ``providers`` entry; :class:`SettingError` says what is wrong."""
    if not isinstance(entry, dict):
        raise SettingError(
            translate("providers", "a providers entry was {entry}, not an object").format(entry=repr(entry))
        )
    name = check_name(entry.get("name"))
    base_url = entry.get("baseUrl")
    parts = urlsplit(base_url) if isinstance(base_url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise SettingError(
            translate("providers", "provider {name}: baseUrl must be an http:// or https:// URL").format(name=name)
        )
    source = entry.get("keySource", "env")
    if source not in KEY_SOURCES:
        raise SettingError(
            translate("providers", "provider {name}: keySource must be one of {choices}").format(
                name=name, choices=", ".join(KEY_SOURCES)
            )
        )
    key_env = entry.get("keyEnv", "") or ""
    if not isinstance(key_env, str) or (key_env and not _ENV_VAR.match(key_env)):
        raise SettingError(
            translate("providers", "provider {name}: keyEnv must name an environment variable").format(name=name)
        )
    models = entry.get("models", [])
    if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
        raise SettingError(
            translate("providers", "provider {name}: models must be a list of model names").format(name=name)
        )
    windows = entry.get("contextWindows", {})
    if not isinstance(windows, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 512 for v in windows.values()
    ):
        raise SettingError(
            translate(
                "providers", "provider {name}: contextWindows must map model names to whole numbers of tokens"
            ).format(name=name)
        )
    slots = entry.get("slots")
    if slots is not None and (not isinstance(slots, int) or isinstance(slots, bool) or not 1 <= slots <= MAX_SLOTS):
        raise SettingError(
            translate("providers", "provider {name}: slots must be a whole number from 1 to {most}").format(
                name=name, most=MAX_SLOTS
            )
        )
    return ProviderConfig(name, base_url.strip(), source, key_env, tuple(models), dict(windows), slots)


def parse_windows(specs: list[str]) -> dict[str, int]:
    """Context windows per model from ``MODEL=TOKENS`` texts (a model name may hold ``=``; the last one
    splits); :class:`SettingError` names the one that is not."""
    windows = {}
    for spec in specs:
        model, _, tokens = spec.rpartition("=")
        if not model.strip() or not tokens.strip().isdigit() or int(tokens) < 512:
            raise SettingError(
                translate(
                    "providers", "{spec}: expected MODEL=TOKENS with at least 512 tokens, e.g. gpt-4o=128000"
                ).format(spec=repr(spec.strip()))
            )
        windows[model.strip()] = int(tokens)
    return windows


def split_ref(ref: str, known: set[str] | frozenset[str]) -> tuple[str, str]:
    """``(provider name, model)`` for the reference ``ref`` given the ``known`` provider names.

    ``work/gpt-4o`` is model ``gpt-4o`` of ``work`` when a provider ``work`` exists; ``meta-llama/Llama-3``
    (no provider ``meta-llama``) is that model of the default provider.
    """
    ref = ref.strip()
    head, sep, tail = ref.partition("/")
    if sep and tail and head in known:
        return head, tail
    return DEFAULT_PROVIDER, ref


def resolve_model(settings: Any, ref: str | None) -> tuple[ProviderConfig, str]:
    """The provider a model reference goes to and the model name sent to it.

    ``None`` or ``""`` is the default provider's model (``provider.model``). A reference naming an unknown
    provider cannot happen (an unknown prefix is part of the model's name).
    """
    configs = {p.name: p for p in settings.providers.all()}
    name, model = split_ref(ref or "", frozenset(configs))
    return configs[name], model or settings.get("provider.model")


def key_env_names(settings_file: Any) -> tuple[str, ...]:
    """The key variables the providers in ``settings_file`` name (``keyEnv``), read without the settings
    store (start-up takes them out of the environment before anything else runs); () when unreadable."""
    import json

    try:
        data = json.loads(settings_file.read_text(encoding="utf-8"))
        entries = data.get("providers", []) if isinstance(data, dict) else []
    except (OSError, ValueError):
        return ()
    names = (entry.get("keyEnv") for entry in entries if isinstance(entry, dict))
    return tuple(name for name in names if isinstance(name, str) and _ENV_VAR.match(name))
