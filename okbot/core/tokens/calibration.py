"""Calibration: a per-model factor learned from the prompt tokens providers report."""

from __future__ import annotations

import json
import logging
import math
import threading
from pathlib import Path
from typing import Any

from okbot.core.items import now_iso
from okbot.storage.atomic import atomic_write_json

log = logging.getLogger("okbot.tokens")


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
