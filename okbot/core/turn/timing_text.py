"""A reply's timing trace in words: the lines of the tooltip over its time in the chat.

Pure formatting over :class:`~okbot.core.turn.timing.Timing` (no Qt): one line per phase, in the order it first
came, a phase that came more than once (two rounds' first tokens, a tool called twice) added up, then the
total::

    Waiting for the server 0.4 s
    First token 0.5 s
    Streaming 1.2 s
    read_file 0.1 s
    Total 2.3 s
"""

from __future__ import annotations

from okbot.core.turn import timing as t
from okbot.i18n import QT_TRANSLATE_NOOP, translate

# Phases shorter than this are left out (a tool call never is: that it ran is worth a line).
SHOWN_FROM_MS = 50
MAX_LINES = 16  # phase lines of one tooltip; the rest are counted on one line (a hand-edited record)
NAME_CHARS = 60  # of a tool's name

_LABELS = {
    t.TURN_WAIT: QT_TRANSLATE_NOOP("timing_text", "Waiting for other replies"),
    t.SERVER_WAIT: QT_TRANSLATE_NOOP("timing_text", "Waiting for the server"),
    t.PREPARING: QT_TRANSLATE_NOOP("timing_text", "Preparing the request"),
    t.FIRST_TOKEN: QT_TRANSLATE_NOOP("timing_text", "First token"),
    t.STREAMING: QT_TRANSLATE_NOOP("timing_text", "Streaming"),
    t.COMPRESSION: QT_TRANSLATE_NOOP("timing_text", "Compressing the context"),
    t.BACKGROUND_WAIT: QT_TRANSLATE_NOOP("timing_text", "Waiting for background work"),
    t.APPROVAL: QT_TRANSLATE_NOOP("timing_text", "Waiting for your approval"),
    t.OTHER: QT_TRANSLATE_NOOP("timing_text", "Other"),
}


def duration(ms: int) -> str:
    """``0.4 s``, ``12.0 s``, ``2 min 5 s``."""
    if ms < 60_000:
        return translate("timing_text", "{seconds} s").format(seconds=f"{ms / 1000:.1f}")
    minutes, seconds = divmod(round(ms / 1000), 60)
    return translate("timing_text", "{minutes} min {seconds} s").format(minutes=minutes, seconds=seconds)


def timing_lines(trace: t.Timing) -> list[str]:
    """The tooltip's lines for ``trace`` (see the module's docstring)."""
    totals: dict[tuple[str, str | None], list[int]] = {}  # (phase, tool name) -> [ms, times], in first order
    for phase in trace.phases:
        key = (phase.phase, phase.name if phase.phase == t.TOOL else None)
        entry = totals.setdefault(key, [0, 0])
        entry[0] += phase.ms
        entry[1] += 1
    lines = []
    for (phase, name), (ms, times) in totals.items():
        if phase == t.TOOL:
            label = _short(name) if name else translate("timing_text", "a tool")
            if times > 1:
                label = translate("timing_text", "{tool} ×{n}").format(tool=label, n=times)
        elif ms < SHOWN_FROM_MS:
            continue
        else:
            label = translate("timing_text", _LABELS[phase])
        lines.append(f"{label} {duration(ms)}")
    if len(lines) > MAX_LINES:
        more = len(lines) - MAX_LINES + 1
        lines = [*lines[: MAX_LINES - 1], translate("timing_text", "… and {n} more").format(n=more)]
    total = translate("timing_text", "Total")
    lines.append(f"{total} {duration(trace.total_ms)}")
    return lines


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def timing_tip(item: dict) -> str:
    """The tooltip over a reply's time: its trace in lines, or "" when it kept none (an older record)."""
    trace = t.timing_of(item)
    return "\n".join(timing_lines(trace)) if trace is not None else ""
