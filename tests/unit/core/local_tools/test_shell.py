"""run_shell: bounded, stoppable, scrubbed, guarded — real bash processes in temp dirs."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from okbot.core.local_tools.guard import workspace_dir
from okbot.core.local_tools.shell import (
    DETECT,
    MAX_COMMAND_CHARS,
    OUTPUT_CAP_BYTES,
    PROGRESS_INTERVAL,
    RUN_SHELL,
    Sandbox,
    ShellResult,
    _Capture,
    approval_note,
    detect,
    execute,
    is_secret_name,
    run_shell,
    scrubbed_env,
    shell_note,
)
from okbot.core.tools import ToolContext
from okbot.core.workspace import Workspace
from okbot.llm.provider import CancelToken
from okbot.storage import paths
from tests.helpers.processes import gone, running_with


class Runtime:
    """Stand-in for the running turn: the contract a tool sees (approve / cancel / progress)."""

    def __init__(self, answer: bool = True, stop_on: str | None = None) -> None:
        self.cancel = CancelToken()
        self.answer = answer
        self.stop_on = stop_on
        self.asked: list[tuple[str, dict, str]] = []
        self.lines: list[str] = []

    def approve(self, tool_name: str, args: dict, reason: str) -> bool:
        self.asked.append((tool_name, args, reason))
        return self.answer

    def progress(self, tool_name: str, call_id: str, text: str) -> None:
        assert tool_name == "run_shell" and call_id == "call-1"
        self.lines.append(text)
        if self.stop_on is not None and self.stop_on in text:
            self.cancel.cancel()


@pytest.fixture
def target():
    return Workspace().ensure_default()


def run(target, runtime=None, sandbox=DETECT, **args):
    ctx = ToolContext(target=target, session=None, runtime=runtime, call_id="call-1")
    return run_shell(args, ctx, sandbox=sandbox)


# A pid a command writes is its pid in the sandbox's namespace, meaningless outside: tests that
# follow processes by pid run the command as the user (sandbox=None); the sandbox's own
# process tests find theirs by a marker in the command line instead.
UNSANDBOXED = None


def read_pid(path: Path) -> int:
    return int(path.read_text().strip())


# -- the tool ------------------------------------------------------------------------------------
def test_tool_declaration():
    assert RUN_SHELL.name == "run_shell"
    assert RUN_SHELL.approval_key == "tools.run_shell.approval"
    assert RUN_SHELL.parameters["required"] == ["command"]
    assert RUN_SHELL.run is run_shell
    assert "\n" not in RUN_SHELL.note_text()
    assert RUN_SHELL.spec()["function"]["name"] == "run_shell"


def test_runs_in_the_workspace_by_default_and_reports_exit_0(target):
    out = run(target, command="pwd; echo hello")
    assert out.ok
    first, *rest = out.content.splitlines()
    assert first.startswith("exit 0 (")
    assert rest == [os.path.realpath(workspace_dir(target)), "hello"]


def test_nonzero_exit_code_and_signal_are_reported(target):
    out = run(target, command="echo oops; exit 3")
    assert not out.ok and out.content.startswith("exit 3 (") and "oops" in out.content
    killed = run(target, command="kill -9 $$")
    assert not killed.ok and killed.content.startswith("killed by signal SIGKILL")


def test_stdout_and_stderr_interleaved_and_stdin_closed(target):
    out = run(target, command="echo out; echo err >&2; cat; echo after", timeout=20)
    assert out.ok
    assert out.content.splitlines()[1:] == ["out", "err", "after"]


def test_no_output_is_said(target):
    out = run(target, command="true")
    assert out.ok and out.content.endswith("(no output)")


def test_ordinary_commands_pass(target):
    ws = workspace_dir(target)
    (ws / "file.txt").write_text("TODO: x\n")
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("# TODO y\n")
    listing = run(target, command="ls -la")
    assert listing.ok and "file.txt" in listing.content
    grep = run(target, command="grep -r TODO .")
    assert grep.ok and "./src/a.py:# TODO y" in grep.content
    removed = run(target, command="rm file.txt")
    assert removed.ok and not (ws / "file.txt").exists()


# -- timeout, stop, orphans ----------------------------------------------------------------------
def test_never_ending_command_is_killed_at_the_timeout(target):
    out = run(target, command="echo begun; sleep 1000", timeout=1)
    assert not out.ok
    assert out.content.startswith("killed: timeout after 1 s")
    assert "begun" in out.content


def test_timeout_kills_the_whole_group_no_orphan_survives(tmp_path):
    pid_file = tmp_path / "gc.pid"
    result = execute(
        f"bash -c 'sleep 987 & echo $! > {pid_file}; wait' & wait",
        cwd=tmp_path,
        timeout=1,
        env=scrubbed_env(),
    )
    assert result.status == "timeout" and result.exit_code is None
    assert gone(read_pid(pid_file))


def test_a_group_that_ignores_sigterm_gets_sigkill(tmp_path):
    pid_file = tmp_path / "gc.pid"
    command = f"trap '' TERM; bash -c 'trap \"\" TERM; sleep 985 & echo $! > {pid_file}; wait' & wait"
    result = execute(command, cwd=tmp_path, timeout=1, env=scrubbed_env(), grace=0.3)
    assert result.status == "timeout"
    assert gone(read_pid(pid_file))


def test_stop_mid_run_kills_command_and_grandchild(target):
    ws = workspace_dir(target)
    runtime = Runtime(stop_on="ready")
    out = run(
        target, runtime, sandbox=UNSANDBOXED, command="sleep 984 & echo $! > gc.pid; echo ready; wait", timeout=600
    )
    assert not out.ok
    assert out.content.startswith("stopped by the user")
    assert "ready" in out.content
    assert gone(read_pid(ws / "gc.pid"))


def test_stop_from_another_thread_ends_the_run(tmp_path):
    cancel = CancelToken()
    started = threading.Event()
    threading.Thread(target=lambda: (started.wait(30), cancel.cancel()), daemon=True).start()
    result = execute(
        "echo go; sleep 1000",
        cwd=tmp_path,
        timeout=600,
        env=scrubbed_env(),
        cancel=cancel,
        on_progress=lambda line: started.set(),
    )
    assert result.status == "stopped" and "go" in result.output


def test_already_stopped_turn_runs_nothing(target):
    ws = workspace_dir(target)
    runtime = Runtime()
    runtime.cancel.cancel()
    out = run(target, runtime, command="touch marker")
    assert not out.ok and "stopped" in out.content
    assert not (ws / "marker").exists()


def test_background_processes_end_with_the_command(target):
    ws = workspace_dir(target)
    out = run(target, sandbox=UNSANDBOXED, command="sleep 983 & echo $! > gc.pid; echo done", timeout=600)
    assert out.ok and "done" in out.content
    assert "background were stopped" in out.content
    assert gone(read_pid(ws / "gc.pid"))


def wait_for_pid(path: Path) -> str:
    """Shell text that waits until a detached process has written its pid to ``path``."""
    return f"until [ -s {path.name} ]; do sleep 0.02; done"


DETACHED = "sh -c 'echo $$ > d.pid; exec sleep 300'"


@pytest.mark.parametrize(
    "command",
    [
        f"setsid {DETACHED} &",
        f"setsid -f {DETACHED}",
        f"(setsid nohup {DETACHED} > /dev/null 2>&1 &)",
        f"nohup setsid {DETACHED} < /dev/null > /dev/null 2>&1 & disown",
    ],
)
def test_a_process_that_detaches_still_ends_with_the_command(target, command):
    """setsid, a double fork, nohup: the process leaves the group and the tree, and is ended all the same."""
    ws = workspace_dir(target)
    out = run(target, sandbox=UNSANDBOXED, command=f"{command}\n{wait_for_pid(ws / 'd.pid')}; echo started", timeout=60)
    pid = read_pid(ws / "d.pid")
    assert out.ok and "started" in out.content
    assert gone(pid), f"{pid} still runs"
    assert "process it left running in the background were stopped" in out.content
    assert "still running" not in out.content


def test_a_daemon_that_closed_every_descriptor_is_ended(target):
    ws = workspace_dir(target)
    daemon = (
        "import os, time\n"
        "if os.fork(): os._exit(0)\n"
        "os.setsid()\n"
        "if os.fork(): os._exit(0)\n"
        "os.closerange(0, 3)\n"
        "open('d.pid', 'w').write(str(os.getpid()))\n"
        "time.sleep(300)\n"
    )
    (ws / "daemon.py").write_text(daemon)
    out = run(
        target, sandbox=UNSANDBOXED, command=f"{sys.executable} daemon.py; {wait_for_pid(ws / 'd.pid')}", timeout=60
    )
    assert out.ok
    assert gone(read_pid(ws / "d.pid"))
    assert "1 process it left running in the background were stopped" in out.content


def test_a_detached_process_ends_at_the_timeout_too(target):
    ws = workspace_dir(target)
    out = run(
        target, sandbox=UNSANDBOXED, command=f"setsid {DETACHED} & {wait_for_pid(ws / 'd.pid')}; sleep 1000", timeout=1
    )
    assert out.content.startswith("killed: timeout after 1 s")
    assert gone(read_pid(ws / "d.pid"))


def test_a_detached_process_ends_when_the_user_stops(target):
    ws = workspace_dir(target)
    runtime = Runtime(stop_on="ready")
    command = f"setsid {DETACHED} & {wait_for_pid(ws / 'd.pid')}; echo ready; sleep 1000"
    out = run(target, runtime, sandbox=UNSANDBOXED, command=command, timeout=600)
    assert out.content.startswith("stopped by the user")
    assert gone(read_pid(ws / "d.pid"))


def test_killing_the_watcher_is_said_and_nothing_is_claimed(target):
    """A command can kill what follows it; then the result says a detached process may have got away."""
    ws = workspace_dir(target)
    out = run(target, sandbox=UNSANDBOXED, command=f"setsid {DETACHED} & {wait_for_pid(ws / 'd.pid')}; kill -9 $PPID")
    pid = read_pid(ws / "d.pid")
    try:
        assert not out.ok
        assert out.content.startswith("exit status unknown")
        assert "may still be running" in out.content
        assert "were stopped" not in out.content
    finally:
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)


def test_an_exception_midway_still_leaves_nothing_running(tmp_path):
    def interrupt(line: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        execute(
            f"setsid {DETACHED} & {wait_for_pid(tmp_path / 'd.pid')}; echo ready; sleep 1000",
            cwd=tmp_path,
            timeout=600,
            env=scrubbed_env(),
            on_progress=interrupt,
        )
    assert gone(read_pid(tmp_path / "d.pid"))


def test_what_could_not_be_stopped_is_named():
    result = ShellResult("exit", 0, "", 0, 0, 60, leftovers=2, escaped=("4242 (sudo)",))
    assert result.notes() == [
        "(2 processes it left running in the background were stopped)",
        "(still running, could not be stopped: 4242 (sudo))",
    ]


_APP = """
import sys
from pathlib import Path
from okbot.llm.keys import take_from_environment
from okbot.core.local_tools.shell import execute, scrubbed_env
take_from_environment()
app = "$(ps -o ppid= -p $PPID | tr -d ' ')"  # the shell's parent is the watcher; its parent is the app
command = f"ps eww -o command= -p {app}; ps eww -o command= -p $PPID; tr '\\\\0' '\\\\n' < /proc/{app}/environ; env"
result = execute(command, cwd=Path(sys.argv[1]), timeout=60, env=scrubbed_env())
print(result.output)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/<pid>/environ is Linux's")
def test_the_key_in_the_apps_environment_is_not_shown_to_a_command(tmp_path):
    """Issue 16: an approved `ps eww -o command= -p $PPID` printed OKBOT_API_KEY."""
    canary = "sk-canary-shell-0123456789"
    env = {**os.environ, "OKBOT_API_KEY": canary, "OPENAI_API_KEY": canary + "-2", "OKBOT_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", _APP, str(tmp_path)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "OKBOT_HOME=" in done.stdout  # the app's environment was read
    assert canary not in done.stdout


# -- output bounds -------------------------------------------------------------------------------
def test_flood_is_capped_keeping_head_and_tail(tmp_path):
    result = execute("seq 1 5; yes | head -c 50M; echo; echo the-end", cwd=tmp_path, timeout=600, env=scrubbed_env())
    assert result.status == "exit" and result.exit_code == 0
    total = len("1\n2\n3\n4\n5\n") + 50 * 1024 * 1024 + 1 + len("the-end\n")
    assert result.total_bytes == total
    assert len(result.output.encode()) <= OUTPUT_CAP_BYTES + 100
    assert result.output.startswith("1\n2\n3\n4\n5\ny\n")
    assert result.output.endswith("the-end\n")
    assert f"… {result.cut_bytes:,} bytes cut …" in result.output
    assert result.cut_bytes == total - OUTPUT_CAP_BYTES


def test_flood_through_the_tool_says_the_full_size(target):
    out = run(target, command="yes | head -c 50M")
    assert out.ok
    head = out.content.splitlines()[0]
    assert "52,428,800 bytes of output" in head and "cut from the middle" in head
    assert len(out.content) <= OUTPUT_CAP_BYTES + 400


def test_endless_flood_with_timeout_stays_bounded(tmp_path):
    result = execute("yes", cwd=tmp_path, timeout=1, env=scrubbed_env())
    assert result.status == "timeout"
    assert result.total_bytes > OUTPUT_CAP_BYTES
    assert len(result.output.encode()) <= OUTPUT_CAP_BYTES + 100


def test_capture_memory_stays_bounded_whatever_is_added():
    capture = _Capture(1000)
    for i in range(10_000):
        capture.add(f"line {i}\n".encode())
        assert len(capture.head) + len(capture.tail) <= 1000
    assert capture.text().startswith("line 0\n")
    assert capture.text().endswith("line 9999\n")
    assert capture.cut == capture.total - 1000


def test_small_output_is_returned_whole_with_utf8(target):
    out = run(target, command="printf 'héllo ✓\\n'")
    assert out.content.splitlines()[1] == "héllo ✓"


# -- progress ------------------------------------------------------------------------------------
def test_progress_reports_the_last_line(target):
    runtime = Runtime()
    out = run(target, runtime, command="echo one; sleep 0.6; echo two; sleep 0.6")
    assert out.ok
    assert runtime.lines[:2] == ["one", "two"]


def test_progress_is_throttled(tmp_path):
    lines: list[str] = []
    start = time.monotonic()
    result = execute(
        "for i in $(seq 1 20000); do echo line $i; done",
        cwd=tmp_path,
        timeout=600,
        env=scrubbed_env(),
        on_progress=lines.append,
    )
    elapsed = time.monotonic() - start
    assert result.exit_code == 0
    assert len(lines) <= elapsed / PROGRESS_INTERVAL + 2
    assert all(line.startswith("line ") for line in lines)


def test_a_broken_progress_callback_does_not_break_the_command(tmp_path):
    def boom(line: str) -> None:
        raise RuntimeError("ui gone")

    result = execute("echo a; sleep 0.3; echo b", cwd=tmp_path, timeout=600, env=scrubbed_env(), on_progress=boom)
    assert result.status == "exit" and result.output == "a\nb\n"


# -- environment ---------------------------------------------------------------------------------
def test_secrets_are_not_visible_to_the_command(target, monkeypatch):
    monkeypatch.setenv("OKBOT_API_KEY", "canary-okbot-1")
    monkeypatch.setenv("OPENAI_API_KEY", "canary-openai-2")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "canary-anthropic-3")
    monkeypatch.setenv("GITHUB_TOKEN", "canary-gh-4")
    monkeypatch.setenv("MY_SERVICE_SECRET", "canary-secret-5")
    monkeypatch.setenv("OPENAI_BASE_URL", "canary-openai-6")
    monkeypatch.setenv("OKBOT_HARMLESS_LOOKING", "canary-okbot-7")
    monkeypatch.setenv("PLAIN_SETTING", "visible-value")
    out = run(target, command="env")
    assert out.ok
    assert "canary" not in out.content
    assert "PLAIN_SETTING=visible-value" in out.content
    assert "PATH=" in out.content


