"""Counting tokens: one :class:`TokenCounter` per encoding, exact once its file is loaded, the
:func:`approx_count` estimate until then (or when no file is found).

Loading runs on a daemon thread; meanwhile the counter reports ``approximate`` so the UI can say so
(:data:`APPROX_NOTE`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from okbot.core.items import item_text
from okbot.core.tokens.encodings import Encoder, encoding_spec, load_encoder, search_locations
from okbot.core.tokens.models import model_facts
from okbot.i18n import QT_TRANSLATE_NOOP

log = logging.getLogger("okbot.tokens")

MESSAGE_OVERHEAD = 3  # per chat message, as in OpenAI's cookbook (the role name is counted on top)
REPLY_PRIMING = 3  # every reply is primed with <|start|>assistant<|message|>
CACHE_ENTRIES = 200_000

# Shown (render.header_lines) as translate("tokens", APPROX_NOTE); logged in English.
APPROX_NOTE = QT_TRANSLATE_NOOP(
    "tokens",
    "Token counts are estimates (about 4 characters per token for English, 1 per CJK character): "
    "no verified tiktoken encoding file was found offline.",
)


def approx_count(text: str) -> int:
    """The documented fallback estimate, from character classes (by UTF-8 length, at C speed).

    ASCII: 4 characters per token; 2-byte characters (accented Latin, Cyrillic, Greek, Arabic,
    Hebrew): 3 per token; 3-byte characters (CJK, kana, Hangul, Indic, Thai): 1 token each;
    4-byte characters (emoji and other astral symbols): 2 tokens each. On English, code, CJK and
    emoji this stays within about 0.5x-2x of o200k_base and cl100k_base.
    """
    if not text:
        return 0
    length = len(text)
    n1 = len(text.encode("ascii", "ignore"))
    n4 = len(text.encode("utf-16-le", "surrogatepass")) // 2 - length
    utf8 = len(text.encode("utf-8", "surrogatepass"))
    rest = length - n1 - n4  # 2- and 3-byte characters
    n3 = (utf8 - n1 - 4 * n4) - 2 * rest
    n2 = rest - n3
    return -(-(3 * n1 + 4 * n2) // 12) + n3 + 2 * n4


class TokenCounter:
    """Counts tokens for one encoding; exact once the BPE file is loaded, approximate until then.

    Thread-safe. Never blocks on counting: while loading runs (or when no verified file exists)
    counts come from :func:`approx_count`. Exact counts are cached per distinct text (LRU keyed
    by a blake2b digest); approximate counts are never cached, so they cannot outlive the load.
    ``encoder`` injects a ready encoder (e.g. a wrapper around a ``tiktoken.Encoding``).
    """

    def __init__(
        self,
        encoding: str,
        *,
        search_dirs: Sequence[Path] | None = None,
        encoder: Encoder | None = None,
        cache_entries: int = CACHE_ENTRIES,
    ) -> None:
        self._spec = encoding_spec(encoding)
        self.encoding_name = encoding
        self._search_dirs = None if search_dirs is None else tuple(Path(d) for d in search_dirs)
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._cache: OrderedDict[bytes, int] = OrderedDict()
        self._cache_entries = max(1, cache_entries)
        self._encoder = encoder
        self._state = "exact" if encoder is not None else "idle"
        self._source = "injected" if encoder is not None else ""
        if encoder is not None:
            self._done.set()

    @property
    def approximate(self) -> bool:
        """True while the exact encoding is not (yet) loaded."""
        return self._encoder is None

    @property
    def state(self) -> str:
        """``idle``, ``loading``, ``exact`` or ``approximate`` (nothing usable was found)."""
        return self._state

    @property
    def source(self) -> str:
        """Where the exact encoding came from (a file path, or ``injected``); empty if none."""
        return self._source

    def start_loading(self) -> None:
        """Start loading on a daemon thread and return at once (no-op after the first call)."""
        with self._lock:
            if self._state != "idle":
                return
            self._state = "loading"
        thread = threading.Thread(target=self._load, name=f"okbot-tiktoken-{self.encoding_name}", daemon=True)
        try:
            thread.start()
        except RuntimeError as exc:  # cannot start threads (interpreter shutting down, limits)
            log.warning("cannot load %s in the background: %s", self.encoding_name, exc)
            self._finish(None)

    def ensure_loaded(self, timeout: float | None = None) -> bool:
        """Start loading if needed and wait up to ``timeout`` seconds; return ``not approximate``."""
        self.start_loading()
        self._done.wait(timeout)
        return not self.approximate

    def _load(self) -> None:
        try:
            loaded = load_encoder(self._spec, self._search_dirs)
        except Exception:  # a bug, but counting must go on: log it loudly and stay approximate
            log.exception("loading encoding %s failed", self.encoding_name)
            loaded = None
        self._finish(loaded)

    def _finish(self, loaded: tuple[Encoder, str] | None) -> None:
        with self._lock:
            if loaded is not None:
                self._cache.clear()
                self._encoder, self._source = loaded
                self._state = "exact"
            else:
                self._state = "approximate"
        # Log before waking waiters, so whoever awaited the load sees the message already.
        if loaded is None:
            log.warning(
                "%s: no verified %s found (looked in: %s). %s",
                self.encoding_name,
                self._spec.file,
                ", ".join(map(str, self._locations())),
                APPROX_NOTE,
            )
        else:
            log.info("encoding %s loaded from %s", self.encoding_name, self._source)
        self._done.set()

    def _locations(self) -> list[Path]:
        try:
            return search_locations(self.encoding_name, self._search_dirs)
        except OSError:
            return []

    def count_text(self, text: str) -> int:
        """Tokens in ``text`` (special-token strings count as ordinary text)."""
        if not isinstance(text, str):
            raise TypeError(f"count_text expects str, got {type(text).__name__}")
        if not text:
            return 0
        encoder = self._encoder
        if encoder is None:
            return approx_count(text)
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        count = len(encoder.encode_ordinary(text))
        with self._lock:
            self._cache[key] = count
            if len(self._cache) > self._cache_entries:
                self._cache.popitem(last=False)
        return count

    def count_message(self, content: str, role: str = "user") -> int:
        """One chat message: :data:`MESSAGE_OVERHEAD` + the role name + the content."""
        return MESSAGE_OVERHEAD + self.count_text(role) + self.count_text(content)

    def count_item(self, item: dict[str, Any]) -> int:
        """A session item as the one chat message it becomes; notices are never sent (0)."""
        if not isinstance(item, dict):
            raise TypeError(f"count_item expects a dict, got {type(item).__name__}")
        kind = item.get("type")
        if kind == "notice":
            return 0
        if kind == "tool_call":
            return self.count_message(_text(item.get("arguments")), "assistant") + self.count_text(
                _text(item.get("name"))
            )
        role = {"assistant": "assistant", "tool_result": "tool"}.get(str(kind), "user")
        return self.count_message(item_text(item), role)

    def count_messages_overhead(self) -> int:
        """Tokens added once per request to prime the reply."""
        return REPLY_PRIMING


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


_COUNTERS: dict[str, TokenCounter] = {}
_COUNTERS_LOCK = threading.Lock()


def counter_for_encoding(encoding: str) -> TokenCounter:
    """The shared counter for ``encoding`` (created on first use, loading started in background)."""
    with _COUNTERS_LOCK:
        counter = _COUNTERS.get(encoding)
        if counter is None:
            counter = _COUNTERS[encoding] = TokenCounter(encoding)
    counter.start_loading()
    return counter


def counter_for_model(model: str) -> TokenCounter:
    """The shared counter for ``model``'s encoding (see :func:`model_facts`)."""
    return counter_for_encoding(model_facts(model).encoding)
