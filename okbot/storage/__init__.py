"""The bottom layer: where OkBot keeps its data and how it writes it.

Paths of the data dir, the user-facing error type, atomic replaces, cross-process locks and the
one durable append path, the named file migrations, and bounded JSON reading (jsontext). It imports
nothing else from OkBot but :mod:`okbot.i18n` (its errors speak the user's language), which finds its
catalogues through :mod:`okbot.storage.paths`, the one module here that imports nothing of OkBot's.
Every other layer may use it (storage -> config -> llm -> core -> ui / cli). This package's own import
loads nothing, so ``paths`` can be imported without the rest.
"""
