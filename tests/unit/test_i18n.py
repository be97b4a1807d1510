"""The translation catalogue: complete, consistent with the source, and read alike by Qt and by the core.

``resources/i18n/okbot_zh_CN.ts`` is the source of every translation; ``make`` compiles it into the
``.qm`` that Qt's QTranslator (UI) and :func:`okbot.i18n.read_catalogue` (core, CLI) both read.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from okbot import i18n

REPO = Path(__file__).resolve().parents[2]
TS = REPO / "resources" / "i18n" / "okbot_zh_CN.ts"
QM = REPO / "resources" / "i18n" / "okbot_zh_CN.qm"
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:[.:!][^{}]*)?\}")
ACCELERATOR = re.compile(r"&([A-Za-z0-9])")
# Words a Chinese translation may keep as they are (names, protocols, units, keys).
KEPT_WORDS = {
    "okbot",
    "tavily",  # a search service's name
    "mcp",
    "api",
    "url",
    "urls",
    "json",
    "jsonl",
    "soul",
    "md",
    "http",
    "https",
    "id",
    "ids",
    "token",
    "tokens",
    "ctrl",
    "shift",
    "alt",
    "enter",
    "esc",
    "tab",
    "pt",
    "ms",
    "kb",
    "mb",
    "gb",
    "pdf",
    "png",
    "zip",
    "sqlite",
    "openai",
    "pyside",
    "qt",
    "gpt",
    "llama",
    "ollama",
    "env",
    "keyring",
    "stdio",
    "utf",
    "ok",
    "markdown",
    "python",
    "pip",
    "bash",
    "cli",
    "gui",
    "os",
    "xdg",
    "okbot_home",
    "tiktoken",
    "cl100k_base",
    "o200k_base",
    "ui",
    "dir",
    "ip",
    "dns",
    "ssl",
    "tls",
    "html",
    "txt",
    "csv",
    "yaml",
    "toml",
    "sse",
    "http/1.1",
    "fts5",
    "imap",
    "headers",
    "args",
}


def tool(name: str) -> str:
    found = Path(sys.executable).parent / f"pyside6-{name}"
    return str(found) if found.exists() else (shutil.which(f"pyside6-{name}") or pytest.skip(f"no pyside6-{name}"))


def ts_messages(path: Path) -> list[tuple[str, str, str, ET.Element]]:
    rows = []
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            rows.append((name, message.findtext("source") or "", message.findtext("comment") or "", message))
    return rows


@pytest.fixture(scope="module")
def messages() -> list[tuple[str, str, str, ET.Element]]:
    return ts_messages(TS)


# ------------------------------------------------------------------------------------- the catalogue


# A label the windows show, and how every message that names it must say it (issue 34: an error said
# "Base URL" where the field is labelled 基础 URL).
GLOSSARY = {"Base URL": "基础 URL", "View context": "查看上下文"}


def test_a_message_names_a_label_as_the_label_reads(messages):
    wrong = []
    for context, source, _comment, message in messages:
        translation = message.findtext("translation") or ""
        for english, chinese in GLOSSARY.items():
            if english.lower() in source.lower() and chinese not in translation:
                wrong.append(f"[{context}] {source!r} -> {translation!r}")
    assert wrong == []


def test_every_message_is_translated(messages):
    assert len(messages) > 500  # the whole app, not a sample
    unfinished = [
        f"[{ctx}] {src!r}"
        for ctx, src, _, msg in messages
        if (t := msg.find("translation")) is None or t.get("type") is not None or not (t.text or "").strip()
    ]
    assert unfinished == [], f"{len(unfinished)} unfinished .ts entries (make i18n-update, then translate)"


def test_no_message_relies_on_a_disambiguation(messages):
    """lrelease drops the disambiguation from the .qm, so the core could not tell such messages apart."""
    assert [f"[{ctx}] {src!r}" for ctx, src, comment, _ in messages if comment] == []


def test_translations_keep_every_placeholder_and_accelerator(messages):
    wrong = []
    for ctx, src, _, msg in messages:
        text = msg.findtext("translation") or ""
        if sorted(PLACEHOLDER.findall(src)) != sorted(PLACEHOLDER.findall(text)):
            wrong.append(f"[{ctx}] {src!r} -> {text!r}: placeholders differ")
        if ACCELERATOR.findall(src.replace("&&", "")) and not ACCELERATOR.findall(text.replace("&&", "")):
            wrong.append(f"[{ctx}] {src!r} -> {text!r}: the keyboard accelerator is lost")
    assert wrong == []


def test_no_english_sentence_is_left_in_the_chinese_catalogue(messages):
    """A translation that still reads English (beyond names and units) was left untranslated."""
    left = []
    for ctx, src, _, msg in messages:
        text = re.sub(r"--[\w-]+", "", PLACEHOLDER.sub("", msg.findtext("translation") or ""))  # flags stay
        words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9_./-]*", text)}
        has_chinese = any("\u4e00" <= ch <= "\u9fff" for ch in text)
        if not has_chinese and words - KEPT_WORDS:
            left.append(f"[{ctx}] {src!r} -> {text!r}")
    assert left == []


def test_the_catalogue_holds_every_marked_string_in_the_source(tmp_path):
    """pyside6-lupdate over okbot/ finds nothing the committed .ts lacks, and the .ts holds nothing it does
    not find: every tr()/translate()/QT_TRANSLATE_NOOP text is translated, and no dead entry lingers."""
    fresh = tmp_path / "fresh.ts"
    shutil.copy(TS, fresh)
    sources = sorted(str(p.relative_to(REPO)) for p in (REPO / "okbot").rglob("*.py"))
    subprocess.run(
        [tool("lupdate"), *sources, "-no-obsolete", "-locations", "none", "-silent", "-ts", str(fresh)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=300,
    )
    committed = {(c, s, m) for c, s, m, _ in ts_messages(TS)}
    extracted = {(c, s, m) for c, s, m, _ in ts_messages(fresh)}
    assert sorted(extracted - committed) == [], "marked strings missing from the .ts: run `make i18n-update`"
    assert sorted(committed - extracted) == [], "entries no source marks any more: run `make i18n-update`"


def test_the_committed_catalogue_is_the_compiled_ts(tmp_path):
    """Issue 34, item 24: a wheel built from a fresh clone (`pip install .`, no `make`) had no Chinese, as the
    .qm was only built by make. It is committed now; what git holds (the index: staged or committed) must be
    what lrelease makes of the .ts."""
    qm = TS.with_suffix(".qm")
    fresh = tmp_path / "fresh.qm"
    subprocess.run([tool("lrelease"), "-silent", str(TS), "-qm", str(fresh)], check=True, timeout=120)
    shown = subprocess.run(
        ["git", "show", f":{qm.relative_to(REPO).as_posix()}"], cwd=REPO, capture_output=True, timeout=60
    )
    if shown.returncode != 0 and not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the packaged catalogue is checked by the wheel test")
    assert shown.returncode == 0, f"{qm.name} is not committed: {shown.stderr.decode(errors='replace')}"
    assert shown.stdout == fresh.read_bytes(), "the .qm in git is stale: run `make translations` and commit it"


# ------------------------------------------------------------------------------ reading it without Qt


@pytest.fixture(scope="module")
def compiled() -> bytes:
    if not QM.exists():
        pytest.fail(f"{QM.name} is not built: `make translations` (make test builds it)")
    return QM.read_bytes()


def test_the_core_reads_what_qt_reads(compiled, messages):
    """Every message, looked up by the core's reader and by Qt's own QTranslator, gives the same text."""
    from PySide6.QtCore import QTranslator

    catalogue = i18n.read_catalogue(compiled)
    translator = QTranslator()
    assert translator.load(str(QM))
    for ctx, src, comment, msg in messages:
        qt_text = translator.translate(ctx, src, comment or None)
        assert qt_text == msg.findtext("translation"), (ctx, src)
        assert catalogue[(ctx, src)] == qt_text, (ctx, src)


def test_set_language_translates_and_english_restores(compiled, messages):
    ctx, src, comment, msg = next(m for m in messages if not m[2] and "{" not in m[1])
    try:
        assert i18n.set_language("zh_CN") == "zh_CN" and i18n.language() == "zh_CN"
        assert i18n.translate(ctx, src) == msg.findtext("translation")
        assert i18n.translate(ctx, "a text no one marked") == "a text no one marked"
        assert i18n.translate("no such context", src) == src
    finally:
        i18n.set_language("en")
    assert i18n.translate(ctx, src) == src


@pytest.mark.parametrize(
    "data",
    [b"", b"not a qm file at all", bytes.fromhex("3cb86418caef9c95cd211cbf60a1bddd") + b"\x69\x00\x00\x10\x00"],
    ids=["empty", "garbage", "torn block"],
)
def test_a_broken_catalogue_is_refused_by_the_reader(data):
    with pytest.raises(ValueError):
        i18n.read_catalogue(data)


def test_a_torn_catalogue_leaves_okbot_in_english_and_says_so(compiled, tmp_path, monkeypatch, caplog):
    torn = tmp_path / "i18n" / "okbot_zh_CN.qm"
    torn.parent.mkdir()
    torn.write_bytes(compiled[: len(compiled) // 2])
    monkeypatch.setattr(i18n, "catalogue_file", lambda code: tmp_path / "i18n" / f"okbot_{code}.qm")
    with caplog.at_level(logging.WARNING, logger="okbot.i18n"):
        assert i18n.set_language("zh_CN") == "en"
    assert "using English" in caplog.text and i18n.language() == "en"
    torn.unlink()
    assert i18n.set_language("zh_CN") == "en"  # missing: the same


def test_an_unknown_language_is_english():
    assert i18n.set_language("fr") == "en"


@pytest.mark.parametrize(
    ("setting", "system", "expected"),
    [
        ("zh_CN", ["en-US"], "zh_CN"),
        ("en", ["zh-Hans-CN"], "en"),
        ("system", ["zh-Hans-CN", "en-US"], "zh_CN"),
        ("system", ["zh_CN.UTF-8"], "zh_CN"),
        ("system", ["zh-TW"], "zh_CN"),  # any Chinese reads the Chinese catalogue rather than English
        ("system", ["fr-FR", "de-DE", "en-GB"], "en"),
        ("system", ["fr-FR", "zh-CN"], "zh_CN"),  # the first language OkBot ships wins
        ("system", ["ja-JP"], "en"),
    ],
)
def test_the_language_setting_resolves(setting, system, expected):
    assert i18n.resolve(setting, system) == expected


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
    ],
)
def test_system_means_the_environments_language(monkeypatch, env, expected):
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    assert i18n.resolve("system") == expected


# ------------------------------------------------------------------------- a broken catalogue, a narrow terminal

# Translations whose placeholders a translator renamed: one formatted while the parser is built (every
# command), argparse's error line, and one form of a plural.
BROKEN = {
    "原版的数据目录（默认：{path}）": "原版的数据目录（默认：{路径}）",
    "%(prog)s: 错误：%(message)s": "%(程序)s: 错误：%(message)s",
}
PLURAL_ONE, PLURAL_OTHER = "exported {n} item of {name} to {path}", "exported {n} items of {name} to {path}"

WITH_CATALOGUE = """
import sys
from pathlib import Path
from okbot import __main__, i18n
i18n.catalogue_file = lambda code: Path(sys.argv[1])  # the test's catalogue, not the shipped one
sys.exit(__main__.main(sys.argv[2:]))
"""


@pytest.fixture(scope="module")
def broken_qm(tmp_path_factory) -> Path:
    """A copy of the real catalogue, compiled, with :data:`BROKEN` and the plural's other form renamed."""
    folder = tmp_path_factory.mktemp("broken-catalogue")
    text = TS.read_text(encoding="utf-8")
    for good, bad in BROKEN.items():
        assert good in text
        text = text.replace(good, bad)
    at = text.index(f"<source>{PLURAL_OTHER}</source>")  # that form only (the other may read the same)
    start = text.index("<translation>", at)
    end = text.index("</translation>", start)
    text = text[:start] + text[start:end].replace("{n}", "{数}") + text[end:]
    ts = folder / "okbot_zh_CN.ts"
    ts.write_text(text, encoding="utf-8")
    qm = folder / "okbot_zh_CN.qm"
    subprocess.run([tool("lrelease"), str(ts), "-qm", str(qm)], check=True, capture_output=True, timeout=120)
    return qm


