"""Token counting: model facts, tiktoken encodings loaded offline, a documented fallback, calibration.

Model facts (context window, encoding) are data in ``resources/models.json``; encoding facts
(file name, sha256, pat_str, special tokens) in ``resources/encodings.json``.

An encoding is never fetched from the network unless ``OKBOT_TIKTOKEN_DOWNLOAD=1``. Its BPE file
is looked up, in order, in the bundled resources (``resources/tiktoken/``, shipped in the wheel
and the packaged app), ``$OKBOT_TIKTOKEN_DIR``, the user's tiktoken dir and tiktoken's own cache
dir; the sha256 is verified before use, so the first place holding the right bytes wins. Loading runs on a
daemon thread; until it has finished (or when no file is found) counts use :func:`approx_count`
and the counter reports ``approximate`` so the UI can say so (:data:`APPROX_NOTE`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import math
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from okbot.config.settings import Settings
from okbot.config.values import CONTEXT_WINDOW_KEY
from okbot.core.items import item_text, now_iso
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.llm.families import parse_request_parameters
from okbot.storage import paths
from okbot.storage.atomic import atomic_write_bytes, atomic_write_json
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.tokens")

TIKTOKEN_DIR_ENV = "OKBOT_TIKTOKEN_DIR"
DOWNLOAD_ENV = "OKBOT_TIKTOKEN_DOWNLOAD"
DOWNLOAD_TIMEOUT = 30.0
MAX_FILE_BYTES = 32 * 1024 * 1024

MESSAGE_OVERHEAD = 3  # per chat message, as in OpenAI's cookbook (the role name is counted on top)
REPLY_PRIMING = 3  # every reply is primed with <|start|>assistant<|message|>
CACHE_ENTRIES = 200_000

# Shown (render.header_lines) as translate("tokens", APPROX_NOTE); logged in English.
APPROX_NOTE = QT_TRANSLATE_NOOP(
    "tokens",
    "Token counts are estimates (about 4 characters per token for English, 1 per CJK character): "
    "no verified tiktoken encoding file was found offline.",
)


class Encoder(Protocol):
    """What a :class:`TokenCounter` needs from an encoding (``tiktoken.Encoding`` fits)."""

    def encode_ordinary(self, text: str) -> list[int]: ...


# --------------------------------------------------------------------------- model facts


@dataclass(frozen=True)
class ModelFacts:
    """What OkBot knows about a model: its context window and its (approximate) encoding."""

    model: str
    context_window: int
    encoding: str
    vision: bool = False  # takes images (image_url parts); the rule's "vision" in models.json


@lru_cache(maxsize=1)
def _model_table() -> dict[str, Any]:
    table = _read_resource_json("models.json")
    known = _encoding_table()
    rules = [table["default"], *table["exact"].values(), *table["prefixes"]]
    for rule in rules:
        window, encoding = rule.get("contextWindow"), rule.get("encoding")
        if not isinstance(window, int) or window <= 0 or encoding not in known:
            raise RuntimeError(f"resources/models.json: invalid rule {rule!r}")
    parse_request_parameters(table.get("requestParameters"))
    return table


def _read_resource_json(name: str) -> dict[str, Any]:
    path = paths.resource(name)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # a packaging bug: fail loudly, with the path
        raise RuntimeError(f"cannot read shipped resource {path}: {exc}") from exc


def model_facts(model: str) -> ModelFacts:
    """Context window and encoding for ``model`` (unknown models get the ``default`` rule).

    Lookup is case-insensitive: exact names (full name, then the last ``/`` segment, so
    ``openai/gpt-4o`` works), then prefix rules in file order. ``ft:<base>:...`` uses ``<base>``.
    """
    table = _model_table()
    name = (model or "").strip().lower()
    if name.startswith("ft:"):
        name = name[3:].split(":", 1)[0]
    tail = name.rsplit("/", 1)[-1]
    rule = table["exact"].get(name) or table["exact"].get(tail)
    if rule is None:
        rule = next((r for r in table["prefixes"] if tail.startswith(r["prefix"])), table["default"])
    return ModelFacts(
        model=model,
        context_window=rule["contextWindow"],
        encoding=rule["encoding"],
        vision=rule.get("vision") is True,
    )


def effective_context_window(settings: Settings, model: str | None = None) -> int:
    """``model``'s context window (default: the current model's): the user's override for that model, else
    the model facts' window."""
    model = model or settings.get("provider.model")
    override = settings.get_for_model(CONTEXT_WINDOW_KEY, model)
    if override is not None:
        return int(override)
    return int(model_facts(model).context_window)


# --------------------------------------------------------------------------- encoding files


