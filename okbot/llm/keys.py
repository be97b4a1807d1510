"""The API key in the environment, whether a request needs one, and how it is kept out of every message
and log line.

The key is never a setting and never written to ``settings.json``; which key a request uses
(``provider.keySource``) is :mod:`okbot.llm.key_source`'s choice, built on this module and
:mod:`okbot.llm.keystore`.

:func:`key_needed` says when a request cannot go without a key: a hosted base URL (not this
computer or the local network) with a key source other than ``none``.

At start-up :func:`take_from_environment` moves the key variables out of the process environment
into memory, so nothing OkBot starts inherits them and another process reading ours
(``ps eww``, ``/proc/<pid>/environ``) does not see them; :func:`env_key` still answers for them.
"""

from __future__ import annotations

import ctypes
import ipaddress
import logging
import os
import re
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

from okbot.i18n import translate
from okbot.storage.errors import OkBotError
from okbot.storage.redaction import REDACTED

log = logging.getLogger("okbot.llm")

ENV_VARS = ("OKBOT_API_KEY", "OPENAI_API_KEY")

# Things that look like credentials even when we were not told the exact secret.
_CREDENTIAL_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[^\s\"',;]+"),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
)


# A key travels as "Authorization: Bearer <key>"; servers commonly cap a header line at 8 KiB (nginx).
MAX_KEY_CHARS = 8192


def key_fault(key: str) -> str | None:
    """Why ``key`` cannot travel in an HTTP header, in words that never quote it; None when it can.

    A key is visible ASCII: a line break would end the header (or add one), a control character or a
    space breaks it, and the HTTP client refuses anything beyond ASCII.
    """
    if len(key) > MAX_KEY_CHARS:
        return translate("keys", "it is longer than {n} characters").format(n=MAX_KEY_CHARS)
    if "\r" in key or "\n" in key:
        return translate("keys", "it holds a line break")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in key):
        return translate("keys", "it holds a control character")
    if not key.isascii():
        return translate("keys", "it holds a character outside ASCII")
    if " " in key:
        return translate("keys", "it holds a space")
    return None


def sendable(key: str | None, *, provider: str, where: str) -> str | None:
    """``key`` (None stays None) when an HTTP header can carry it, else an :class:`OkBotError` naming the
    provider and ``where`` the key came from, never the key."""
    fault = None if key is None else key_fault(key)
    if fault is None:
        return key
    text = translate("keys", "The API key for provider {provider} in {where} cannot be sent to a server: {fault}.")
    raise OkBotError(text.format(provider=provider, where=where, fault=fault))


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every occurrence of each secret (and bearer tokens / ``sk-`` keys) replaced."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    for pattern in _CREDENTIAL_PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
        else:
            text = pattern.sub(REDACTED, text)
    return text


_remembered: set[str] = set()
_remembered_lock = threading.Lock()


def remember_secret(secret: str | None) -> None:
    """Redact ``secret`` from every later log line and crash report (the API key once resolved)."""
    if secret and len(secret) >= 4:
        with _remembered_lock:
            _remembered.add(secret)


# A remembered "key" shorter than this (a local server's "none") is an ordinary word: replacing it in
# what people and models wrote would rewrite their text.
MIN_STORED_SECRET_CHARS = 8


def remembered_secrets() -> tuple[str, ...]:
    """The keys resolved so far that are long enough to be keys, longest first."""
    with _remembered_lock:
        found = [secret for secret in _remembered if len(secret) >= MIN_STORED_SECRET_CHARS]
    return tuple(sorted(found, key=len, reverse=True))


def redact_remembered(text: str, secrets: tuple[str, ...] | None = None) -> str:
    """``text`` with exact occurrences of the remembered keys replaced; nothing else changes (unlike
    :func:`scrub`, which also masks anything shaped like a key, fit for logs but not for what a person wrote)."""
    for secret in remembered_secrets() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


