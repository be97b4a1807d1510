"""Encoding files: their facts (``resources/encodings.json``), where they are looked for, verifying, parsing,
building a tiktoken encoding and the opt-in download.

A BPE file is looked up, in order, in the bundled resources (``resources/tiktoken/``, shipped in the wheel
and the packaged app), ``$OKBOT_TIKTOKEN_DIR``, the user's tiktoken dir and tiktoken's own cache dir; the
sha256 is verified before use, so the first place holding the right bytes wins. Nothing is fetched from the
network unless ``OKBOT_TIKTOKEN_DOWNLOAD=1``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from okbot.i18n import translate
from okbot.storage import paths
from okbot.storage.atomic import atomic_write_bytes
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.tokens")

TIKTOKEN_DIR_ENV = "OKBOT_TIKTOKEN_DIR"
DOWNLOAD_ENV = "OKBOT_TIKTOKEN_DOWNLOAD"
DOWNLOAD_TIMEOUT = 30.0
MAX_FILE_BYTES = 32 * 1024 * 1024


class Encoder(Protocol):
    """What a :class:`TokenCounter` needs from an encoding (``tiktoken.Encoding`` fits)."""

    def encode_ordinary(self, text: str) -> list[int]: ...


def read_resource_json(name: str) -> dict[str, Any]:
    """A JSON file shipped in ``resources/`` (``RuntimeError`` naming it when it cannot be read)."""
    path = paths.resource(name)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # a packaging bug: fail loudly, with the path
        raise RuntimeError(f"cannot read shipped resource {path}: {exc}") from exc


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
def encoding_table() -> dict[str, EncodingSpec]:
    """Every encoding in ``resources/encodings.json``, by name."""
    raw = read_resource_json("encodings.json")["encodings"]
    return {name: EncodingSpec(name=name, **fields) for name, fields in raw.items()}


def encoding_spec(encoding: str) -> EncodingSpec:
    """The facts of a known encoding; ``ValueError`` naming the known ones otherwise."""
    table = encoding_table()
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


def load_encoder(spec: EncodingSpec, search_dirs: Sequence[Path] | None) -> tuple[Encoder, str] | None:
    """The encoder and the file it came from: find, verify, parse and build; optionally download.

    ``None`` when nothing usable exists.
    """
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