@dataclass(frozen=True)
class EncodingSpec:
    """One entry of ``resources/encodings.json``."""

    name: str
    file: str
    sha256: str
    url: str
    n_vocab: int
    pat_str: str
    special_tokens: dict[str, int]

    @property
    def cache_name(self) -> str:
        """The file name tiktoken's own cache uses for this encoding (sha1 of the blob URL)."""
        return hashlib.sha1(self.url.encode()).hexdigest()


@lru_cache(maxsize=1)
def _encoding_table() -> dict[str, EncodingSpec]:
    raw = _read_resource_json("encodings.json")["encodings"]
    return {name: EncodingSpec(name=name, **fields) for name, fields in raw.items()}


def encoding_spec(encoding: str) -> EncodingSpec:
    """The facts of a known encoding; ``ValueError`` naming the known ones otherwise."""
    table = _encoding_table()
    if encoding not in table:
        raise ValueError(f"unknown encoding {encoding!r} (known: {', '.join(sorted(table))})")
    return table[encoding]


def tiktoken_override_dir() -> Path | None:
    """The folder ``$OKBOT_TIKTOKEN_DIR`` names for encoding files (``None`` when unset)."""
    override = os.environ.get(TIKTOKEN_DIR_ENV, "").strip()
    return Path(override).expanduser() if override else None


def tiktoken_cache_dir() -> Path | None:
    """tiktoken's own cache folder, found as tiktoken finds it (``None``: its cache is disabled)."""
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            value = os.environ[var]
            return Path(value) if value else None  # "" disables tiktoken's cache
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def search_locations(encoding: str, search_dirs: Sequence[Path] | None = None) -> list[Path]:
    """Candidate files for ``encoding``, in lookup order (shown to users who need to add one).

    With ``search_dirs``, each dir is searched for ``<name>.tiktoken`` and tiktoken's cache name.
    """
    spec = encoding_spec(encoding)
    if search_dirs is not None:
        return [Path(d) / n for d in search_dirs for n in (spec.file, spec.cache_name)]
    found = [paths.resource("tiktoken", spec.file)]
    override = tiktoken_override_dir()
    if override is not None:
        found.append(override / spec.file)
    try:
        found.append(paths.tiktoken_dir() / spec.file)
    except OSError as exc:  # data dir cannot be created: just skip it
        log.warning("user tiktoken dir unavailable: %s", exc)
    cache = tiktoken_cache_dir()
    if cache is not None:
        found.append(cache / spec.cache_name)
    return found


def _read_verified(path: Path, sha256: str) -> bytes | None:
    """The file's bytes if it exists and matches ``sha256``; ``None`` (logged when wrong) otherwise."""
    try:
        if not path.is_file():
            return None
        if path.stat().st_size > MAX_FILE_BYTES:
            log.warning("refusing encoding file %s: larger than %d bytes", path, MAX_FILE_BYTES)
            return None
        data = path.read_bytes()
    except OSError as exc:
        log.warning("cannot read encoding file %s: %s", path, exc)
        return None
    if hashlib.sha256(data).hexdigest() != sha256:
        log.warning("refusing encoding file %s: sha256 does not match %s", path, sha256)
        return None
    return data


