"""The ``run_shell`` tool: one bash command in the assistant's workspace, bounded and stoppable.

The command runs as ``bash -c`` (stdin closed, stdout and stderr interleaved into one pipe) with an
environment scrubbed of anything that could carry OkBot's or a provider's key, under a watcher
process in a session of its own. On Linux the watcher is a child subreaper: a process the command
detaches (``setsid``, a double fork, ``nohup … &``) is re-parented to it and so stays in its tree.
Output is read continuously (a flood never blocks the child nor grows memory) and capped, keeping the
head and the tail. Stop, the timeout and the end of the command all end every process below the
watcher: SIGTERM, then SIGKILL after a grace period. What could not be ended (another user's process),
or a command that killed the watcher itself, is said in the result rather than claimed stopped.
Elsewhere (no subreaper) a process that detached is not followed, and the result says so.

What an approved command can reach is decided by where it runs, not by how it is spelled: where
the system can make one (Linux with unprivileged user namespaces) it runs in the sandbox of
:mod:`okbot.core.local_tools.sandbox`, in which OkBot's data, config, tokenizer and keyring folders
are hidden and the workspace stays writable; there the watcher is the namespace's first process,
which the command cannot kill, and every process left in it ends with it. Elsewhere the command can
read and change everything the user can, and the tool's note and the approval card
(:func:`approval_note`) say so plainly.

Before anything runs, the denylist (:mod:`okbot.core.local_tools.denylist`) refuses destructive
patterns (``rm -rf ~``, ``find / -delete``, ``mkfs``, ``dd`` to a disk, ``curl … | sh``, ``ps e`` …),
and commands that name a path OkBot never lets a tool touch (its settings, sessions, keys) are
refused too. Both are speed bumps against accidents, never a boundary: a list of spellings cannot
be complete (``perl -e 'rmtree …'`` is not on it). The user approves each command
(``tools.run_shell.approval`` defaults to ``ask``).
"""

from __future__ import annotations

import logging
import math
import os
import re
import select
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from okbot.core.local_tools.denylist import denied
from okbot.core.local_tools.guard import allowed, check_path, protected_roots, workspace_dir
from okbot.core.local_tools.processes import (
    KILL_GRACE_SECONDS,
    SUBREAPER,
    become_subreaper,
    end_descendants,
    live_children,
)
from okbot.core.local_tools.sandbox import SANDBOX_FAILED, Sandbox, detect, session_bus
from okbot.core.tools import Tool, ToolContext, ToolOutcome
from okbot.i18n import translate

log = logging.getLogger(__name__)

DETECT = "detect"  # run_shell's sandbox: the one detect() finds
NAME = "run_shell"
DEFAULT_TIMEOUT = 60
MAX_TIMEOUT = 600
MIN_TIMEOUT = 1
OUTPUT_CAP_BYTES = 30_000
MAX_COMMAND_CHARS = 50_000
PROGRESS_INTERVAL = 0.25
PROGRESS_LINE_CHARS = 200
READ_CHUNK = 65_536
MAX_PATH_PIECES = 500

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "the command line, run with bash -c"},
        "cwd": {
            "type": "string",
            "description": "working directory (relative to the workspace, or absolute); default the workspace",
        },
        "timeout": {
            "type": "integer",
            "minimum": MIN_TIMEOUT,
            "maximum": MAX_TIMEOUT,
            "default": DEFAULT_TIMEOUT,
            "description": "seconds before the command is killed",
        },
    },
    "required": ["command"],
}


# -- environment ---------------------------------------------------------------------------------
_SECRET_PREFIXES = ("OKBOT_", "OPENAI_")
_SECRET_SUFFIXES = ("_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY", "_PASSWORD")
_SECRET_WORDS = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "CREDENTIALS"}


