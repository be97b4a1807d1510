"""`okbot compress --undo / --redo / --last` as a real process against the fake server."""

import json
import os
import subprocess
import sys

from okbot.core.compression.history import history_path
from okbot.core.items import new_item, user_message
from okbot.core.session import SessionStore
from okbot.core.summary import SummaryStore
from okbot.core.workspace import Workspace
from tests.helpers.fake_summarizer import faithful


def test_compress_undo_redo_and_last_from_the_command_line(okbot_home, server):
    server.set_default(faithful)
    target = Workspace().ensure_default()
    store = SessionStore(target.session_path)
    for i in range(12):
        store.append(user_message(f"step {i}: handle table {i}. " + "detail " * 80))
        store.append(new_item("assistant", author="okbot", source="app", content="done. " + "note " * 80))
    env = {**os.environ, "OKBOT_HOME": str(okbot_home), "OKBOT_BASE_URL": server.base_url}

    def okbot(*args):
        return subprocess.run(
            [sys.executable, "-m", "okbot", *args], capture_output=True, text=True, env=env, timeout=60
        )

    nothing = okbot("compress", "okbot", "--undo")
    assert nothing.returncode == 1 and "Nothing to undo" in nothing.stderr and nothing.stdout == ""
    assert okbot("compress", "okbot").returncode == 0
    covered = SummaryStore(target.summary_path).load().covered_through_id
    assert covered == 16

    last = okbot("compress", "okbot", "--last", "--json")
    assert last.returncode == 0, last.stderr
    described = json.loads(last.stdout)
    assert described["coveredBefore"] == 0 and described["coveredAfter"] == 16
    assert described["newlyCovered"] == [[1, 16]] and described["undoable"] is True
    assert any(op == "+" for op, _text in described["diff"])

    undo = okbot("compress", "okbot", "--undo")
    assert undo.returncode == 0, undo.stderr
    assert "Undid compression #1" in undo.stdout and "coverage #16 → #0" in undo.stdout
    assert SummaryStore(target.summary_path).load().covered_through_id == 0
    assert "Coverage: none" in okbot("context", "okbot").stdout

    again = okbot("compress", "okbot", "--undo")
    assert again.returncode == 1 and "Nothing to undo" in again.stderr

    redo = okbot("compress", "okbot", "--redo", "--json")
    assert redo.returncode == 0, redo.stderr
    assert json.loads(redo.stdout)["coveredAfter"] == 16
    assert SummaryStore(target.summary_path).load().covered_through_id == 16
    kinds = [json.loads(line)["type"] for line in history_path(target.summary_path).read_text().splitlines()]
    assert kinds == ["compression", "undo", "redo"]

    both = okbot("compress", "okbot", "--undo", "--redo")
    assert both.returncode == 2  # one of them at a time