@pytest.mark.parametrize(
    "name",
    [
        "OKBOT_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_ORG",
        "GROQ_API_KEY",
        "GH_TOKEN",
        "AWS_SECRET",
        "api_key",
        "DB_PASSWORD",
    ],
)
def test_secret_names(name):
    assert is_secret_name(name)
    assert name not in scrubbed_env({name: "x", "HOME": "/h"})


@pytest.mark.parametrize("name", ["PATH", "HOME", "LANG", "TERM", "PYTHONPATH", "USER", "EDITOR"])
def test_ordinary_names_are_kept(name):
    assert not is_secret_name(name)


# -- denylist ------------------------------------------------------------------------------------
def test_refused_command_is_not_run(target):
    ws = workspace_dir(target)
    out = run(target, command="touch marker; rm -rf ~")
    assert not out.ok and "refused" in out.content and "not run" in out.content
    assert not (ws / "marker").exists()


# -- OkBot's own files ---------------------------------------------------------------------------
def test_okbot_settings_by_absolute_path_is_refused(target):
    settings = paths.settings_file()
    settings.write_text('{"secret": "canary"}')
    out = run(target, command=f"cat {settings}")
    assert not out.ok and "canary" not in out.content and "OkBot" in out.content


def test_okbot_session_by_relative_path_is_refused(target):
    out = run(target, command="cat ../session.jsonl")
    assert not out.ok and "refused" in out.content


