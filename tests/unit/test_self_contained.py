"""A clone of this repository sets itself up alone: nothing it runs names a path outside it.

The tests, the Makefile, CI, packaging, the scripts and the benchmarks once took files from a folder
beside the checkout (a ``shared`` folder), which only the team's machines have; a user's clone failed 47
tests. Two rules keep that from coming back:

- build and CI files (Makefile, ``.ci/``, ``packaging/`` outside Python, shell scripts) never write
  ``../``;
- Python files never climb above the repository: ``Path(__file__)...parents[N]`` and ``.parent``
  chains stay inside it, a repository-root name is never followed by ``.parent``, and no string
  names the team's ``shared`` folder.

Strings such as ``"../../etc/passwd"`` in tests are hostile *inputs* to the path guard, not paths
the suite reads, so Python string literals are judged only by the ``shared`` rule.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOT_NAMES = {"REPO", "REPO_ROOT", "ROOT"}
SHARED_PATH = re.compile(r"(^|[/\\])shared[/\\](tiktoken|tools|hooks)|\.\./shared")
TEAM = "shared"  # spelled through a name in the examples below, so no grep for the folder finds this file


def tracked(*patterns: str) -> list[Path]:
    """Files git tracks under ``patterns`` (a clone holds exactly these)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", *patterns], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    return [REPO / name for name in out.split("\0") if name]


def build_files() -> list[Path]:
    files = tracked("Makefile", ".ci", "packaging", "scripts", "pyproject.toml", "resources/desktop")
    return [f for f in files if f.suffix not in {".py", ".png", ".svg", ".md"}]


def python_files() -> list[Path]:
    files = tracked("okbot", "tests", "benchmarks", "scripts", "packaging")
    return [f for f in files if f.suffix in {".py", ".spec"}]


def _depth(path: Path) -> int:
    """How many ``.parent`` steps lead from ``path`` to the repository root."""
    return len(path.relative_to(REPO).parts)


def _escapes(node: ast.AST, depth: int) -> str | None:
    """Why ``node`` reaches above the repository, or ``None``.

    ``depth`` is the number of parents from the file to the repository root; ``Path(__file__)``
    (with ``.resolve()`` / ``.absolute()``) starts at 0 parents climbed.
    """
    climbed = 0
    current = node
    while True:
        if isinstance(current, ast.Subscript) and isinstance(current.value, ast.Attribute):
            if current.value.attr == "parents" and isinstance(current.slice, ast.Constant):
                climbed += int(current.slice.value) + 1
                current = current.value.value
                continue
        if isinstance(current, ast.Attribute) and current.attr == "parent":
            climbed += 1
            current = current.value
            continue
        if isinstance(current, ast.Call) and isinstance(current.func, ast.Attribute):
            if current.func.attr in {"resolve", "absolute"}:
                current = current.func.value
                continue
        break
    if isinstance(current, ast.Name) and current.id in ROOT_NAMES and climbed:
        return f"{current.id} followed by .parent"
    is_file = isinstance(current, ast.Call) and isinstance(current.func, ast.Name) and current.func.id == "Path"
    is_file = is_file and any(isinstance(a, ast.Name) and a.id == "__file__" for a in current.args)
    if is_file and climbed > depth:
        return f"climbs {climbed} levels from a file {depth} below the repository root"
    return None


def outside_references(path: Path) -> list[str]:
    """Every place in a Python file that reaches outside the repository."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SHARED_PATH.search(node.value):
            found.append(f"{path.relative_to(REPO)}:{node.lineno} names the shared folder: {node.value[:60]!r}")
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            why = _escapes(node, _depth(path))
            if why:
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {why}")
    return found


def test_build_and_ci_files_name_no_path_outside_the_repository() -> None:
    files = build_files()
    assert REPO / "Makefile" in files and REPO / ".ci" / "run" in files
    found = [
        f"{f.relative_to(REPO)}:{n}: {line.strip()}"
        for f in files
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1)
        if "../" in line or SHARED_PATH.search(line)
    ]
    assert found == []


def test_python_files_never_climb_above_the_repository() -> None:
    files = python_files()
    assert REPO / "tests" / "conftest.py" in files and REPO / "packaging" / "build.py" in files
    found = [ref for f in files for ref in outside_references(f)]
    assert found == []


@pytest.mark.parametrize(
    ("source", "relative", "expected"),
    [
        ('Path(__file__).resolve().parents[2] / "x"', "tests/unit/t.py", None),
        (f'Path(__file__).resolve().parents[3] / "{TEAM}"', "tests/unit/t.py", "climbs 4 levels"),
        ("Path(__file__).parent.parent.parent", "tests/t.py", "climbs 3 levels"),
        (f'REPO.parent / "{TEAM}" / "tiktoken"', "benchmarks/common.py", "REPO followed by .parent"),
        ("REPO_ROOT.parent", "tests/conftest.py", "REPO_ROOT followed by .parent"),
        (f'os.environ.setdefault("X", "../{TEAM}/tiktoken")', "tests/conftest.py", "names the shared folder"),
        ('check_path(target, "../../etc/passwd")', "tests/unit/t.py", None),
    ],
)
def test_the_rules_catch_what_they_are_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, relative: str, expected: str | None
) -> None:
    """The checks above can fail: each spelling that once broke a clone is caught, inputs are not."""
    fake_repo = tmp_path / "repo"
    path = fake_repo / relative
    path.parent.mkdir(parents=True)
    path.write_text(f"{source}\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "REPO", fake_repo)
    found = outside_references(path)
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and expected in found[0]
