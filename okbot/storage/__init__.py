"""The bottom layer: where OkBot keeps its data and how it writes it.

Paths of the data dir, the user-facing error type, atomic replaces, cross-process locks and the
one durable append path, and the named file migrations. It imports nothing else from OkBot, and
every other layer may use it (storage -> config -> llm -> core -> ui / cli).
"""