def test_symlink_in_workspace_to_settings_is_refused(target):
    settings = paths.settings_file()
    settings.write_text('{"secret": "canary"}')
    (workspace_dir(target) / "link").symlink_to(settings)
    out = run(target, command="cat link")
    assert not out.ok and "canary" not in out.content


def test_proc_environ_is_refused(target):
    out = run(target, command="cat /proc/self/environ")
    assert not out.ok and "refused" in out.content


# -- cwd -----------------------------------------------------------------------------------------
def test_cwd_inside_the_workspace_needs_no_approval(target):
    (workspace_dir(target) / "sub").mkdir()
    runtime = Runtime(answer=False)
    out = run(target, runtime, command="pwd", cwd="sub")
    assert out.ok and out.content.splitlines()[1].endswith("/workspace/sub")
    assert runtime.asked == []


def test_cwd_outside_the_workspace_asks_and_runs_when_approved(target, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    runtime = Runtime(answer=True)
    out = run(target, runtime, command="pwd", cwd=str(outside))
    assert out.ok and out.content.splitlines()[1] == os.path.realpath(outside)
    [(tool, args, reason)] = runtime.asked
    assert tool == "run_shell" and args["cwd"] == str(outside) and "outside the workspace" in reason


def test_cwd_outside_the_workspace_denied_runs_nothing(target, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    runtime = Runtime(answer=False)
    out = run(target, runtime, command="touch marker", cwd=str(outside))
    assert not out.ok and "did not approve" in out.content
    assert len(runtime.asked) == 1 and not (outside / "marker").exists()


def test_cwd_outside_with_nobody_to_ask_is_refused(target, tmp_path):
    out = run(target, None, command="touch marker", cwd=str(tmp_path))
    assert not out.ok and not (tmp_path / "marker").exists()


def test_cwd_in_okbot_data_is_refused_without_asking(target):
    runtime = Runtime(answer=True)
    out = run(target, runtime, command="ls", cwd=str(paths.data_dir()))
    assert not out.ok and "refused" in out.content
    assert runtime.asked == []


@pytest.mark.parametrize(
    ("cwd", "message"),
    [("missing-dir", "not an existing directory"), (42, "cwd must be a string"), ("a\0b", "NUL")],
)
def test_bad_cwd(target, cwd, message):
    out = run(target, Runtime(), command="true", cwd=cwd)
    assert not out.ok and message in out.content


def test_cwd_that_is_a_file(target):
    (workspace_dir(target) / "f.txt").write_text("x")
    out = run(target, Runtime(), command="true", cwd="f.txt")
    assert not out.ok and "not an existing directory" in out.content


# -- malformed arguments -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "needs a non-empty 'command'"),
        ({"command": None}, "needs a non-empty 'command'"),
        ({"command": 123}, "needs a non-empty 'command'"),
        ({"command": ["ls"]}, "needs a non-empty 'command'"),
        ({"command": "   "}, "needs a non-empty 'command'"),
        ({"command": "x" * (MAX_COMMAND_CHARS + 1)}, "write a script"),
        ({"command": "echo a\0b"}, "NUL"),
        ({"command": "true", "timeout": "60"}, "timeout must be a number"),
        ({"command": "true", "timeout": True}, "timeout must be a number"),
        ({"command": "true", "timeout": 0}, "between 1 and 600"),
        ({"command": "true", "timeout": -5}, "between 1 and 600"),
        ({"command": "true", "timeout": 601}, "between 1 and 600"),
        ({"command": "true", "timeout": 1e12}, "between 1 and 600"),
        ({"command": "true", "timeout": float("nan")}, "timeout must be a number"),
    ],
)
def test_malformed_arguments_get_a_clear_message(target, args, message):
    out = run_shell(args, ToolContext(target=target, session=None))
    assert not out.ok
    assert message in out.content
    assert out.content.startswith("run_shell")


