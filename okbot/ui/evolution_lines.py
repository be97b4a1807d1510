"""What a chat says about persona and skill upkeep: its quiet lines, and the relay that brings upkeep's phases to them.

:class:`~okbot.core.evolution.upkeep.Upkeep` reports its phases (``"persona"``, ``"skills"``, ``""`` when
done) through a plain callback on the memory keeper's thread. :class:`UpkeepPhases` is that callback:
it emits a queued signal, so ``changed`` arrives on the GUI thread, where each chat page picks out
its own assistant. The texts are :func:`upkeep_text` while upkeep runs and :func:`landed_text` when
staged changes landed before a request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal

from okbot.core.workspace import Target
from okbot.i18n import plural

if TYPE_CHECKING:
    from okbot.core.evolution.store import LogEntry

MAX_CITED = 3  # message ids named in a landed line; more are counted


def upkeep_text(name: str, kind: str) -> str:
    """``Updating Ada's persona…`` / ``Updating Ada's skills…`` while upkeep of ``kind`` runs."""
    if kind == "persona":
        return QCoreApplication.translate("EvolutionLines", "Updating {name}'s persona…").format(name=name)
    return QCoreApplication.translate("EvolutionLines", "Updating {name}'s skills…").format(name=name)


def landed_text(name: str, entries: Sequence[LogEntry]) -> str:
    """One line for changes that landed: what changed, from which of the user's messages, where to undo it."""
    parts = []
    persona = [e for e in entries if e.kind == "persona"]
    if persona:
        n = len(persona)
        cited = _cited(sorted({i for e in persona for i in e.cited}))
        updated = plural(
            n,
            QCoreApplication.translate("EvolutionLines", "{name}'s persona was updated: {n} change"),
            QCoreApplication.translate("EvolutionLines", "{name}'s persona was updated: {n} changes"),
        )
        parts.append(updated.format(name=name, n=n) + cited)
    for op in ("create", "update"):
        names = [e.change.name for e in entries if e.kind == "skill" and getattr(e.change, "op", "") == op]
        if names:
            parts.append(_skills_line(op, len(names)).format(name=name, skills=", ".join(names)))
    if not parts:
        return ""
    joined = QCoreApplication.translate("EvolutionLines", ", and ").join(parts)
    return QCoreApplication.translate("EvolutionLines", "{changes} (to undo: Assistant… → Evolution)").format(
        changes=joined
    )


def _skills_line(op: str, n: int) -> str:
    if op == "create":
        return plural(
            n,
            QCoreApplication.translate("EvolutionLines", "{name} learnt the skill {skills}"),
            QCoreApplication.translate("EvolutionLines", "{name} learnt the skills {skills}"),
        )
    return plural(
        n,
        QCoreApplication.translate("EvolutionLines", "{name} updated the skill {skills}"),
        QCoreApplication.translate("EvolutionLines", "{name} updated the skills {skills}"),
    )


def _cited(ids: list[int]) -> str:
    if not ids:
        return ""
    shown = ", ".join(f"#{i}" for i in ids[:MAX_CITED])
    if len(ids) > MAX_CITED:
        shown = QCoreApplication.translate("EvolutionLines", "{ids} and {n} more").format(
            ids=shown, n=len(ids) - MAX_CITED
        )
    return plural(
        len(ids),
        QCoreApplication.translate("EvolutionLines", " from your message {ids}"),
        QCoreApplication.translate("EvolutionLines", " from your messages {ids}"),
    ).format(ids=shown)


class UpkeepPhases(QObject):
    """Upkeep's phases on the GUI thread: ``changed(assistant dir, kind)``, kind ``""`` when upkeep is done.

    One per process, never deleted (see :func:`upkeep_phases`): the keeper's thread holds the
    callback and may outlive any window, and a QObject must not be deleted off the GUI thread.
    """

    changed = Signal(str, str)

    _worker_changed = Signal(str, str)  # emitted on the keeper's thread, delivered queued on the GUI thread

    def __init__(self) -> None:
        super().__init__()
        self._phases: dict[str, str] = {}
        self._worker_changed.connect(self._on_worker_changed, Qt.ConnectionType.QueuedConnection)

    def report(self, target: Target, kind: str) -> None:
        """The :class:`~okbot.core.evolution.upkeep.Upkeep` ``on_phase`` callback (called on any thread)."""
        self._worker_changed.emit(str(target.dir), kind)

    def phase(self, target: Target) -> str:
        """What upkeep of ``target`` is doing now, as last delivered (``""``: nothing)."""
        return self._phases.get(str(target.dir), "")

    def _on_worker_changed(self, directory: str, kind: str) -> None:
        if kind:
            self._phases[directory] = kind
        else:
            self._phases.pop(directory, None)
        self.changed.emit(directory, kind)


_shared: UpkeepPhases | None = None


def upkeep_phases() -> UpkeepPhases:
    """The process's one :class:`UpkeepPhases` (created on first use, which must be on the GUI thread)."""
    global _shared
    if _shared is None:
        _shared = UpkeepPhases()
    return _shared
