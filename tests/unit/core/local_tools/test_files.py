"""read_file, list_dir, write_file, edit_file: guarded paths, bounded output, atomic writes, bad input."""

from __future__ import annotations

import ctypes
import os
import stat
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from okbot.core.local_tools import files, safe_open
from okbot.core.local_tools.files import EDIT_FILE, FILE_TOOLS, LIST_DIR, READ_FILE, WRITE_FILE
from okbot.core.local_tools.guard import workspace_dir
from okbot.core.tools import Tool, ToolContext, ToolOutcome, ToolRegistry
from okbot.core.workspace import Target, Workspace
from okbot.llm.provider import CancelToken
from okbot.storage import paths

GB2 = 2 * 1024**3


class Runtime:
    """A stand-in for the running turn: the contract (approve / cancel / progress), not our code."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[tuple[str, dict[str, Any], str]] = []
        self.cancel = CancelToken()

    def approve(self, tool_name: str, args: dict[str, Any], reason: str) -> bool:
        self.asked.append((tool_name, args, reason))
        return self.answer

    def progress(self, tool_name: str, call_id: str, text: str) -> None:
        pass


@pytest.fixture
def target() -> Target:
    return Workspace().create_assistant("Ann")


@pytest.fixture
def ws(target: Target) -> Path:
    return Path(os.path.realpath(workspace_dir(target)))


@pytest.fixture
def rt() -> Runtime:
    return Runtime(answer=False)


def call(tool: Tool, target: Target, runtime: Any = None, **args: Any) -> ToolOutcome:
    return tool.run(args, ToolContext(target=target, session=None, runtime=runtime, call_id="c1"))


def bytes_read() -> int | None:
    """This process's total bytes read through read() calls (Linux), to show a file was not read whole."""
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return None
    return int(next(line.split()[1] for line in text.splitlines() if line.startswith("rchar:")))


# -- the tool objects ----------------------------------------------------------------------------
def test_tools_follow_the_contract() -> None:
    assert [t.name for t in FILE_TOOLS] == ["read_file", "list_dir", "write_file", "edit_file"]
    assert FILE_TOOLS == (READ_FILE, LIST_DIR, WRITE_FILE, EDIT_FILE)
    registry = ToolRegistry(FILE_TOOLS)
    for tool in registry:
        assert tool.approval_key == f"tools.{tool.name}.approval"
        assert "\n" not in tool.note and tool.note
        spec = tool.spec()["function"]
        assert spec["parameters"]["type"] == "object"
        assert set(spec["parameters"]["required"]) <= set(spec["parameters"]["properties"])


# -- read_file -----------------------------------------------------------------------------------
def test_read_whole_small_file(target: Target, ws: Path) -> None:
    (ws / "a.txt").write_text("one\ntwo\nthree\n")
    out = call(READ_FILE, target, path="a.txt")
    assert out.ok
    assert out.content == "a.txt (lines 1–3 of 3; file is 14 bytes)\none\ntwo\nthree"


def test_read_line_window_and_last_line_without_newline(target: Target, ws: Path) -> None:
    (ws / "a.txt").write_text("1\n2\n3\n4\n5")
    out = call(READ_FILE, target, path="a.txt", start_line=2, end_line=3)
    assert out.content == "a.txt (lines 2–3 of 5; file is 9 bytes)\n2\n3"
    assert call(READ_FILE, target, path="a.txt", start_line=5).content.endswith("\n5")
    assert call(READ_FILE, target, path="a.txt", start_line="4", end_line=4.0).content.endswith("\n4")


def test_read_empty_file(target: Target, ws: Path) -> None:
    (ws / "e.txt").write_bytes(b"")
    out = call(READ_FILE, target, path="e.txt")
    assert out.ok and "empty" in out.content


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({}, "'path' is missing"),
        ({"path": None}, "'path' is missing"),
        ({"path": 7}, "must be a string, not int"),
        ({"path": ["a.txt"]}, "not list"),
        ({"path": ""}, "empty"),
        ({"path": "a\x00.txt"}, "NUL"),
        ({"path": "a" * 10_000}, "characters long"),
        ({"path": "a.txt", "start_line": "abc"}, "whole number"),
        ({"path": "a.txt", "start_line": True}, "whole number"),
        ({"path": "a.txt", "start_line": 1.5}, "whole number"),
        ({"path": "a.txt", "start_line": 0}, "at least 1"),
        ({"path": "a.txt", "end_line": -3}, "at least 1"),
        ({"path": "a.txt", "start_line": 5, "end_line": 2}, "before start_line"),
        ({"path": "a.txt", "start_line": 10**30}, "past the end"),
    ],
)
def test_read_malformed_arguments(target: Target, ws: Path, args: dict[str, Any], words: str) -> None:
    (ws / "a.txt").write_text("x\n")
    out = READ_FILE.run(args, ToolContext(target=target, session=None))
    assert not out.ok
    assert words in out.content
    assert out.content.startswith("read_file")


