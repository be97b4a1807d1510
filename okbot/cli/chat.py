"""``okbot chat``: one turn from the command line, streamed to stdout.

The turn runs on a worker thread so Ctrl+C can stop it cleanly: the partial reply is kept as
``interrupted``, exactly as the app's Stop button does.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from okbot.app import OkBotApp
from okbot.cli.common import workspace
from okbot.cli.output import print_error, styled
from okbot.cli.teach import note_line
from okbot.config.mcp import TOOL_SEPARATOR
from okbot.core import attach_guard
from okbot.core.items import asked_member, is_member_answer, member_of, teaching_of
from okbot.core.local_tools import shell
from okbot.core.messages import task_text
from okbot.core.squad import members
from okbot.core.turn.outcome import FinishedTurn, TurnCallbacks, TurnResult
from okbot.core.turn.request import Edit, Regenerate, Retry, Send, TurnRequest
from okbot.core.workspace import Target, Workspace
from okbot.i18n import translate
from okbot.llm.events import Degraded, ReasoningDelta, Retrying, UsageEvent, Waiting
from okbot.llm.provider import CancelToken
from okbot.storage.errors import OkBotError

EXIT_OK, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 130
STOP_WAIT_SECONDS = 10.0  # after Ctrl+C, how long the turn may take to write what arrived
WRAP_UP_WAIT_SECONDS = 120
DIM, RESET = "\x1b[2m", "\x1b[0m"


def _event_json(event: Any) -> dict[str, Any]:
    if isinstance(event, ReasoningDelta):
        return {"event": "reasoning", "text": event.text}
    if isinstance(event, Retrying):
        return {"event": "retrying", "attempt": event.attempt, "delay": event.delay, "message": event.message}
    if isinstance(event, Degraded):
        return {"event": "degraded", "feature": event.feature, "message": event.message}
    if isinstance(event, Waiting):
        return {"event": "waiting", "message": event.message}
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
            text = translate("cli_chat", "okbot: {tool} needs approval and there is no terminal to ask; denied")
            print(text.format(tool=name), file=err)
            return False
        server, mcp, tool = name.partition(TOOL_SEPARATOR)
        if mcp:
            what = translate("cli_chat", "{tool} of the MCP server {server}").format(tool=tool, server=server)
        else:
            what = name
        if name == shell.NAME:  # what approving hands over
            print(shell.approval_note(shell.detect() is not None), file=err)
        question = translate("cli_chat", "okbot: allow {what} with {args}? [y/N] ")
        print(question.format(what=what, args=json.dumps(args, ensure_ascii=False)), end="", file=err, flush=True)
        return _read_answer(cancel).strip().lower() in ("y", "yes")

    return ask


def _squad_line(item: dict[str, Any], names: dict[str, str]) -> str | None:
    """``--verbose``: one line per delegation and per member reply (None for other items)."""
    asked = asked_member(str(item.get("name", ""))) if item.get("type") == "tool_call" else ""
    if asked:
        return translate("cli_chat", "→ asked {name}: {task}").format(
            name=names.get(asked, asked), task=task_text(item)
        )
    if is_member_answer(item):
        member = member_of(item)
        if item.get("ok", True):
            text = translate("cli_chat", "← {name}: {reply}")
        else:
            text = translate("cli_chat", "← {name} (failed): {reply}")
        return text.format(name=names.get(member, member), reply=item.get("content", ""))
    return None


def _member_names(ws: Workspace, target: Target) -> dict[str, str]:
    """A squad's member ids to their names, for the ``--verbose`` lines (empty for a single bot)."""
    return {m.target.id: m.target.name for m in members(target, ws)[0]} if target.is_squad else {}


