"""The shared path guard: workspace, resolution of `..`/symlinks, protected paths, approval."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from okbot.core.local_tools import guard
from okbot.core.local_tools.guard import PathCheck, allowed, check_path, protected, protected_link, workspace_dir
from okbot.core.tools import ToolContext
from okbot.core.workspace import Target, Workspace
from okbot.llm.provider import CancelToken
from okbot.storage import paths


class Runtime:
    """A stand-in for the running turn: the contract (approve / cancel / progress), not our code."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[tuple[str, dict[str, Any], str]] = []
        self.cancel = CancelToken()
        self.lines: list[str] = []

    def approve(self, tool_name: str, args: dict[str, Any], reason: str) -> bool:
        self.asked.append((tool_name, args, reason))
        return self.answer

    def progress(self, tool_name: str, call_id: str, text: str) -> None:
        self.lines.append(text)


@pytest.fixture
def target() -> Target:
    return Workspace().create_assistant("Ann")


@pytest.fixture
def ws(target: Target) -> Path:
    return Path(os.path.realpath(workspace_dir(target)))


# -- workspace_dir -------------------------------------------------------------------------------
def test_default_workspace_is_created_private_under_the_assistant(target: Target) -> None:
    path = workspace_dir(target)
    assert path == paths.data_dir() / "assistants" / target.id / "workspace"
    assert path.is_dir()
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_custom_workspace_from_assistant_json(target: Target, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target.meta["workspace"] = str(tmp_path / "proj")
    assert workspace_dir(target) == tmp_path / "proj"
    assert (tmp_path / "proj").is_dir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    target.meta["workspace"] = "~/work"
    assert workspace_dir(target) == tmp_path / "home" / "work"


@pytest.mark.parametrize("bad", ["relative/dir", "", 42, None, "a\x00b"])
def test_unusable_custom_workspace_falls_back_to_default(target: Target, bad: Any) -> None:
    target.meta["workspace"] = bad
    assert workspace_dir(target) == target.dir / "workspace"


# -- check_path ----------------------------------------------------------------------------------
def test_relative_path_is_inside(target: Target, ws: Path) -> None:
    check = check_path(target, "notes/a.txt")
    assert check == PathCheck(ws / "notes" / "a.txt", True, "")


def test_dotdot_escaping_the_workspace_is_outside(target: Target, ws: Path, tmp_path: Path) -> None:
    check = check_path(target, "../../../../outside.txt")
    assert not check.inside
    assert ".." not in check.path.parts
    check = check_path(target, "sub/../../x")
    assert check.path == ws.parent / "x" and not check.inside
    assert check_path(target, "sub/../ok.txt").inside


def test_symlink_inside_pointing_outside_is_outside(target: Target, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    (ws / "link").symlink_to(outside)
    (ws / "filelink").symlink_to(outside / "secret.txt")
    check = check_path(target, "link/secret.txt")
    assert check.path == Path(os.path.realpath(outside / "secret.txt"))
    assert not check.inside and not check.refused
    assert not check_path(target, "filelink").inside


def test_symlink_outside_pointing_inside_is_inside(target: Target, ws: Path, tmp_path: Path) -> None:
    (ws / "real.txt").write_text("x")
    (tmp_path / "to_ws").symlink_to(ws)
    assert check_path(target, str(tmp_path / "to_ws" / "real.txt")).inside


def test_absolute_and_home_paths(target: Target, ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_path(target, str(ws / "a")).inside
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    check = check_path(target, "~/a.txt")
    assert check.path == Path(os.path.realpath(tmp_path / "h" / "a.txt")) and not check.inside


def test_relative_to_cwd(target: Target, tmp_path: Path) -> None:
    check = check_path(target, "x.txt", cwd=tmp_path)
    assert check.path == Path(os.path.realpath(tmp_path / "x.txt")) and not check.inside


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("a\x00b", "NUL"),
        ("", "empty"),
        ("   ", "empty"),
        (123, "string"),
        (None, "string"),
        (["a"], "string"),
        ("a" * 5000, "long"),
    ],
)
def test_bad_raw_paths_are_refused(target: Target, raw: Any, reason: str) -> None:
    check = check_path(target, raw)
    assert reason in check.refused
    assert not check.inside


def test_dangling_symlink_loop_does_not_raise(target: Target, ws: Path) -> None:
    (ws / "a").symlink_to(ws / "b")
    (ws / "b").symlink_to(ws / "a")
    check = check_path(target, "a")  # never raises; judged on what it resolves to
    assert isinstance(check, PathCheck)


# -- protected -----------------------------------------------------------------------------------
def test_okbot_settings_and_session_are_protected(target: Target) -> None:
    settings = paths.settings_file()
    settings.write_text("{}")
    assert "OkBot's own data" in protected(settings)
    assert protected(target.session_path)
    assert protected(target.dir)
    assert protected(paths.data_dir())
    assert protected(target.meta_path)
    assert check_path(target, str(settings)).refused
    assert check_path(target, "../session.jsonl").refused
    assert check_path(target, "../../../settings.json").refused


def test_protected_via_symlink_in_the_workspace(target: Target, ws: Path) -> None:
    paths.settings_file().write_text("{}")
    (ws / "innocent.json").symlink_to(paths.settings_file())
    (ws / "home").symlink_to(paths.data_dir())
    assert check_path(target, "innocent.json").refused
    assert check_path(target, "home/settings.json").refused
    assert protected(ws / "innocent.json")


def test_data_dir_reached_through_a_symlinked_parent(target: Target, tmp_path: Path) -> None:
    (tmp_path / "alias").symlink_to(paths.data_dir())
    assert protected(tmp_path / "alias" / "settings.json")


def test_workspace_folders_are_not_protected(target: Target, ws: Path) -> None:
    other = Workspace().create_assistant("Bob")
    assert protected(ws) == ""
    assert protected(ws / "deep" / "file.txt") == ""
    assert protected(workspace_dir(other) / "x") == ""
    assert not check_path(target, str(workspace_dir(other) / "x")).inside  # another's workspace is outside


def test_proc_environ_and_mem_are_protected(target: Target) -> None:
    for raw in ("/proc/self/environ", "/proc/self/mem", f"/proc/{os.getpid()}/environ", "/proc/self/task/../environ"):
        assert "environment or memory" in protected(Path(raw)), raw
        assert check_path(target, raw).refused
    assert protected(Path("/proc/self/status")) == ""


def test_tiktoken_config_and_keyring_files_are_protected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKBOT_TIKTOKEN_DIR", str(tmp_path / "tk"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    assert "tokenizer" in protected(tmp_path / "tk" / "o200k_base.tiktoken")
    assert "keyring" in protected(tmp_path / "xdg-data" / "python_keyring" / "keyring_pass.cfg")
    assert "keyring" in protected(tmp_path / "xdg-data" / "keyrings" / "login.keyring")
    assert "configuration" in protected(tmp_path / "xdg-config" / "okbot" / "x.json")
    assert protected(tmp_path / "xdg-data" / "other" / "file") == ""
    assert protected(tmp_path / "tkx") == ""  # a sibling whose name merely starts the same


# -- protected_link (hard links) ------------------------------------------------------------------
def test_hard_link_to_the_session_or_settings_is_protected(target: Target, ws: Path, tmp_path: Path) -> None:
    target.session_path.write_text("{}\n")
    paths.settings_file().write_text("{}")
    os.link(target.session_path, ws / "notes.jsonl")
    os.link(paths.settings_file(), tmp_path / "copy.json")
    assert check_path(target, "notes.jsonl").refused == ""  # its path says nothing about its other name
    session = os.path.realpath(target.session_path)
    assert protected_link(os.stat(ws / "notes.jsonl")) == f"it is another name for {session} ({guard.DATA_REASON})"
    assert guard.DATA_REASON in protected_link(os.stat(tmp_path / "copy.json"))
    assert guard.DATA_REASON in protected_link(os.stat(target.session_path))  # either name is the same file


def test_hard_link_to_a_keyring_file_is_protected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    keyring = tmp_path / "xdg-data" / "python_keyring"
    keyring.mkdir(parents=True)
    (keyring / "keyring_pass.cfg").write_text("[okbot]\n")
    os.link(keyring / "keyring_pass.cfg", tmp_path / "innocent.txt")
    assert "keyring" in protected_link(os.stat(tmp_path / "innocent.txt"))


def test_single_links_and_links_between_workspace_files_are_not_protected(target: Target, ws: Path) -> None:
    target.session_path.write_text("{}\n")
    (ws / "a.txt").write_text("a")
    assert protected_link(os.stat(ws / "a.txt")) == ""
    os.link(ws / "a.txt", ws / "b.txt")
    other = workspace_dir(Workspace().create_assistant("Bob"))
    os.link(ws / "a.txt", other / "c.txt")  # another assistant's workspace is not OkBot's data either
    assert protected_link(os.stat(ws / "b.txt")) == ""
    assert protected_link(os.stat(ws)) == ""  # not a regular file


def test_too_many_protected_files_to_search_is_a_refusal(
    target: Target, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "a.txt").write_text("a")
    os.link(ws / "a.txt", ws / "b.txt")
    monkeypatch.setattr(guard, "LINK_SCAN_LIMIT", 1)
    assert "too many files to make sure none is one" in protected_link(os.stat(ws / "b.txt"))


# -- allowed -------------------------------------------------------------------------------------
def _ctx(target: Target, runtime: Any = None) -> ToolContext:
    return ToolContext(target=target, session=None, runtime=runtime, call_id="c1")


def test_inside_needs_no_approval(target: Target) -> None:
    rt = Runtime(answer=False)
    assert allowed(_ctx(target, rt), "read_file", {"path": "a"}, check_path(target, "a")) == ""
    assert rt.asked == []


def test_outside_asks_the_user_for_this_call(target: Target, tmp_path: Path) -> None:
    rt = Runtime(answer=True)
    args = {"path": str(tmp_path / "x")}
    check = check_path(target, args["path"])
    assert allowed(_ctx(target, rt), "read_file", args, check) == ""
    assert rt.asked == [("read_file", args, f"outside the workspace: {check.path}")]


def test_outside_denied_or_nobody_there(target: Target, tmp_path: Path) -> None:
    check = check_path(target, str(tmp_path / "x"))
    denied = allowed(_ctx(target, Runtime(answer=False)), "write_file", {}, check)
    assert "did not approve" in denied and str(check.path) in denied
    alone = allowed(_ctx(target, None), "write_file", {}, check)
    assert "outside the workspace" in alone and "nobody can approve" in alone
    assert allowed(_ctx(target, object()), "write_file", {}, check)  # a runtime without approve()


def test_protected_is_refused_without_asking(target: Target) -> None:
    rt = Runtime(answer=True)
    text = allowed(_ctx(target, rt), "read_file", {}, check_path(target, "/proc/self/environ"))
    assert "refused" in text and rt.asked == []


def test_approval_that_breaks_is_a_no(target: Target, tmp_path: Path) -> None:
    class Broken(Runtime):
        def approve(self, tool_name: str, args: dict[str, Any], reason: str) -> bool:
            raise RuntimeError("card vanished")

    assert allowed(_ctx(target, Broken()), "read_file", {}, check_path(target, str(tmp_path)))


def test_approval_answered_after_stop_does_not_run(target: Target, tmp_path: Path) -> None:
    class StoppedWhileAsking(Runtime):
        def approve(self, tool_name: str, args: dict[str, Any], reason: str) -> bool:
            self.cancel.cancel()  # the user pressed Stop, then the card said yes
            return True

    text = allowed(_ctx(target, StoppedWhileAsking()), "read_file", {}, check_path(target, str(tmp_path)))
    assert "stopped" in text


def test_module_exposes_the_documented_api() -> None:
    for name in ("workspace_dir", "PathCheck", "check_path", "protected", "protected_link", "allowed"):
        assert hasattr(guard, name)
