"""Talking to models: a provider is one streaming generator of typed events.

``events`` (what a stream yields), ``errors`` (one table from failures to user messages),
``keys`` (where the API key comes from; redaction), ``keystore`` (saved keys: the system
keyring, else a 0600 file), ``provider`` (ChatRequest, CancelToken,
the Provider protocol), ``openai_backend`` (the real backend).
Import from the submodules; this package stays import-light (no SDK at import time).
"""
