"""Token counting, by job: ``models`` (model facts from ``resources/models.json``), ``encodings`` (encoding
files: lookup, verifying, loading, download), ``counting`` (:class:`TokenCounter` and the
:func:`approx_count` fallback) and ``calibration`` (the per-model factor learned from reported usage).

The names callers use are re-exported here.
"""

from __future__ import annotations

from okbot.core.tokens.calibration import Calibration
from okbot.core.tokens.counting import APPROX_NOTE, TokenCounter, approx_count, counter_for_encoding, counter_for_model
from okbot.core.tokens.encodings import (
    EncodingSpec,
    download_encoding,
    encoding_spec,
    parse_bpe,
    search_locations,
    tiktoken_cache_dir,
    tiktoken_override_dir,
)
from okbot.core.tokens.models import ModelFacts, effective_context_window, model_facts

__all__ = [
    "APPROX_NOTE",
    "Calibration",
    "EncodingSpec",
    "ModelFacts",
    "TokenCounter",
    "approx_count",
    "counter_for_encoding",
    "counter_for_model",
    "download_encoding",
    "effective_context_window",
    "encoding_spec",
    "model_facts",
    "parse_bpe",
    "search_locations",
    "tiktoken_cache_dir",
    "tiktoken_override_dir",
]
