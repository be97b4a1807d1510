"""``okbot chat``: one turn from the command line, streamed to stdout.

The turn runs on a worker thread so Ctrl+C can stop it cleanly: the partial reply is kept as
``interrupted``, exactly as the app's Stop button does.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading
from typing import Any, TextIO

from okbot.core.items import asked_member, is_member_answer, member_of
from okbot.core.memory.keeper import MemoryKeeper
from okbot.core.messages import task_text
from okbot.core.runner import TurnCallbacks, TurnResult
from okbot.core.sources import ContextSources
from okbot.core.squad import members
from okbot.core.turns import make_turn_runner
from okbot.core.workspace import Target, Workspace
from okbot.llm.events import Degraded, Retrying, UsageEvent
from okbot.llm.openai_backend import OpenAIProvider
from okbot.llm.provider import CancelToken
from okbot.storage.errors import OkBotError

EXIT_OK, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 130
STOP_WAIT_SECONDS = 10.0  # after Ctrl+C, how long the turn may take to write what arrived
WRAP_UP_WAIT_SECONDS = 120


def _event_json(event: Any) -> dict[str, Any]:
    if isinstance(event, Retrying):
        return {"event": "retrying", "attempt": event.attempt, "delay": event.delay, "message": event.message}
    if isinstance(event, Degraded):
        return {"event": "degraded", "feature": event.feature, "message": event.message}
    if isinstance(event, UsageEvent):
        return {
            "event": "usage",
            "prompt_tokens": event.prompt_tokens,
            "completion_tokens": event.completion_tokens,
            "cached_tokens": event.cached_tokens,
            "estimated": event.estimated,
        }
    return {"event": type(event).__name__}


def _read_answer(cancel: CancelToken) -> str:
    """A line from the terminal, or "" as soon as the turn is stopped (Ctrl+C must not wait for Enter)."""
    if os.name != "posix":  # pragma: no cover - select() cannot wait on a Windows console
        return sys.stdin.readline()
    while not cancel.cancelled:
        ready, _, _ = select.select([sys.stdin], [], [], 0.1)
        if ready:
            return sys.stdin.readline()
    return ""


def _ask_on_tty(err: TextIO, cancel: CancelToken) -> Any:
    def ask(name: str, args: dict[str, Any]) -> bool:
        if sys.stdin is None or not sys.stdin.isatty():
            print(f"okbot: {name} needs approval and there is no terminal to ask; denied", file=err)
            return False
        print(f"okbot: allow {name} with {json.dumps(args, ensure_ascii=False)}? [y/N] ", end="", file=err, flush=True)
        return _read_answer(cancel).strip().lower() in ("y", "yes")

    return ask


def _squad_line(item: dict[str, Any], names: dict[str, str]) -> str | None:
    """``--verbose``: one line per delegation and per member reply (None for other items)."""
    asked = asked_member(str(item.get("name", ""))) if item.get("type") == "tool_call" else ""
    if asked:
        return f"→ asked {names.get(asked, asked)}: {task_text(item)}"
    if is_member_answer(item):
        member = member_of(item)
        return f"← {names.get(member, member)}{'' if item.get('ok', True) else ' (failed)'}: {item.get('content', '')}"
    return None


def run_chat(  # noqa: C901
    ws: Workspace, target: Target, text: str | None, *, as_json: bool, out: TextIO, err: TextIO, verbose: bool = False
) -> int:
    """Run one turn (``text=None``: retry the last one) and report it; returns the exit code."""
    sources = ContextSources(ws)
    for problem in sources.settings.problems:
        print(f"okbot: note: {problem}", file=err)
    provider = OpenAIProvider.from_settings(sources.settings)
    keeper = MemoryKeeper(sources, provider)
    runner = make_turn_runner(sources, provider, keeper)
    emit_lock = threading.Lock()

    def emit(obj: dict[str, Any]) -> None:
        with emit_lock:
            print(json.dumps(obj, ensure_ascii=False), file=out, flush=True)

    mid_line = [False]  # the reply printed so far does not end with a newline

    def on_delta(delta: str) -> None:
        if as_json:
            emit({"event": "delta", "text": delta})
        elif delta:
            out.write(delta)
            out.flush()
            mid_line[0] = not delta.endswith("\n")

    def on_event(event: Any) -> None:
        if as_json:
            emit(_event_json(event))
        elif isinstance(event, Retrying | Degraded):
            if mid_line[0]:  # a note at the end of a reply goes on its own line, not glued to the reply's last
                out.write("\n")
                out.flush()
                mid_line[0] = False
            print(f"okbot: {event.message}", file=err)

    names = {m.target.id: m.target.name for m in members(target, ws)[0]} if target.kind == "squad" else {}

    def on_item(item: dict[str, Any]) -> None:
        if as_json:
            emit({"event": "item", "item": item})
        elif verbose and (line := _squad_line(item, names)) is not None:
            with emit_lock:
                print(line, file=out, flush=True)

    cancel = CancelToken()
    callbacks = TurnCallbacks(
        on_item=on_item,
        on_delta=on_delta,
        on_event=on_event,
        ask_approval=_ask_on_tty(err, cancel),
    )
    outcome: dict[str, Any] = {}

    finished = threading.Event()

    def work() -> None:
        try:
            if text is None:
                outcome["result"] = runner.retry(target, callbacks=callbacks, cancel=cancel)
            else:
                outcome["result"] = runner.run_turn(target, text, callbacks=callbacks, cancel=cancel)
        except OkBotError as exc:
            outcome["error"] = exc
        finally:
            finished.set()

    # Waiting on an Event, not Thread.join: on Python 3.11 a join interrupted by Ctrl+C can report the
    # thread finished while it still runs, and the partial reply was lost (KeyError: 'result').
    threading.Thread(target=work, name="okbot-chat", daemon=True).start()
    try:
        while not finished.wait(0.1):
            pass
    except KeyboardInterrupt:
        # From here the command only winds down and exits (every wait below is bounded): another Ctrl+C
        # must not cut short the writing of what arrived, nor kill the process on its way out.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        cancel.cancel()  # the runner keeps what arrived (status interrupted) and closes its tool calls
        finished.wait(STOP_WAIT_SECONDS)
    if "error" in outcome:
        raise outcome["error"]
    if "result" not in outcome:  # the turn did not wind down in time: what it wrote so far stays on disk
        print("\nokbot: stopped; the reply so far is kept", file=err)
        return EXIT_INTERRUPTED
    result: TurnResult = outcome["result"]
    try:  # memory extraction finishes before the process ends (it affects later turns only)
        if not keeper.drain(WRAP_UP_WAIT_SECONDS):
            print("okbot: note: memory wrap-up still running; it will catch up next time", file=err)
    except KeyboardInterrupt:
        pass
    if as_json:
        emit({"event": "done", "status": result.status, "error": str(result.error) if result.error else None})
    elif mid_line[0]:
        out.write("\n")
    if result.status == "error":
        print(f"okbot: {result.error}", file=err)
        return EXIT_ERROR
    return EXIT_INTERRUPTED if result.status == "interrupted" else EXIT_OK
