"""OkBot in more than one language: one catalogue for the Qt UI, the core and the CLI.

The source of every translation is ``resources/i18n/okbot_<language>.ts`` (Qt Linguist's format, kept
up to date with ``pyside6-lupdate``); ``make`` compiles it with ``pyside6-lrelease`` into
``okbot_<language>.qm``. The UI loads that file with Qt's ``QTranslator``; the core and the CLI, which
never import Qt, read the very same ``.qm`` with :func:`read_catalogue` here. So a string is marked once
and translated once, wherever it is shown:

- in a widget: ``self.tr("Save")``, or ``QCoreApplication.translate("Context", "…")`` outside a QObject;
- anywhere else: ``translate("Context", "…")`` from this module;
- in data that is shown later (setting labels, choice words): ``QT_TRANSLATE_NOOP("Context", "…")``,
  then ``translate("Context", value)`` where it is shown.

Texts carry named ``{placeholders}`` filled by ``str.format`` after the lookup (never an f-string
inside the call: the lookup would miss); argparse fills ``%(name)s`` in its own words and in every help
text. English is the source language; a missing catalogue or message falls back to the English text,
and so does a translation whose placeholders are not the English text's (:func:`fits`): every text
:func:`translate` and :func:`plural` give is formatted the way its English is, so a catalogue with a
renamed ``{placeholder}`` cannot make a command fail. Text the model reads (prompts, labels in the context) is
never translated here: the model is asked to answer in the user's language instead.
"""

from __future__ import annotations

import locale
import logging
import os
import re
import string
import struct
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from okbot.storage import paths

log = logging.getLogger("okbot.i18n")

SOURCE_LANGUAGE = "en"
LANGUAGES = ("en", "zh_CN")  # every language OkBot ships, source first
SYSTEM = "system"
# How the language setting names its choices: each language in its own words, so a reader finds it
# whatever the current language is.
LANGUAGE_NAMES = {"en": "English", "zh_CN": "简体中文"}
CATALOGUE_PREFIX = "okbot_"

_QM_MAGIC = bytes.fromhex("3cb86418caef9c95cd211cbf60a1bddd")
_SECTION_MESSAGES = 0x69
_TAG_END, _TAG_TRANSLATION, _TAG_OBSOLETE1 = 1, 3, 5
_TAG_SOURCE_TEXT16, _TAG_CONTEXT16 = 2, 4
_TAG_SOURCE_TEXT, _TAG_CONTEXT, _TAG_COMMENT, _TAG_OBSOLETE2 = 6, 7, 8, 9
# Fields with a length: the translation, source text, context and comment (two encodings each), obsolete 2.
_SIZED_TAGS = frozenset(
    {_TAG_TRANSLATION, _TAG_SOURCE_TEXT16, _TAG_CONTEXT16, _TAG_SOURCE_TEXT, _TAG_CONTEXT, _TAG_COMMENT, _TAG_OBSOLETE2}
)

# argparse's %-placeholders ("%(prog)s", "%s", "%r", "%%"); a lone "%" ("50%", "%Y") is text to it
_PERCENT = re.compile(r"%(?:\([^)]*\))?[sdr%]")

