"""The ``run_shell`` tool: one bash command in the assistant's workspace, bounded and stoppable.

The command runs as ``bash -c`` in its own process group (stdin closed, stdout and stderr interleaved
into one pipe) with an environment scrubbed of anything that could carry OkBot's or a provider's key.
Output is read continuously (a flood never blocks the child nor grows memory) and capped, keeping the
head and the tail. Stop, the timeout and the end of the command all end the whole process group:
SIGTERM, then SIGKILL after a grace period, so no background child outlives the call.

Before anything runs, :func:`denied` refuses destructive patterns (``rm -rf /``, ``mkfs``, ``dd`` to
a disk, a fork bomb, ``curl … | sh`` …) and commands that name a path OkBot never lets a tool touch
(its settings, sessions, keys, ``/proc/*/environ``). This is a guardrail against accidents, not a
sandbox: the user approves each command (``tools.run_shell.approval`` defaults to ``ask``).
"""

from __future__ import annotations

import logging
import math
import os
import re
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from okbot.core.local_tools.guard import allowed, check_path, workspace_dir
from okbot.core.tools import Tool, ToolContext, ToolOutcome

log = logging.getLogger(__name__)

NAME = "run_shell"
DEFAULT_TIMEOUT = 60
MAX_TIMEOUT = 600
MIN_TIMEOUT = 1
OUTPUT_CAP_BYTES = 30_000
MAX_COMMAND_CHARS = 50_000
KILL_GRACE_SECONDS = 2.0
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


# -- denylist ------------------------------------------------------------------------------------
_SEPARATORS = re.compile(r"\|\||&&|[;|&\n(){}`]|\$\(")
_BRACED_VAR = re.compile(r"\$\{(\w+)\}")
_WRAPPERS = {"sudo", "doas", "env", "nohup", "command", "exec", "time", "nice", "ionice", "builtin", "xargs"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DANGEROUS_TARGET = re.compile(r"^(?:/+\.?|/+\*|/+[^/]+/*\*?|~/*\*?|\$\{?HOME\}?/*\*?|\*|\.{1,2}/*\*?)$")
_BLOCK_DEVICE = r"/dev/(?:(?:sd|hd|vd|xvd)[a-z]|nvme\d|mmcblk\d|disk\d|dm-\d|loop\d|mapper/|md\d)"
_RAW_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r":\s*\(\s*\)\s*\{"), "a fork bomb"),
    (re.compile(r"\b(\w+)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|\s*\1\b[^}]*&"), "a fork bomb"),
    (
        re.compile(r"\b(?:curl|wget|fetch)\b[^;&\n]*\|\s*(?:sudo\s+)?(?:env\s+)?(?:ba|da|z|k|fi|c|tc)?sh\b"),
        "piping a download into a shell",
    ),
    (re.compile(r"\b(?:ba|da|z|k)?sh\s+<\(\s*(?:curl|wget)\b"), "running a download as a script"),
    (
        re.compile(r"\b(?:(?:ba|da|z|k)?sh\s+-c|eval|source|\.)\s+[\"']?\$\(\s*(?:curl|wget)\b"),
        "running a download as a script",
    ),
    (re.compile(r">\s*" + _BLOCK_DEVICE), "writing to a disk device"),
    (re.compile(r"/proc/\S*/(?:environ|mem)\b"), "reading another process's environment or memory"),
)
_POWER_COMMANDS = {"shutdown", "reboot", "halt", "poweroff"}
_FORMAT_COMMANDS = {"mkfs", "mke2fs", "mkswap", "wipefs"}
_SAFE_DEVICES = re.compile(r"^/dev/(?:null|zero|stdout|stderr|tty|fd/\d+)$")


def _words(part: str) -> list[str]:
    try:
        words = shlex.split(part, comments=True)
    except ValueError:  # unbalanced quotes: judge the plain words
        words = part.split()
    while words and (_ASSIGNMENT.match(words[0]) or words[0] in _WRAPPERS or words[0].startswith("-")):
        words.pop(0)  # VAR=x, sudo, env -i … in front of the real command word
    return words


