"""The structured summary: fixed sections, goal entries with status, and the checks a new one must pass.

A summary is Markdown with exactly these ``## `` sections, in this order::

    ## Goals                     - [active|done|withdrawn] goal (queue: how far it got)
    ## Agreements                how to report, what the assistant may decide alone
    ## Decisions                 decision — reason
    ## Progress and next steps
    ## References                exact paths, ids, numbers, URLs

plus the sections the app keeps from the record (:data:`APP_SECTIONS`, only when they have lines; see
:mod:`okbot.core.compression.ledger`)::

    ## Turn in progress          after Progress: the turn the summary ends inside, what it waits on
    ## Files                     files read, written or attached, most recent first
    ## Skills loaded             skills the conversation loaded, most recent first
    ## Pitfalls                  failed tool calls with their exact error text, newest first

and, only when the app had to move items out without the model, a marked
``## Moved out without summarizing`` section of plain digests (the next summary folds it in).
The model's edits never touch the app's sections, nor the lines the app writes into the others (they
carry :data:`RECORD_NOTES`).

The summary is written in the language the user writes in, headings too: a Chinese conversation's
summary has ``## 目标`` / ``## 约定`` / ``## 决定`` / ``## 进展与下一步`` / ``## 引用`` (:data:`HEADINGS`),
and ``## 进行中的回合`` / ``## 文件`` / ``## 已加载的技能`` / ``## 失败与报错`` for the app's.
Whatever the language, the sections are read by their English names here (:func:`canonical_section`,
which also knows the original OkBot's headings), so every check and edit works on one structure.

The model never rewrites it (see :mod:`okbot.core.compression.edits`); the stored text keeps every
line, and :func:`fit_sections` cuts what goes into a request to each section's budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from okbot.core.digest import TICKET_ID, URL

SECTIONS = ("Goals", "Agreements", "Decisions", "Progress and next steps", "References")
TURN_SECTION = "Turn in progress"
# The sections the app writes from the record, in their order after References (the turn's comes
# right after Progress, see ORDER); the model has no edit for them.
APP_SECTIONS = (TURN_SECTION, "Files", "Skills loaded", "Pitfalls")
FALLBACK_SECTION = "Moved out without summarizing"
ORDER = (*SECTIONS[:4], TURN_SECTION, SECTIONS[4], *APP_SECTIONS[1:], FALLBACK_SECTION)
EMPTY_BODY = "- (none yet)"
# Each section's heading in each language a summary is written in (okbot.core.language).
HEADINGS = {
    "en": {name: name for name in ORDER},
    "zh_CN": {
        "Goals": "目标",
        "Agreements": "约定",
        "Decisions": "决定",
        "Progress and next steps": "进展与下一步",
        "References": "引用",
        TURN_SECTION: "进行中的回合",
        "Files": "文件",
        "Skills loaded": "已加载的技能",
        "Pitfalls": "失败与报错",
        FALLBACK_SECTION: "未经摘要移出的内容",
    },
}
# How a line the app wrote into a section the model edits is marked (in each language; each is read in
# every summary): the model's edits never change such a line, and a line the model writes never has it.
RECORD_NOTES = {"en": "(from the record)", "zh_CN": "（据记录）"}
EMPTY_BODIES = {"en": EMPTY_BODY, "zh_CN": "- （暂无）"}
# Other headings read as a section: shorter forms, and the original OkBot's (目标 / 约定 / 路径命令 / 未完成).
_ALIASES = {
    "决策": "Decisions",
    "进展": "Progress and next steps",
    "下一步": "Progress and next steps",
    "进展和下一步": "Progress and next steps",
    "未完成": "Progress and next steps",
    "参考": "References",
    "路径命令": "References",
}
_SECTION_OF = {
    **{heading.casefold(): name for table in HEADINGS.values() for name, heading in table.items()},
    **_ALIASES,
}
GOAL_STATUSES = ("active", "done", "withdrawn")

_HEADING = re.compile(r"^##\s+(.+?)\s*$")
_GOAL = re.compile(r"^\s*[-*]\s*\[(\w+)\]\s*(.+)$")
# Numbers of two or more digits (with separators: 4,417 · 1.2.3 · 10:30). Bare single digits are
# exempt on purpose: counts the summarizer writes itself ("2 of 5 done") are legitimate, while
# exact references (ids, PRs, ports, versions, sizes) have more digits.
_NUMBER = re.compile(r"(?<![\d.,_:/-])\d[\d,._:/-]*\d(?!\d)")
_ITEM_REF = re.compile(r"#\d+")
_TICKET = TICKET_ID
_URL = URL
_PATH = re.compile(
    r"(?<![\w:/])(?:~|\.{1,2})?/?(?:[\w@.+-]+/)+[\w@.+-]+|\b[\w-]+\.(?:py|js|ts|tsx|jsx|json|md|txt|"
    r"yml|yaml|toml|ini|cfg|sh|rs|go|java|c|h|cpp|hpp|cs|rb|php|html|css|sql|csv|lock|xml)\b"
)
PATH_PATTERN = _PATH  # a file path or name as :func:`references` finds it
SUMMARY_FLOOR_CHARS = 600  # the least a small window's summary limit comes down to


def summary_chars(setting: int, window: int) -> int:
    """The summary's limit in characters in a ``window``: the ``summaryMaxChars`` setting, less in a small
    window, so the summarizer's answer room (half the limit in tokens, plus 64) stays within about a quarter
    of the window and each call keeps room for the items it covers (in 2,048 tokens a 2,000-character limit
    left room for one item per call: 39 summarizer calls in a 14-turn conversation)."""
    return max(SUMMARY_FLOOR_CHARS, min(setting, window // 2 - 128))


# Each section's share of ``summaryMaxChars`` in a request (what a section leaves unused goes to the others:
# the app's sections are often empty or short, and the model's then have nearly all of it).
SECTION_SHARES = {
    "Goals": 0.2,
    "Agreements": 0.16,
    "Decisions": 0.12,
    "Progress and next steps": 0.2,
    "References": 0.1,
    TURN_SECTION: 0.05,
    "Files": 0.08,
    "Skills loaded": 0.03,
    "Pitfalls": 0.06,
}
# Sections cut from the top in a request (their newest lines matter most); the others keep their head.
_KEEP_NEWEST = frozenset({"Decisions", "Progress and next steps", "References", FALLBACK_SECTION})
_CLOSED_GOAL = re.compile(r"^\s*(?:[-*]|\d+\.)\s*\[(?:done|withdrawn)\]", re.IGNORECASE)
CUT_NOTE = (
    "- (… {n} line(s) cut here to fit the request; the full summary is in session-summary.json, "
    "and search_history finds the items)"
)


def empty_summary(language: str = "en") -> str:
    return render({}, language)


def canonical_section(heading: str) -> str | None:
    """The section a heading names, in any language OkBot writes summaries in (None: no section)."""
    return _SECTION_OF.get(heading.strip().rstrip(":：").strip().casefold())


def heading_language(text: str) -> str:
    """The language ``text``'s headings are written in (English when it has none of another)."""
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            for code, table in HEADINGS.items():
                if code != "en" and match.group(1).strip().rstrip(":：") in table.values():
                    return code
    return "en"


