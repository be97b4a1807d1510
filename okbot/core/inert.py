"""Text from a chat made inert for a Markdown file: its Markdown still reads and renders, its HTML is only text.

What a person typed, a model replied or reasoned, a tool or a squad member said is written into an export
between the app's own markup (headings, ``<details>`` folds). Any renderer (CommonMark, GitHub) would run
a ``<script>``, an ``<img onerror>`` or an ``<iframe>`` in that text as live HTML, and a ``</details>``
would close the app's fold early. :func:`inert` escapes, outside code, every ``<`` that could start a tag,
a comment or an autolink (``&lt;``) and every ``&`` that starts an entity (``&amp;``), so the rendered
text reads exactly as written; ``a < b`` and ``R&D`` stay as they are.

Code stays readable because it is left alone, and the rule for where code is must never be wider than a
renderer's (text it takes for code and a renderer does not would be live):

* a fenced block is code when its opening fence has at most three spaces before it; the fence is written
  again at the start of a line after a blank one, so the block is at the top level for every renderer
  (inside a list item it would end, with the item, at the first line less indented; after a table's rows
  it would be one more row). It ends exactly where a renderer ends it, and one left open is closed at the
  end of the text, so it can never swallow the app's markup after it;
* a fence anywhere else (in a quote, a list item, indented) could open a block a renderer keeps but this
  reader does not follow, so its backticks or tildes are escaped with backslashes and it opens none;
* a code span is code only within its line and without a ``|`` (a table cuts its cells there first);
  every other backtick is escaped, so a renderer pairs exactly the runs this reader paired. A span over
  several lines or holding a ``|`` shows its backticks and escapes, but nothing in it runs.

Lines end at LF, CR LF or CR, as in Markdown; the text comes back with LF only, so a caller that splits it
again must split on LF (not with ``str.splitlines``, which knows more line ends).
"""

from __future__ import annotations

import re

_LINE_END = re.compile(r"\r\n|\r|\n")
_OPENER = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_FENCE_LIKE = re.compile(r"([ \t>*+\-.)0-9]*)(`{3,}|~{3,})")  # what a quote or list marker could make a fence
_INLINE = re.compile(
    r"\\[!-/:-@\[-`{-~]"  # a backslash escape: copied as it is
    r"|`+"  # a backtick run: maybe a code span
    r"|<(?=[A-Za-z/!?])"  # a tag, a comment, a declaration, an autolink
    r"|&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)"  # an entity
)
_BACKTICKS = re.compile(r"`+")


def inert(text: str) -> str:
    """``text`` (Markdown) with raw HTML made plain text, code left as it is (see the module docstring)."""
    out: list[str] = []
    fence = ""  # the open fence's character repeated to its length; "" outside a fenced block
    for line in _LINE_END.split(text):
        if fence:
            if _closes(line, fence):
                out.append(line.lstrip(" "))
                fence = ""
            else:
                out.append(line)
            continue
        opener = _OPENER.fullmatch(line)
        if opener is not None and not (opener.group(1)[0] == "`" and "`" in opener.group(2)):
            fence = opener.group(1)
            if out and out[-1].strip():
                out.append("")  # a table (md4c) would take the fence as one of its rows
            out.append(line.lstrip(" "))
            continue
        out.append(_inline(_unfenced(line)))
    if fence:
        out.append(fence)
    return "\n".join(out)


def inert_line(text: str) -> str:
    """``text`` made inert for a place inside one line (a heading, a name): its line ends become spaces
    and it opens no fenced block."""
    return _inline(" ".join(_LINE_END.split(text)))


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes the block ``fence`` opened: up to three spaces, at least as long a run of the
    same character, then only spaces or tabs."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body.startswith(fence):
        return False
    return not body.lstrip(fence[0]).strip(" \t")


def _unfenced(line: str) -> str:
    """``line`` with a fence that a container (quote, list item, indentation) could open escaped."""
    match = _FENCE_LIKE.match(line)
    if match is None:
        return line
    run = match.group(2)
    return match.group(1) + "".join("\\" + c for c in run) + line[match.end() :]


def _inline(line: str) -> str:
    """One line outside fenced code: code spans kept, HTML-significant ``<`` and ``&`` escaped, and every
    backtick that opens no code span on this line escaped, so none can pair with one on another line."""
    out: list[str] = []
    pos = 0
    while True:
        match = _INLINE.search(line, pos)
        if match is None:
            out.append(line[pos:])
            return "".join(out)
        start, token = match.start(), match.group()
        out.append(line[pos:start])
        pos = match.end()
        if token == "<" or token == "\\<":  # an escaped < reads as &lt; does, which md4c also takes as text
            out.append("&lt;")
        elif token == "&":
            out.append("&amp;")
        elif token[0] == "`":
            end = _span_end(line, pos, len(token))
            if end < 0:  # no closing run here, or a span a table could cut at its |: plain backticks
                out.append("\\`" * len(token))
            else:
                out.append(line[start:end])
                pos = end
        else:
            out.append(token)


def _span_end(line: str, after: int, length: int) -> int:
    """Where the code span whose opening run of ``length`` backticks ends at ``after`` ends (after its closing
    run of exactly as many); -1 when the line holds none, or when the span holds a ``|`` (a table splits its
    cells there before it looks for code, so the span would not be one)."""
    for run in _BACKTICKS.finditer(line, after):
        if len(run.group()) == length:
            return -1 if "|" in line[after : run.start()] else run.end()
    return -1
