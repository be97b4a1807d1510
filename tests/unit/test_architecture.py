"""Layering rules: only okbot/ui touches Qt, and the Qt-free core never reaches into the UI.

The static check parses every module (imports at any depth, including inside functions and
``importlib.import_module("...")`` calls with a literal name). A runtime check then imports every
non-UI module in a fresh interpreter and makes sure no Qt binding got loaded transitively; each
module that says it is Qt-free (its docstring: "Qt-free", "no Qt", "without Qt"), wherever it lives,
and each Qt-free helper moved out of ``okbot/ui`` is imported alone and must leave Qt unloaded.

The imports are read by ``scripts/import_graph.py`` (loaded here from its file), which also finds the
import cycles: there must be none, counting imports inside functions and under ``TYPE_CHECKING``.
Every top-level module and package of okbot has a place in :data:`LAYERS`.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = REPO_ROOT / "okbot"
QT_ROOTS = ("PySide6", "shiboken6")
# Every top-level module and package of okbot, bottom layer first. A module may import its own entry
# and the layers below its own, never a layer above, nor another entry of its own layer (the front-ends
# never import each other). An entry covers a module or package (``okbot.storage`` holds its package;
# ``okbot.cli*`` every ``okbot/cli*.py``); the most specific entry places a module; ``okbot`` is the
# package's own ``__init__`` only.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("okbot",),  # the version, nothing else
    ("okbot.storage.paths",),  # every path; imports nothing of ours
    ("okbot.i18n",),  # translate(): storage's own errors speak the user's language
    ("okbot.storage",),
    ("okbot.config",),
    ("okbot.llm",),
    ("okbot.mcp",),  # MCP servers' tools: config, llm's key redaction, storage; core offers the tools
    ("okbot.core",),
    ("okbot.logs",),  # the front-ends' log and crash reports, scrubbed with llm's redaction
    ("okbot.app",),  # the application layer the front-ends share (no Qt)
    ("okbot.ui", "okbot.cli*"),  # the front-ends
    ("okbot.__main__",),  # starts one front-end
)
# Everything but the Qt front-end and the entry point that may start it: importable without Qt.
UI_FREE_LAYERS = tuple(entry for layer in LAYERS for entry in layer if entry not in {"okbot.ui", "okbot.__main__"})
# What a docstring says when it promises its module loads no Qt.
QT_FREE_CLAIM = re.compile(r"\bQt-free\b|\bno Qt\b|\bwithout Qt\b", re.IGNORECASE)
# Qt-free helpers that once lived under okbot/ui (where importing them loaded the chat view).
MOVED_FROM_UI = ("okbot.core.roster", "okbot.core.chat_text", "okbot.core.render")
# Packages whose __init__ hands out Qt classes (loaded on use): only UI modules may import those names.
QT_PACKAGES = ("okbot.ui.chat",)


def _load_import_graph() -> ModuleType:
    """``scripts/import_graph.py`` (scripts/ is no package): the one reader of imports, shared with the script."""
    spec = importlib.util.spec_from_file_location("okbot_import_graph", REPO_ROOT / "scripts" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


import_graph = _load_import_graph()


def module_name(path: Path) -> str:
    """Dotted module name of a file under okbot/ (``okbot/core/__init__.py`` -> ``okbot.core``)."""
    return import_graph.module_name(path, REPO_ROOT)


def imported_modules(source: str, module: str, *, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """Yield ``(line, absolute module name)`` for every import in ``source``, at any nesting depth.

    Relative imports are resolved against ``module``; ``from a import b`` yields both ``a`` and
    ``a.b`` (``b`` may be a submodule). Literal ``importlib.import_module``/``__import__`` calls count.
    """
    for found in import_graph.imports(source, module, is_package=is_package):
        yield found.line, found.module
        for name in found.names:
            yield found.line, f"{found.module}.{name}"


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
    return sorted(import_graph.sources(REPO_ROOT).values())


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


def _covers(entry: str, module: str) -> bool:
    if entry.endswith("*"):
        return module.startswith(entry[:-1])
    return module == entry or (entry != "okbot" and module.startswith(entry + "."))


def placement(module: str) -> tuple[int, str] | None:
    """``(layer index, entry)`` of the most specific entry of :data:`LAYERS` covering ``module``."""
    found = [
        (len(entry), index, entry) for index, layer in enumerate(LAYERS) for entry in layer if _covers(entry, module)
    ]
    if not found:
        return None
    _, index, entry = max(found)
    return index, entry


def layer_problems(edges: dict[str, dict[str, list[int]]]) -> list[str]:
    """Each import that points at a layer above its module's, or at another entry of the same layer."""
    problems = []
    for module, targets in sorted(edges.items()):
        here = placement(module)
        for target, lines in sorted(targets.items()):
            there = placement(target)
            if here is None or there is None or there[1] == here[1] or there[0] < here[0]:
                continue
            where = "a layer above" if there[0] > here[0] else "a peer"
            problems.append(f"{module}:{lines[0]} imports {target} ({where}: {here[1]} -> {there[1]})")
    return problems