def test_read_missing_file_suggests_close_names(target: Target, ws: Path) -> None:
    (ws / "report.md").write_text("x")
    out = call(READ_FILE, target, path="reprot.md")
    assert not out.ok and "No such file" in out.content and "report.md" in out.content


def test_read_directory_and_fifo(target: Target, ws: Path) -> None:
    (ws / "sub").mkdir()
    assert "list_dir" in call(READ_FILE, target, path="sub").content
    if hasattr(os, "mkfifo"):
        os.mkfifo(ws / "pipe")
        out = call(READ_FILE, target, path="pipe")  # must not block waiting for a writer
        assert not out.ok and "not a regular file" in out.content


def test_read_binary_files_are_refused_with_size_and_hint(target: Target, ws: Path) -> None:
    (ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + b"x" * 100)
    out = call(READ_FILE, target, path="img.png")
    assert not out.ok
    assert "binary" in out.content and "110 bytes" in out.content and "run_shell" in out.content
    (ws / "latin1.txt").write_bytes("caf\xe9 au lait".encode("latin-1"))
    out = call(READ_FILE, target, path="latin1.txt")
    assert not out.ok and "not UTF-8" in out.content


def test_utf8_char_split_at_the_sniff_boundary_is_still_text(target: Target, ws: Path) -> None:
    data = b"a" * (files.SNIFF_BYTES - 1) + "é\n".encode()
    (ws / "t.txt").write_bytes(data)
    out = call(READ_FILE, target, path="t.txt")
    assert out.ok and out.content.endswith("aé")


def test_read_caps_lines_and_tells_how_to_go_on(target: Target, ws: Path) -> None:
    (ws / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 5001)))
    out = call(READ_FILE, target, path="big.txt")
    body = out.content.splitlines()
    assert body[0].startswith("big.txt (lines 1–2,000 of 5,000;")
    assert body[1] == "line 1" and body[2000] == "line 2000"
    assert "continue with start_line=2001" in body[-1]
    later = call(READ_FILE, target, path="big.txt", start_line=4000)
    assert later.content.splitlines()[0].startswith("big.txt (lines 4,000–5,000 of 5,000;")
    assert later.content.splitlines()[-1] == "line 5000"
    capped = call(READ_FILE, target, path="big.txt", start_line=10, end_line=4000)
    assert "(lines 10–2,009 of 5,000" in capped.content and "start_line=2010" in capped.content


def test_read_caps_bytes_even_inside_one_long_line(target: Target, ws: Path) -> None:
    (ws / "min.js").write_text("é" * 600_000 + "\nend\n")  # 1.2 MB on one line
    out = call(READ_FILE, target, path="min.js")
    assert out.ok
    assert len(out.content.encode()) < files.READ_MAX_BYTES + 1000
    assert "line 1 is cut" in out.content and "of 2;" in out.content
    assert "\ufffd" not in out.content  # the cut never splits a character


def test_2gb_sparse_file_is_never_read_whole(target: Target, ws: Path) -> None:
    path = ws / "huge.log"
    with open(path, "wb") as fh:
        fh.write(b"".join(b"entry %d\n" % i for i in range(1500)))  # ~15 KB of text, past the sniff window
        fh.truncate(GB2)  # the rest is a hole: reads as NUL bytes, takes no disk space
    before = bytes_read()
    out = call(READ_FILE, target, path="huge.log")
    after = bytes_read()
    assert out.ok
    assert out.content.splitlines()[0] == "huge.log (lines 1–1,500 of more than 1,500; file is 2,147,483,648 bytes)"
    assert "entry 1499" in out.content and "NUL bytes" in out.content
    if before is not None and after is not None:
        assert after - before < 8 * 1024 * 1024


