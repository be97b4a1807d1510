"""Summary + Buffer compression: plan the cut, summarize incrementally, check, apply, fall back.

The compressor is :class:`okbot.core.compression.compressor.Compressor`. This package's own import
loads nothing: the summary's format (:mod:`~okbot.core.compression.structure`), which the context
builder reads, must not bring in the compressor, which builds on the context.
"""