class _ChatOutput:
    """The turn's output: JSON events on ``out`` (``--json``), or the reply as plain text with notes on ``err``.

    Its callbacks run on the worker thread. In plain text it tracks whether the reply printed so far
    ends mid-line, so a note or the end of the turn starts on a line of its own.
    """

    def __init__(
        self, out: TextIO, err: TextIO, *, as_json: bool, verbose: bool, names: dict[str, str], target_id: str
    ) -> None:
        self.out, self.err = out, err
        self.target_id = target_id  # named in the command a teaching card's note line gives
        self.as_json, self.verbose, self.names = as_json, verbose, names
        self.lock = threading.Lock()
        self.mid_line = False  # the reply printed so far does not end with a newline
        self.thinking = False  # ``--verbose``: reasoning is being printed on ``err``

    def emit(self, obj: dict[str, Any]) -> None:
        """One JSON event, a line of its own."""
        with self.lock:
            print(json.dumps(obj, ensure_ascii=False), file=self.out, flush=True)

    def on_delta(self, delta: str) -> None:
        """A piece of the reply as it streams in."""
        self._end_thinking()
        if self.as_json:
            self.emit({"event": "delta", "text": delta})
        elif delta:
            self.out.write(delta)
            self.out.flush()
            self.mid_line = not delta.endswith("\n")

    def on_event(self, event: Any) -> None:
        """A provider event: every one in JSON; in plain text only retries and degradations, as notes."""
        if self.as_json:
            self.emit(_event_json(event))
        elif isinstance(event, ReasoningDelta):
            self._think(event.text)
        elif isinstance(event, Retrying | Degraded | Waiting):
            if self.mid_line:  # a note at the end of a reply goes on its own line, not glued to the reply's last
                self.out.write("\n")
                self.out.flush()
                self.mid_line = False
            print(f"okbot: {event.message}", file=self.err)

    def _think(self, text: str) -> None:
        """``--verbose``: the model's reasoning on ``err``, dim on a terminal, after a ``thinking:`` prefix."""
        if not self.verbose:
            return
        if not self.thinking:
            self.thinking = True
            self.err.write((DIM if styled(self.err) else "") + translate("cli_chat", "thinking: "))
        self.err.write(text)
        self.err.flush()

    def _end_thinking(self) -> None:
        if self.thinking:
            self.thinking = False
            self.err.write((RESET if styled(self.err) else "") + "\n")
            self.err.flush()

    def on_evolved(self, entries: list[Any]) -> None:
        """Persona and skill changes that landed before this turn's request: an event, or a note on stderr."""
        if self.as_json:
            self.emit(
                {"event": "evolved", "changes": [{"id": e.id, "kind": e.kind, "summary": e.summary} for e in entries]}
            )
            return
        for entry in entries:
            text = translate("cli_chat", "okbot: note: learnt #{id} {kind}: {summary} (okbot evolve --undo {id})")
            print(text.format(id=entry.id, kind=entry.kind, summary=entry.summary), file=self.err)

    def on_item(self, item: dict[str, Any]) -> None:
        """A stored item: every one in JSON; in plain text the squad's lines with ``--verbose``."""
        if self.as_json:
            self.emit({"event": "item", "item": item})
        elif self.verbose and (line := _squad_line(item, self.names)) is not None:
            with self.lock:
                print(line, file=self.out, flush=True)

    def callbacks(self, cancel: CancelToken) -> TurnCallbacks:
        """The runner's callbacks; approvals are asked on the terminal until ``cancel`` is set."""
        return TurnCallbacks(
            on_item=self.on_item,
            on_delta=self.on_delta,
            on_event=self.on_event,
            on_evolved=self.on_evolved,
            ask_approval=_ask_on_tty(self.err, cancel),
        )

    def done(self, result: TurnResult) -> None:
        """The end of the turn: in plain text the reply's last newline, then the card the turn offered for what the
        user taught (one note line on stderr); in JSON a ``teaching`` event for it, then ``done``."""
        self._end_thinking()
        if self.mid_line and not self.as_json:
            self.out.write("\n")
            self.mid_line = False
        for card in filter(None, map(teaching_of, result.items)):
            if self.as_json:
                self.emit({"event": "teaching", **card, "keep": f"okbot teach keep {self.target_id} {card['of']}"})
            else:
                self.out.flush()
                print(note_line(card, self.target_id), file=self.err)
        if self.as_json:
            self.emit({"event": "done", "status": result.status, "error": str(result.error) if result.error else None})


def _request(args: argparse.Namespace, err: TextIO) -> TurnRequest:
    """The turn the flags ask for: a retry, a regeneration (0: the last reply), an edit, or a message (from
    ``-m``, else stdin) with the files it attaches."""
    if args.attach and (args.retry or args.regenerate is not None or args.edit is not None):
        raise OkBotError(
            translate("cli", "--attach goes with a new message"),
            hint=translate("cli", "drop --retry, --edit or --regenerate"),
        )
    if args.regenerate is not None:
        return Regenerate(args.regenerate or None)
    if args.retry:
        return Retry()
    if args.message is not None:
        text = args.message
    elif sys.stdin is None or sys.stdin.isatty():
        if not args.attach:
            raise OkBotError(
                translate("cli", "no message given"), hint=translate("cli", "use -m TEXT or pipe the message on stdin")
            )
        text = ""  # the attached files are the message
    else:  # a pipe ends its text with a newline (`echo … |`, a file): that is not part of the message
        text = sys.stdin.read().rstrip("\r\n")
    if args.edit is not None:
        return Edit(args.edit, text)
    return Send(text, tuple(_attachable(args.attach or (), err, as_json=args.json)))