@pytest.mark.parametrize(
    ("module", "entry"),
    [
        ("okbot", "okbot"),
        ("okbot.storage.paths", "okbot.storage.paths"),
        ("okbot.storage.errors", "okbot.storage"),
        ("okbot.core.compression.compressor", "okbot.core"),
        ("okbot.cli", "okbot.cli*"),
        ("okbot.cli.mcp", "okbot.cli*"),
        ("okbot.ui.chat.view", "okbot.ui"),
        ("okbot.app.chat", "okbot.app"),
        ("okbot.newthing", None),  # the package's own entry covers its __init__ only
    ],
)
def test_the_layers_place_modules_by_their_most_specific_entry(module: str, entry: str | None) -> None:
    found = placement(module)
    assert (found[1] if found else None) == entry


def test_the_layer_check_catches_upward_and_sideways_imports() -> None:
    edges = {
        "okbot.storage.errors": {"okbot.i18n": [5]},  # down: fine
        "okbot.i18n": {"okbot.storage.atomic": [9]},  # up: storage sits above i18n
        "okbot.core.x": {"okbot.mcp.hub": [3], "okbot.app.y": [4]},
        "okbot.ui.z": {"okbot.cli.chat": [7]},  # front-ends never import each other
        "okbot.cli": {"okbot.cli.chat": [2]},  # one entry
    }
    assert layer_problems(edges) == [
        "okbot.core.x:4 imports okbot.app.y (a layer above: okbot.core -> okbot.app)",
        "okbot.i18n:9 imports okbot.storage.atomic (a layer above: okbot.i18n -> okbot.storage)",
        "okbot.ui.z:7 imports okbot.cli.chat (a peer: okbot.ui -> okbot.cli*)",
    ]


def test_every_top_level_module_and_package_has_a_layer() -> None:
    """A new top-level module or package fails here until LAYERS places it."""
    tops = sorted(
        module_name(path)
        for path in PACKAGE_DIR.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
    )
    assert tops, "no modules found under okbot/"
    unplaced = [name for name in tops if placement(name) is None]
    assert not unplaced, "no layer places " + ", ".join(unplaced) + ": add it to LAYERS"


def test_every_layer_names_modules_that_exist() -> None:
    modules = set(import_graph.sources(REPO_ROOT))
    stale = [entry for layer in LAYERS for entry in layer if not any(_covers(entry, m) for m in modules)]
    assert not stale, "LAYERS names modules that are gone: " + ", ".join(stale)


def test_layers_point_one_way() -> None:
    """paths -> i18n -> storage -> config -> llm -> mcp -> core -> logs -> app -> ui / cli -> __main__.

    Imports at any depth count, those inside functions and under TYPE_CHECKING too.
    """
    problems = layer_problems(import_graph.graph(REPO_ROOT))
    assert not problems, "an import points up or sideways:\n" + "\n".join(problems)


def test_the_cycle_finder_finds_loops_and_only_loops() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": {"g"}, "g": {"f"}}
    assert import_graph.cycles(edges) == [["a", "b", "c"], ["f", "g"]]


def test_a_package_init_that_imports_back_closes_a_loop() -> None:
    """``okbot.p``'s ``__init__`` loads its big module, which imports ``ctx``, which wants only ``p.leaf``."""
    edges = {
        "okbot.p": {"okbot.p.big"},
        "okbot.p.big": {"okbot.ctx"},
        "okbot.ctx": {"okbot.p.leaf"},
        "okbot.p.leaf": set(),
    }
    assert import_graph.cycles(edges) == []
    assert import_graph.cycles(import_graph.with_packages(edges)) == [["okbot.ctx", "okbot.p", "okbot.p.big"]]


def test_the_graph_sees_imports_in_functions_type_checking_and_import_module(tmp_path: Path) -> None:
    package = tmp_path / "okbot"
    (package / "sub").mkdir(parents=True)
    for name in ("__init__.py", "sub/__init__.py", "sub/c.py", "d.py"):
        (package / name).write_text("", encoding="utf-8")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from okbot.b import X\n", encoding="utf-8"
    )
    (package / "b.py").write_text("def f():\n    from .sub import c, Y\n", encoding="utf-8")
    (package / "sub" / "c.py").write_text("import importlib\nimportlib.import_module('okbot.a')\n", encoding="utf-8")
    (package / "d.py").write_text("import okbot.sub.c\n", encoding="utf-8")
    edges = import_graph.graph(tmp_path)
    assert {name: sorted(targets) for name, targets in edges.items() if targets} == {
        "okbot.a": ["okbot.b"],
        "okbot.b": ["okbot.sub", "okbot.sub.c"],  # Y is no module: it comes from the package
        "okbot.d": ["okbot.sub.c"],  # the packages an import runs are no edges
        "okbot.sub.c": ["okbot.a"],
    }
    assert import_graph.cycles(edges) == [["okbot.a", "okbot.b", "okbot.sub.c"]]


def test_there_are_no_import_cycles() -> None:
    """No two modules import each other, directly or round a loop (imports in functions and under
    TYPE_CHECKING count: each is a dependency all the same), nor through a package's ``__init__``."""
    edges = import_graph.graph(REPO_ROOT)
    found = {frozenset(c) for c in import_graph.cycles(edges)} | {
        frozenset(c) for c in import_graph.cycles(import_graph.with_packages(edges))
    }
    assert not found, "import cycles:\n" + "\n".join(", ".join(c) for c in sorted(sorted(c) for c in found))


def test_non_ui_modules_load_no_qt_at_runtime() -> None:
    """Importing every Qt-free module must not pull in Qt through some transitive import."""
    modules = [
        module_name(path)
        for path in okbot_sources()
        if any(_covers(entry, module_name(path)) for entry in UI_FREE_LAYERS)
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
