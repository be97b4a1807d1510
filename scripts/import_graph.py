"""How OkBot's modules depend on each other, read from the source with ``ast`` (nothing is imported).

    python scripts/import_graph.py                 the figures, as text
    python scripts/import_graph.py --json          the same, as JSON
    python scripts/import_graph.py --root DIR      for another checkout (DIR holds okbot/)

It prints the number of modules under okbot/, the import edges between them, the cycles (groups of
modules that import each other, directly or round a loop), how many imports sit inside functions,
the widest constructors and the number of places that branch on a target's kind by its string.

An edge runs from the importing module to the module it names: ``from a.b import c`` points at
``a.b.c`` when that is a module, else at ``a.b``; relative imports are resolved, and
``importlib.import_module("a.b")`` with a literal name counts. Imports at any depth count (inside
functions, under ``if TYPE_CHECKING:``), because each one is a dependency all the same. Importing
``a.b.c`` also runs ``a/__init__.py`` and ``a/b/__init__.py``; that is not counted as an edge.

tests/unit/test_architecture.py loads this file and uses the same reading for its rules.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "okbot"
DEFAULT_ROOT = Path(__file__).resolve().parents[1]
# A target's kind tested against its string, instead of asking the kind itself.
KIND_COMPARISON = re.compile(r"""\.kind\s*(==|!=)\s*["'](squad|assistant)["']""")
KIND_MEMBERSHIP = re.compile(r"""\bkind\s+(?:not\s+)?in\s*\(([^)]*)\)""")
KIND_STRING = re.compile(r"""["'](squad|assistant)["']""")
WIDEST = 10


@dataclass(frozen=True)
class Import:
    """One import statement (or literal ``import_module`` call) as written, with its names resolved."""

    line: int
    module: str  # the absolute name it imports, or imports from
    names: tuple[str, ...]  # what a ``from`` import takes from ``module``; empty for a plain import
    in_function: bool


@dataclass(frozen=True)
class Constructor:
    """A class's ``__init__`` or a dataclass's fields, with how many parameters it takes."""

    where: str  # path:line
    name: str  # module.Class
    parameters: int


@dataclass(frozen=True)
class Report:
    """The figures this script prints."""

    modules: int
    edges: int
    cycles: list[list[str]]
    imports_in_functions: int
    widest_constructors: list[Constructor]
    kind_string_branches: int

    def as_dict(self) -> dict[str, object]:
        return {
            "modules": self.modules,
            "edges": self.edges,
            "cycles": self.cycles,
            "imports_in_functions": self.imports_in_functions,
            "widest_constructors": [
                {"where": c.where, "name": c.name, "parameters": c.parameters} for c in self.widest_constructors
            ],
            "kind_string_branches": self.kind_string_branches,
        }


def imports(source: str, module: str, *, is_package: bool = False) -> list[Import]:
    """Every import in ``source`` (the text of ``module``), at any depth, relative names resolved."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend(Import(node.lineno, alias.name, (), in_function) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append(Import(node.lineno, _absolute(node, package), tuple(a.name for a in node.names), in_function))
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func):
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append(Import(node.lineno, first.value, (), in_function))
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(ast.parse(source), False)
    return found


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in {"__import__", "import_module"}
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def module_name(path: Path, root: Path) -> str:
    """Dotted name of a file under ``root`` (``okbot/core/__init__.py`` -> ``okbot.core``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(root: Path) -> dict[str, Path]:
    """Every module under ``root/okbot``, by dotted name."""
    paths = sorted(p for p in (root / PACKAGE).rglob("*.py") if "__pycache__" not in p.parts)
    return {module_name(p, root): p for p in paths}


def module_imports(root: Path) -> dict[str, list[Import]]:
    """The imports of every module under ``root/okbot``, by module."""
    return {
        name: imports(path.read_text(encoding="utf-8"), name, is_package=path.name == "__init__.py")
        for name, path in sources(root).items()
    }


def targets(found: Import, modules: Iterable[str]) -> set[str]:
    """The modules of ours that one import points at (none when it names something outside okbot/)."""
    known = set(modules)
    if not found.names:
        return {found.module} & known
    hit = {f"{found.module}.{name}" for name in found.names} & known
    if len(hit) < len(found.names) and found.module in known:
        hit.add(found.module)  # some names are not modules: they come from the module itself
    return hit


def graph(root: Path) -> dict[str, dict[str, list[int]]]:
    """Module -> the modules it imports -> the lines that import them."""
    found = module_imports(root)
    edges: dict[str, dict[str, list[int]]] = {name: {} for name in found}
    for name, statements in found.items():
        for statement in statements:
            for target in targets(statement, found):
                if target != name:
                    edges[name].setdefault(target, []).append(statement.line)
    return edges


def with_packages(edges: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """``edges`` plus the packages each import runs first: ``a.b.c`` runs ``a/b/__init__.py`` too.

    A package's ``__init__`` that imports its own modules can close a loop no single import shows;
    a module's own packages are left out (they are already running when it is imported).
    """
    found = {name: set(targets) for name, targets in edges.items()}
    for name, targets in edges.items():
        for target in targets:
            parts = target.split(".")
            for depth in range(1, len(parts)):
                package = ".".join(parts[:depth])
                if package in found and package != name and not name.startswith(package + "."):
                    found[name].add(package)
    return found


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, each sorted, smallest name first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        # Tarjan's algorithm without recursion: each frame is a node and the neighbours left to see.
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, neighbours = work[-1]
            advanced = False
            for nxt in neighbours:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def constructors(root: Path) -> list[Constructor]:
    """Every class's ``__init__`` (parameters but ``self``) and every dataclass (its fields)."""
    found: list[Constructor] = []
    for name, path in sources(root).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            init = next(
                (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
                None,
            )
            if init is not None:
                count = _parameters(init.args) - 1
                found.append(Constructor(f"{where}:{init.lineno}", f"{name}.{node.name}", count))
            elif _is_dataclass(node):
                found.append(Constructor(f"{where}:{node.lineno}", f"{name}.{node.name}", _fields(node)))
    return sorted(found, key=lambda c: (-c.parameters, c.where))


def _parameters(args: ast.arguments) -> int:
    return (
        len(args.posonlyargs)
        + len(args.args)
        + len(args.kwonlyargs)
        + (args.vararg is not None)
        + (args.kwarg is not None)
    )


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (isinstance(target, ast.Name) and target.id == "dataclass") or (
            isinstance(target, ast.Attribute) and target.attr == "dataclass"
        ):
            return True
    return False


def _fields(node: ast.ClassDef) -> int:
    count = 0
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            if "ClassVar" not in ast.unparse(statement.annotation):
                count += 1
    return count


def kind_string_branches(root: Path) -> int:
    """Places that compare a kind with "squad" or "assistant" (``.kind == "squad"``, ``kind in (...)``)."""
    count = 0
    for path in sources(root).values():
        text = path.read_text(encoding="utf-8")
        count += len(KIND_COMPARISON.findall(text))
        count += sum(1 for names in KIND_MEMBERSHIP.findall(text) if KIND_STRING.search(names))
    return count


def report(root: Path) -> Report:
    """All the figures for the checkout at ``root``."""
    edges = graph(root)
    return Report(
        modules=len(edges),
        edges=sum(len(targets) for targets in edges.values()),
        cycles=cycles(edges),
        imports_in_functions=sum(s.in_function for found in module_imports(root).values() for s in found),
        widest_constructors=constructors(root)[:WIDEST],
        kind_string_branches=kind_string_branches(root),
    )


def as_text(result: Report) -> str:
    lines = [
        f"modules: {result.modules}",
        f"import edges: {result.edges}",
        f"cycles: {len(result.cycles)}",
        *(f"  {len(c)}: {', '.join(c)}" for c in result.cycles),
        f"imports inside functions: {result.imports_in_functions}",
        f"widest constructors (top {WIDEST}):",
        *(f"  {c.parameters:3d}  {c.name}  ({c.where})" for c in result.widest_constructors),
        f"target-kind string branches: {result.kind_string_branches}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="the checkout to read (holds okbot/)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = parser.parse_args(argv)
    if not (args.root / PACKAGE).is_dir():
        parser.error(f"no {PACKAGE}/ under {args.root}")
    result = report(args.root.resolve())
    print(json.dumps(result.as_dict(), indent=2) if args.json else as_text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