def test_null_timeout_means_the_default(target):
    out = run(target, command="echo x", timeout=None)
    assert out.ok


# -- the sandbox: what an approved command can reach ---------------------------------------------
SANDBOX = detect()
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason="this system cannot make the user+mount namespace")
CANARY = "sk-canary-sandbox-4242"


@pytest.fixture
def secrets(target):
    """A record and a keys file holding the canary, in the test's real (temp) data dir."""
    target.session_path.write_text(f'{{"role": "user", "content": "{CANARY}"}}\n')
    (paths.data_dir() / "keys.json").write_text(f'{{"version": 1, "keys": {{"openai": "{CANARY}"}}}}')
    return target


@needs_sandbox
@pytest.mark.parametrize(
    "command",
    [
        'cat "$(dirname "$PWD")/session.jsonl"',
        'cd / && cat "$OLDPWD/../session.jsonl"',
        'cd / && cat "$(dirname "$(dirname "$(dirname "$OLDPWD")")")/keys.json"',
        'up=$(dirname "$(dirname "$PWD")"); grep -r sk- "$up/.." /proc/*/root"$up"/../keys.json /proc/*/cwd/../*.jsonl',
        "exec 3<.; cd /; python3 -c 'import os; print(open(\"/proc/self/fd/3/../session.jsonl\").read())'",
    ],
)
def test_an_approved_command_cannot_read_the_record_nor_the_keys(secrets, command):
    """Issue 13: approved `cat "$(dirname "$PWD")/session.jsonl"` and `cd / && cat …` read the record."""
    out = run(secrets, command=command)
    assert "run_shell refused" not in out.content  # it ran: the sandbox, not the guard, kept it out
    assert CANARY not in out.content
    assert "No such file" in out.content


