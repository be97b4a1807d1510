"""The values of an MCP server's environment variables and headers, kept with the API keys.

A token in ``--env GITHUB_TOKEN=…`` or ``--header Authorization=Bearer …`` is a credential: it goes to
the system keyring (or the private key file) under ``mcp:<server>``, as one JSON object, never to
settings.json, a log line or a backup. Every value read or saved is remembered for redaction, so a
server that prints its token to stderr does not put it in the log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from okbot.llm.keys import remember_secret
from okbot.llm.keystore import KeyStore

PREFIX = "mcp:"


@dataclass(frozen=True)
class ServerSecrets:
    env: dict[str, str] = field(default_factory=dict, repr=False)
    headers: dict[str, str] = field(default_factory=dict, repr=False)

    def __bool__(self) -> bool:
        return bool(self.env or self.headers)


def load(store: KeyStore, server: str) -> ServerSecrets:
    """The saved values of ``server`` (empty when none were given). May block: off the GUI thread."""
    saved = store.get(PREFIX + server)
    if saved is None:
        return ServerSecrets()
    try:
        data = json.loads(saved.key)
    except ValueError:
        return ServerSecrets()
    env = {k: v for k, v in data.get("env", {}).items() if isinstance(k, str) and isinstance(v, str)}
    headers = {k: v for k, v in data.get("headers", {}).items() if isinstance(k, str) and isinstance(v, str)}
    for value in (*env.values(), *headers.values()):
        remember_secret(value)
    return ServerSecrets(env, headers)


def save(store: KeyStore, server: str, secrets: ServerSecrets) -> str:
    """Keep ``secrets`` for ``server`` (replacing what was kept); returns where, or "" when there was nothing."""
    if not secrets:
        store.delete(PREFIX + server)
        return ""
    for value in (*secrets.env.values(), *secrets.headers.values()):
        remember_secret(value)
    return store.save(json.dumps({"env": secrets.env, "headers": secrets.headers}), PREFIX + server)


def delete(store: KeyStore, server: str) -> None:
    store.delete(PREFIX + server)
