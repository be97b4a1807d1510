"""Summary + Buffer compression: plan the cut, summarize incrementally, check, apply, fall back."""

from okbot.core.compression.compressor import CompressionReport, Compressor

__all__ = ["CompressionReport", "Compressor"]