@needs_sandbox
@pytest.mark.parametrize(
    "command",
    [
        "python3 -c 'import os, shutil; shutil.rmtree(os.path.dirname(os.path.dirname(os.path.dirname(os.getcwd()))))'",
        "perl -MFile::Path=rmtree -MCwd -e '($d = getcwd) =~ s{(/[^/]+){3}$}{}; chdir q(/); rmtree($d)'",
        'd=$(dirname "$(dirname "$(dirname "$PWD")")"); rm -r -f -- "$d"/*; find "$d" -delete',
    ],
)
def test_removing_okbot_data_by_any_spelling_removes_nothing_of_it(secrets, command):
    """Issue 13: `perl -e 'rmtree…'` / `python -c 'shutil.rmtree(...)'` of the data dir pass the denylist."""
    out = run(secrets, command=command)
    assert "run_shell refused" not in out.content
    assert CANARY in secrets.session_path.read_text()
    assert CANARY in (paths.data_dir() / "keys.json").read_text()
    assert (secrets.dir / "assistant.json").exists()


@needs_sandbox
def test_the_workspace_stays_writable_in_the_sandbox(target):
    ws = workspace_dir(target)
    (ws / "in.txt").write_text("from outside\n")
    out = run(target, command="cat in.txt; mkdir -p sub && echo made > sub/out.txt && pwd")
    assert out.ok, out.content
    assert "from outside" in out.content and out.content.rstrip().endswith(os.path.realpath(ws))
    assert (ws / "sub" / "out.txt").read_text() == "made\n"