def is_secret_name(name: str) -> bool:
    """Whether an environment variable could carry OkBot's or a provider's secret (and so is dropped)."""
    upper = name.upper()
    if upper.startswith(_SECRET_PREFIXES) or upper.endswith(_SECRET_SUFFIXES) or upper == "API_KEY":
        return True
    return bool(_SECRET_WORDS & set(upper.split("_"))) or "API_KEY" in upper


def scrubbed_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default ``os.environ``) without any variable :func:`is_secret_name` flags."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if not is_secret_name(k)}


# -- paths OkBot keeps to itself -------------------------------------------------------------------
def _protected_piece(ctx: ToolContext, command: str, cwd: Path) -> str:
    """A path named in ``command`` that OkBot never lets a tool touch (best effort: literal paths only)."""
    text = re.sub(r"\$\{?HOME\}?(?=/|\s|$)", "~", command)
    pieces = [p for p in re.split(r"[\s;|&<>()`'\"=:,$]+", text) if p and not p.startswith("-")]
    for piece in pieces[:MAX_PATH_PIECES]:
        try:
            check = check_path(ctx.target, piece, cwd=cwd)
        except (OSError, ValueError):
            continue  # not something a path check can make sense of
        if check.refused:
            return f"{piece} ({check.refused})"
    return ""


# -- running -------------------------------------------------------------------------------------
class _Capture:
    """Keeps the first and last ``cap // 2`` bytes of a stream and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.tail_cap:
                del self.tail[: len(self.tail) - self.tail_cap]

    @property
    def cut(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        if not self.cut:
            return head + tail
        return f"{head}\n… {self.cut:,} bytes cut …\n{tail}"

    def last_line(self) -> str:
        recent = bytes(self.tail[-4096:] if self.tail else self.head[-4096:]).decode("utf-8", "replace")
        lines = [line.strip() for line in re.split(r"[\r\n]", recent) if line.strip()]
        return lines[-1][:PROGRESS_LINE_CHARS] if lines else ""


@dataclass(frozen=True)
class ShellResult:
    """How a command ended: ``status`` is exit | timeout | stopped | signal | lost | sandbox.

    ``lost``: the watcher was killed before it could report, so the exit status is unknown.
    ``sandbox``: the sandbox could not be set up, so the command was not run (the output says why).
    ``leftovers`` counts processes still running when the command ended (all were ended);
    ``escaped`` names those that could not be ended; ``watcher_lost`` says the command killed the
    watcher, so a process it detached may have got away unseen.
    """

    status: str
    exit_code: int | None
    output: str
    total_bytes: int
    cut_bytes: int
    timeout: float
    leftovers: int = 0
    escaped: tuple[str, ...] = ()
    watcher_lost: bool = False

    def headline(self) -> str:
        if self.status == "timeout":
            state = f"killed: timeout after {self.timeout:g} s"
        elif self.status == "stopped":
            state = "stopped by the user"
        elif self.status == "signal" and self.exit_code is not None:
            try:
                sig = signal.Signals(-self.exit_code).name
            except ValueError:
                sig = str(-self.exit_code)
            state = f"killed by signal {sig}"
        elif self.status == "lost":
            state = "exit status unknown"
        elif self.status == "sandbox":
            state = "not run: its sandbox could not be set up"
        else:
            state = f"exit {self.exit_code}"
        size = f"{self.total_bytes:,} bytes of output"
        if self.cut_bytes:
            size += f"; {self.cut_bytes:,} bytes cut from the middle — redirect to a file and read parts of it"
        return f"{state} ({size})"

    def notes(self) -> list[str]:
        """What became of the processes the command started, in words (nothing when it started none)."""
        notes = []
        if self.leftovers:
            many = "es" if self.leftovers > 1 else ""
            notes.append(f"({self.leftovers} process{many} it left running in the background were stopped)")
        if self.escaped:
            notes.append(f"(still running, could not be stopped: {', '.join(self.escaped)})")
        if self.watcher_lost:
            notes.append(
                "(the command killed the process that follows what it starts; "
                "a process it moved to a session of its own may still be running)"
            )
        elif self.leftovers and not SUBREAPER:
            notes.append("(a process that moved to a session of its own cannot be followed on this system)")
        return notes


# The command runs under a watcher: a bash that is a child subreaper (Linux), so a process the
# command detaches (setsid, a double fork) is re-parented to it instead of to init and stays
# findable. The watcher's stdin is the release pipe, its stderr the status pipe; the command gets
# /dev/null and the output pipe. Once the command's bash is done the watcher reports its exit
# status and waits, holding on to what it adopted, until every descendant has been ended.
_WATCHER = """trap : HUP INT TERM
bash -c "$1" </dev/null 2>&1
echo "$?" >&2
exec 1>&- 2>&-
read -r _ || :
"""
_WATCHER_NAME = "okbot-shell"
_MAX_SIGNAL = 64


def _report(on_progress: Callable[[str], None], line: str) -> None:
    try:
        on_progress(line)
    except Exception:  # a progress line is a nicety; it must never break the command
        log.exception("run_shell progress callback failed")


def _reported(text: bytes) -> bool:
    """Whether the status pipe's ``text`` ends with a whole report: a line of ``$?`` or of the sandbox's failure."""
    last = text.splitlines()[-1].strip() if text.endswith(b"\n") else b""
    return last.isdigit() or last == SANDBOX_FAILED.encode()


def _exit_status(text: str) -> tuple[str, int | None]:
    """``(status, exit_code)`` from the ``$?`` the watcher wrote: 128+n is bash's "killed by signal n".

    The watcher's stderr may hold bash's own word on the child ("Killed") before it; ``$?`` is last.
    """
    lines = text.split()
    if lines and lines[-1] == SANDBOX_FAILED:
        return "sandbox", None
    try:
        code = int(lines[-1])
    except (ValueError, IndexError):
        return "lost", None
    if 128 < code <= 128 + _MAX_SIGNAL:
        return "signal", 128 - code
    return "exit", code


def _start_watcher(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start the watcher (``argv``: bash, or bash in the sandbox): ``(proc, release_w, status_r)``.

    The watcher's ends of the release and status pipes are closed here whatever happens; ours are
    closed too when it cannot be started. Raises ``OSError`` when the process cannot be started.
    """
    release_r, release_w = os.pipe()
    status_r, status_w = os.pipe()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=str(cwd),
            env=dict(env),
            stdin=release_r,
            stdout=subprocess.PIPE,
            stderr=status_w,
            start_new_session=True,
            close_fds=True,
            preexec_fn=become_subreaper if SUBREAPER else None,  # one prctl call, no lock taken
        )
    except BaseException:
        os.close(release_w)
        os.close(status_r)
        raise
    finally:
        os.close(release_r)
        os.close(status_w)
    return proc, release_w, status_r


