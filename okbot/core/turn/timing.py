"""Where a reply's time went: a small recorder of a turn's phases, kept on each assistant item as ``timing``.

A :class:`TurnTiming` lives for one turn, on the turn's thread. Parts of the turn open named spans around what
they do (``first_token`` from the request to the first thing the model sends, ``streaming`` from there to the
end, each ``tool`` call with its name, ``compression`` while the request waits for the summarizer,
``approval`` while a call waits for the user's answer). Spans nest; a span's own time leaves out what nested
in it, so the phases of a trace never add up to more than its total. Waits the turn's slot scope counted
(:meth:`okbot.llm.slots.Scope.waited`: for a server slot, for OkBot's own work holding the session) come out
of the span they happened in as ``server_wait`` / ``background_wait``. What no span covers is ``other``.

:meth:`TurnTiming.take` ends one segment: the time since the turn began (or since the last reply was
recorded) as the plain dict an assistant item keeps::

    {"total_ms": 2300, "phases": [{"phase": "server_wait", "ms": 400}, {"phase": "first_token", "ms": 500},
     {"phase": "streaming", "ms": 1200}, {"phase": "tool", "name": "read_file", "ms": 100},
     {"phase": "other", "ms": 100}]}

An optional field: records written before it have none and read as before (the item schema stays at its
version). Calls from another thread than the turn's (members asked in parallel) are not recorded one by one;
the span around them is. The clock is injected (the turn's).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from okbot.llm import slots

SERVER_WAIT = "server_wait"  # queued for a slot of the server (another chat holds it)
FIRST_TOKEN = "first_token"  # from the request going out to the first thing the model sent
STREAMING = "streaming"  # from the first thing the model sent to the end of its stream
TOOL = "tool"  # one tool call (``name``: the tool)
COMPRESSION = "compression"  # the request waited for the summarizer
BACKGROUND_WAIT = "background_wait"  # waited for OkBot's own work holding the session (a compression ahead)
TURN_WAIT = "turn_wait"  # waited before it could start: its chat was replying already, or too many chats were
APPROVAL = "approval"  # a tool call waited for the user's answer
PREPARING = "preparing"  # building a round's request: reading the session, counting tokens, the as-sent record
OTHER = "other"  # what no span covers: writing the reply's record, the turn's own bookkeeping
PHASES = (
    TURN_WAIT,
    SERVER_WAIT,
    PREPARING,
    FIRST_TOKEN,
    STREAMING,
    TOOL,
    COMPRESSION,
    BACKGROUND_WAIT,
    APPROVAL,
    OTHER,
)

# The kinds of wait the slot scope counts, as the phases they are.
WAIT_PHASES = {slots.WAIT_SERVER: SERVER_WAIT, slots.WAIT_BACKGROUND: BACKGROUND_WAIT}


@dataclass
class _Span:
    phase: str
    name: str | None
    start: float
    waits: dict[str, float]  # the scope's wait totals when it opened
    nested: float = 0.0  # seconds of the spans that opened and closed inside it
    nested_waits: dict[str, float] = field(default_factory=dict)  # waits those spans already accounted for


def _no_waits() -> Mapping[str, float]:
    return {}


class TurnTiming:
    """The timing recorder of one turn (see the module's docstring).

    ``waits`` gives the cumulative seconds per kind of wait the turn's slot scope has seen so far; ``waited``
    is how long the turn waited before it began (the first reply's ``turn_wait``, counted in its total)."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        waits: Callable[[], Mapping[str, float]] = _no_waits,
        *,
        waited: float = 0.0,
    ) -> None:
        self._clock = clock
        self._waits = waits
        self._thread = threading.get_ident()
        self._entries: list[tuple[str, str | None, float]] = []
        self._open: list[_Span] = [self._span(OTHER, None)]  # the segment itself is the outermost span
        if waited > 0:
            self._entries.append((TURN_WAIT, None, waited))
            self._open[0].start -= waited

    def _span(self, phase: str, name: str | None) -> _Span:
        return _Span(phase, name, self._clock(), dict(self._waits()))

    def _mine(self) -> bool:
        return threading.get_ident() == self._thread

    # -- spans ------------------------------------------------------------------------------
    def start(self, phase: str, name: str | None = None) -> None:
        """Open a span of ``phase`` (inside the one open now)."""
        if self._mine():
            self._open.append(self._span(phase, name))

    def stop(self) -> None:
        """Close the innermost span opened with :meth:`start`."""
        if self._mine() and len(self._open) > 1:
            self._close(self._open.pop())

    def switch(self, phase: str, name: str | None = None) -> None:
        """Close the innermost span and open one of ``phase`` in its place."""
        self.stop()
        self.start(phase, name)

    @contextlib.contextmanager
    def span(self, phase: str, name: str | None = None) -> Iterator[None]:
        """A span of ``phase`` around the block."""
        self.start(phase, name)
        try:
            yield
        finally:
            self.stop()

    @contextlib.contextmanager
    def on_demand(self, phase: str) -> Iterator[Callable[[], None]]:
        """A span of ``phase`` that opens when the callable given is first called (if ever) and closes with the
        block: for work that starts only sometimes (the summarizer, told by ``on_start``)."""
        started = False

        def begin() -> None:
            nonlocal started
            if not started and self._mine():
                started = True
                self.start(phase)

        try:
            yield begin
        finally:
            if started:
                self.stop()

    def _close(self, span: _Span) -> None:
        """Record ``span``'s waits and own time (the segment's own time is worked out by :meth:`take`); tell its
        parent."""
        elapsed = max(0.0, self._clock() - span.start)
        now = self._waits()
        waited = 0.0
        for kind, total in now.items():
            own_wait = total - span.waits.get(kind, 0.0) - span.nested_waits.get(kind, 0.0)
            if own_wait > 0:
                waited += own_wait
                self._entries.append((WAIT_PHASES.get(kind, OTHER), None, own_wait))
        if span is not self._open[0]:
            self._entries.append((span.phase, span.name, max(0.0, elapsed - span.nested - waited)))
            parent = self._open[-1]
            parent.nested += elapsed
            for kind, total in now.items():
                parent.nested_waits[kind] = parent.nested_waits.get(kind, 0.0) + total - span.waits.get(kind, 0.0)

    # -- a segment --------------------------------------------------------------------------
    def take(self) -> dict[str, Any]:
        """The trace since the turn began or the last :meth:`take` (an assistant item's ``timing``); a new
        segment begins. Spans still open are closed first (a reply recorded from inside one)."""
        if not self._mine():
            return {}
        while len(self._open) > 1:
            self._close(self._open.pop())
        root = self._open[0]
        total = max(0.0, self._clock() - root.start)
        self._close(root)
        entries, self._entries = self._entries, []
        self._open = [self._span(OTHER, None)]
        return _as_record(entries, total)


def _as_record(entries: list[tuple[str, str | None, float]], total: float) -> dict[str, Any]:
    """Entries in milliseconds, neighbours of one phase (and name) merged, ``other`` last; the total is never less
    than the phases (rounding)."""
    phases: list[dict[str, Any]] = []
    for phase, name, seconds in entries:
        ms = round(seconds * 1000)
        last = phases[-1] if phases else None
        if last is not None and last["phase"] == phase and last.get("name") == name and phase != TOOL:
            last["ms"] += ms
            continue
        if ms <= 0 and phase != TOOL:
            continue
        entry: dict[str, Any] = {"phase": phase, "ms": ms}
        if name is not None:
            entry["name"] = name
        phases.append(entry)
    spans_ms = sum(p["ms"] for p in phases)
    total_ms = max(round(total * 1000), spans_ms)
    if total_ms > spans_ms:
        phases.append({"phase": OTHER, "ms": total_ms - spans_ms})
    return {"total_ms": total_ms, "phases": phases}


@dataclass(frozen=True)
class Phase:
    """One phase of a stored trace."""

    phase: str
    ms: int
    name: str | None = None


@dataclass(frozen=True)
class Timing:
    """A stored trace, read back (:func:`timing_of`)."""

    total_ms: int
    phases: tuple[Phase, ...]


def timing_of(item: Mapping[str, Any]) -> Timing | None:
    """The trace an item keeps, or None: none recorded (an older record), or not one this build can read. An
    unknown phase (a newer OkBot's) reads as ``other``."""
    raw = item.get("timing")
    if not isinstance(raw, Mapping):
        return None
    total = raw.get("total_ms")
    listed = raw.get("phases")
    if not _is_ms(total) or not isinstance(listed, list):
        return None
    phases = []
    for entry in listed:
        if not isinstance(entry, Mapping) or not _is_ms(entry.get("ms")):
            return None
        phase = entry.get("phase")
        name = entry.get("name")
        phases.append(
            Phase(
                phase if phase in PHASES else OTHER,
                int(entry["ms"]),
                name if isinstance(name, str) and name else None,
            )
        )
    return Timing(int(total), tuple(phases))


def _plain(phase: Phase) -> dict[str, Any]:
    entry: dict[str, Any] = {"phase": phase.phase, "ms": phase.ms}
    if phase.name is not None:
        entry["name"] = phase.name
    return entry


def _is_ms(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 10**12


def turn_timing(items: list[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The trace of one turn for ``okbot context --json``: ``items`` are those after its user message (the
    next user message ends the turn); each reply's trace, and their sum. None when no reply kept one."""
    replies = []
    for item in items:
        if item.get("type") == "user":
            break
        if item.get("type") == "assistant" and (found := timing_of(item)) is not None:
            replies.append(
                {"id": item.get("id"), "total_ms": found.total_ms, "phases": [_plain(p) for p in found.phases]}
            )
    if not replies:
        return None
    return {
        "total_ms": sum(r["total_ms"] for r in replies),
        "phases": [p for r in replies for p in r["phases"]],
        "replies": replies,
    }