@needs_sandbox
def test_a_cwd_outside_the_workspace_is_still_the_cwd(target, tmp_path):
    out = run(target, Runtime(answer=True), command="pwd; echo x > here.txt", cwd=str(tmp_path))
    assert out.ok, out.content
    assert os.path.realpath(tmp_path) in out.content and (tmp_path / "here.txt").exists()


@needs_sandbox
@pytest.mark.parametrize("detach", ["setsid {p} &", "setsid -f {p}", "(nohup setsid {p} > /dev/null 2>&1 &)"])
def test_a_process_that_detaches_in_the_sandbox_ends_with_the_command(target, detach):
    marker = f"okbot-test-detached-{os.getpid()}-{len(detach)}"
    started = f"bash -c 'touch started; exec -a {marker} sleep 300'"
    out = run(target, command=f"{detach.format(p=started)}\nuntil [ -e started ]; do sleep 0.02; done; echo ok")
    assert out.ok and "ok" in out.content
    assert "process it left running in the background were stopped" in out.content
    assert running_with(marker) == []


@needs_sandbox
def test_in_the_sandbox_the_command_cannot_kill_its_watcher(target):
    marker = f"okbot-test-watcher-{os.getpid()}"
    detached = f"setsid bash -c 'touch started; exec -a {marker} sleep 300' &"
    out = run(target, command=f"{detached} until [ -e started ]; do sleep 0.02; done; kill -9 $PPID; echo alive")
    assert out.ok and "alive" in out.content
    assert "may still be running" not in out.content
    assert running_with(marker) == []


