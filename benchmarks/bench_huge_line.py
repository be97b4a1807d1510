"""A 200 MB line in ``session.jsonl`` (issue 16, class 11): peak memory of every command, first and later opens.

One assistant's session holds ordinary items, then one huge line, then more ordinary items. Each
command runs in its own process (the CLI, or the calls the chat window makes when it opens) and its
peak resident memory is read from ``os.wait4``; the quarantine file's size is read after each. Two
kinds of huge line: a broken one (an unterminated JSON string, as a crash or a bad tool leaves) and a
well-formed item over the per-line limit.

Target: every command peaks at most 250 MB with the line present, on the first open and on every
later one; the quarantine record stays small (an excerpt, not a copy); the items after the line are
all readable and their ids continue.

``python -m benchmarks.bench_huge_line [--mb 200]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import REPO, bench_dir, table

TARGET_MB = 250
BEFORE, AFTER = 50, 50  # ordinary items on each side of the huge line

# What the chat window does when it opens a session (ui/chat/model.py).
_OPEN_CHAT = """
import sys
from okbot.core.session import SessionStore
store = SessionStore(sys.argv[1])
store.tail(200)
ids = store.ids()
rows = list(store.iter_items(ids[-50], ids[-1]))
print(len(ids), rows[-1]["id"])
"""

# Afterwards: every item id that can be read (in a child too: a parent that read the huge line would
# pass its own peak to every later child, which inherits it through fork and exec).
_IDS = """
import sys
from okbot.core.session import SessionStore
print(" ".join(map(str, SessionStore(sys.argv[1]).ids())))
"""

# Appending a turn: the user's message and the assistant's reply, as the runner stores them.
_APPEND = """
import sys
from okbot.core import items
from okbot.core.session import SessionStore
store = SessionStore(sys.argv[1])
store.append(items.user_message("one more question"))
reply = items.new_item("assistant", author="bench", source="app", content="one more answer", usage={})
print(store.append(reply)["id"])
"""


def _write_session(path: Path, mb: int, broken: bool) -> int:
    """Ordinary items, the huge line, more ordinary items; return the byte offset of the huge line."""
    with open(path, "wb") as fh:
        for n in range(1, BEFORE + 1):
            fh.write(_item(n, f"message {n} before the huge line"))
        offset = fh.tell()
        head = b'{"id":%d,"v":1,"ts":"2026-01-01T00:00:00.000Z","type":"tool_result","author":"bench",' % (BEFORE + 1)
        fh.write(head + b'"source":"tool","call_id":"c1","name":"dump","ok":true,"content":"')
        block = b"0123456789abcdef" * 65536  # 1 MiB
        for _ in range(mb):
            fh.write(block)
        fh.write(b"\n" if broken else b'"}\n')
        for n in range(BEFORE + 2, BEFORE + 2 + AFTER):
            fh.write(_item(n, f"message {n} after the huge line"))
    return offset


def _item(n: int, text: str) -> bytes:
    kind = "user" if n % 2 else "assistant"
    obj = {
        "id": n,
        "v": 1,
        "ts": "2026-01-01T00:00:00.000Z",
        "type": kind,
        "author": "user" if n % 2 else "bench",
        "source": "user" if n % 2 else "app",
        "content": text,
    }
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def _run(cmd: list[str], env: dict[str, str], log: Path) -> tuple[float, float, int]:
    """Run ``cmd``; return (peak RSS in MB, seconds, exit code)."""
    start = time.perf_counter()
    with open(log, "ab") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=out)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, time.perf_counter() - start, proc.returncode


def _scenario(home: Path, mb: int, broken: bool, server_url: str) -> tuple[list[list[str]], str, list[str]]:
    from okbot.core.workspace import Workspace

    os.environ["OKBOT_HOME"] = str(home)
    target = Workspace().ensure_default()
    path = target.session_path
    offset = _write_session(path, mb, broken)
    env = dict(
        os.environ,
        OKBOT_HOME=str(home),
        OKBOT_BASE_URL=server_url,
        OKBOT_MODEL="fake-small",
        OKBOT_TIKTOKEN_DOWNLOAD="0",
        QT_QPA_PLATFORM="offscreen",
    )
    okbot = [sys.executable, "-m", "okbot"]
    py = [sys.executable, "-c"]
    steps = [
        ("okbot context (first open)", [*okbot, "context", target.id]),
        ("okbot context (second open)", [*okbot, "context", target.id]),
        ("open the chat (tail, ids, rows)", [*py, _OPEN_CHAT, str(path)]),
        ("append a turn (user + reply)", [*py, _APPEND, str(path)]),
        ("okbot chat -m (a whole turn)", [*okbot, "chat", target.id, "-m", "hello again"]),
        ("okbot compress", [*okbot, "compress", target.id]),
        ("okbot context (after all)", [*okbot, "context", target.id]),
    ]
    quarantine = path.with_name("session.quarantine.jsonl")
    rows, problems = [], []
    log = bench_dir() / f"huge-line-{'broken' if broken else 'item'}.log"
    log.write_bytes(b"")
    for name, cmd in steps:
        peak, seconds, code = _run(cmd, env, log)
        q_size = quarantine.stat().st_size if quarantine.exists() else 0
        rows.append([name, f"{peak:.0f}", f"{seconds:.2f}", str(code), f"{q_size:,}"])
        if peak > TARGET_MB:
            problems.append(f"{name}: peak {peak:.0f} MB > {TARGET_MB} MB")
        if code != 0:
            problems.append(f"{name}: exit code {code} (see {log})")
    done = subprocess.run([*py, _IDS, str(path)], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    ids = [int(x) for x in done.stdout.split()]
    after = [i for i in ids if i > BEFORE + 1]
    expected = list(range(BEFORE + 2, BEFORE + 2 + AFTER))
    if after[: len(expected)] != expected:
        problems.append("the items after the huge line are not all readable")
    if ids and ids[-1] <= BEFORE + AFTER:
        problems.append("ids did not continue after the huge line")
    note = f"huge line at byte {offset:,}; afterwards {len(ids)} items readable, last id {ids[-1] if ids else 0}"
    return rows, note, problems


def run(mb: int = 200) -> str:
    from tests.helpers.fake_openai import FakeOpenAIServer

    out: list[str] = []
    all_problems: list[str] = []
    with FakeOpenAIServer() as server:
        for broken in (True, False):
            kind = "broken JSON" if broken else "well-formed item"
            with tempfile.TemporaryDirectory(prefix="okbot-huge-") as tmp:
                rows, note, problems = _scenario(Path(tmp), mb, broken, server.base_url)
            all_problems += [f"{kind}: {p}" for p in problems]
            out.append(
                table(
                    f"A {mb} MB line ({kind}) in session.jsonl: peak RSS per command (target ≤ {TARGET_MB} MB)",
                    ["command", "peak RSS MB", "seconds", "exit", "quarantine bytes"],
                    rows,
                )
            )
            out.append(note)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.append(f"\n(this process peaked at {own:.0f} MB; a child's figure cannot be below its parent's at spawn)")
    out.append("\n" + ("all within target" if not all_problems else "OVER TARGET:\n- " + "\n- ".join(all_problems)))
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="size of the huge line in MiB")
    args = parser.parse_args()
    text = run(args.mb)
    print(text)
    return 0 if "OVER TARGET" not in text else 1


if __name__ == "__main__":
    sys.exit(main())
