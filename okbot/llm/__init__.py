"""Talking to models: a provider is one streaming generator of typed events.

``events`` (what a stream yields), ``errors`` (one table from failures to user messages),
``keys`` (the API key in the environment; redaction), ``keystore`` (saved keys: the system
keyring, else a 0600 file), ``key_source`` (which key a request uses), ``provider``
(ChatRequest, CancelToken, the Provider protocol), ``openai_backend`` (the real backend).
Import from the submodules; this package stays import-light (no SDK at import time).
"""
