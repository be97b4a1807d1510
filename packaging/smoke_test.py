"""Smoke test of the packaged app: ``python packaging/smoke_test.py dist/okbot``.

Every run uses a fresh temporary ``OKBOT_HOME`` (and TMPDIR, XDG dirs), no ``OKBOT_TIKTOKEN_DIR``,
``OKBOT_TIKTOKEN_DOWNLOAD=0`` and tiktoken's cache disabled, so only the bundled encodings can
give exact counts. Checks, in order:

1. ``okbot --version`` prints ``okbot <version>``;
2. ``okbot context OkBot`` reports exact token counts (no ``≈``), loaded from the bundle; with no
   network at all (``unshare -n``) when this machine allows it;
3. ``okbot chat OkBot -m …`` against the local fake OpenAI server (``tests/helpers``): the openai
   SDK, httpx and the turn runner work frozen;
4. ``okbot mcp add`` + ``okbot mcp list`` start a stdio MCP server (``tests/helpers/mcp_server.py``,
   run by this interpreter) under the frozen app's warden and list its tools;
5. the GUI, offscreen: it starts, its main loop answers the single-instance socket (the start
   time is measured up to that answer), a second ``okbot`` defers to it and exits 0, and SIGTERM
   ends it with no traceback or crash report.

Exit code 0 when every check passes; a line per check and a summary on stdout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GUI_START_TIMEOUT = 60.0
RAISE_REQUEST, RAISE_ACK = b"raise\n", b"raised\n"  # okbot.ui.single_instance's protocol


class SmokeFailure(Exception):
    """A check failed; the message says what was expected and what happened."""


def expected_version() -> str:
    """``okbot.__version__`` read from the source tree."""
    text = (REPO / "okbot" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.MULTILINE)
    if match is None:
        raise SmokeFailure("no __version__ in okbot/__init__.py")
    return match.group(1)


def isolated_env(root: Path) -> dict[str, str]:
    """An environment that can only reach the bundle's own files (and nothing of the user's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OKBOT_", "OPENAI_", "TIKTOKEN", "QT_"))}
    for name in ("home", "tmp", "config", "cache", "data", "runtime"):
        (root / name).mkdir(mode=0o700)
    env.update(
        OKBOT_HOME=str(root / "home"),
        OKBOT_TIKTOKEN_DOWNLOAD="0",
        TIKTOKEN_CACHE_DIR="",  # "" disables tiktoken's cache: only the bundled files remain
        TMPDIR=str(root / "tmp"),
        XDG_CONFIG_HOME=str(root / "config"),
        XDG_CACHE_HOME=str(root / "cache"),
        XDG_DATA_HOME=str(root / "data"),
        XDG_RUNTIME_DIR=str(root / "runtime"),
        QT_QPA_PLATFORM="offscreen",
        LC_ALL=env.get("LC_ALL") or "C.UTF-8",
    )
    return env


def run_app(
    exe: Path, args: list[str], env: dict[str, str], *, offline: bool = False, timeout: float = 60.0
) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run the packaged app to completion; return the result and its wall time in seconds."""
    cmd = [str(exe), *args]
    if offline:
        cmd = ["unshare", "-n", *cmd]
    started = time.monotonic()
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    return result, time.monotonic() - started


def can_unshare_network() -> bool:
    """True when ``unshare -n`` works here (root or user namespaces), to prove the app is offline."""
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False).returncode == 0


def check_version(exe: Path, env: dict[str, str]) -> str:
    """``okbot --version`` prints the source tree's version."""
    result, seconds = run_app(exe, ["--version"], env)
    want = f"okbot {expected_version()}"
    if result.returncode != 0 or result.stdout.strip() != want:
        raise SmokeFailure(
            f"--version: expected {want!r}, got rc={result.returncode} "
            f"{result.stdout.strip()!r} {result.stderr.strip()[-500:]}"
        )
    return f"{want} ({seconds:.2f} s)"


def check_context(exe: Path, env: dict[str, str], offline: bool) -> str:
    """``okbot context`` counts exactly, with the encoding loaded from inside the bundle."""
    result, seconds = run_app(exe, ["context", "OkBot"], env, offline=offline)
    header = next((line for line in result.stdout.splitlines() if line.startswith("Tokens:")), "")
    if result.returncode != 0 or not header:
        raise SmokeFailure(f"context: rc={result.returncode}\n{result.stdout[:800]}\n{result.stderr[-800:]}")
    if "≈" in header:
        raise SmokeFailure(f"context: token counts are estimates, the bundled encoding was not used: {header}")
    log_file = Path(env["OKBOT_HOME"]) / "logs" / "okbot.log"
    log_text = log_file.read_text(encoding="utf-8") if log_file.exists() else ""
    bundled = str(exe.parent.resolve())
    source = re.search(r"encoding (\S+) loaded from (.+)", log_text)
    if source is None or not source.group(2).strip().startswith(bundled):
        raise SmokeFailure(f"context: the encoding did not come from the bundle ({bundled}); log:\n{log_text[-800:]}")
    where = "no network (unshare -n)" if offline else "network not isolated"
    return f"{header.split(' · ')[0]}, {source.group(1)} from the bundle, {where} ({seconds:.2f} s)"


