"""Layering rules: only okbot/ui touches Qt, and the Qt-free core never reaches into the UI.

The static check parses every module (imports at any depth, including inside functions and
``importlib.import_module("...")`` calls with a literal name). A runtime check then imports every
non-UI module in a fresh interpreter and makes sure no Qt binding got loaded transitively; each
module that says it is Qt-free (its docstring: "Qt-free", "no Qt", "without Qt"), wherever it lives,
and each Qt-free helper moved out of ``okbot/ui`` is imported alone and must leave Qt unloaded.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = REPO_ROOT / "okbot"
QT_ROOTS = ("PySide6", "shiboken6")
# Packages that must stay importable without the UI (and without Qt).
UI_FREE_PACKAGES = ("okbot.storage", "okbot.core", "okbot.config", "okbot.llm")
# The layers, bottom first: a layer may import the layers below it, never one above.
LAYERS = ("okbot.storage", "okbot.config", "okbot.llm", "okbot.core")
# What a docstring says when it promises its module loads no Qt.
QT_FREE_CLAIM = re.compile(r"\bQt-free\b|\bno Qt\b|\bwithout Qt\b", re.IGNORECASE)
# Qt-free helpers that once lived under okbot/ui (where importing them loaded the chat view).
MOVED_FROM_UI = ("okbot.core.roster", "okbot.core.chat_text", "okbot.core.render")
# Packages whose __init__ hands out Qt classes (loaded on use): only UI modules may import those names.
QT_PACKAGES = ("okbot.ui.chat",)


def module_name(path: Path) -> str:
    """Dotted module name of a file under okbot/ (``okbot/core/__init__.py`` -> ``okbot.core``)."""
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, *, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """Yield ``(line, absolute module name)`` for every import in ``source``, at any nesting depth.

    Relative imports are resolved against ``module``; ``from a import b`` yields both ``a`` and
    ``a.b`` (``b`` may be a submodule). Literal ``importlib.import_module``/``__import__`` calls count.
    """
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                yield node.lineno, node.args[0].value


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in {"__import__", "import_module"}
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def _is_within(name: str, roots: tuple[str, ...]) -> bool:
    return any(name == root or name.startswith(root + ".") for root in roots)


def violations(path: Path, forbidden: tuple[str, ...]) -> list[str]:
    """Imports in ``path`` that fall under any of the ``forbidden`` module roots."""
    source = path.read_text(encoding="utf-8")
    name = module_name(path)
    found = {
        (line, imported)
        for line, imported in imported_modules(source, name, is_package=path.name == "__init__.py")
        if _is_within(imported, forbidden)
    }
    return [f"{path.relative_to(REPO_ROOT)}:{line} imports {imported}" for line, imported in sorted(found)]


def okbot_sources() -> list[Path]:
    return sorted(p for p in PACKAGE_DIR.rglob("*.py") if "__pycache__" not in p.parts)


def claims_qt_free(source: str) -> bool:
    """Whether a module's docstring says it loads no Qt."""
    return bool(QT_FREE_CLAIM.search(ast.get_docstring(ast.parse(source)) or ""))


def qt_free_claimants() -> list[str]:
    """The modules under okbot/ whose docstring says they are Qt-free."""
    return [module_name(p) for p in okbot_sources() if claims_qt_free(p.read_text(encoding="utf-8"))]


