"""Keep OkBot's translations up to date (Qt Linguist tools from PySide6; no Qt import here).

    python scripts/i18n.py update            re-read every tr()/translate() in okbot/ into each .ts
    python scripts/i18n.py fill PART.ts ...  take translations for unfinished messages from other .ts files
    python scripts/i18n.py status            count finished and unfinished messages per language
    python scripts/i18n.py release           compile each .ts into its .qm (what `make` runs)

The .ts files in resources/i18n/ are the source (committed); the .qm files are built.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
I18N = REPO / "resources" / "i18n"
TARGETS = ("zh_CN",)


def ts_file(code: str) -> Path:
    return I18N / f"okbot_{code}.ts"


def tool(name: str) -> str:
    """``pyside6-<name>`` beside this interpreter (the venv's), else on PATH."""
    here = Path(sys.executable).parent / f"pyside6-{name}"
    found = str(here) if here.exists() else shutil.which(f"pyside6-{name}")
    if not found:
        sys.exit(f"pyside6-{name} not found: install PySide6 (make install)")
    return found


def sources() -> list[str]:
    return sorted(str(p.relative_to(REPO)) for p in (REPO / "okbot").rglob("*.py"))


def update() -> None:
    for code in TARGETS:
        subprocess.run(
            [
                tool("lupdate"),
                *sources(),
                "-no-obsolete",
                "-locations",
                "none",
                "-source-language",
                "en",
                "-target-language",
                code,
                "-ts",
                str(ts_file(code)),
            ],
            cwd=REPO,
            check=True,
        )


def messages(tree: ET.ElementTree):
    """``(context, source, comment, message element)`` for every message of a parsed .ts file."""
    for context in tree.getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            yield name, message.findtext("source") or "", message.findtext("comment") or "", message


def finished(message: ET.Element) -> bool:
    translation = message.find("translation")
    return translation is not None and translation.get("type") is None and bool((translation.text or "").strip())


def fill(parts: list[Path]) -> None:
    known: dict[tuple[str, str, str], str] = {}
    for part in parts:
        for ctx, source, comment, message in messages(ET.parse(part)):
            if finished(message):
                known[(ctx, source, comment)] = message.find("translation").text
    for code in TARGETS:
        path = ts_file(code)
        tree, filled = ET.parse(path), 0
        for ctx, source, comment, message in messages(tree):
            text = known.get((ctx, source, comment))
            if text and not finished(message):
                translation = message.find("translation")
                translation.text = text
                translation.attrib.pop("type", None)
                filled += 1
        ET.indent(tree, space="    ")
        tree.write(path, encoding="utf-8", xml_declaration=True)
        _restore_doctype(path)
        print(f"{path.name}: {filled} filled")


def _restore_doctype(path: Path) -> None:
    """ElementTree drops ``<!DOCTYPE TS>``; Linguist tools expect it."""
    text = path.read_text(encoding="utf-8")
    if "<!DOCTYPE TS>" not in text:
        head, _, rest = text.partition("\n")
        path.write_text(f'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n{rest}\n', encoding="utf-8")


def status() -> int:
    unfinished_total = 0
    for code in TARGETS:
        rows = list(messages(ET.parse(ts_file(code))))
        todo = [(c, s) for c, s, _, m in rows if not finished(m)]
        unfinished_total += len(todo)
        print(f"{code}: {len(rows) - len(todo)} finished, {len(todo)} unfinished")
        for ctx, source in todo[:40]:
            print(f"  [{ctx}] {source[:100]!r}")
    return 1 if unfinished_total else 0


def release() -> None:
    for code in TARGETS:
        subprocess.run(
            [tool("lrelease"), "-silent", str(ts_file(code)), "-qm", str(I18N / f"okbot_{code}.qm")], check=True
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update")
    sub.add_parser("status")
    sub.add_parser("release")
    fill_parser = sub.add_parser("fill")
    fill_parser.add_argument("parts", nargs="+", type=Path)
    args = parser.parse_args()
    if args.command == "update":
        update()
    elif args.command == "fill":
        fill(args.parts)
    elif args.command == "status":
        return status()
    else:
        release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
