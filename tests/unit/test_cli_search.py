"""``okbot search``: catches up first, one line per hit (bold only on a terminal), --json, clear errors."""

from __future__ import annotations

import io
import json

import pytest

from okbot.__main__ import main
from okbot.cli import build_parser, run
from okbot.cli_search import PROGRESS_BYTES
from okbot.core.items import encode_item, new_item, user_message
from okbot.core.session import SessionStore
from okbot.core.workspace import Workspace


@pytest.fixture
def chats():
    ws = Workspace()
    ada, bob = ws.create_assistant("Ada"), ws.create_assistant("Bob")
    SessionStore(ada.session_path).append(
        {**user_message("Where is the summary kept?"), "ts": "2026-03-04T05:06:07.000Z"}
    )
    SessionStore(bob.session_path).append(user_message("上下文压缩的目标"))
    SessionStore(bob.session_path).append(new_item("assistant", author="bob", source="app", content="the summary file"))
    return ada, bob


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_lines_name_date_id_snippet(chats, capsys):
    code, out, _ = cli(capsys, "search", "summary")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("Bob · ") and " · #2 · the summary file" in lines[0]
    assert lines[1].startswith("Ada · 2026-03-0") and lines[1].endswith(" · #1 · Where is the summary kept?")
    assert "\x1b[" not in out  # not a terminal: plain


def test_matches_bold_on_a_terminal(chats):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, err = Tty(), io.StringIO()
    assert run(build_parser().parse_args(["search", "目标"]), out, err) == 0
    assert "\x1b[1m目标\x1b[0m" in out.getvalue()


def test_json_and_target(chats, capsys):
    code, out, _ = cli(capsys, "search", "summary", "--target", "Ada", "--json")
    assert code == 0
    rows = json.loads(out)
    assert rows == [
        {
            "kind": "assistant",
            "target": "ada",
            "targetName": "Ada",
            "itemId": 1,
            "ts": "2026-03-04T05:06:07.000Z",
            "type": "user",
            "author": "user",
            "snippet": "Where is the summary kept?",
            "spans": [[13, 20]],
            "replaced": False,
        }
    ]
    _, out, _ = cli(capsys, "search", "summary", "--limit", "1", "--json")
    assert [r["target"] for r in json.loads(out)] == ["bob"]


def test_new_items_are_found_without_a_restart(chats, capsys):
    ada, _ = chats
    cli(capsys, "search", "summary")
    SessionStore(ada.session_path).append(user_message("a quokka appears"))
    code, out, _ = cli(capsys, "search", "quokka", "--json")
    assert [r["itemId"] for r in json.loads(out)] == [2]


def test_clear_errors(chats, capsys):
    code, _, err = cli(capsys, "search", "  ")
    assert code == 1 and "nothing to search for" in err
    code, _, err = cli(capsys, "search", "(*)")
    assert code == 1 and "nothing to search for" in err
    code, _, err = cli(capsys, "search", "summary", "--target", "nobody")
    assert code == 1 and "nobody" in err
    code, out, err = cli(capsys, "search", "absent")
    assert code == 0 and out == "" and "no matches" in err


def test_big_catch_up_shows_progress(chats, capsys):
    ada, _ = chats
    line = user_message("padding " * 4000)
    with open(ada.session_path, "ab") as fh:
        for i in range(2, 2 + PROGRESS_BYTES // 32000 + 2):
            fh.write(encode_item({**line, "id": i}))
    code, _, err = cli(capsys, "search", "summary")
    assert code == 0 and "indexing chats: 100%" in err