def parse_bpe(data: bytes) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (lines ``<base64 token> <rank>``); ``ValueError`` when malformed."""
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except (ValueError, binascii.Error) as exc:
            raise ValueError(f"malformed BPE line {number}: {exc}") from exc
    return ranks


def build_encoding(spec: EncodingSpec, ranks: dict[bytes, int]) -> Encoder:
    """A ``tiktoken.Encoding`` from parsed ranks and the facts in ``encodings.json``."""
    import tiktoken

    top = max(ranks.values(), default=-1)
    if top + 1 != len(ranks) or max(top, *spec.special_tokens.values()) + 1 != spec.n_vocab:
        raise ValueError(f"{spec.name}: ranks are not 0..{spec.n_vocab - 1} (file has {len(ranks)} ranks)")
    return tiktoken.Encoding(
        spec.name, pat_str=spec.pat_str, mergeable_ranks=ranks, special_tokens=dict(spec.special_tokens)
    )


def download_encoding(
    encoding: str, *, url: str | None = None, dest_dir: Path | None = None, timeout: float = DOWNLOAD_TIMEOUT
) -> Path:
    """Fetch an encoding file (bounded by ``timeout``), verify its sha256, save it atomically.

    Saves to ``dest_dir`` (default: the user's tiktoken dir) and returns the path. Raises
    :class:`OkBotError` when the download fails or the content does not match.
    """
    import urllib.error  # only here: the app never downloads unless asked, and start-up stays lean
    import urllib.request

    spec = encoding_spec(encoding)
    source = url or spec.url
    if not source.startswith(("https://", "http://")):
        raise OkBotError(
            translate("tokens", "refusing to download {encoding} from {source}").format(
                encoding=encoding, source=repr(source)
            ),
            hint=translate("tokens", "http(s) URLs only"),
        )
    try:
        with urllib.request.urlopen(source, timeout=timeout) as response:  # scheme checked above
            data = response.read(MAX_FILE_BYTES + 1)
    except (OSError, urllib.error.URLError, ValueError) as exc:
        raise OkBotError(
            translate("tokens", "could not download the {encoding} encoding: {error}").format(
                encoding=encoding, error=exc
            )
        ) from exc
    if len(data) > MAX_FILE_BYTES or hashlib.sha256(data).hexdigest() != spec.sha256:
        raise OkBotError(
            translate("tokens", "the downloaded {encoding} encoding is corrupt (sha256 mismatch)").format(
                encoding=encoding
            )
        )
    target = (dest_dir if dest_dir is not None else paths.tiktoken_dir()) / spec.file
    atomic_write_bytes(target, data)
    return target


def _load_encoder(spec: EncodingSpec, search_dirs: Sequence[Path] | None) -> tuple[Encoder, str] | None:
    """Find, verify, parse and build; optionally download. ``None`` when nothing usable exists."""
    for path in search_locations(spec.name, search_dirs):
        data = _read_verified(path, spec.sha256)
        if data is None:
            continue
        try:
            return build_encoding(spec, parse_bpe(data)), str(path)
        except (ValueError, AssertionError) as exc:
            log.warning("refusing encoding file %s: %s", path, exc)
    if os.environ.get(DOWNLOAD_ENV, "").strip() == "1":
        try:
            path = download_encoding(spec.name)
            return build_encoding(spec, parse_bpe(path.read_bytes())), str(path)
        except (OkBotError, OSError, ValueError, AssertionError) as exc:
            log.warning("download of %s failed: %s", spec.name, exc)
    return None


# --------------------------------------------------------------------------- counting


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
            loaded = _load_encoder(self._spec, self._search_dirs)
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


# --------------------------------------------------------------------------- calibration


class Calibration:
    """Per-model correction factor learned from the provider's reported prompt tokens.

    ``record`` takes the *uncalibrated* estimate and ``usage.prompt_tokens``; the factor is an
    exponential moving average of actual/estimated (the first samples are plain averages),
    clamped to [0.5, 2.0], and persisted atomically. An unreadable file means factors of 1.0.
    """

    ALPHA = 0.3
    MIN_FACTOR = 0.5
    MAX_FACTOR = 2.0
    MIN_TOKENS = 16  # samples below this are too noisy to learn from
    VERSION = 1

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._models = self._read()

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable calibration file %s: %s", self.path, exc)
            return {}
        entries = raw.get("models") if isinstance(raw, dict) else None
        if not isinstance(entries, dict):
            log.warning("ignoring calibration file %s: no 'models' object", self.path)
            return {}
        models: dict[str, dict[str, Any]] = {}
        for name, entry in entries.items():
            factor = entry.get("factor") if isinstance(entry, dict) else None
            samples = entry.get("samples", 1) if isinstance(entry, dict) else None
            if _is_number(factor) and isinstance(samples, int) and not isinstance(samples, bool):
                models[name] = {**entry, "factor": self._clamp(float(factor)), "samples": max(0, samples)}
            else:
                log.warning("ignoring calibration entry %r in %s", name, self.path)
        return models

    @classmethod
    def _clamp(cls, value: float) -> float:
        return min(cls.MAX_FACTOR, max(cls.MIN_FACTOR, value))

    @staticmethod
    def _key(model: str) -> str:
        return (model or "").strip().lower()

    def factor(self, model: str) -> float:
        """The learned factor for ``model`` (1.0 when nothing was learned)."""
        with self._lock:
            entry = self._models.get(self._key(model))
            return float(entry["factor"]) if entry else 1.0

    def record(self, model: str, estimated: int, actual: int) -> float:
        """Learn from one run; tiny or invalid values are ignored. Returns the (new) factor."""
        if not (_is_number(estimated) and _is_number(actual)) or min(estimated, actual) < self.MIN_TOKENS:
            return self.factor(model)
        ratio = self._clamp(actual / estimated)
        key = self._key(model)
        with self._lock:
            entry = self._models.get(key) or {"factor": 1.0, "samples": 0}
            samples = int(entry["samples"])
            alpha = max(self.ALPHA, 1.0 / (samples + 1))
            new = self._clamp(entry["factor"] + alpha * (ratio - entry["factor"]))
            self._models[key] = {"factor": round(new, 6), "samples": samples + 1, "updatedAt": now_iso()}
            snapshot = {"version": self.VERSION, "models": dict(self._models)}
            try:
                atomic_write_json(self.path, snapshot)
            except OSError as exc:  # keep learning in memory; the next write may succeed
                log.warning("cannot save calibration to %s: %s", self.path, exc)
            return self._models[key]["factor"]

    def apply(self, model: str, estimate: int) -> int:
        """``estimate`` corrected by the factor learned for ``model``."""
        return max(0, round(estimate * self.factor(model)))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
