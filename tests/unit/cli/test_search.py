"""``okbot search``: catches up first, one line per hit (bold only on a terminal), --json, clear errors."""

from __future__ import annotations

import io
import json

import pytest

from okbot.__main__ import main
from okbot.cli.main import build_parser, run
from okbot.cli.search import PROGRESS_BYTES
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


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def search_on_a_terminal(query: str) -> str:
    out, err = Tty(), io.StringIO()
    assert run(build_parser().parse_args(["search", query]), out, err) == 0
    return out.getvalue()


def test_matches_bold_on_a_terminal(chats, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert "\x1b[1m目标\x1b[0m" in search_on_a_terminal("目标")


@pytest.mark.parametrize(("name", "value"), [("NO_COLOR", "1"), ("NO_COLOR", "0"), ("TERM", "dumb")])
def test_no_color_and_a_dumb_terminal_get_no_bold(chats, monkeypatch, name, value):
    """Issue 34, 18: NO_COLOR (https://no-color.org, whatever its value) and TERM=dumb turn the escapes off."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv(name, value)
    text = search_on_a_terminal("目标")
    assert "目标" in text and "\x1b[" not in text


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
    code, out, err = cli(capsys, "search", "absent")  # as grep and rg: no match exits 1
    assert code == 1 and out == "" and "no matches" in err
    code, out, err = cli(capsys, "search", "absent", "--json")
    assert code == 1 and json.loads(out) == []


def test_big_catch_up_shows_progress(chats, capsys):
    ada, _ = chats
    line = user_message("padding " * 4000)
    with open(ada.session_path, "ab") as fh:
        for i in range(2, 2 + PROGRESS_BYTES // 32000 + 2):
            fh.write(encode_item({**line, "id": i}))
    code, _, err = cli(capsys, "search", "summary")
    assert code == 0 and "indexing chats: 100%" in err
