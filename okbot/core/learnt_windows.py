"""The context windows servers taught OkBot by refusing a request (``windows.json`` in the data dir).

A server that answers "maximum context length is 4096 tokens" (or llama.cpp's ``n_ctx``) knows its window
better than any setting: the window it states is remembered for that provider (its base URL, stripped of any
user name, password, query or fragment, so nothing secret is kept) and model, and
:meth:`okbot.core.sources.ContextSources.context_window` uses the smaller of it and the configured window.

Like :class:`okbot.core.tokens.Calibration`: replaced atomically, versioned, bounded (the oldest entries go
first), and an unreadable or hand-broken file means nothing learnt (logged, never a crash); each entry that
does not read is ignored alone. A learnt window only ever goes down; forgetting it is the way back up.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from okbot.core.items import now_iso
from okbot.storage.atomic import atomic_write_json

log = logging.getLogger("okbot.windows")


def provider_key(base_url: str) -> str:
    """``base_url`` as the store keys it: scheme, host (lower case), port and path; never credentials, query
    or fragment."""
    text = (base_url or "").strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text.split("?")[0].split("#")[0].rpartition("@")[2].rstrip("/")
    host = (parts.hostname or "").lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class LearntWindow:
    """One window a server stated: for ``model`` at ``base_url`` (a :func:`provider_key`), when, and how many
    prompt tokens it counted in the request it refused (when it said)."""

    base_url: str
    model: str
    window: int
    learnt_at: str
    prompt_tokens: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "baseUrl": self.base_url,
            "model": self.model,
            "window": self.window,
            "learntAt": self.learnt_at,
        }
        if self.prompt_tokens is not None:
            out["promptTokens"] = self.prompt_tokens
        return out


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class LearntWindows:
    """The learnt windows, shared by every part of one process and re-read when another process wrote them."""

    VERSION = 1
    MIN_WINDOW = 256  # a smaller figure is not a real window: ignored
    MAX_ENTRIES = 200

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._entries: dict[tuple[str, str], LearntWindow] = {}
        self._refresh()

    # -- reading ------------------------------------------------------------------------------
    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _refresh(self) -> None:
        """Re-read the file when it changed since the last read (or was never read)."""
        stamp = self._file_stamp()
        if stamp == self._stamp:
            return
        self._stamp = stamp
        self._entries = self._read() if stamp is not None else {}

    def _read(self) -> dict[tuple[str, str], LearntWindow]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            log.warning("ignoring unreadable learnt windows file %s (nothing learnt): %s", self.path, exc)
            return {}
        if not isinstance(raw, dict) or raw.get("version") not in (None, self.VERSION):
            log.warning("ignoring learnt windows file %s: not version %d of this file", self.path, self.VERSION)
            return {}
        listed = raw.get("windows")
        if not isinstance(listed, list):
            log.warning("ignoring learnt windows file %s: no 'windows' list", self.path)
            return {}
        entries: dict[tuple[str, str], LearntWindow] = {}
        for number, entry in enumerate(listed, 1):
            learnt = self._entry(entry)
            if learnt is None:
                log.warning("ignoring entry %d of learnt windows file %s: %r", number, self.path, entry)
                continue
            entries[(learnt.base_url, learnt.model)] = learnt
        return entries

    def _entry(self, entry: Any) -> LearntWindow | None:
        if not isinstance(entry, dict):
            return None
        base_url, model, window = entry.get("baseUrl"), entry.get("model"), _count(entry.get("window"))
        learnt_at, prompt = entry.get("learntAt", ""), entry.get("promptTokens")
        if not (isinstance(base_url, str) and base_url.strip() and isinstance(model, str) and model.strip()):
            return None
        if window is None or window < self.MIN_WINDOW or not isinstance(learnt_at, str):
            return None
        return LearntWindow(provider_key(base_url), model.strip(), window, learnt_at, _count(prompt))

    def entries(self) -> list[LearntWindow]:
        """Every learnt window, oldest first."""
        with self._lock:
            self._refresh()
            return list(self._entries.values())

    def get(self, base_url: str, model: str) -> LearntWindow | None:
        """The window learnt for ``model`` at ``base_url``, or None."""
        with self._lock:
            self._refresh()
            return self._entries.get((provider_key(base_url), (model or "").strip()))

    # -- writing ------------------------------------------------------------------------------
    def learn(self, base_url: str, model: str, window: int, *, prompt_tokens: int | None = None) -> bool:
        """Remember that ``model`` at ``base_url`` has ``window`` tokens; False (nothing changes) when it is not
        a real window (below :attr:`MIN_WINDOW`) or not below what was learnt already."""
        window = _count(window)
        model = (model or "").strip()
        if window is None or window < self.MIN_WINDOW or not model:
            return False
        key = (provider_key(base_url), model)
        with self._lock:
            self._refresh()
            known = self._entries.get(key)
            if known is not None and known.window <= window:
                return False
            self._entries.pop(key, None)
            self._entries[key] = LearntWindow(key[0], model, window, now_iso(), _count(prompt_tokens))
            while len(self._entries) > self.MAX_ENTRIES:
                self._entries.pop(next(iter(self._entries)))
            self._write()
        log.info("learnt the context window of %s at %s: %d tokens", model, key[0], window)
        return True

    def forget(self, base_url: str, model: str) -> bool:
        """Forget the window learnt for ``model`` at ``base_url``; whether there was one."""
        with self._lock:
            self._refresh()
            if self._entries.pop((provider_key(base_url), (model or "").strip()), None) is None:
                return False
            self._write()
        return True

    def _write(self) -> None:
        snapshot = {"version": self.VERSION, "windows": [e.to_json() for e in self._entries.values()]}
        try:
            atomic_write_json(self.path, snapshot)
        except OSError as exc:  # kept in memory; the next write may succeed
            log.warning("cannot save learnt windows to %s: %s", self.path, exc)
            return
        self._stamp = self._file_stamp()