@needs_sandbox
def test_the_timeout_ends_a_process_detached_in_the_sandbox(target):
    marker = f"okbot-test-timeout-{os.getpid()}"
    detached = f"setsid bash -c 'touch started; exec -a {marker} sleep 300' &"
    out = run(target, command=f"{detached} until [ -e started ]; do sleep 0.02; done; sleep 1000", timeout=1)
    assert out.content.startswith("killed: timeout after 1 s")
    assert running_with(marker) == []


@needs_sandbox
def test_a_sandbox_that_cannot_be_set_up_runs_nothing(tmp_path):
    """A step of the sandbox that fails (here: the workspace to keep is not there) says so and runs nothing."""
    result = execute(
        "touch ran", cwd=tmp_path, timeout=60, env=scrubbed_env(), sandbox=SANDBOX, workspace=tmp_path / "gone"
    )
    assert result.status == "sandbox" and result.exit_code is None
    assert result.headline().startswith("not run: its sandbox could not be set up")
    assert "nothing was run" in result.output
    assert not (tmp_path / "ran").exists()


def test_the_note_says_plainly_what_a_command_can_reach():
    assert "everything the user can" in shell_note(None)
    assert "hidden" in shell_note(Sandbox("unshare")) and "everything the user can" not in shell_note(
        Sandbox("unshare")
    )
    assert RUN_SHELL.note_text() == shell_note(SANDBOX)
    assert "everything you can" in approval_note(sandboxed=False)
    assert "hidden" in approval_note(sandboxed=True)


_CONNECT = "import socket, sys\nc = socket.socket(socket.AF_UNIX)\nc.connect(sys.argv[1])\nprint('connected')\n"


@needs_sandbox
@pytest.mark.parametrize("how", ["address", "runtime dir"])
def test_the_session_bus_the_keyring_answers_on_is_not_reachable(target, tmp_path, how):
    """Through the session D-Bus the keyring daemon hands OkBot's key to any caller: it is masked."""
    runtime_dir = tmp_path / "run"
    runtime_dir.mkdir()
    bus_path = runtime_dir / "bus"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(bus_path))
    server.listen()
    env = dict(scrubbed_env(), XDG_RUNTIME_DIR=str(runtime_dir))
    if how == "address":
        env = dict(scrubbed_env(), DBUS_SESSION_BUS_ADDRESS=f"unix:path={bus_path},guid=0")
    ws = workspace_dir(target)
    (ws / "connect.py").write_text(_CONNECT)
    try:
        result = execute(
            f"{sys.executable} connect.py {bus_path}", cwd=ws, timeout=60, env=env, sandbox=SANDBOX, workspace=ws
        )
    finally:
        server.close()
    assert result.status == "exit", result.output
    assert "connected" not in result.output and "Connection refused" in result.output


@needs_sandbox
def test_a_workspace_holding_the_data_dir_keeps_the_data_dir_hidden(secrets):
    """A custom workspace may hold OkBot's data dir (e.g. the home folder): the data dir stays hidden in it."""
    data = paths.data_dir()
    secrets.meta["workspace"] = str(data.parent)
    out = run(secrets, command=f"cat {data.name[:3]}*/keys.json {data.name[:3]}*/*/*/session.jsonl; echo ok > mine.txt")
    assert "run_shell refused" not in out.content
    assert CANARY not in out.content and "No such file" in out.content
    assert (data.parent / "mine.txt").read_text() == "ok\n"


@needs_sandbox
@pytest.mark.parametrize("umount", ["umount", "umount -l"])
def test_a_command_cannot_undo_the_mounts_that_hide_okbot_data(secrets, umount):
    """In its namespace the command holds CAP_SYS_ADMIN: the hiding mounts must be locked, not just there."""
    command = (
        'd=$(dirname "$(dirname "$(dirname "$PWD")")"); cd /; '
        f'{umount} "$d/assistants/okbot/workspace"; {umount} "$d"; cat "$d/keys.json"; grep -r sk- "$d"'
    )
    out = run(secrets, command=command)
    assert "run_shell refused" not in out.content
    assert CANARY not in out.content