def is_empty_body(line: str) -> bool:
    """The placeholder of a section with nothing in it yet (in any language)."""
    return line.strip() in EMPTY_BODIES.values()


def is_app_line(line: str) -> bool:
    """A line the app wrote from the record into a section the model edits (it carries a record note)."""
    return any(note in line for note in RECORD_NOTES.values())


def without_record_notes(text: str) -> str:
    """``text`` with any record note taken out: what the model writes can never pass for the app's."""
    for note in RECORD_NOTES.values():
        text = text.replace(note, " ")
    return " ".join(text.split())


def parse_sections(text: str) -> tuple[dict[str, str], list[str]]:
    """``(section name -> body, problems)``; problems name text outside sections and unknown headings."""
    sections: dict[str, str] = {}
    problems: list[str] = []
    current: str | None = None
    body: list[str] = []
    outside: list[str] = []

    def close() -> None:
        if current is not None:
            sections[current] = "\n".join(body).strip()

    for line in text.strip().splitlines():
        match = _HEADING.match(line)
        if match:
            close()
            name = match.group(1).strip().rstrip(":：")
            canonical = canonical_section(name)
            if canonical is None:
                problems.append(f"unknown section '## {name}' (only {', '.join(SECTIONS)} are allowed)")
                current, body = None, []
                continue
            if canonical in sections:
                problems.append(f"section '## {canonical}' appears twice")
            current, body = canonical, []
        elif current is None:
            if line.strip():
                outside.append(line.strip())
        else:
            body.append(line)
    close()
    if outside:
        problems.append(f"text outside the sections: {outside[0][:60]!r}")
    return sections, problems


def render(sections: dict[str, str], language: str = "en") -> str:
    """Canonical order, headings in ``language``; the model's sections get a placeholder when empty so every
    heading stays, the app's and the moved-out one appear only with lines."""
    headings = HEADINGS.get(language, HEADINGS["en"])
    empty = EMPTY_BODIES.get(language, EMPTY_BODY)
    return "\n\n".join(f"## {headings[name]}\n{sections.get(name) or empty}" for name in _present(sections))


def _present(sections: dict[str, str]) -> list[str]:
    """The sections a rendering shows, in :data:`ORDER`: every one of the model's, the others with lines."""
    return [name for name in ORDER if name in SECTIONS or sections.get(name)]


def goal_entries(body: str) -> list[tuple[str, str]]:
    """``(status, text)`` per goal line; a status outside GOAL_STATUSES is returned as is."""
    return [(m.group(1).lower(), m.group(2).strip()) for m in map(_GOAL.match, body.splitlines()) if m]


