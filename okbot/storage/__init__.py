"""The bottom layer: where OkBot keeps its data and how it writes it.

Paths of the data dir, the user-facing error type, atomic replaces, cross-process locks and the
one durable append path, the named file migrations, and bounded JSON reading (jsontext). It imports
nothing else from OkBot, and every other layer may use it (storage -> config -> llm -> core -> ui / cli).
"""
