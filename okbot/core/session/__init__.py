"""The append-only transcript ``session.jsonl``: the store (:mod:`.store`), the bounded line scanner it
reads with (:mod:`.lines`), one line read as an item (:mod:`.parse`) and the lines set aside
(:mod:`.quarantine`)."""

from __future__ import annotations

from okbot.core.session.quarantine import EXCERPT_BYTES
from okbot.core.session.store import MAX_LINE_BYTES, SessionStore

__all__ = ["EXCERPT_BYTES", "MAX_LINE_BYTES", "SessionStore"]