def _recursive(flags: list[str]) -> bool:
    return any(f in ("--recursive", "-R", "-r") or (not f.startswith("--") and ("r" in f or "R" in f)) for f in flags)


def _command_rule(words: list[str]) -> str:
    name = os.path.basename(words[0])
    flags = [w for w in words[1:] if w.startswith("-") and w != "--"]
    operands = [w for w in words[1:] if not w.startswith("-")]
    if name == "rm" and _recursive(flags) and any(_DANGEROUS_TARGET.match(w) for w in operands):
        return "recursive removal of /, a top-level folder, the home folder or everything here"
    if name == "rm" and "--no-preserve-root" in flags:
        return "rm --no-preserve-root"
    if name in ("chmod", "chown", "chgrp") and _recursive(flags):
        if any(_DANGEROUS_TARGET.match(w) and not w.startswith(".") and w != "*" for w in operands):
            return f"recursive {name} of / or a top-level folder"
    if name in _FORMAT_COMMANDS or name.startswith(("mkfs.", "mke2fs.")):
        return "formatting a file system"
    if name in _POWER_COMMANDS or (name in ("init", "telinit") and operands[:1] in (["0"], ["6"])):
        return "shutting down or rebooting the machine"
    if name == "systemctl" and set(operands) & {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"}:
        return "shutting down or rebooting the machine"
    if name == "dd":
        for word in words[1:]:
            if word.startswith("of=/dev/") and not _SAFE_DEVICES.match(word[3:]):
                return "dd onto a device"
    if name in ("tee", "cp", "mv", "shred", "cat", "install") and any(re.match(_BLOCK_DEVICE, w) for w in operands):
        return "writing to a disk device"
    return ""


def denied(command: str) -> str:
    """Why ``command`` is refused before it runs (a destructive pattern), or "" when it may run."""
    for pattern, reason in _RAW_RULES:
        if pattern.search(command):
            return reason
    for part in _SEPARATORS.split(_BRACED_VAR.sub(r"$\1", command)):
        words = _words(part)
        if words:
            reason = _command_rule(words)
            if reason:
                return reason
    return ""


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
    """How a command ended: ``status`` is exit | timeout | stopped | signal."""

    status: str
    exit_code: int | None
    output: str
    total_bytes: int
    cut_bytes: int
    timeout: float
    leftovers_stopped: bool = False

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
        else:
            state = f"exit {self.exit_code}"
        size = f"{self.total_bytes:,} bytes of output"
        if self.cut_bytes:
            size += f"; {self.cut_bytes:,} bytes cut from the middle — redirect to a file and read parts of it"
        return f"{state} ({size})"


def _live_members_in_proc(pgid: int) -> bool | None:
    """Whether /proc lists a running (not zombie) process of group ``pgid``; None without /proc."""
    proc_root = Path("/proc")
    if not (proc_root / "self" / "stat").exists():
        return None
    for entry in proc_root.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies waiting for their reaper do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    live = _live_members_in_proc(pgid)
    return True if live is None else live


def _wait_group(proc: subprocess.Popen[bytes], pgid: int, seconds: float) -> bool:
    """Reap the leader and wait up to ``seconds`` for the group to end; True when it did."""
    end = time.monotonic() + seconds
    while True:
        proc.poll()
        if proc.returncode is not None and not _group_alive(pgid):
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.02)


def kill_group(proc: subprocess.Popen[bytes], pgid: int, grace: float = KILL_GRACE_SECONDS) -> None:
    """SIGTERM the whole group, SIGKILL what is left after ``grace`` seconds, and reap the leader.

    Returns once nothing of the group runs any more (a SIGKILLed process may take a moment to die).
    """
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        proc.wait()
        return
    if _wait_group(proc, pgid, grace):
        return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    if not _wait_group(proc, pgid, KILL_GRACE_SECONDS):
        log.warning("process group %d still has members after SIGKILL", pgid)