def test_2gb_sparse_file_starting_with_a_hole_is_binary(target: Target, ws: Path) -> None:
    with open(ws / "disk.img", "wb") as fh:
        fh.truncate(GB2)
    before = bytes_read()
    out = call(READ_FILE, target, path="disk.img")
    after = bytes_read()
    assert not out.ok and "binary" in out.content and "2,147,483,648 bytes" in out.content
    if before is not None and after is not None:
        assert after - before < 1024 * 1024


def test_read_stops_when_the_turn_is_stopped(target: Target, ws: Path) -> None:
    (ws / "a.txt").write_text("x\n" * 10)
    runtime = Runtime()
    runtime.cancel.cancel()
    out = call(READ_FILE, target, runtime, path="a.txt", start_line=5)
    assert not out.ok and "stopped" in out.content


def test_read_outside_asks_and_denial_shows_nothing(target: Target, tmp_path: Path, rt: Runtime) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("TOP SECRET\n")
    out = call(READ_FILE, target, rt, path="../../../../outside.txt")  # escapes via ..
    assert not out.ok or "TOP SECRET" not in out.content
    out = call(READ_FILE, target, rt, path=str(secret))
    assert not out.ok and "TOP SECRET" not in out.content and "did not approve" in out.content
    assert rt.asked[-1] == ("read_file", {"path": str(secret)}, f"outside the workspace: {os.path.realpath(secret)}")
    yes = Runtime(answer=True)
    assert "TOP SECRET" in call(READ_FILE, target, yes, path=str(secret)).content
    assert "nobody can approve" in call(READ_FILE, target, None, path=str(secret)).content


def test_read_symlink_inside_pointing_outside_needs_approval(
    target: Target, ws: Path, tmp_path: Path, rt: Runtime
) -> None:
    (tmp_path / "outside.txt").write_text("TOP SECRET\n")
    (ws / "link.txt").symlink_to(tmp_path / "outside.txt")
    out = call(READ_FILE, target, rt, path="link.txt")
    assert not out.ok and "TOP SECRET" not in out.content and len(rt.asked) == 1


def test_read_okbot_own_files_is_refused_even_when_approved(target: Target, ws: Path) -> None:
    paths.settings_file().write_text('{"provider.baseUrl": "SETTINGS-CANARY"}')
    target.session_path.write_text('{"id": 1, "text": "SESSION-CANARY"}\n')
    (ws / "s.json").symlink_to(paths.settings_file())
    (ws / "sess").symlink_to(target.session_path)
    yes = Runtime(answer=True)
    for raw in (
        str(paths.settings_file()),
        str(target.session_path),
        "s.json",
        "sess",
        "../session.jsonl",
        "/proc/self/environ",
    ):
        out = call(READ_FILE, target, yes, path=raw)
        assert not out.ok, raw
        assert "CANARY" not in out.content and "refused" in out.content
    assert yes.asked == []


# -- list_dir ------------------------------------------------------------------------------------
def test_list_dir_sorted_with_types_and_sizes(target: Target, ws: Path, tmp_path: Path) -> None:
    (ws / "b.txt").write_text("hello")
    (ws / "a").mkdir()
    (ws / "a" / "inner.txt").write_text("x" * 2048)
    (ws / "c-link").symlink_to(tmp_path)
    out = call(LIST_DIR, target)
    assert out.ok
    assert out.content.splitlines() == [
        "./ (3 entries, depth 1)",
        "a/  dir",
        "b.txt  file  5 B",
        f"c-link  link -> {tmp_path}",
    ]
    deep = call(LIST_DIR, target, path=".", depth=2).content.splitlines()
    assert deep[1:4] == ["a/  dir", "a/inner.txt  file  2.0 KB", "b.txt  file  5 B"]
    assert all("c-link/" not in line for line in deep)  # links are shown, never followed


def test_list_dir_caps_entries_with_a_note(target: Target, ws: Path) -> None:
    (ws / "many").mkdir()
    for i in range(620):
        (ws / "many" / f"f{i:04d}").write_bytes(b"")
    out = call(LIST_DIR, target, path="many").content.splitlines()
    assert len(out) == 1 + 500 + 1
    assert out[1].startswith("f0000") and out[500].startswith("f0499")
    assert out[-1] == "[showing 500 of 620 entries]"