def _run_turn(
    job: Callable[[TurnCallbacks, CancelToken], TurnResult], callbacks: TurnCallbacks, cancel: CancelToken
) -> dict[str, Any]:
    """Run the turn on a worker thread until it ends or Ctrl+C stops it.

    Returns the outcome: ``result`` (a TurnResult) or ``error`` (an OkBotError, or any other exception:
    a crash, raised again on the main thread where it gets its crash report), or neither when the
    stopped turn did not wind down within STOP_WAIT_SECONDS.
    """
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def work() -> None:
        try:
            outcome["result"] = job(callbacks, cancel)
        except Exception as exc:  # noqa: BLE001 - handed to the main thread: it must not pass for a Ctrl+C
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
    return outcome


def _wrap_up(outcome: dict[str, Any], app: OkBotApp, output: _ChatOutput, err: TextIO) -> int:
    """Finish after the turn: report the end, wait for memory extraction, return the exit code.

    The wrap-up (this turn's, and what a wrap-up left running last time catches up) never runs beside the
    reply: its calls wait for the turn (:mod:`okbot.llm.slots`), so it starts once the reply is in.

    An error the turn raised is raised again here.
    """
    if isinstance(outcome.get("error"), FinishedTurn):  # the command line's way to a new version of it
        raise OkBotError(
            outcome["error"].message,
            hint=translate("cli_chat", "use --regenerate for a new version of a finished reply"),
        )
    if "error" in outcome:
        raise outcome["error"]
    if "result" not in outcome:  # the turn did not wind down in time: what it wrote so far stays on disk
        print("\n" + translate("cli_chat", "okbot: stopped; the reply so far is kept"), file=err)
        return EXIT_INTERRUPTED
    result: TurnResult = outcome["result"]
    output.done(result)  # the reply is over: said before the wrap-up, which waited for it (one slot)
    wait_for_wrap_up(app, err)
    if result.status == "error":
        print_error(result.error or OkBotError(""), err, as_json=output.as_json)
        return EXIT_ERROR
    return EXIT_INTERRUPTED if result.status == "interrupted" else EXIT_OK


def wait_for_wrap_up(app: OkBotApp, err: TextIO) -> None:
    """Let memory extraction finish before the process ends (it affects later turns only); a Ctrl+C, or
    WRAP_UP_WAIT_SECONDS passing, leaves it to catch up next time, said on ``err``."""
    try:
        if not app.drain(WRAP_UP_WAIT_SECONDS):
            print(
                translate("cli_chat", "okbot: note: memory wrap-up still running; it will catch up next time"), file=err
            )
    except KeyboardInterrupt:
        pass


def _attachable(paths: Sequence[Path], err: TextIO, *, as_json: bool) -> list[Path]:
    """``paths`` without the files OkBot never attaches (its own data, its keys), each one said on ``err``.

    Any other problem with a file is the turn's to report: it refuses the message before anything is sent.
    """
    kept = []
    for path in paths:
        try:
            attach_guard.check(Path(path))
        except attach_guard.Refused as exc:
            print_error(exc, err, as_json=as_json)
            continue
        except OkBotError:
            pass
        kept.append(Path(path))
    return kept


def run_chat(
    ws: Workspace, target: Target, request: TurnRequest, *, as_json: bool, out: TextIO, err: TextIO, verbose: bool
) -> int:
    """Run one turn and report it; returns the exit code."""
    app = OkBotApp(ws)
    for problem in app.settings.problems:
        print(translate("cli_chat", "okbot: note: {text}").format(text=problem), file=err)
    output = _ChatOutput(
        out, err, as_json=as_json, verbose=verbose, names=_member_names(ws, target), target_id=target.id
    )
    cancel = CancelToken()
    try:
        outcome = _run_turn(
            lambda callbacks, cancel: app.run_turn(target, request, callbacks=callbacks, cancel=cancel),
            output.callbacks(cancel),
            cancel,
        )
        return _wrap_up(outcome, app, output, err)
    finally:
        app.close()  # the MCP servers the turn started


def cmd_chat(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    ws = workspace()
    target = ws.resolve(args.target)
    request = _request(args, err)
    return run_chat(ws, target, request, as_json=args.json, verbose=args.verbose, out=out, err=err)