class StreamRedactor:
    """:func:`redact_remembered` for text that arrives in pieces (a streamed reply): the end of a piece
    is held back while it could be the start of a key, so no key is ever shown split across pieces."""

    def __init__(self) -> None:
        self._secrets = remembered_secrets()
        self._held = ""

    def feed(self, piece: str) -> str:
        """What of ``piece`` (after what was held back) can be shown now."""
        if not self._secrets:
            return piece
        text = redact_remembered(self._held + piece, self._secrets)
        keep = max((self._prefix_at_end(text, secret) for secret in self._secrets), default=0)
        self._held = text[len(text) - keep :] if keep else ""
        return text[: len(text) - keep]

    def flush(self) -> str:
        """The text still held back (the stream ended: it was not a key)."""
        held, self._held = self._held, ""
        return held

    @staticmethod
    def _prefix_at_end(text: str, secret: str) -> int:
        for n in range(min(len(secret) - 1, len(text)), 0, -1):
            if text.endswith(secret[:n]):
                return n
        return 0


def scrub(text: str) -> str:
    """``text`` with every remembered secret and anything shaped like a credential redacted."""
    with _remembered_lock:
        secrets = tuple(_remembered)
    return redact(text, *secrets)


_taken: dict[str, str] = {}  # key variables moved out of the environment: name -> value


def take_from_environment(extra: tuple[str, ...] = ()) -> list[str]:
    """Move ``OKBOT_API_KEY``, ``OPENAI_API_KEY`` and the ``extra`` key variables (those providers name)
    out of the process environment; the names moved.

    ``os.environ.pop`` drops them from what every child process inherits, but on Linux
    ``/proc/<pid>/environ`` (which ``ps e`` prints) shows the environment block the process was
    started with, which ``unsetenv`` leaves as it was; that block is overwritten in place too.
    Call it once, at start-up, before any thread or child process exists.
    """
    names = tuple(dict.fromkeys((*ENV_VARS, *extra)))
    moved = []
    for var in names:
        value = os.environ.pop(var, None)
        if value is not None:
            _taken[var] = value
            moved.append(var)
            remember_secret(value.strip())
    _wipe_initial_environment(names)
    return moved


def _wipe_initial_environment(names: tuple[str, ...]) -> bool:
    """Overwrite with NULs the ``NAME=value`` entries of this process's initial environment block.

    Linux only (elsewhere False). The block lies between ``env_start`` and ``env_end`` of
    ``/proc/self/stat``; it is written only when its bytes are exactly what ``/proc/self/environ``
    shows, so a kernel or layout this does not understand is left alone.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # fields 50 and 51 of proc(5), counted from "state"
        shown = Path("/proc/self/environ").read_bytes()
    except (OSError, IndexError, ValueError):
        return False
    if not start or end - start != len(shown) or ctypes.string_at(start, end - start) != shown:
        log.warning("the start-up environment block is not where /proc says; key variables left in it")
        return False
    prefixes = tuple(f"{name}=".encode() for name in names)
    offset = 0
    for entry in shown.split(b"\0"):
        if entry.startswith(prefixes):
            ctypes.memset(start + offset, 0, len(entry))
        offset += len(entry) + 1
    return True


def env_key(var: str) -> str | None:
    """The stripped value of the key variable ``var``, or None.

    The environment first (a value set later wins), else the one :func:`take_from_environment`
    moved out of it.
    """
    value = os.environ.get(var, "").strip() or _taken.get(var, "").strip()
    return value or None


def env_source() -> str:
    """The variable :func:`env_api_key` reads its key from (both names when neither is set)."""
    return next((var for var in ENV_VARS if env_key(var)), " / ".join(ENV_VARS))


def env_api_key() -> str | None:
    """The key from ``OKBOT_API_KEY`` or ``OPENAI_API_KEY`` (first non-empty), else None."""
    for var in ENV_VARS:
        value = env_key(var)
        if value:
            return value
    return None


def is_local_url(url: str) -> bool:
    """Whether ``url`` points at this computer or the local network (where servers rarely need a key)."""
    host = (urlsplit(url).hostname or "").lower()
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost") or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def key_needed(base_url: str, key_source: str) -> bool:
    """Whether a request to ``base_url`` needs a key: a hosted server, unless the user said it needs none."""
    return key_source != "none" and not is_local_url(base_url)
