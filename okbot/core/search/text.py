"""Text as the search index sees it, a person's query as an FTS5 expression, and snippets with spans.

FTS5's ``unicode61`` tokenizer splits on spaces and punctuation, which finds English words but not Chinese
or Japanese ones (a run of CJK characters is one token). So before text is indexed each CJK run is spelled
as its overlapping bigrams and its last character (``上下文`` -> ``上下 下文 文``), and every CJK character
is also indexed alone in a column of its own: a CJK query of two or more characters becomes the phrase of
its bigrams, and a single character looks up that column, so any substring is found. Latin words stay whole
words; ``word*`` is a prefix (expanded to the indexed words it starts, :func:`words` lists them) and
``"two words"`` a phrase.

A query is always plain words: every term is quoted before it reaches FTS5, so ``"``, ``*``, ``AND``, ``(``
and the like never raise.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002fa1f"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD_CHAR = f"[^\\W_{_CJK}]"  # a letter or digit that unicode61 keeps inside a word
_HAS_TOKEN = re.compile(f"{_WORD_CHAR}|[{_CJK}]")
_PIECE = re.compile(f"{_WORD_CHAR}+|[{_CJK}]+")
_WORD = re.compile(f"{_WORD_CHAR}+")
_CJK_CHAR = re.compile(f"[{_CJK}]")
_ASCII_SEPARATORS = str.maketrans({c: " " for c in string.punctuation})
_QUERY_TERM = re.compile(r'"([^"]*)"?|(\S+)')

SNIPPET_CHARS = 160  # the length of a snippet, about
_BEFORE = 50  # context kept before the first match
_FOLD_LIMIT = 200_000  # only this much of a huge item is searched for the snippet


@dataclass(frozen=True)
class Term:
    """One term of a query: a word or a quoted phrase, as typed, and whether it is a prefix (``word*``)."""

    text: str
    prefix: bool = False


def index_text(text: str) -> str:
    """``text`` as it is indexed: each CJK run spelled as its bigrams and its last character."""
    return text if text.isascii() else _CJK_RUN.sub(_spell_run, text)


def cjk_chars(text: str) -> str:
    """The CJK characters of ``text``, one token each (a one-character query looks them up)."""
    return "" if text.isascii() else " ".join(_CJK_CHAR.findall(text))


def words(text: str) -> set[str]:
    """The distinct words of ``text`` (not CJK) as the index folds them: lower case, no diacritics."""
    if text.isascii():
        return set(text.lower().translate(_ASCII_SEPARATORS).split())
    found = set(_WORD.findall(text.lower()))
    odd = [w for w in found if not w.isascii()]
    for word in odd:
        found.discard(word)
        found.add(_strip_marks(word))
    return found


def _strip_marks(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def _spell_run(match: re.Match[str]) -> str:
    run = match.group()
    return " " + " ".join([run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]) + " "


def parse_query(query: str) -> list[Term]:
    """The terms of a person's query: whitespace-separated words, ``"quoted phrases"``, ``word*`` prefixes.

    Terms with no letter, digit or CJK character are dropped (so ``(*)`` is no query at all)."""
    terms = []
    for match in _QUERY_TERM.finditer(query):
        phrase, word = match.group(1), match.group(2)
        text = phrase if phrase is not None else word
        prefix = False
        if phrase is None and text.endswith("*"):
            text, prefix = text.rstrip("*"), True
        if _HAS_TOKEN.search(text):
            terms.append(Term(text, prefix))
    return terms


def fts_expression(terms: list[Term], expand: Callable[[str], list[str] | None] | None = None) -> str | None:
    """The FTS5 expression matching items that hold every term (each term a quoted phrase), or None when
    a term can match nothing. ``expand(prefix)`` lists the indexed words starting with ``prefix`` (None
    when there are too many): a one-word prefix term becomes their OR, which FTS5 walks lazily, where its
    own prefix query would read the whole of every such word's list first."""
    parts = []
    for term in terms:
        pieces = _PIECE.findall(term.text)
        if len(pieces) == 1 and len(pieces[0]) == 1 and _CJK_RUN.fullmatch(pieces[0]):
            parts.append(f'{{uni}} : "{pieces[0]}"')
            continue
        if term.prefix and expand is not None and len(pieces) == 1 and _WORD.fullmatch(pieces[0]):
            found = expand(_strip_marks(pieces[0].lower()))
            if found is not None:
                if not found:
                    return None
                parts.append("{body} : (" + " OR ".join('"' + w.replace('"', '""') + '"' for w in found) + ")")
                continue
        parts.append("{body} : " + _phrase(term))
    return " AND ".join(f"({part})" for part in parts)