def check_chat(exe: Path, env: dict[str, str]) -> str:
    """One turn against the local fake OpenAI server."""
    sys.path.insert(0, str(REPO))
    try:
        from tests.helpers.fake_openai import FakeOpenAIServer
    except ImportError as exc:  # the packaging checkout always has tests/, but say so plainly
        raise SmokeFailure(f"chat: cannot import the fake OpenAI server from {REPO / 'tests'}: {exc}") from exc
    with FakeOpenAIServer() as server:
        chat_env = {**env, "OKBOT_BASE_URL": server.base_url, "OKBOT_API_KEY": "sk-smoke-test"}
        result, seconds = run_app(exe, ["chat", "OkBot", "-m", "hello from the bundle"], chat_env)
    if result.returncode != 0 or "hello from the bundle" not in result.stdout:
        raise SmokeFailure(f"chat: rc={result.returncode}\n{result.stdout[-800:]}\n{result.stderr[-800:]}")
    return f"reply {result.stdout.strip()[:60]!r} ({seconds:.2f} s)"


def check_mcp(exe: Path, env: dict[str, str]) -> str:
    """A stdio MCP server started by the frozen app (through its warden) runs and lists its tools."""
    server = REPO / "tests" / "helpers" / "mcp_server.py"
    added, _ = run_app(exe, ["mcp", "add", "smoke", "--command", sys.executable, "--", str(server)], env)
    if added.returncode != 0:
        raise SmokeFailure(f"mcp add: rc={added.returncode}\n{added.stdout[-800:]}\n{added.stderr[-800:]}")
    listed, seconds = run_app(exe, ["mcp", "list", "--json"], env, timeout=120.0)
    try:
        [row] = json.loads(listed.stdout)
    except ValueError as exc:
        raise SmokeFailure(f"mcp list: rc={listed.returncode} {exc}\n{listed.stderr[-800:]}") from exc
    names = [tool["name"] for tool in row.get("tools", [])]
    if not row.get("state", "").startswith("running") or "echo" not in names:
        raise SmokeFailure(f"mcp list: {row.get('state')!r}, tools {names}\n{listed.stderr[-800:]}")
    return f"{row['state']}, {len(names)} tools ({seconds:.2f} s)"


def _ask_to_raise(sock_dir: Path) -> bool:
    """Send the single-instance raise request; True once the GUI's event loop acknowledged it."""
    for path in sock_dir.glob("okbot-*"):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(2.0)
                conn.connect(str(path))
                conn.sendall(RAISE_REQUEST)
                reply = b""
                while RAISE_ACK not in reply:
                    chunk = conn.recv(64)
                    if not chunk:
                        break
                    reply += chunk
                return RAISE_ACK in reply
        except OSError:
            continue
    return False


def check_gui(exe: Path, env: dict[str, str]) -> tuple[str, float]:
    """Start the GUI offscreen, wait until its event loop answers, defer a second one, SIGTERM it."""
    started = time.monotonic()
    proc = subprocess.Popen([str(exe)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = None
        while time.monotonic() - started < GUI_START_TIMEOUT:
            if proc.poll() is not None:
                out, err = proc.communicate()
                raise SmokeFailure(f"GUI exited early with rc={proc.returncode}\n{out[-800:]}\n{err[-1500:]}")
            if _ask_to_raise(Path(env["TMPDIR"])):
                ready = time.monotonic() - started
                break
            time.sleep(0.05)
        if ready is None:
            raise SmokeFailure(f"GUI did not answer within {GUI_START_TIMEOUT:.0f} s")
        second, _ = run_app(exe, [], env, timeout=30)
        if second.returncode != 0 or "already running" not in second.stderr:
            raise SmokeFailure(
                f"second GUI: expected it to defer and exit 0, got rc={second.returncode} {second.stderr[-500:]}"
            )
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if proc.returncode != 0:
        raise SmokeFailure(f"GUI: SIGTERM should quit cleanly (rc 0), gave rc={proc.returncode}\n{err[-1500:]}")
    crashes = sorted((Path(env["OKBOT_HOME"]) / "logs").glob("crash-*"))
    if "Traceback" in err or crashes:
        raise SmokeFailure(f"GUI: traceback or crash report: {[c.name for c in crashes]}\n{err[-1500:]}")
    return f"main loop up in {ready:.2f} s; a second instance deferred (rc 0); SIGTERM quit cleanly (rc 0)", ready


def main(argv: list[str] | None = None) -> int:
    """Run every check against the app folder given as the only argument."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: smoke_test.py DIST_APP_FOLDER (e.g. dist/okbot)", file=sys.stderr)
        return 2
    exe = Path(args[0]).resolve() / "okbot"
    if not exe.is_file():
        print(f"smoke_test: no executable {exe}", file=sys.stderr)
        return 2
    offline = can_unshare_network()
    failures = 0
    checks = (
        ("version", lambda env: check_version(exe, env)),
        ("context", lambda env: check_context(exe, env, offline)),
        ("chat", lambda env: check_chat(exe, env)),
        ("mcp", lambda env: check_mcp(exe, env)),
        ("gui", lambda env: check_gui(exe, env)[0]),
    )
    for name, check in checks:
        with tempfile.TemporaryDirectory(prefix=f"okbot-smoke-{name}-") as tmp:
            try:
                print(f"  ok    {name:<8} {check(isolated_env(Path(tmp)))}", flush=True)
            except (SmokeFailure, subprocess.TimeoutExpired) as exc:
                failures += 1
                print(f"  FAIL  {name:<8} {exc}", flush=True)
    print("smoke test: " + ("passed" if failures == 0 else f"{failures} check(s) failed"), flush=True)
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