def test_list_dir_does_not_descend_into_protected_folders(target: Target, tmp_path: Path) -> None:
    paths.settings_file().write_text("{}")
    yes = Runtime(answer=True)
    out = call(LIST_DIR, target, yes, path=str(tmp_path), depth=3)
    assert out.ok
    assert "okbot-home/  dir  (protected: not listed)" in out.content
    assert "settings.json" not in out.content
    assert not call(LIST_DIR, target, yes, path=str(paths.data_dir())).ok


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"depth": 0}, "between 1 and 5"),
        ({"depth": 99}, "between 1 and 5"),
        ({"depth": "deep"}, "whole number"),
        ({"path": 3}, "must be a string"),
        ({"path": "nope"}, "No such directory"),
        ({"path": "f.txt"}, "not a directory"),
    ],
)
def test_list_dir_bad_arguments(target: Target, ws: Path, args: dict[str, Any], words: str) -> None:
    (ws / "f.txt").write_text("x")
    out = LIST_DIR.run(args, ToolContext(target=target, session=None))
    assert not out.ok and words in out.content


def test_list_dir_outside_needs_approval(target: Target, tmp_path: Path, rt: Runtime) -> None:
    out = call(LIST_DIR, target, rt, path=str(tmp_path))
    assert not out.ok and len(rt.asked) == 1


# -- write_file ----------------------------------------------------------------------------------
def test_write_new_file_creating_folders(target: Target, ws: Path) -> None:
    out = call(WRITE_FILE, target, path="notes/today/todo.md", content="- one\n- two\n")
    assert out.ok and "new file" in out.content and "2 lines" in out.content
    assert (ws / "notes" / "today" / "todo.md").read_text() == "- one\n- two\n"


def test_write_replaces_atomically_and_keeps_permissions(target: Target, ws: Path) -> None:
    script = ws / "run.sh"
    script.write_text("old\n")
    script.chmod(0o750)
    out = call(WRITE_FILE, target, path="run.sh", content="echo new\n")
    assert out.ok and "replaced the old 4 bytes" in out.content
    assert script.read_text() == "echo new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert [p.name for p in ws.iterdir()] == ["run.sh"]  # no temp file left behind


def test_write_without_create_dirs_needs_the_folder(target: Target, ws: Path) -> None:
    out = call(WRITE_FILE, target, path="missing/x.txt", content="x", create_dirs=False)
    assert not out.ok and "does not exist" in out.content
    assert not (ws / "missing").exists()


def test_write_refuses_directories_and_oversize_content(target: Target, ws: Path) -> None:
    (ws / "d").mkdir()
    out = call(WRITE_FILE, target, path="d", content="x")
    assert not out.ok and "is a directory" in out.content and (ws / "d").is_dir()
    (ws / "keep.txt").write_text("precious")
    out = call(WRITE_FILE, target, path="keep.txt", content="x" * (files.WRITE_MAX_BYTES + 1))
    assert not out.ok and "at most 1,048,576 bytes" in out.content
    out = call(WRITE_FILE, target, path="keep.txt", content="é" * (files.WRITE_MAX_BYTES // 2 + 1))
    assert not out.ok and "bytes" in out.content
    assert (ws / "keep.txt").read_text() == "precious"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"content": "x"}, "'path' is missing"),
        ({"path": "a.txt"}, "'content' is missing"),
        ({"path": "a.txt", "content": 5}, "must be a string"),
        ({"path": "a.txt", "content": {"x": 1}}, "not dict"),
        ({"path": "a.txt", "content": "x", "create_dirs": "maybe"}, "true or false"),
        ({"path": "a.txt", "content": "bad \ud800 surrogate"}, "cannot encode"),
    ],
)
def test_write_bad_arguments_write_nothing(target: Target, ws: Path, args: dict[str, Any], words: str) -> None:
    out = WRITE_FILE.run(args, ToolContext(target=target, session=None))
    assert not out.ok and words in out.content
    assert list(ws.iterdir()) == []


def test_write_okbot_settings_is_refused(target: Target, ws: Path) -> None:
    paths.settings_file().write_text("{}")
    (ws / "cfg.json").symlink_to(paths.settings_file())
    yes = Runtime(answer=True)
    for raw in (str(paths.settings_file()), "cfg.json", "../../../settings.json"):
        assert not call(WRITE_FILE, target, yes, path=raw, content='{"evil": 1}').ok
    assert paths.settings_file().read_text() == "{}"
    assert not call(WRITE_FILE, target, yes, path="../assistant.json", content="{}").ok


