"""Every text a user reads goes through the catalogue: no bare literal reaches a widget, a painter or the CLI.

Read from the source (AST), so a string that only shows on a rare path is caught too. The zh_CN walk over
the real windows (tests/ui/test_i18n_ui.py) catches what is built at run time.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OKBOT = REPO / "okbot"

# Qt calls whose text arguments are shown (method name -> positions of shown arguments; -1: all).
SHOWN_ARGS = {
    "setText": [0],
    "setWindowTitle": [0],
    "setToolTip": [0],
    "setPlaceholderText": [0],
    "setStatusTip": [0],
    "setWhatsThis": [0],
    "setTitle": [0],
    "setTabText": [1],
    "addTab": [1],
    "insertTab": [2],
    "addItem": [0],
    "insertItem": [1],
    "setItemText": [1],
    "setHeaderLabels": [0],
    "setHorizontalHeaderLabels": [0],
    "setSpecialValueText": [0],
    "setSuffix": [0],
    "setPrefix": [0],
    "showMessage": [0],
    "setAccessibleName": [0],
    "addAction": [0],
    "addMenu": [0],
    "setLabelText": [0],
    "setCancelButtonText": [0],
    "addButton": [0],
    "setInformativeText": [0],
    "setDetailedText": [0],
    "setDescription": [0],
    "drawText": [-1],
    "setWindowIconText": [0],
    "setNameFilter": [0],
    "setNameFilters": [0],
    "QLabel": [0],
    "QPushButton": [0],
    "QToolButton": [0],
    "QCheckBox": [0],
    "QRadioButton": [0],
    "QGroupBox": [0],
    "QAction": [0],
    "QMenu": [0],
    "ElidedLabel": [0],
    "information": [1, 2],
    "warning": [1, 2],
    "critical": [1, 2],
    "question": [1, 2],
    "about": [1, 2],
    "getOpenFileName": [1, 3],
    "getSaveFileName": [1, 3],
    "getExistingDirectory": [1],
    "getText": [1, 2],
    "getItem": [1, 2],
    "getInt": [1, 2],
}
SHOWN_KEYWORDS = {"text", "title", "caption", "filter", "label", "placeholder", "tooltip", "toolTip"}
CLI_KEYWORDS = {"help", "description", "epilog", "metavar_help"}
TRANSLATORS = {"tr", "translate", "QT_TRANSLATE_NOOP", "plural"}
LETTERS = re.compile(r"[A-Za-z]{2,}")
# Literal texts that need no translation: names, and symbols written with letters.
ALLOWED = {"okbot:", "OkBot", "MCP", "JSON", "Markdown", "URL", "API", "SOUL.md", "OK", "PDF", "Ctrl+Shift+F", "Esc"}


def shown_literal(node: ast.AST) -> str | None:
    """The English text ``node`` puts on screen as it is, or None (a translated call, a variable, symbols)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    elif isinstance(node, ast.BinOp):
        return shown_literal(node.left) or shown_literal(node.right)
    elif isinstance(node, ast.IfExp):
        return shown_literal(node.body) or shown_literal(node.orelse)
    else:
        return None
    text = text.strip()
    if text in ALLOWED or not LETTERS.search(text) or text.startswith(("http://", "https://", "<", "#", ":/")):
        return None
    return text


def call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def unmarked(path: Path, *, cli: bool) -> list[str]:
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = call_name(call)
        candidates: list[ast.AST] = []
        positions = SHOWN_ARGS.get(name)
        if positions is not None and not cli:
            candidates += call.args if positions == [-1] else [call.args[i] for i in positions if i < len(call.args)]
            candidates += [k.value for k in call.keywords if k.arg in SHOWN_KEYWORDS]
        if cli:
            candidates += [k.value for k in call.keywords if k.arg in CLI_KEYWORDS]
            if name in ("print", "write", "fail", "error") and call.args:
                candidates.append(call.args[0])
        for node in candidates:
            text = shown_literal(node)
            if text:
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {name}({text[:60]!r})")
    return found


def test_no_bare_text_reaches_a_widget_or_a_painter():
    found = [line for path in sorted((OKBOT / "ui").rglob("*.py")) for line in unmarked(path, cli=False)]
    assert found == [], "wrap these in self.tr() / QCoreApplication.translate():\n" + "\n".join(found)


def test_no_bare_text_reaches_the_command_line():
    found = [line for path in sorted(OKBOT.glob("cli*.py")) for line in unmarked(path, cli=True)]
    assert found == [], "wrap these in translate():\n" + "\n".join(found)


def test_every_lookup_names_a_literal_context_and_a_template():
    """An f-string or a concatenation with values inside tr()/translate() is filled before the lookup, so
    the lookup misses; a context that is not a literal is invisible to pyside6-lupdate."""
    wrong = []
    for path in sorted(OKBOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            name = call_name(call)
            if name not in ("tr", "translate", "QT_TRANSLATE_NOOP") or not call.args:
                continue
            if name == "translate" and isinstance(call.func, ast.Attribute) and call.func.attr == "translate":
                if not isinstance(call.func.value, ast.Name) or call.func.value.id not in ("QCoreApplication", "i18n"):
                    continue  # str.translate and friends
            text = call.args[0] if name == "tr" else call.args[1] if len(call.args) > 1 else None
            context = None if name == "tr" else call.args[0]
            where = f"{path.relative_to(REPO)}:{call.lineno}"
            if isinstance(text, ast.JoinedStr) or (isinstance(text, ast.BinOp) and not _constant(text)):
                wrong.append(f"{where} {name}() of a text built before the lookup")
            if name == "QT_TRANSLATE_NOOP" and not isinstance(text, ast.Constant):
                wrong.append(f"{where} QT_TRANSLATE_NOOP() of something that is not a literal")
            if context is not None and not (isinstance(context, ast.Constant) and isinstance(context.value, str)):
                wrong.append(f"{where} {name}() with a context that is not a literal")
    assert wrong == []


def _constant(node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp):
        return _constant(node.left) and _constant(node.right)
    return isinstance(node, ast.Constant)


def test_nothing_is_translated_at_import_time():
    """A translate() evaluated when the module loads runs before the language is set: it stays English."""
    wrong = []
    for path in sorted(OKBOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for statement in tree.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Import, ast.ImportFrom)):
                continue
            nodes = (
                [
                    n
                    for s in statement.body
                    if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                    for n in ast.walk(s)
                ]
                if isinstance(statement, ast.ClassDef)
                else list(ast.walk(statement))
            )
            for node in nodes:
                if isinstance(node, ast.Call) and call_name(node) in ("translate", "tr"):
                    if isinstance(node.func, ast.Attribute) and call_name(node) == "translate":
                        owner = node.func.value
                        if not (isinstance(owner, ast.Name) and owner.id in ("QCoreApplication", "i18n")):
                            continue
                    if any(isinstance(p, ast.Lambda) for p in ast.walk(statement) if node in ast.walk(p)):
                        continue
                    wrong.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert wrong == [], "mark these with QT_TRANSLATE_NOOP and translate where shown"
