"""What a compression did: :class:`CompressionReport`, shared by the compressor, the runner's callbacks and the UI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from okbot.i18n import translate


@dataclass
class CompressionReport:
    """What a compression did (``ok=False``: nothing changed, ``message`` says why; ``error`` is set
    when that was a failure -- the summarizer's answer was rejected -- rather than nothing to do)."""

    ok: bool
    trigger: str = ""
    covered_items: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    message: str = ""
    new_ids: list[int] = field(default_factory=list)
    seconds: float = 0.0
    fallback: str = ""
    summarizer_input_tokens: int = 0  # all summarizer calls, repairs included
    summarizer_prompt_tokens: int = 0  # first call per batch: what the newly covered items cost
    summarizer_calls: int = 0
    error: str = ""

    @classmethod
    def unchanged(cls, trigger: str, proj: Any, failure: str) -> CompressionReport:
        """A compression whose summarizer failed or could not be reached: summary and coverage as they were."""
        return cls(
            ok=False,
            trigger=trigger,
            tokens_before=proj.calibrated_tokens,
            tokens_after=proj.calibrated_tokens,
            error=failure,
            message=translate(
                "compressor", "The summary was not updated ({failure}); the previous summary and coverage are kept."
            ).format(failure=failure),
        )