def qt_loaded_by(module: str, name: str = "") -> list[str]:
    """The Qt modules a fresh interpreter holds after importing ``module`` alone (and using ``name`` of it)."""
    script = textwrap.dedent(
        """
        import importlib, sys
        module = importlib.import_module(sys.argv[1])
        if sys.argv[2:]:
            getattr(module, sys.argv[2])
        print("\\n".join(sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6"))))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script, module, *([name] if name else [])],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


# --- the checker itself must catch what it is meant to catch ------------------------------------


@pytest.mark.parametrize(
    "snippet",
    [
        "import PySide6",
        "import PySide6.QtCore as qc",
        "from PySide6 import QtWidgets",
        "from PySide6.QtCore import QObject, Signal",
        "import shiboken6",
        "def later():\n    from PySide6.QtGui import QColor\n    return QColor",
        "class A:\n    def m(self):\n        if True:\n            import PySide6.QtWidgets",
        "try:\n    import PySide6\nexcept ImportError:\n    pass",
        "import importlib\nimportlib.import_module('PySide6.QtCore')",
        "__import__('PySide6')",
    ],
)
def test_checker_finds_qt_imports_at_any_depth(snippet: str) -> None:
    found = [n for _, n in imported_modules(snippet, "okbot.core.x") if _is_within(n, QT_ROOTS)]
    assert found, snippet


@pytest.mark.parametrize(
    ("snippet", "module", "is_package"),
    [
        ("import okbot.ui.app", "okbot.core.x", False),
        ("from okbot.ui import app", "okbot.core.x", False),
        ("from okbot import ui", "okbot.core.x", False),
        ("from ..ui import main_window", "okbot.core.x", False),
        ("from .. import ui", "okbot.config.x", False),
        ("from ...ui.app import run_gui", "okbot.core.sub.x", False),
        ("from ..ui import app", "okbot.core", True),
        ("def f():\n    from okbot.ui.app import run_gui", "okbot.core.x", False),
    ],
)
def test_checker_resolves_ui_imports(snippet: str, module: str, is_package: bool) -> None:
    found = [n for _, n in imported_modules(snippet, module, is_package=is_package) if _is_within(n, ("okbot.ui",))]
    assert found, snippet


@pytest.mark.parametrize(
    "snippet",
    [
        "import okbot.uikit",  # a different package that merely shares the prefix
        "from okbot.core import items",
        "from . import ui_helpers",
        "text = 'import PySide6'",  # strings and comments are not imports
        "# from PySide6 import QtCore",
    ],
)
def test_checker_ignores_lookalikes(snippet: str) -> None:
    found = [n for _, n in imported_modules(snippet, "okbot.core.x") if _is_within(n, QT_ROOTS + ("okbot.ui",))]
    assert not found, snippet


# --- the rules, applied to the real tree ---------------------------------------------------------


def test_every_module_parses() -> None:
    sources = okbot_sources()
    assert sources, "no modules found under okbot/"
    for path in sources:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_only_ui_imports_qt() -> None:
    ui_dir = PACKAGE_DIR / "ui"
    problems = [
        problem for path in okbot_sources() if ui_dir not in path.parents for problem in violations(path, QT_ROOTS)
    ]
    assert not problems, "PySide6 may only be imported under okbot/ui:\n" + "\n".join(problems)


@pytest.mark.parametrize("package", UI_FREE_PACKAGES)
def test_core_layers_do_not_import_ui(package: str) -> None:
    pkg_dir = REPO_ROOT.joinpath(*package.split("."))
    problems = [
        problem for path in okbot_sources() if pkg_dir in path.parents for problem in violations(path, ("okbot.ui",))
    ]
    assert not problems, f"{package} must not import okbot.ui:\n" + "\n".join(problems)


@pytest.mark.parametrize("layer", LAYERS)
def test_layers_point_one_way(layer: str) -> None:
    """storage -> config -> llm -> core -> ui / cli: nothing imports a layer above its own."""
    above = LAYERS[LAYERS.index(layer) + 1 :] + ("okbot.ui", "okbot.cli", "okbot.cli_chat", "okbot.logs")
    layer_dir = REPO_ROOT.joinpath(*layer.split("."))
    problems = [problem for path in okbot_sources() if layer_dir in path.parents for problem in violations(path, above)]
    assert not problems, f"{layer} may import only the layers below it:\n" + "\n".join(problems)


def test_non_ui_modules_load_no_qt_at_runtime() -> None:
    """Importing every Qt-free module must not pull in Qt through some transitive import."""
    modules = [
        module_name(path)
        for path in okbot_sources()
        if any(module_name(path) == pkg or module_name(path).startswith(pkg + ".") for pkg in UI_FREE_PACKAGES)
    ]
    script = textwrap.dedent(
        """
        import importlib, sys
        for name in sys.argv[1:]:
            importlib.import_module(name)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in {"PySide6", "shiboken6", "okbot"}
                        and (m.split(".")[0] != "okbot" or m == "okbot.ui" or m.startswith("okbot.ui.")))
        print("\\n".join(loaded))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script, *modules],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", "non-UI modules loaded:\n" + result.stdout


@pytest.mark.parametrize(
    ("docstring", "claims"),
    [
        ('"""Pure text helpers. No Qt here."""', True),
        ('"""It is blocking and Qt-free: run it on a worker."""', True),
        ('"""Every subcommand runs without Qt."""', True),
        ('"""The chat view (PySide6)."""', False),
        ('"""Plain Python."""\nX = "Qt-free"  # not the docstring', False),
    ],
)
def test_qt_free_claims_are_read_from_docstrings(docstring: str, claims: bool) -> None:
    assert claims_qt_free(docstring) is claims


def test_the_claimants_include_the_ones_that_live_under_ui() -> None:
    claimants = qt_free_claimants()
    assert {"okbot.app.context_view", "okbot.ui.chat.heights", "okbot.core.roster"} <= set(claimants)


@pytest.mark.parametrize("module", sorted({*qt_free_claimants(), *MOVED_FROM_UI}))
def test_a_module_that_says_it_is_qt_free_loads_no_qt(module: str) -> None:
    """Imported alone (its packages' __init__ included), it must not load Qt, not even transitively."""
    assert qt_loaded_by(module) == [], f"{module} says it is Qt-free but loads Qt"


def test_the_chat_view_package_loads_qt_for_ui_modules_only() -> None:
    """``okbot.ui.chat`` hands out the view (Qt): a Qt-free module never asks it, nor any Qt package."""
    claimants = set(qt_free_claimants())
    problems = [
        problem
        for path in okbot_sources()
        if module_name(path) in claimants or (PACKAGE_DIR / "ui") not in path.parents
        for problem in violations(path, tuple(f"{pkg}.{name}" for pkg in QT_PACKAGES for name in _qt_names(pkg)))
    ]
    assert not problems, "only UI modules may use the Qt packages' view classes:\n" + "\n".join(problems)
    assert "PySide6.QtWidgets" in qt_loaded_by("okbot.ui.chat", "ChatView")  # the view is Qt, loaded on use


def _qt_names(package: str) -> list[str]:
    """The names a Qt package's __init__ hands out (its ``__all__``), read without importing it."""
    init = REPO_ROOT.joinpath(*package.split("."), "__init__.py")
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return []
