"""The inline card that asks the user to allow or deny a tool call (tools set to "ask")."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

_DESCRIPTIONS = {
    "search_history": "search this chat's full original record",
}


def describe_call(name: str, args: dict[str, Any]) -> str:
    """One sentence for the card, e.g. ``OkBot wants to search this chat's … for “budget”.``"""
    what = _DESCRIPTIONS.get(name, f"use the tool “{name}”")
    query = args.get("query")
    if isinstance(query, str) and query.strip():
        return f"The assistant wants to {what} for “{query.strip()}”."
    shown = json.dumps(args, ensure_ascii=False)
    return f"The assistant wants to {what}" + (f" with {shown}." if args else ".")


class ApprovalCard(QFrame):
    """Shows one pending request; Allow / Deny call the reply once and hide the card."""

    answered = Signal(bool)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self._reply: Callable[[bool], None] | None = None

        self.title = QLabel("Allow this tool call?", self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.allow_button = QPushButton("Allow", self)
        self.allow_button.setObjectName("approveButton")
        self.deny_button = QPushButton("Deny", self)
        self.deny_button.setObjectName("denyButton")
        self.allow_button.clicked.connect(lambda: self._answer(True))
        self.deny_button.clicked.connect(lambda: self._answer(False))

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.deny_button)
        buttons.addWidget(self.allow_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addWidget(self.title)
        layout.addWidget(self.label)
        layout.addLayout(buttons)
        self.hide()

    @property
    def pending(self) -> bool:
        return self._reply is not None

    def ask(self, name: str, args: dict[str, Any], reply: Callable[[bool], None]) -> None:
        """Show the request; a previous unanswered one is denied first."""
        if self._reply is not None:
            self._answer(False)
        self._reply = reply
        self.label.setText(describe_call(name, args))
        self.show()
        self.allow_button.setFocus()

    def cancel(self) -> None:
        """Hide without answering (the turn was stopped, which answers "no" itself)."""
        self._reply = None
        self.hide()

    def _answer(self, approved: bool) -> None:
        reply, self._reply = self._reply, None
        self.hide()
        if reply is not None:
            reply(approved)
            self.answered.emit(approved)