def _waker(fd: int) -> Callable[[], None]:
    """A callable that writes a byte to ``fd`` (non-blocking) to wake the selector; it never raises ``OSError``."""

    def wake() -> None:
        try:
            os.write(fd, b"x")
        except OSError:
            pass

    return wake


class _Run:
    """One started watcher: its pipes, the output read so far, and how the command ended."""

    def __init__(
        self, proc: subprocess.Popen[bytes], release_w: int, status_r: int, cap: int, *, sandboxed: bool
    ) -> None:
        self.proc = proc
        self.watcher = proc.pid  # start_new_session: also the id of its process group
        self.sandboxed = sandboxed  # then proc is unshare, and the watcher its one child
        assert proc.stdout is not None
        self.stdout = proc.stdout
        self.out_fd = proc.stdout.fileno()
        os.set_blocking(self.out_fd, False)
        self.release_w = release_w
        self.status_r = status_r
        self.capture = _Capture(cap)
        self.status = ""
        self.code: int | None = None
        self.status_text = b""
        self.eof = False
        self.leftovers = 0
        self.escaped: list[str] = []
        self.tree_ended = False
        self.watcher_killed = False

    def selector(self, wake_r: int) -> selectors.BaseSelector:
        """A selector on the output pipe, the cancel wake pipe ``wake_r`` and the status pipe."""
        selector = selectors.DefaultSelector()
        selector.register(self.out_fd, selectors.EVENT_READ)
        selector.register(wake_r, selectors.EVENT_READ)
        selector.register(self.status_r, selectors.EVENT_READ)
        return selector

    def drain(self) -> bool:
        """Read what the output pipe holds now; True at end of file."""
        while True:
            try:
                data = os.read(self.out_fd, READ_CHUNK)
            except BlockingIOError:
                return False
            if not data:
                return True
            self.capture.add(data)

    def wait(
        self,
        selector: selectors.BaseSelector,
        deadline: float,
        cancel: Any,
        on_progress: Callable[[str], None] | None,
    ) -> None:
        """Read output until the watcher reports the command's status, ``cancel`` is set or ``deadline`` passes.

        Sets ``status`` (and ``code``); ``on_progress`` gets the last output line when it changed, at
        most every ``PROGRESS_INTERVAL`` seconds.
        """
        last_progress = 0.0
        sent = ""
        while not self.status:
            if cancel is not None and cancel.cancelled:
                self.status = "stopped"
                break
            now = time.monotonic()
            if now >= deadline:
                self.status = "timeout"
                break
            for key, _mask in selector.select(min(PROGRESS_INTERVAL, deadline - now)):
                self._ready(key.fd, selector)
            if on_progress is not None and time.monotonic() - last_progress >= PROGRESS_INTERVAL:
                line = self.capture.last_line()
                if line and line != sent:
                    _report(on_progress, line)
                    sent, last_progress = line, time.monotonic()

    def _ready(self, fd: int, selector: selectors.BaseSelector) -> None:
        """Handle one readable pipe: output is captured; the status pipe's last line (or its end) gives the status.

        Its end of file cannot be waited for in the sandbox: ``unshare`` holds the pipe open too.
        """
        if fd == self.out_fd and not self.eof:
            self.eof = self.drain()
            if self.eof:
                selector.unregister(self.out_fd)
        elif fd == self.status_r:
            data = os.read(self.status_r, 64)
            self.status_text += data
            if not data or _reported(self.status_text):  # the watcher wrote $? (or died without a word)
                self.eof = self.eof or self.drain()
                self.status, self.code = _exit_status(self.status_text.decode("ascii", "replace"))

    def end_tree(self, grace: float) -> None:
        """End every process below the watcher; count them as leftovers when the command itself had ended."""
        root = self.watcher
        if self.sandboxed:  # below unshare: the watcher, the namespace's first process, is spared
            root = next(iter(live_children(self.watcher)), root)
        ended, self.escaped = end_descendants(root, grace)
        self.tree_ended = True
        if self.status in ("exit", "signal"):
            self.leftovers = ended

    def let_go(self) -> None:
        """Release the watcher and reap it (killed if it lingers), then kill what is left of its group.

        Called from a ``finally``: after an exception on the way the tree is still ended and the output
        pipe closed, so nothing is left running. The status pipe is closed only once the watcher is gone.
        """
        if not self.tree_ended:  # an exception on the way: still leave nothing running
            end_descendants(self.watcher, 0)
        os.close(self.release_w)  # the watcher may go now
        try:
            self.proc.wait(timeout=KILL_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.watcher_killed = True
        os.close(self.status_r)  # only now: the watcher must not die of SIGPIPE writing a late status
        try:
            os.killpg(self.watcher, signal.SIGKILL)  # what left the tree but not the group (no subreaper here)
        except (ProcessLookupError, PermissionError):
            pass
        if not self.tree_ended:
            self.stdout.close()

    def read_rest(self, grace: float) -> None:
        """Read what is left, then close the output pipe.

        A process that got away may hold the pipe open, so reading stops after ``grace`` seconds.
        """
        end = time.monotonic() + grace
        while not self.eof and time.monotonic() < end:
            if select.select([self.out_fd], [], [], 0.05)[0]:
                self.eof = self.drain()
        self.stdout.close()

    def result(self, timeout: float) -> ShellResult:
        """The :class:`ShellResult` of the ended run."""
        finished = self.status in ("exit", "signal")
        return ShellResult(
            status=self.status,
            exit_code=self.code if finished else None,
            output=self.capture.text(),
            total_bytes=self.capture.total,
            cut_bytes=self.capture.cut,
            timeout=timeout,
            leftovers=self.leftovers,
            escaped=tuple(self.escaped),
            watcher_lost=self.status == "lost" or (finished and self.proc.returncode != 0 and not self.watcher_killed),
        )


def execute(
    command: str,
    *,
    cwd: Path,
    timeout: float,
    env: Mapping[str, str],
    cancel: Any = None,
    on_progress: Callable[[str], None] | None = None,
    cap: int = OUTPUT_CAP_BYTES,
    grace: float = KILL_GRACE_SECONDS,
    sandbox: Sandbox | None = None,
    workspace: Path | None = None,
) -> ShellResult:
    """Run ``command`` with ``bash -c`` and wait for it, its timeout, or ``cancel`` (a CancelToken).

    With ``sandbox`` it runs in its namespace, where OkBot's protected folders are hidden but
    ``workspace`` (default ``cwd``) stays visible and writable. Every process the command started
    is ended before this returns; one that could not be (another user's, or one that slipped away
    from an ended watcher) is named in the result. ``on_progress`` gets the last output line, at
    most every ``PROGRESS_INTERVAL`` seconds. Raises ``OSError`` when the process cannot be started.
    """
    if sandbox is None:
        argv = ["bash", "-c", _WATCHER, _WATCHER_NAME, command]
    else:
        hidden = [root for root, _reason in protected_roots()]
        keep = workspace if workspace is not None else cwd
        argv = sandbox.command(
            _WATCHER, [_WATCHER_NAME, command], cwd=cwd, workspace=keep, hidden=hidden, masked=session_bus(env)
        )
    run = _Run(*_start_watcher(argv, cwd, env), cap, sandboxed=sandbox is not None)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    unregister = cancel.on_cancel(_waker(wake_w)) if cancel is not None else (lambda: None)
    selector = run.selector(wake_r)
    deadline = time.monotonic() + timeout
    try:
        run.wait(selector, deadline, cancel, on_progress)
        run.end_tree(grace)
    finally:
        unregister()
        selector.close()
        os.close(wake_r)
        os.close(wake_w)
        run.let_go()
    run.read_rest(grace)
    return run.result(timeout)


# -- the tool ------------------------------------------------------------------------------------
def _timeout_arg(args: dict[str, Any]) -> float:
    value = args.get("timeout", DEFAULT_TIMEOUT)
    if value is None:
        return DEFAULT_TIMEOUT
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"timeout must be a number of seconds ({MIN_TIMEOUT}–{MAX_TIMEOUT}), got {value!r}")
    if not MIN_TIMEOUT <= value <= MAX_TIMEOUT:
        raise ValueError(f"timeout must be between {MIN_TIMEOUT} and {MAX_TIMEOUT} seconds, got {value:g}")
    return float(value)


