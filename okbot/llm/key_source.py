"""Which API key a request uses: ``provider.keySource`` chooses where it is read from.

* ``env`` — ``OKBOT_API_KEY``, then ``OPENAI_API_KEY``;
* ``keyring`` — the key OkBot saved (:mod:`okbot.llm.keystore`: the system keyring, or a file
  only the user can read where there is no keyring), then the environment;
* ``none`` — no key (local servers that need none).

It is built on :mod:`okbot.llm.keys` (the environment, redaction) and the key store, which uses
that module too to refuse and redact the keys it keeps.
"""

from __future__ import annotations

from okbot.config.providers import ProviderConfig
from okbot.llm.keys import env_api_key, env_key, env_source, remember_secret, sendable
from okbot.llm.keystore import DEFAULT_PROVIDER, KeyStore, KeyStoreError


def key_source_of(config: ProviderConfig) -> str:
    """Where ``config``'s key is read from: its ``keySource``, except that ``OKBOT_API_KEY`` in the
    environment is the default provider's key whatever the setting says."""
    if config.name == DEFAULT_PROVIDER and not config.key_env and env_key("OKBOT_API_KEY") is not None:
        return "env"
    return config.key_source


def key_for(config: ProviderConfig) -> str | None:
    """The key a request to ``config``'s server carries, from where it says (never printed; remembered
    for redaction). The one way every backend gets its key; a saved key that cannot be used, or an
    environment key no header can carry, is an error saying why. May read the keyring."""
    source = key_source_of(config)
    if source == "none":
        return None
    if config.name == DEFAULT_PROVIDER and not config.key_env:
        return resolve_api_key(source, strict=True)
    if source == "keyring":
        found = saved_or_env_key(config.name, env_var=config.key_env, strict=True)
    else:
        found = env_key(config.key_env) if config.key_env else env_api_key()
        sendable(found, provider=config.name, where=config.key_env or env_source())
    remember_secret(found)
    return found


def resolve_api_key(key_source: str, *, strict: bool = False) -> str | None:
    """The API key for ``key_source`` (``env``, ``keyring`` or ``none``), or None when there is none.

    ``keyring`` means "the key OkBot saved": the system keyring, or the 0600 key file where there is
    no keyring (:mod:`okbot.llm.keystore`), then the environment. With ``strict`` (a request is about
    to be sent) a saved key that cannot be used and no key in the environment raise its
    :class:`~okbot.llm.keystore.KeyStoreError`, which says why, rather than give None, and a key from
    the environment no HTTP header can carry raises too (:func:`~okbot.llm.keys.sendable`). May block on the keyring.
    """
    if key_source == "none":
        return None
    if key_source == "keyring":
        found = saved_or_env_key(None, strict=strict)
    elif key_source == "env":
        found = env_api_key()
    else:
        raise ValueError(f"unknown key source {key_source!r}")
    remember_secret(found)  # from now on it is redacted from logs and crash reports
    if strict and key_source == "env":
        sendable(found, provider="default", where=env_source())
    return found


def saved_or_env_key(provider: str | None, *, env_var: str = "", strict: bool = False) -> str | None:
    """The key saved for ``provider`` (None: the default one), else the one in ``env_var`` (empty:
    ``OKBOT_API_KEY`` / ``OPENAI_API_KEY``); ``strict`` as for :func:`resolve_api_key`."""
    store = KeyStore()
    saved = store.get(provider or DEFAULT_PROVIDER)
    if saved:
        return saved.key
    found = env_key(env_var) if env_var else env_api_key()
    if found is None and strict and store.problem:
        raise KeyStoreError(store.problem)
    if strict:  # a saved key is sendable (get() gives no other): this one came from the environment
        sendable(found, provider=provider or DEFAULT_PROVIDER, where=env_var or env_source())
    return found