def okbot_in(qm: Path, *argv: str, encoding: str = "utf-8") -> subprocess.CompletedProcess[bytes]:
    import os

    env = {**os.environ, "LANGUAGE": "zh_CN", "PYTHONIOENCODING": encoding}
    return subprocess.run(
        [sys.executable, "-c", WITH_CATALOGUE, str(qm), *argv], capture_output=True, env=env, timeout=120
    )


def test_a_renamed_placeholder_falls_back_to_english_for_that_message_only(broken_qm):
    proc = okbot_in(broken_qm, "import-okbot", "--help")
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout.decode()
    assert "the original's data dir (default: " in out  # that message in English
    assert "用法" in out  # the rest in Chinese
    proc = okbot_in(broken_qm, "list", "--no-such-option")
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "okbot: error: " in err and "--no-such-option" in err, err
    assert "Traceback" not in err


def test_a_renamed_placeholder_in_a_plural_form_falls_back_to_english(broken_qm, monkeypatch):
    monkeypatch.setattr(i18n, "catalogue_file", lambda code: broken_qm)
    assert i18n.set_language("zh_CN") == "zh_CN"
    one, other = i18n.translate("cli_export", PLURAL_ONE), i18n.translate("cli_export", PLURAL_OTHER)
    assert one != PLURAL_ONE and other == PLURAL_OTHER  # the renamed form is English, the other Chinese
    for n in (1, 2):
        text = i18n.plural(n, one, other).format(n=n, name="Bob", path="x.md")
        assert "Bob" in text and "x.md" in text


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_chinese_on_a_terminal_that_cannot_show_it_is_written_as_it_can(encoding):
    proc = okbot_in(QM, "--help", encoding=encoding)
    assert proc.returncode == 0, proc.stderr.decode(encoding)
    out = proc.stdout.decode(encoding)
    assert "okbot" in out and "?" in out and "--version" in out
    proc = okbot_in(QM, "config", "get", "no.such.key", encoding=encoding)
    err = proc.stderr.decode(encoding)
    assert proc.returncode == 1 and err.startswith("okbot: ") and "no.such.key" in err, err
    assert "UnicodeEncodeError" not in err
