"""What the commands share: the data dir's workspace, notes on stderr, a target with its context sources."""

from __future__ import annotations

from typing import Any, TextIO

from okbot.i18n import translate


def workspace() -> Any:
    from okbot.core.workspace import Workspace

    ws = Workspace()
    ws.ensure_default()
    return ws


def report_problems(problems: list[str], err: TextIO) -> None:
    for problem in problems:
        print(note(problem), file=err)


def note(text: str) -> str:
    """``okbot: note: text`` in the current language (a remark on stderr that is not an error)."""
    return translate("cli", "okbot: note: {text}").format(text=text)


def target_and_sources(ref: str, err: TextIO) -> tuple[Any, Any]:
    """The context sources over the data dir and the resolved target, with exact token counts."""
    from okbot.core.sources import ContextSources

    ws = workspace()
    sources = ContextSources(ws)
    report_problems(sources.settings.problems, err)
    target = ws.resolve(ref)
    sources.loaded_counter(target)
    return sources, target


def session_of(target: Any) -> Any:
    from okbot.core.session import SessionStore

    return SessionStore(target.session_path)
