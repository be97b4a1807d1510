"""The tooltip over a reply's time: where its time went (issue 36), as the original Electron app shows it.

A hit test only: the trace is read from the item (:mod:`okbot.core.turn.timing`) and put in words by
:mod:`okbot.core.turn.timing_text`; the view shows the text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF

from okbot.core.turn.timing_text import timing_tip
from okbot.ui.chat.layout import RowLayout


def timing_tip_at(layout: RowLayout, item: dict[str, Any] | None, local: QPointF) -> str:
    """The timing tooltip when ``local`` (row coordinates) is over the time of a reply that kept its timing;
    "" anywhere else (another part of the row, a message of the user's, a reply written before timing)."""
    if not item or item.get("type") != "assistant" or not layout.footer_time:
        return ""
    if not layout.footer_time_rect.contains(local):
        return ""
    return timing_tip(item)