_lock = threading.Lock()
_language = SOURCE_LANGUAGE
_catalogue: dict[tuple[str, str], str] = {}


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark ``text`` for translation in ``context`` without translating it now (it is data shown later)."""
    return text


def translate(context: str, text: str) -> str:
    """``text`` in the current language (``text`` itself when English or not translated).

    There is no disambiguation argument: ``lrelease`` does not keep it in the ``.qm`` (Qt finds such a
    message by a hash), so two meanings of one English text in one context get two contexts instead.
    """
    if not _catalogue:
        return text
    return _catalogue.get((context, text)) or text


def plural(n: int, one: str, other: str) -> str:
    """The one of two already-translated texts that fits ``n`` (English: 1 → ``one``, else ``other``).

    Both are marked where they are written (``plural(n, translate(c, "{n} file"), translate(c, "{n}
    files"))``) so every form is in the catalogue; languages without plural forms translate both alike.
    """
    return one if n == 1 else other


def language() -> str:
    """The language texts are translated into now (one of :data:`LANGUAGES`)."""
    return _language


def catalogue_file(code: str) -> Path:
    return paths.resource("i18n", f"{CATALOGUE_PREFIX}{code}.qm")


def set_language(code: str) -> str:
    """Translate into ``code`` from now on; returns the language actually used.

    An unknown code, or a catalogue that is missing or unreadable (a checkout where ``make`` never
    compiled it), leaves OkBot in English and says so in the log.
    """
    global _language, _catalogue
    catalogue: dict[tuple[str, str], str] = {}
    if code not in LANGUAGES:
        log.warning("language %r is not one OkBot ships (%s); using English", code, ", ".join(LANGUAGES))
        code = SOURCE_LANGUAGE
    if code != SOURCE_LANGUAGE:
        path = catalogue_file(code)
        try:
            catalogue = read_catalogue(path.read_bytes())
        except (OSError, ValueError) as exc:
            log.warning("cannot read the %s catalogue %s (%s); using English", code, path, exc)
            code = SOURCE_LANGUAGE
    with _lock:
        _language, _catalogue = code, catalogue
    return code


def resolve(setting: str, system_languages: Sequence[str] = ()) -> str:
    """The language for the ``ui.language`` setting: itself, or for ``system`` the first of the
    system's preferred languages OkBot ships (``system_languages`` as ``zh-Hans-CN``, ``zh_CN.UTF-8``,
    ``en-US`` …; empty: read from the environment). Any Chinese reads Simplified Chinese."""
    if setting in LANGUAGES:
        return setting
    for name in system_languages or environment_languages():
        code = match_language(name)
        if code:
            return code
    return SOURCE_LANGUAGE


def match_language(name: str) -> str | None:
    """``zh-Hans-CN`` / ``zh_CN.UTF-8`` / ``zh`` → ``zh_CN``, ``en_GB`` → ``en``; other languages → None."""
    base = name.split(".")[0].split("@")[0].replace("-", "_").lower()
    if base.startswith("zh"):
        return "zh_CN"
    if base == "en" or base.startswith("en_"):
        return "en"
    return None


def environment_languages() -> list[str]:
    """The user's preferred languages as the environment states them (POSIX order of precedence)."""
    names: list[str] = []
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            names.extend(part for part in value.split(":") if part)
            if var != "LANGUAGE":
                break
    if not names:
        try:
            current = locale.getlocale()[0]
        except ValueError:
            current = None
        if current:
            names.append(current)
    return [n for n in names if n not in ("C", "POSIX") and not n.startswith("C.")]


def placeholders(text: str) -> tuple[frozenset[tuple[str, str, str | None]], tuple[str, ...]] | None:
    """The ``str.format`` fields of ``text`` (name, format spec, conversion) and its ``%`` specifiers
    in order; None when ``text`` is no valid ``str.format`` template."""
    try:
        fields = frozenset(
            (name, spec or "", conversion)
            for _, name, spec, conversion in string.Formatter().parse(text)
            if name is not None
        )
    except ValueError:  # a lone "{" or "}"
        return None
    return fields, tuple(_PERCENT.findall(text))


def fits(source: str, translation: str) -> bool:
    """Whether ``translation`` can be formatted wherever ``source`` is: the same placeholders."""
    return placeholders(translation) == placeholders(source)


def read_catalogue(data: bytes) -> dict[tuple[str, str], str]:
    """``(context, source text) → translation`` for every message of a ``.qm`` file.

    The format is Qt's (``qtbase/src/corelib/kernel/qtranslator.cpp``): a magic number, then blocks
    ``tag (1 byte) · length (4 bytes, big-endian) · data``; the messages block is a run of tagged fields
    ending in ``TAG_END`` per message. ``pyside6-lrelease`` without ``-compress`` keeps each message's
    context and source text, which is what a lookup without Qt's hashes needs. Raises ValueError when
    ``data`` is not such a file.
    """
    if not data.startswith(_QM_MAGIC):
        raise ValueError("not a Qt translation file (.qm)")
    messages = b""
    pos = len(_QM_MAGIC)
    while pos < len(data):
        if pos + 5 > len(data):
            raise ValueError("the file ends inside a block header")
        tag, length = data[pos], struct.unpack_from(">I", data, pos + 1)[0]
        pos += 5
        if pos + length > len(data):
            raise ValueError("a block runs past the end of the file")
        if tag == _SECTION_MESSAGES:
            messages = data[pos : pos + length]
        pos += length
    return dict(_messages(messages))


def _messages(block: bytes) -> Iterable[tuple[tuple[str, str], str]]:
    pos, context, source, translations = 0, "", "", []
    while pos < len(block):
        tag = block[pos]
        pos += 1
        if tag == _TAG_END:
            if source and translations and fits(source, translations[0]):
                yield (context, source), translations[0]
            elif source and translations:
                log.warning("the translation of %r (%s) does not keep its placeholders; using English", source, context)
            context, source, translations = "", "", []
            continue
        if tag == _TAG_OBSOLETE1:
            pos += 4
            continue
        if tag not in _SIZED_TAGS:
            raise ValueError(f"unknown field tag {tag} in the messages block")
        if pos + 4 > len(block):
            raise ValueError("a message ends inside a field")
        length = struct.unpack_from(">I", block, pos)[0]
        pos += 4
        if length == 0xFFFFFFFF:  # a null translation
            continue
        field = block[pos : pos + length]
        pos += length
        if tag == _TAG_TRANSLATION:
            translations.append(field.decode("utf-16-be", errors="replace"))
        elif tag in (_TAG_SOURCE_TEXT, _TAG_SOURCE_TEXT16):
            source = field.decode("utf-8" if tag == _TAG_SOURCE_TEXT else "utf-16-be", errors="replace")
        elif tag in (_TAG_CONTEXT, _TAG_CONTEXT16):
            context = field.decode("utf-8" if tag == _TAG_CONTEXT else "utf-16-be", errors="replace")
        # _TAG_COMMENT (the disambiguation, which lrelease leaves empty) and _TAG_OBSOLETE2 carry nothing we use