def _cwd_arg(args: dict[str, Any], ctx: ToolContext) -> Path:
    """The working directory, checked by the guard (outside the workspace needs the user's approval)."""
    workspace = workspace_dir(ctx.target)
    raw = args.get("cwd")
    if raw is None or raw == "":
        return workspace
    if not isinstance(raw, str):
        raise ValueError(f"cwd must be a string path, got {type(raw).__name__}")
    check = check_path(ctx.target, raw, cwd=workspace)
    if check.refused:
        raise ValueError(f"cwd {raw!r} is refused: {check.refused}")
    if not check.path.is_dir():
        raise ValueError(f"cwd {raw!r} is not an existing directory ({check.path})")
    refusal = allowed(ctx, NAME, args, check)
    if refusal:
        raise ValueError(refusal)
    return check.path


def run_shell(args: dict[str, Any], ctx: ToolContext, *, sandbox: Sandbox | None | str = DETECT) -> ToolOutcome:
    """Run one command for the model: check the arguments, the denylist and the cwd, then :func:`execute`.

    ``sandbox``: where the command runs; :data:`DETECT` (the tool's way) is what :func:`detect`
    finds, None runs it as the user with nothing hidden.
    """
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        return ToolOutcome("run_shell needs a non-empty 'command' string.", ok=False)
    if len(command) > MAX_COMMAND_CHARS:
        return ToolOutcome(
            f"run_shell: the command is {len(command):,} characters (max {MAX_COMMAND_CHARS:,}); "
            "write a script with write_file and run that instead.",
            ok=False,
        )
    if "\0" in command:
        return ToolOutcome("run_shell: the command contains a NUL character.", ok=False)
    reason = denied(command)
    if reason:
        return ToolOutcome(f"run_shell refused this command: it looks like {reason}. It was not run.", ok=False)
    try:
        timeout = _timeout_arg(args)
        cwd = _cwd_arg(args, ctx)
    except ValueError as exc:
        return ToolOutcome(f"run_shell: {exc}.", ok=False)
    protected = _protected_piece(ctx, command, cwd)
    if protected:
        return ToolOutcome(
            f"run_shell refused this command: it names a path OkBot never lets a tool touch: {protected}.", ok=False
        )
    runtime = ctx.runtime
    cancel = getattr(runtime, "cancel", None)
    if cancel is not None and cancel.cancelled:
        return ToolOutcome("run_shell was not run: the user stopped the turn.", ok=False)
    on_progress = (lambda line: runtime.progress(NAME, ctx.call_id, line)) if runtime is not None else None
    try:
        result = execute(
            command,
            cwd=cwd,
            timeout=timeout,
            env=scrubbed_env(),
            cancel=cancel,
            on_progress=on_progress,
            sandbox=detect() if sandbox == DETECT else sandbox,
            workspace=workspace_dir(ctx.target),
        )
    except OSError as exc:
        return ToolOutcome(f"run_shell could not start bash: {exc}.", ok=False)
    lines = [result.headline(), *result.notes()]
    lines.append(result.output if result.output else "(no output)")
    ok = result.status == "exit" and result.exit_code == 0
    return ToolOutcome("\n".join(lines), ok=ok)


