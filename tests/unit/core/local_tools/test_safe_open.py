"""safe_open: folders reached and files opened without following a symlink anywhere on the path."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from okbot.core.local_tools import safe_open
from okbot.core.local_tools.safe_open import Folder, PathChanged, open_folder

MakeFolder = Callable[[Path], Folder]

needs_walk = pytest.mark.skipif(not safe_open.WALKS, reason="no dir_fd support here (Windows): plain paths")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


@pytest.fixture(params=["walked", "plain"])
def folder_at(request: pytest.FixtureRequest) -> MakeFolder:
    """Opens a Folder either way: walked from the root by descriptors, or on plain paths (the fallback)."""

    def make(path: Path) -> Folder:
        if request.param == "walked":
            if not safe_open.WALKS:
                pytest.skip("no dir_fd support here")
            return open_folder(path)
        return Folder(path, None)

    return make


# -- the contract both kinds keep ----------------------------------------------------------------
def test_open_lstat_names_and_replace(folder_at: MakeFolder, root: Path) -> None:
    (root / "a.txt").write_text("old")
    os.chmod(root / "a.txt", 0o640)
    with folder_at(root) as folder:
        fd = folder.open("a.txt", os.O_RDONLY)
        with os.fdopen(fd, "rb") as fh:
            assert fh.read() == b"old"
        assert folder.lstat("missing") is None
        assert stat.S_ISREG(folder.lstat("a.txt").st_mode)
        folder.replace("a.txt", b"new", 0o640)
        folder.replace("b.txt", b"fresh")
        assert sorted(folder.names(10)) == ["a.txt", "b.txt"]
        assert len(folder.names(1)) == 1
    assert (root / "a.txt").read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(root / "a.txt").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(root / "b.txt").st_mode) == safe_open.NEW_FILE_MODE
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "b.txt"]  # no temp file left


def test_replace_swaps_the_name_never_writing_through_a_hard_link(folder_at: MakeFolder, root: Path) -> None:
    (root / "kept.txt").write_text("other name")
    os.link(root / "kept.txt", root / "link.txt")
    with folder_at(root) as folder:
        folder.replace("link.txt", b"replaced")
    assert (root / "kept.txt").read_text() == "other name"
    assert (root / "link.txt").read_text() == "replaced"


def test_a_symlink_as_the_last_part_is_not_followed(folder_at: MakeFolder, root: Path) -> None:
    (root / "target.txt").write_text("secret")
    (root / "link.txt").symlink_to(root / "target.txt")
    with folder_at(root) as folder:
        assert stat.S_ISLNK(folder.lstat("link.txt").st_mode)
        assert folder.readlink("link.txt") == str(root / "target.txt")
        if hasattr(os, "O_NOFOLLOW"):  # Windows has no O_NOFOLLOW
            with pytest.raises(OSError):
                folder.open("link.txt", os.O_RDONLY)


def test_missing_folder_and_file_in_the_way(root: Path) -> None:
    (root / "file").write_text("x")
    with pytest.raises(FileNotFoundError):
        open_folder(root / "nope" / "deeper")
    with pytest.raises(NotADirectoryError):
        open_folder(root / "file")
    with pytest.raises(NotADirectoryError):
        open_folder(root / "file" / "below", create=True)


def test_create_makes_private_folders(root: Path) -> None:
    with open_folder(root / "a" / "b", create=True) as folder:
        folder.replace("x.txt", b"x")
    assert (root / "a" / "b" / "x.txt").read_bytes() == b"x"
    assert stat.S_IMODE(os.stat(root / "a").st_mode) == safe_open.PRIVATE_DIR_MODE
    assert stat.S_IMODE(os.stat(root / "a" / "b").st_mode) == safe_open.PRIVATE_DIR_MODE


# -- what only the descriptor walk guarantees ----------------------------------------------------
@needs_walk
def test_a_symlink_anywhere_on_the_path_is_refused(root: Path) -> None:
    (root / "data").mkdir()
    (root / "data" / "session.jsonl").write_text("secret")
    (root / "ws").mkdir()
    (root / "ws" / "folder").symlink_to(root / "data")  # swapped in after the guard's check
    with pytest.raises(PathChanged, match="'folder' .* is now a symlink"):
        open_folder(root / "ws" / "folder")
    with pytest.raises(PathChanged):
        open_folder(root / "ws" / "folder" / "deeper")
    with pytest.raises(PathChanged):
        open_folder(root / "ws" / "folder", create=True)
    with open_folder(root / "ws") as ws, pytest.raises(PathChanged):
        ws.open("folder", os.O_RDONLY)
    with open_folder(root / "ws") as ws, pytest.raises(PathChanged):
        ws.child("folder")
    assert sorted(p.name for p in (root / "data").iterdir()) == ["session.jsonl"]


@needs_walk
def test_a_folder_held_open_stays_the_same_folder_when_its_path_is_swapped(root: Path) -> None:
    (root / "data").mkdir()
    (root / "ws" / "folder").mkdir(parents=True)
    with open_folder(root / "ws" / "folder") as folder:
        os.rename(root / "ws" / "folder", root / "ws" / "moved")
        (root / "ws" / "folder").symlink_to(root / "data")
        folder.replace("session.jsonl", b"written")
    assert (root / "ws" / "moved" / "session.jsonl").read_bytes() == b"written"
    assert list((root / "data").iterdir()) == []


@needs_walk
def test_no_descriptor_is_left_open(root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "link").symlink_to(root / "a" / "b")
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for _ in range(50):
        with open_folder(root / "a" / "b") as folder:
            folder.names(10)
        with pytest.raises(PathChanged):
            open_folder(root / "a" / "link" / "c")
        with pytest.raises(FileNotFoundError):
            open_folder(root / "a" / "missing" / "c")
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) == before