def test_write_through_symlink_to_outside_needs_approval(target: Target, ws: Path, tmp_path: Path, rt: Runtime) -> None:
    (tmp_path / "outside.txt").write_text("original")
    (ws / "out").symlink_to(tmp_path)
    out = call(WRITE_FILE, target, rt, path="out/outside.txt", content="changed")
    assert not out.ok and len(rt.asked) == 1
    assert (tmp_path / "outside.txt").read_text() == "original"
    assert call(WRITE_FILE, target, Runtime(answer=True), path="out/outside.txt", content="changed").ok
    assert (tmp_path / "outside.txt").read_text() == "changed"
    assert (ws / "out").is_symlink()


# -- edit_file -----------------------------------------------------------------------------------
def test_edit_replaces_one_exact_match_and_shows_a_diff(target: Target, ws: Path) -> None:
    lines = [f"line {i}" for i in range(1, 21)]
    (ws / "code.py").write_text("\n".join(lines) + "\n")
    out = call(EDIT_FILE, target, path="code.py", old="line 10\nline 11", new="LINE TEN")
    assert out.ok
    assert out.content.startswith("Edited code.py: replaced 1 match at line 10")
    assert "@@ -7,8 +7,7 @@" in out.content
    assert "-line 10\n-line 11\n+LINE TEN" in out.content
    assert " line 9" in out.content and "line 1\n" not in out.content  # only a little context
    assert (ws / "code.py").read_text().count("LINE TEN") == 1
    assert "line 11" not in (ws / "code.py").read_text()


def test_edit_zero_matches_points_to_a_close_line(target: Target, ws: Path) -> None:
    (ws / "a.py").write_text("def main():\n    return compute(1)\n")
    out = call(EDIT_FILE, target, path="a.py", old="return compute(2)", new="return 3")
    assert not out.ok and "not found" in out.content and "closest line is 2" in out.content
    assert (ws / "a.py").read_text() == "def main():\n    return compute(1)\n"
    out = call(EDIT_FILE, target, path="a.py", old="zzzz qqqq", new="x")
    assert not out.ok and "not found" in out.content and "closest" not in out.content


def test_edit_ambiguous_match_lists_line_numbers(target: Target, ws: Path) -> None:
    (ws / "a.txt").write_text("x = 1\ny = 2\nx = 1\nz\nx = 1\n")
    out = call(EDIT_FILE, target, path="a.txt", old="x = 1", new="x = 9")
    assert not out.ok and "3 places" in out.content and "lines 1, 3, 5" in out.content
    assert (ws / "a.txt").read_text() == "x = 1\ny = 2\nx = 1\nz\nx = 1\n"


def test_edit_crlf_file_with_lf_old_text(target: Target, ws: Path) -> None:
    (ws / "w.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    out = call(EDIT_FILE, target, path="w.txt", old="alpha\nbeta", new="ALPHA\nBETA")
    assert out.ok
    assert (ws / "w.txt").read_bytes() == b"ALPHA\r\nBETA\r\ngamma\r\n"


def test_edit_keeps_permissions(target: Target, ws: Path) -> None:
    (ws / "s.sh").write_text("echo a\n")
    (ws / "s.sh").chmod(0o700)
    assert call(EDIT_FILE, target, path="s.sh", old="a", new="b").ok
    assert stat.S_IMODE((ws / "s.sh").stat().st_mode) == 0o700


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"path": "a.txt", "new": "x"}, "'old' is missing"),
        ({"path": "a.txt", "old": "x"}, "'new' is missing"),
        ({"path": "a.txt", "old": "", "new": "x"}, "'old' is empty"),
        ({"path": "a.txt", "old": "a", "new": "a"}, "the same"),
        ({"path": "a.txt", "old": 1, "new": "x"}, "must be a string"),
        ({"old": "a", "new": "b"}, "'path' is missing"),
        ({"path": "nope.txt", "old": "a", "new": "b"}, "write_file"),
    ],
)
def test_edit_bad_arguments_change_nothing(target: Target, ws: Path, args: dict[str, Any], words: str) -> None:
    (ws / "a.txt").write_text("abc\n")
    out = EDIT_FILE.run(args, ToolContext(target=target, session=None))
    assert not out.ok and words in out.content
    assert (ws / "a.txt").read_text() == "abc\n"