def _phrase(term: Term) -> str:
    text = term.text
    prefix = term.prefix
    runs = list(_CJK_RUN.finditer(text))
    parts, pos = [], 0
    for index, match in enumerate(runs):
        parts.append(text[pos : match.start()])
        run = match.group()
        last = index == len(runs) - 1 and not _HAS_TOKEN.search(text, match.end())
        if not last:
            parts.append(_spell_run(match))
        elif len(run) == 1:  # the text may go on with more CJK: any bigram starting with it, or it alone
            parts.append(" " + run)
            prefix = True
        else:  # the text may go on: the bigrams only, not the run's end
            parts.append(" " + " ".join(run[i : i + 2] for i in range(len(run) - 1)))
        pos = match.end()
    parts.append(text[pos:])
    spelled = "".join(parts)
    return '"' + spelled.replace('"', '""') + '"' + ("*" if prefix else "")


class _FoldTable(dict):
    """``str.translate`` table: a character to its lower-case base letter, filled in as characters are met."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        base = unicodedata.normalize("NFD", char)[0].lower()
        self[code] = folded = base if len(base) == 1 else char
        return folded


_FOLD = _FoldTable()


def _fold(text: str) -> str:
    """Lower case without diacritics, one character for one, so positions in it are positions in ``text``."""
    if text.isascii():
        return text.lower()
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer (İ): character by character
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    return lowered.translate(_FOLD)


def term_pattern(term: Term) -> re.Pattern[str]:
    """A regular expression finding ``term`` in folded text (:func:`_fold`), as the index matches it."""
    pieces = _PIECE.findall(_fold(term.text))
    out = []
    for index, piece in enumerate(pieces):
        escaped = re.escape(piece)
        if _CJK_RUN.fullmatch(piece):
            out.append(escaped)
            continue
        end = "" if term.prefix and index == len(pieces) - 1 else f"(?!{_WORD_CHAR})"
        out.append(f"(?<!{_WORD_CHAR}){escaped}{end}")
    return re.compile(r"[\W_]*".join(out))


def snippet(text: str, terms: list[Term]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """About :data:`SNIPPET_CHARS` characters of ``text`` around its first match, on one line, and the
    ``(start, end)`` of every match inside it (the start of the text when nothing is found)."""
    patterns = [term_pattern(term) for term in terms]
    head = text[:_FOLD_LIMIT]
    folded = _fold(head)
    starts = [m.start() for p in patterns if (m := p.search(folded))]
    first = min(starts, default=0)
    begin = max(0, first - _BEFORE)
    if begin:
        space = head.rfind(" ", begin - 20, begin)
        begin = space + 1 if space >= 0 else begin
    end = min(len(head), begin + SNIPPET_CHARS)
    if end < len(head):
        space = head.find(" ", end - 20, end + 20)
        end = space if space >= 0 else end
    lead = "…" if begin else ""
    tail = "…" if end < len(text) else ""
    shown = lead + re.sub(r"\s", " ", head[begin:end]) + tail
    spans = sorted({m.span() for p in patterns for m in p.finditer(_fold(shown))})
    return shown, tuple(spans)