def shell_note(sandbox: Sandbox | None) -> str:
    """The tool's note for the model, saying what a command can reach with (or without) ``sandbox``."""
    reach = (
        "OkBot's own data, settings and key files are hidden from it (the workspace stays writable)"
        if sandbox is not None
        else "it is not sandboxed here: it can read and change everything the user can"
    )
    return (
        "run a bash command (cwd default: your workspace; timeout default 60 s, max 600); "
        f"output capped at 30 KB (head and tail), exit code reported; background processes end with it; {reach}"
    )


def approval_note(sandboxed: bool) -> str:
    """What approving a command means, for the user who is asked (``sandboxed``: :func:`detect` found one)."""
    if sandboxed:
        return translate(
            "run_shell",
            "It runs with OkBot's own chats, settings and keys hidden from it; everything else you can "
            "read and change (your files, the network), it can too.",
        )
    return translate(
        "run_shell",
        "This system cannot hide anything from it: it can read and change everything you can, "
        "OkBot's chats, settings and keys included. OkBot refuses a few destructive commands, "
        "but that is no protection; allow only a command you have read.",
    )


RUN_SHELL = Tool(
    name=NAME,
    note=lambda: shell_note(detect()),  # detect() runs a trial command: not at import
    parameters=PARAMETERS,
    run=run_shell,
    approval_key=f"tools.{NAME}.approval",
)