def test_edit_refuses_binary_and_protected_files(target: Target, ws: Path) -> None:
    (ws / "b.bin").write_bytes(b"ab\x00cd")
    assert "binary" in call(EDIT_FILE, target, path="b.bin", old="ab", new="x").content
    target.session_path.write_text('{"id": 1}\n')
    out = call(EDIT_FILE, target, Runtime(answer=True), path=str(target.session_path), old="1", new="2")
    assert not out.ok and "refused" in out.content
    assert target.session_path.read_text() == '{"id": 1}\n'


def test_edit_outside_denied_changes_nothing(target: Target, tmp_path: Path, rt: Runtime) -> None:
    (tmp_path / "o.txt").write_text("keep")
    out = call(EDIT_FILE, target, rt, path=str(tmp_path / "o.txt"), old="keep", new="lose")
    assert not out.ok and len(rt.asked) == 1
    assert (tmp_path / "o.txt").read_text() == "keep"


def test_edit_overlapping_matches_are_ambiguous(target: Target, ws: Path) -> None:
    (ws / "a.txt").write_text("aaa\n")
    out = call(EDIT_FILE, target, path="a.txt", old="aa", new="b")
    assert not out.ok and "2 places" in out.content
    assert (ws / "a.txt").read_text() == "aaa\n"


def test_list_dir_deep_listing_stops_at_the_cap(target: Target, ws: Path) -> None:
    for d in range(30):
        (ws / f"d{d:02d}").mkdir()
        for f in range(30):
            (ws / f"d{d:02d}" / f"f{f:02d}").write_bytes(b"x")
    out = call(LIST_DIR, target, depth=2).content.splitlines()
    assert len(out) == 1 + 500 + 1
    assert out[1] == "d00/  dir" and out[2] == "d00/f00  file  1 B"
    assert "listing stopped at 500 entries" in out[-1]


# -- links and folders swapped under the tools (issue 16, class 6) ------------------------------
RACE_TRIES = 5000
_RENAME_EXCHANGE = 2  # renameat2(2) flag: swap two names atomically
_AT_FDCWD = -100


