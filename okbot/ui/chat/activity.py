"""Who in a squad is working right now: a quiet line above the composer ("Rex and Mia are working…").

The chat page feeds it the turn's ``MemberActivity`` events (already on the GUI thread, through the
TurnWorker's ``event`` signal) and clears it when the turn ends. Several members may work at once;
the line lists them in the order they started, each name in that member's colour.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from okbot.core.roster import SquadRoster, home_slot, working_text
from okbot.ui.chat.colors import ChatColors, speaker_color

WORKING = "working"
DOTS_MS = 450  # the trailing dots pulse while someone works


class WorkingLine(QLabel):
    """The "… is working…" line; hidden while nobody works."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("squadWorking")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self._roster: SquadRoster | None = None
        self._working: dict[str, tuple[str, str]] = {}  # member id -> (name, task), in start order
        self._tick = 0
        self._timer = QTimer(self, interval=DOTS_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.hide()

    def set_roster(self, roster: SquadRoster | None) -> None:
        """Where names' colour slots come from (the same as the chat's bubbles)."""
        self._roster = roster

    def names(self) -> list[str]:
        """The members working now, in the order they started."""
        return [name for name, _task in self._working.values()]

    def plain_text(self) -> str:
        """``Rex and Mia are working…`` (``""`` when nobody is)."""
        return working_text(self.names())

    def on_activity(self, event: Any) -> None:
        """A ``MemberActivity``: ``working`` adds the member, any other state removes them."""
        member = str(getattr(event, "member", "") or "")
        if not member:
            return
        if getattr(event, "state", "") == WORKING:
            name = self._roster.name(member) if self._roster is not None else ""
            self._working[member] = (name or str(getattr(event, "name", "")) or member, str(event.task or ""))
        else:
            self._working.pop(member, None)
        self._refresh()

    def clear(self) -> None:
        """The turn is over: nobody works any more."""
        self._working.clear()
        self._refresh()

    # ------------------------------------------------------------------ internals
    def _refresh(self) -> None:
        if not self._working:
            self._timer.stop()
            self.setText("")
            self.setToolTip("")
            self.hide()
            return
        if not self._timer.isActive():
            self._tick = 0
            self._timer.start()
        self.setText(self._html())
        tasks = [f"{name}: {task}" for name, task in self._working.values() if task.strip()]
        self.setToolTip("\n".join(t if len(t) <= 160 else t[:159] + "…" for t in tasks))
        self.show()

    def _html(self) -> str:
        colors = ChatColors.from_palette(self.palette())
        parts = []
        for member, (name, _task) in self._working.items():
            slot = self._roster.slot(member) if self._roster is not None else home_slot(member)
            parts.append(f'<b style="color:{speaker_color(colors, slot).name()}">{escape(name)}</b>')
        if len(parts) == 1:
            working = self.tr("{name} is working").format(name=parts[0])
        else:
            # the list separator is the language's own (", " / "、")
            working = self.tr("{names} and {last} are working").format(
                names=self.tr(", ").join(parts[:-1]), last=parts[-1]
            )
        dots = "." * (1 + self._tick % 3)
        return f'<span style="color:{colors.muted.name()}">{working}{dots}</span>'

    def _on_timer_timeout(self) -> None:
        self._tick += 1
        if self._working:
            self.setText(self._html())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and self._working:
            self.setText(self._html())
        super().changeEvent(event)