def _report(on_progress: Callable[[str], None], line: str) -> None:
    try:
        on_progress(line)
    except Exception:  # a progress line is a nicety; it must never break the command
        log.exception("run_shell progress callback failed")


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
) -> ShellResult:
    """Run ``command`` with ``bash -c`` and wait for it, its timeout, or ``cancel`` (a CancelToken).

    The group is always ended before this returns, so nothing the command started keeps running.
    ``on_progress`` gets the last output line, at most every ``PROGRESS_INTERVAL`` seconds.
    Raises ``OSError`` when the process cannot be started.
    """
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=str(cwd),
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        close_fds=True,
    )
    pgid = proc.pid  # start_new_session: the leader's pid is the group id
    assert proc.stdout is not None
    out_fd = proc.stdout.fileno()
    os.set_blocking(out_fd, False)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)

    def wake() -> None:
        try:
            os.write(wake_w, b"x")
        except OSError:
            pass

    unregister = cancel.on_cancel(wake) if cancel is not None else (lambda: None)
    capture = _Capture(cap)
    selector = selectors.DefaultSelector()
    selector.register(out_fd, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    last_progress = 0.0
    sent = ""
    status = ""
    eof = False
    leftovers = False

    def drain() -> bool:
        """Read what the pipe holds now; True at end of file."""
        while True:
            try:
                data = os.read(out_fd, READ_CHUNK)
            except BlockingIOError:
                return False
            if not data:
                return True
            capture.add(data)

    try:
        while True:
            if cancel is not None and cancel.cancelled:
                status = "stopped"
                break
            now = time.monotonic()
            if now >= deadline:
                status = "timeout"
                break
            if proc.poll() is not None:
                eof = eof or drain()
                status = "exit"
                break
            for key, _mask in selector.select(min(PROGRESS_INTERVAL, deadline - now)):
                if key.fd == out_fd and not eof:
                    eof = drain()
                    if eof:
                        selector.unregister(out_fd)
            if on_progress is not None and time.monotonic() - last_progress >= PROGRESS_INTERVAL:
                line = capture.last_line()
                if line and line != sent:
                    _report(on_progress, line)
                    sent, last_progress = line, time.monotonic()
        if status == "exit" and not eof:
            leftovers = True  # something the command started still holds the output pipe
        kill_group(proc, pgid, grace)
        # Read what is left; a process that left the group may hold the pipe open, so stop after a while.
        end = time.monotonic() + grace
        while not eof and time.monotonic() < end:
            if selector.select(0.05):
                eof = drain()
    finally:
        unregister()
        selector.close()
        proc.stdout.close()
        os.close(wake_r)
        os.close(wake_w)
        if proc.returncode is None:
            kill_group(proc, pgid, 0)
    code = proc.returncode
    if status == "exit" and code is not None and code < 0:
        status = "signal"
    return ShellResult(
        status=status,
        exit_code=code if status in ("exit", "signal") else None,
        output=capture.text(),
        total_bytes=capture.total,
        cut_bytes=capture.cut,
        timeout=timeout,
        leftovers_stopped=leftovers,
    )


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


def run_shell(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Run one command for the model: check the arguments, the denylist and the cwd, then :func:`execute`."""
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
        result = execute(command, cwd=cwd, timeout=timeout, env=scrubbed_env(), cancel=cancel, on_progress=on_progress)
    except OSError as exc:
        return ToolOutcome(f"run_shell could not start bash: {exc}.", ok=False)
    lines = [result.headline()]
    if result.leftovers_stopped:
        lines.append("(processes it left running in the background were stopped)")
    lines.append(result.output if result.output else "(no output)")
    ok = result.status == "exit" and result.exit_code == 0
    return ToolOutcome("\n".join(lines), ok=ok)


RUN_SHELL = Tool(
    name=NAME,
    note="run a bash command (cwd default: your workspace; timeout default 60 s, max 600); "
    "output capped at 30 KB (head and tail), exit code reported; background processes end with it",
    parameters=PARAMETERS,
    run=run_shell,
    approval_key=f"tools.{NAME}.approval",
)