def _exchange_function() -> Any:
    """libc's renameat2, or None (not Linux / too old a libc)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.renameat2
    except (OSError, AttributeError):
        return None


class FolderSwapper:
    """A thread that keeps exchanging ``folder`` (a real folder) and a symlink to ``protected``.

    renameat2 swaps the two names atomically, so ``folder`` always exists and a tool never finds it
    missing: every call races against the swap.
    """

    def __init__(self, folder: Path, protected: Path) -> None:
        self.folder, self.protected = folder, protected
        self.aside = folder.with_name(folder.name + ".aside")
        self.stop = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.exchange = _exchange_function()

    def _run(self) -> None:
        a, b = os.fsencode(self.folder), os.fsencode(self.aside)
        while not self.stop.is_set():
            if self.exchange(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE) == 0:
                self.swaps += 1
        if self.folder.is_symlink():  # leave the real folder in place
            self.exchange(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE)

    def __enter__(self) -> FolderSwapper:
        self.aside.symlink_to(self.protected)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


needs_exchange = pytest.mark.skipif(_exchange_function() is None, reason="needs renameat2 (Linux)")


def _session_with_canary(target: Target) -> bytes:
    target.session_path.write_text('{"id": 1, "text": "SESSION-CANARY"}\n')
    return target.session_path.read_bytes()


def test_hard_link_to_the_session_is_refused(target: Target, ws: Path) -> None:
    _session_with_canary(target)
    os.link(target.session_path, ws / "notes.jsonl")
    yes = Runtime(answer=True)
    out = call(READ_FILE, target, yes, path="notes.jsonl")
    assert not out.ok and "CANARY" not in out.content
    assert "hard link" in out.content and "OkBot's own data" in out.content
    out = call(EDIT_FILE, target, yes, path="notes.jsonl", old="SESSION", new="X")
    assert not out.ok and "hard link" in out.content
    out = call(WRITE_FILE, target, yes, path="notes.jsonl", content="X")
    assert not out.ok and "hard link" in out.content
    assert b"SESSION-CANARY" in target.session_path.read_bytes() and yes.asked == []


def test_hard_link_to_settings_outside_the_workspace_is_refused_even_when_approved(
    target: Target, tmp_path: Path
) -> None:
    paths.settings_file().write_text('{"provider.baseUrl": "SETTINGS-CANARY"}')
    os.link(paths.settings_file(), tmp_path / "copy.json")
    out = call(READ_FILE, target, Runtime(answer=True), path=str(tmp_path / "copy.json"))
    assert not out.ok and "CANARY" not in out.content and "hard link" in out.content


def test_hard_links_between_workspace_files_are_fine(target: Target, ws: Path) -> None:
    (ws / "a.txt").write_text("shared\n")
    os.link(ws / "a.txt", ws / "b.txt")
    assert call(READ_FILE, target, path="b.txt").content.endswith("shared")
    assert call(EDIT_FILE, target, path="b.txt", old="shared", new="edited").ok
    assert call(WRITE_FILE, target, path="a.txt", content="new\n").ok


@pytest.mark.slow
@needs_exchange
def test_read_never_follows_a_folder_swapped_for_a_symlink(target: Target, ws: Path) -> None:
    _session_with_canary(target)
    (ws / "folder").mkdir()
    (ws / "folder" / "session.jsonl").write_text("workspace copy\n")
    leaks = reads = 0
    with FolderSwapper(ws / "folder", target.dir) as swapper:
        for _ in range(RACE_TRIES):
            out = call(READ_FILE, target, path="folder/session.jsonl")
            leaks += "CANARY" in out.content
            reads += out.ok
    print(f"read race: {leaks} leaks, {reads} reads of the workspace copy, {swapper.swaps} swaps, {RACE_TRIES} tries")
    assert swapper.swaps > 0 and reads > 0
    assert leaks == 0


@pytest.mark.slow
@needs_exchange
def test_write_never_goes_through_a_folder_swapped_for_a_symlink(target: Target, ws: Path) -> None:
    before = _session_with_canary(target)
    (ws / "folder").mkdir()
    writes = overwrites = 0
    with FolderSwapper(ws / "folder", target.dir) as swapper:
        for i in range(RACE_TRIES):
            out = call(WRITE_FILE, target, path="folder/session.jsonl", content=f"overwritten {i}\n")
            writes += out.ok
            if target.session_path.read_bytes() != before:
                overwrites += 1
                target.session_path.write_bytes(before)
    strays = sorted(p.name for p in target.dir.iterdir() if p.name.startswith(".session.jsonl."))
    print(
        f"write race: {overwrites} overwrites of the session, {writes} writes, {swapper.swaps} swaps, "
        f"{RACE_TRIES} tries"
    )
    assert swapper.swaps > 0 and writes > 0
    assert overwrites == 0 and strays == []


class SwapWhileAsking(Runtime):
    """Says yes, and while the approval card is up replaces ``folder`` with a symlink to ``protected``."""

    def __init__(self, folder: Path, protected: Path) -> None:
        super().__init__(answer=True)
        self.folder, self.protected = folder, protected

    def approve(self, tool_name: str, args: dict[str, Any], reason: str) -> bool:
        self.folder.rename(self.folder.with_name("moved"))
        self.folder.symlink_to(self.protected)
        return super().approve(tool_name, args, reason)


@pytest.mark.skipif(not safe_open.WALKS, reason="no dir_fd support here (Windows)")
@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (READ_FILE, {"path": "folder/session.jsonl"}),
        (LIST_DIR, {"path": "folder"}),
        (WRITE_FILE, {"path": "folder/session.jsonl", "content": "overwritten"}),
        (WRITE_FILE, {"path": "folder/new/notes.md", "content": "planted"}),
        (EDIT_FILE, {"path": "folder/session.jsonl", "old": "copy", "new": "overwritten"}),
    ],
)
def test_a_folder_swapped_while_the_user_approves_is_not_followed(
    target: Target, tmp_path: Path, tool: Tool, args: dict[str, Any]
) -> None:
    before = _session_with_canary(target)
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "folder" / "session.jsonl").write_text("outside copy\n")
    rt = SwapWhileAsking(outside / "folder", target.dir)
    out = call(tool, target, rt, **{**args, "path": str(outside / args["path"])})
    assert len(rt.asked) == 1 and not out.ok
    assert "changed while it was being opened" in out.content and "now a symlink" in out.content
    assert "CANARY" not in out.content and "session.jsonl  file" not in out.content
    assert target.session_path.read_bytes() == before
    assert not (target.dir / "new").exists()
