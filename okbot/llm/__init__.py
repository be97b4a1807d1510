"""Talking to models: a provider is one streaming generator of typed events.

``events`` (what a stream yields), ``errors`` (one table from failures to user messages),
``keys`` (where the API key comes from; redaction), ``provider`` (ChatRequest, CancelToken,
the Provider protocol), ``openai_backend`` (the real backend), ``scripted`` (the test fake).
Import from the submodules; this package stays import-light (no SDK at import time).
"""