def references(text: str) -> set[str]:
    """Exact references in ``text``: multi-digit numbers, #ids, ticket-style ids (BUG-101), URLs and paths."""
    refs = {m.group(0).rstrip(".,;:") for m in _URL.finditer(text)}
    without_urls = _URL.sub(" ", text)
    refs |= {m.group(0) for m in _ITEM_REF.finditer(without_urls)}
    refs |= {m.group(0) for m in _TICKET.finditer(without_urls)}
    refs |= {m.group(0).rstrip(".,;:") for m in _PATH.finditer(without_urls)}
    refs |= {m.group(0) for m in _NUMBER.finditer(_ITEM_REF.sub(" ", without_urls))}
    return refs


def ungrounded(new_text: str, sources: Iterable[str]) -> list[str]:
    """References in ``new_text`` that occur in none of ``sources`` (invented or altered)."""
    source = "\n".join(sources)
    # the source side is read generously: "T-103" grounds a bare "103", "v1.2.3" grounds "1.2.3"
    known = references(source) | set(re.findall(r"\d[\d,._:/-]*\d|\d", source))
    missing = []
    for ref in sorted(references(new_text)):
        if ref in known:
            continue
        if not ref[0].isdigit() and not ref.startswith("#") and ref in source:
            continue  # a path or URL that occurs verbatim, even if the source tokenised it differently
        missing.append(ref)
    return missing


def check(new_text: str, previous_text: str) -> list[str]:
    """Structural problems of ``new_text`` as the revision of ``previous_text`` (empty list: accept).

    Length is not a problem here: the stored summary keeps every line and :func:`fit_sections`
    bounds what a request carries.
    """
    if not new_text.strip():
        return ["the summary is empty"]
    sections, problems = parse_sections(new_text)
    missing = [name for name in SECTIONS if name not in sections]
    if missing:
        problems.append(f"missing section(s): {', '.join('## ' + m for m in missing)}")
    new_goals = goal_entries(sections.get("Goals", ""))
    bad_status = sorted({s for s, _ in new_goals if s not in GOAL_STATUSES})
    if bad_status:
        problems.append(f"goal status must be one of {', '.join(GOAL_STATUSES)}, got {', '.join(bad_status)}")
    old_goals = goal_entries(parse_sections(previous_text)[0].get("Goals", "")) if previous_text else []
    if len(new_goals) < len(old_goals):
        problems.append(
            f"the Goals section has {len(new_goals)} entries, fewer than the {len(old_goals)} before; "
            "goals are never deleted, only marked done or withdrawn"
        )
    return problems


def section_budgets(max_chars: int) -> dict[str, int]:
    """Each section's character limit in a request: its share of ``max_chars`` less the headings."""
    usable = max(0, max_chars - sum(len(f"## {name}\n\n\n") for name in SECTIONS))
    return {name: int(usable * share) for name, share in SECTION_SHARES.items()}


def fit_sections(text: str, max_chars: int) -> str:
    """``text`` as a request carries it: every section over its limit cut at a line boundary.

    A text that fits ``max_chars`` (or is not a structured summary) is returned unchanged. Otherwise
    sections within their budget stay whole and pass what they leave unused to those over it, which
    are cut -- newest lines kept for decisions, progress and references, the oldest for agreements,
    active goals before closed ones -- with a one-line note where the cut is. The stored summary
    keeps every line; this is only what the model is shown.
    """
    if len(text) <= max_chars:
        return text
    sections, problems = parse_sections(text)
    if problems or not sections:
        return text
    budgets = section_budgets(max_chars)
    names = _present(sections)
    sizes = {name: len(sections.get(name) or EMPTY_BODY) for name in names}
    fitting = [n for n in names if n in budgets and sizes[n] <= budgets[n]]
    over = [n for n in names if n not in fitting]
    spare = sum(budgets.values()) - sum(sizes[n] for n in fitting)
    weights = {n: SECTION_SHARES.get(n, 0.1) for n in over}
    limits = {n: int(spare * weights[n] / sum(weights.values())) for n in over}
    fitted = dict(sections)
    for name in over:
        fitted[name] = _cut_section(name, sections[name], limits[name])
    cut = render(fitted, heading_language(text))
    return cut if len(cut) < len(text) else text  # a limit too small for the notes: nothing is gained


def _cut_section(name: str, body: str, limit: int) -> str:
    """``body`` cut to ``limit`` characters at line boundaries, with the note where lines went."""
    lines = body.splitlines()
    if len(body) <= limit:
        return body
    if name == "Goals":  # closed goals go first, oldest first; then the newest active ones
        order = [i for i, ln in enumerate(lines) if _CLOSED_GOAL.match(ln)]
        order += [i for i in reversed(range(len(lines))) if i not in order]
    elif name in _KEEP_NEWEST:
        order = list(range(len(lines)))
    else:
        order = list(reversed(range(len(lines))))
    dropped: set[int] = set()
    size = len(body)
    for index in order:
        if size + len(CUT_NOTE.format(n=len(dropped))) + 1 <= limit:
            break
        dropped.add(index)
        size -= len(lines[index]) + 1
    note = CUT_NOTE.format(n=len(dropped))
    kept = [ln for i, ln in enumerate(lines) if i not in dropped]
    return "\n".join([note, *kept] if name in _KEEP_NEWEST else [*kept, note])
