"""The approval cards of tool calls that waited when OkBot closed, asked again when their chat opens.

Each answer is kept beside its call at once (off the GUI thread), so quitting again before every card is
answered loses none; once each call of the turn is answered, ``resume_requested`` asks the chat to go on with
the turn (:class:`okbot.core.turn.request.Resume`). A new message instead forgets the cards (:meth:`forget`):
the turn it starts closes the calls with their note.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

from okbot.core.turn.pending import PendingCall
from okbot.core.workspace import Target
from okbot.ui.approval_card import ApprovalCard

log = logging.getLogger("okbot.ui")


class WaitingApprovals(QObject):
    """Asks again about the calls of ``target`` that waited across a restart, on ``card``."""

    resume_requested = Signal()
    answer_failed = Signal(str)  # the answer could not be kept (a read-only folder): why

    def __init__(self, ctx: Any, target: Target, card: ApprovalCard, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ctx, self._target, self._card = ctx, target, card
        self._open: set[str] = set()  # the calls whose card is shown or queued, not answered yet

    @property
    def waiting(self) -> bool:
        """Whether a card of a call that waited across a restart is still unanswered."""
        return bool(self._open)

    def show(self, calls: list[PendingCall]) -> None:
        """Ask about each unanswered call; with none left unanswered, ask to go on at once."""
        unanswered = [call for call in calls if call.answer is None]
        if calls and not unanswered:
            self.resume_requested.emit()
            return
        self._card.timeout_s = self._ctx.settings.get("tools.approvalTimeout")
        for call in unanswered:
            self._open.add(call.call_id)
            self._card.ask(call.tool, call.args(), lambda ok, call_id=call.call_id: self._answered(call_id, ok))

    def forget(self) -> None:
        """The user moved on (a new message): hide the cards; the new turn closes the calls."""
        if self._open:
            self._open.clear()
            self._card.cancel()

    def _answered(self, call_id: str, approved: bool) -> None:
        if call_id not in self._open:
            return
        app, target = self._ctx.app, self._target
        self._ctx.tasks.run(
            lambda: app.answer_waiting(target, call_id, approved),
            lambda _kept: self._kept(call_id),
            lambda exc: self.answer_failed.emit(str(exc)),
            owner=self,
        )

    def _kept(self, call_id: str) -> None:
        if call_id not in self._open:
            return  # forgotten meanwhile (a new message was sent)
        self._open.discard(call_id)
        if not self._open:
            self.resume_requested.emit()
