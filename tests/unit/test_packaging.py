"""The wheel ships every package module and every shipped resource (under okbot/resources).

Builds a real wheel with the test environment's setuptools (``--no-build-isolation``, so no
network), from a copy of the checkout: the build writes ``build/`` and ``*.egg-info`` into its
source tree, and the working tree is shared with other running tests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds and installs a real wheel

REPO_ROOT = Path(__file__).resolve().parents[2]
REQUIRED_RESOURCES = (
    "okbot/resources/templates/SOUL.md",
    "okbot/resources/models.json",
    "okbot/resources/tiktoken/o200k_base.tiktoken",
    "okbot/resources/tiktoken/cl100k_base.tiktoken",
    "okbot/resources/i18n/okbot_zh_CN.qm",  # compiled by make (the .ts is the source)
)
_SKIP = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "bench-data",
)


@pytest.fixture(scope="module")
def wheel_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A wheel freshly built from (a copy of) the checkout, and what the build printed."""
    root = tmp_path_factory.mktemp("wheel-build")
    source = root / "src"
    shutil.copytree(REPO_ROOT, source, ignore=_SKIP)
    out = root / "out"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-v",  # setuptools' own warnings are printed only then
            "-w",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"wheel build failed:\n{result.stdout}\n{result.stderr}"
    wheels = list(out.glob("okbot-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0], result.stdout + result.stderr


@pytest.fixture(scope="module")
def built_wheel(wheel_build: tuple[Path, str]) -> Path:
    return wheel_build[0]


def test_the_wheel_builds_without_setuptools_warnings(wheel_build: tuple[Path, str]) -> None:
    # e.g. "BuildBackendWarning: Package 'okbot.resources.i18n' is absent from the `packages` configuration"
    warned = [line.strip() for line in wheel_build[1].splitlines() if re.search(r"\w+Warning\b", line)]
    assert warned == []


@pytest.fixture(scope="module")
def wheel_names(built_wheel: Path) -> set[str]:
    """Names of all files inside the built wheel."""
    with zipfile.ZipFile(built_wheel) as archive:
        return set(archive.namelist())


@pytest.mark.parametrize("name", REQUIRED_RESOURCES)
def test_wheel_ships_required_resources(wheel_names: set[str], name: str) -> None:
    assert name in wheel_names


def test_wheel_ships_every_package_module(wheel_names: set[str]) -> None:
    expected = {
        path.relative_to(REPO_ROOT).as_posix()
        for path in (REPO_ROOT / "okbot").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert {"okbot/__init__.py", "okbot/core/__init__.py", "okbot/ui/__init__.py"} <= expected
    assert sorted(expected - wheel_names) == []


def test_wheel_ships_every_resource_file(wheel_names: set[str]) -> None:
    resources = REPO_ROOT / "resources"
    expected = {
        "okbot/resources/" + path.relative_to(resources).as_posix()
        for path in resources.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }
    assert sorted(expected - wheel_names) == []


def test_wheel_declares_console_script(built_wheel: Path) -> None:
    with zipfile.ZipFile(built_wheel) as archive:
        names = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        assert names, "no entry_points.txt in the wheel"
        text = archive.read(names[0]).decode("utf-8")
    assert "[console_scripts]" in text
    assert "okbot = okbot.__main__:main" in text


def test_installed_wheel_counts_exactly_offline(built_wheel: Path, tmp_path: Path) -> None:
    """Unpacked as pip installs it, away from the checkout and with no tiktoken variable, the wheel's
    own encodings give exact counts (the wheel's okbot is imported, not the checkout's)."""
    site = tmp_path / "site"
    with zipfile.ZipFile(built_wheel) as archive:
        archive.extractall(site)
    probe = (
        "import okbot; from okbot.core.tokens import TokenCounter\n"
        "c = TokenCounter('o200k_base'); ok = c.ensure_loaded(timeout=120)\n"
        "print(okbot.__file__); print(c.source); print(ok, c.count_text('hello world'))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OKBOT_TIKTOKEN", "TIKTOKEN", "DATA_GYM"))}
    env.update(PYTHONPATH=str(site), OKBOT_HOME=str(tmp_path / "home"), TIKTOKEN_CACHE_DIR="")
    result = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r})\n{probe}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    module, source, counted = result.stdout.splitlines()
    assert Path(module).is_relative_to(site)
    assert Path(source) == site / "okbot" / "resources" / "tiktoken" / "o200k_base.tiktoken"
    assert counted == "True 2"


def test_wheel_has_no_tests_or_tooling(wheel_names: set[str]) -> None:
    top_level = {name.split("/")[0] for name in wheel_names}
    assert {n for n in top_level if not n.endswith(".dist-info")} == {"okbot"}


def test_installed_wheel_speaks_chinese_without_qt(built_wheel: Path, tmp_path: Path) -> None:
    """The wheel's own catalogue, read by the core without Qt: a message comes out in Chinese."""
    site = tmp_path / "site"
    with zipfile.ZipFile(built_wheel) as archive:
        archive.extractall(site)
    probe = (
        "import okbot, okbot.i18n as i\n"
        "print(i.set_language('zh_CN')); print(i.catalogue_file('zh_CN'))\n"
        "print(len(i.read_catalogue(i.catalogue_file('zh_CN').read_bytes())))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(site), OKBOT_HOME=str(tmp_path / "home"))
    result = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r})\n{probe}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    code, path, count = result.stdout.splitlines()
    assert code == "zh_CN" and Path(path) == site / "okbot" / "resources" / "i18n" / "okbot_zh_CN.qm"
    assert int(count) > 500
