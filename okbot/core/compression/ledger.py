"""The part of the summary the app keeps from the record, so that a small model does not have to.

Whenever a compression makes a new summary (the summarizer's or the plain move-out), :func:`carry`
revises these from the newly covered items and from what the summary already says:

* ``## Files``: the files the conversation read, wrote, edited or attached, most recent first, paths
  only: from the arguments of the file tools (read_file, write_file, edit_file) and of MCP tools whose
  name says they read or write a file and whose arguments name it (``path``, ``paths``, ``file_path``, …),
  for calls that succeeded; and the names of the files the user attached.
* ``## Pitfalls``: failed tool calls with their exact error text (its first line), and replies that
  failed, newest first, each once.
* ``## Skills loaded``: the skills ``load_skill`` read, most recent first, and how to load each again.
* ``## Turn in progress``: when the covered items end inside a turn (its request has no final answer
  among them): how many tool calls it made so far and the last one, and a call still without a result
  (an approval or a running tool).
* In ``## Goals``, lines marked as the app's (:data:`structure.RECORD_NOTES`): while no goal the model
  wrote cites the user's first request, a pointer to it (and the app keeps that message word for word);
  when that message names a queue -- a range ("part0.txt to part9.txt", "#101–#105") or a list ("PR
  #101, #102 and #104") -- where the conversation is in it: the last of its items the user or the
  assistant named since.

Each is bounded (:data:`FILES_MAX`, :data:`PITFALLS_MAX`, :data:`SKILLS_MAX`, and in characters), and a
request cuts them further to their share of ``summaryMaxChars`` when the whole summary is over it. The app
reads its own lines back (one format per language, parsed here only), so a compression reads the newly
covered items, the first request's message and nothing else of the record. The model never edits them
(:mod:`okbot.core.compression.edits`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from okbot.core.compression import structure
from okbot.core.digest import call_digest, is_trivial
from okbot.core.language import users_language
from okbot.core.summary import SessionSummary
from okbot.storage import jsontext

FILES_MAX = 12
FILES_CHARS = 600
PATH_CHARS = 120
PITFALLS_MAX = 5
PITFALLS_CHARS = 700
ERROR_CHARS = 160
CALL_CHARS = 60
SKILLS_MAX = 6
SKILLS_CHARS = 400
WAITING_MAX = 2
QUEUE_MAX = 500  # items of a queue the app tracks; a longer range is no queue it can follow
QUEUE_SHOWN_CHARS = 80
FIRST_REQUEST_LOOKUP = 64  # items at the start of the record searched for the user's first request

_OPS = ("read", "written", "edited", "attached")
_TOOL_OPS = {"read_file": "read", "write_file": "written", "edit_file": "edited"}
_PATH_KEYS = ("path", "paths", "file_path", "filepath", "file", "filename", "source", "destination")
_MCP_SEPARATOR = "__"  # MCP tools are offered as <server>__<tool> (okbot.core.mcp_tools)
_NOT_A_FILE = ("list", "search", "tree", "director", "find", "info", "stat")
_MCP_OPS = (
    (("write", "create", "save", "put"), "written"),
    (("edit", "move", "rename", "patch", "append", "replace"), "edited"),
    (("read", "get", "open", "view", "cat", "file"), "read"),
)

# The app's lines, per language: each is parsed back by the patterns below it.
_WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "ops": {op: op for op in _OPS},
        "file": "- {path} ({op} #{id})",
        "pitfall": "- {what} → {error} (#{id})",
        "reply": "the reply",
        "skill": '- {name} — load_skill("{name}") reloads it (#{id})',
        "turn": "- turn of request #{request} in progress at #{at}: {calls}",
        "calls": "{n} tool calls so far, the last {last}",
        "one_call": "1 tool call so far: {last}",
        "no_call": "no tool call yet",
        "waiting": "- waiting for {call} (#{id}): no result yet (an approval or the tool itself)",
        "pointer": "- [active] {note} the user's message #{id}, quoted word for word in this request",
        "queue": "- {note} queue in #{id}: at {label}, {k} of {n} ({shown})",
        "queue_start": "- {note} queue in #{id}: {n} items ({shown}), none named since",
    },
    "zh_CN": {
        "ops": {"read": "读取", "written": "写入", "edited": "修改", "attached": "附件"},
        "file": "- {path}（{op} #{id}）",
        "pitfall": "- {what} → {error}（#{id}）",
        "reply": "回复",
        "skill": '- {name} — 用 load_skill("{name}") 重新加载（#{id}）',
        "turn": "- 请求 #{request} 的回合在 #{at} 时仍在进行：{calls}",
        "calls": "已调用工具 {n} 次，最近一次 {last}",
        "one_call": "已调用工具 1 次：{last}",
        "no_call": "尚未调用工具",
        "waiting": "- 等待 {call}（#{id}）：尚无结果（等待批准或工具本身）",
        "pointer": "- [active] {note}用户的消息 #{id}，原文见本请求",
        "queue": "- {note}#{id} 中的队列：到 {label}，第 {k} 项，共 {n} 项（{shown}）",
        "queue_start": "- {note}#{id} 中的队列：共 {n} 项（{shown}），之后尚未提到",
    },
}
_OP_OF_WORD = {word: op for words in _WORDS.values() for op, word in words["ops"].items()}
_OP_WORDS = "|".join(map(re.escape, _OP_OF_WORD))
_FILE_LINE = re.compile(rf"^- (?P<path>.+?) ?[(（](?P<op>{_OP_WORDS}) #(?P<id>\d+)[)）]$")
_PITFALL_LINE = re.compile(r"^- (?P<what>.+?) → (?P<error>.*?) ?[(（]#(?P<id>\d+)[)）]$")
_SKILL_LINE = re.compile(r"^- (?P<name>\S+) — .*[(（]#(?P<id>\d+)[)）]$")
_TURN_LINE = re.compile(
    r"^- (?:turn of request #(?P<en>\d+) in progress at #\d+: (?:(?P<en_n>[\d,]+) tool calls? so far|no tool)"
    r"|请求 #(?P<zh>\d+) 的回合在 #\d+ 时仍在进行：(?:已调用工具 (?P<zh_n>[\d,]+) 次|尚未))"
)
_TURN_LAST = re.compile(r"(?:so far, the last |so far: |次，最近一次 |次：)(?P<last>.+)$")
_NOTES = "|".join(map(re.escape, structure.RECORD_NOTES.values()))
_POINTER_LINE = re.compile(rf"^- \[\w+\] (?:{_NOTES}) ?(?:the user's message|用户的消息) #(?P<id>\d+)")
_QUEUE_LINE = re.compile(
    rf"^- (?:{_NOTES}) ?(?:queue in #(?P<en>\d+):(?: at .+?, (?P<en_k>[\d,]+) of)?"
    rf"|#(?P<zh>\d+) 中的队列：(?:到 .+?，第 (?P<zh_k>[\d,]+) 项)?)"
)
_GOAL_CITES = re.compile(r"\(#(\d+)\)\s*$")
_SKILL_NAME = re.compile(r"^Skill '([^']+)'")

# A range of items: "part0.txt to part9.txt", "#101–#105", "BUG-101 to BUG-140", "PRs 101 to 105", "到", "至".
_TOKEN = r"(?P<p{n}>[#A-Za-z_][\w./-]*?)?(?P<n{n}>\d+)(?P<s{n}>(?:\.[A-Za-z]\w*)+)?"
# Boundaries are ASCII: Chinese text runs into a file name without a space ("读取part0.txt").
_BEFORE, _AFTER = r"(?<![A-Za-z0-9_#./-])", r"(?![A-Za-z0-9_])"
_RANGE = re.compile(
    _BEFORE
    + _TOKEN.format(n=1)
    + r"\s*(?P<sep>\bto\b|\bthrough\b|\bthru\b|\buntil\b|\.\.\.?|…|–|—|-|~|到|至)\s*"
    + _TOKEN.format(n=2)
    + _AFTER,
    re.IGNORECASE,
)
_WORD_SEPARATORS = frozenset({"to", "through", "thru", "until", "到", "至"})
# A list of items: "#101, #102 and #104", "PR #101, PR #102, PR #103", "a.py、b.py 和 c.py".
_LIST_ITEM = re.compile(
    r"(?P<hash>#\d+)\b|(?P<ticket>\b[A-Z][A-Z0-9]{0,9}-\d+)\b|(?P<path>" + structure.PATH_PATTERN.pattern + ")"
)
_LIST_GAP = re.compile(r"^\s*(?:,|，|、|;|；|\band\b|\bor\b|和|及|与)?\s*(?:and\s+|or\s+)?(?:[A-Za-z]{1,6}\s*)?$")
LIST_MIN = 3


@dataclass
class _Turn:
    request: int
    calls: int = 0
    last: str = ""


@dataclass
class _Queue:
    """A queue the user's message names: its items' labels in order, and the pattern that finds them in text
    (a range's pattern captures the number, ``first`` being the range's first; a list's matches a label)."""

    labels: list[str]
    shown: str
    pattern: re.Pattern[str]
    first: int | None = None
    _index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._index = {label: i for i, label in enumerate(self.labels)}

    def index_of(self, match: re.Match[str]) -> int | None:
        if self.first is None:
            return self._index.get(match.group(0))
        number = int(match.group(1)) - self.first
        return number if 0 <= number < len(self.labels) else None


@dataclass
class _State:
    """What the app keeps, read back from the summary and revised from the newly covered items."""

    files: list[tuple[str, str, int]] = field(default_factory=list)  # (path, op, item id), newest first
    pitfalls: list[tuple[str, str, int]] = field(default_factory=list)  # (what failed, error text, item id)
    skills: list[tuple[str, int]] = field(default_factory=list)  # (name, item id), newest first
    turn: _Turn | None = None
    request: int | None = None  # the user's first request, which the goal pointer and the queue name
    pointer: bool = False
    position: int | None = None  # index in the queue of the last item named


def carry(new: SessionSummary, items: Sequence[dict[str, Any]], *, since: int, session: Any) -> SessionSummary:
    """``new`` (a summary just made, covering through ``new.covered_through_id``) with the app's part revised.

    ``items`` are the items the compression saw (the request's, so they include the newly covered ones,
    those with ids in ``(since, covered]``, and what follows them); ``session`` is read for the user's
    first request and for the whole text of a failed result the request showed as a digest, nothing else.
    """
    covered = new.covered_through_id
    delta = [it for it in items if since < it.get("id", 0) <= covered]
    text = new.summary
    sections, problems = structure.parse_sections(text) if text.strip() else ({}, [])
    if problems:  # a summary this build cannot read whole is left as it is rather than lose a line of it
        return new
    language = structure.heading_language(text) if text.strip() else users_language(delta)
    state = _read(sections)
    if state.request is None:
        state.request = _first_request(delta, session, since)
    request = _message(session, delta, state.request)
    if request is None or is_trivial(str(request.get("content", ""))):
        state.request = None
    calls = {it.get("call_id"): it for it in items if it.get("type") == "tool_call" and it.get("id", 0) <= covered}
    answered = {it.get("call_id") for it in items if it.get("type") == "tool_result"}
    pending: dict[str, dict[str, Any]] = {}
    queue = _queue(str(request.get("content", ""))) if state.request is not None and request is not None else None
    for item in delta:
        _take(state, item, calls, pending, session)
        if queue is not None and item["id"] != state.request:
            state.position = _named(queue, item, state.position)
    following = next((it for it in items if it.get("id", 0) > covered), None)
    if state.turn is not None and _turn_ended(delta, following):
        state.turn = None
    waiting = [c for c in pending.values() if c.get("call_id") not in answered]
    state.pointer = _points(sections.get("Goals", ""), state)
    sections = _write(sections, state, queue, waiting, covered, language)
    kept = new.kept_user_ids
    if state.pointer and state.request is not None and state.request not in kept:
        kept = sorted({*kept, state.request})
    revised = structure.render(sections, language) if sections else text
    return replace(new, summary=revised, kept_user_ids=kept)


# -- reading the app's own lines back ---------------------------------------------------------------------
def _read(sections: dict[str, str]) -> _State:
    state = _State()
    for line in _lines(sections.get("Files", "")):
        if m := _FILE_LINE.match(line):
            state.files.append((m.group("path"), _OP_OF_WORD[m.group("op")], int(m.group("id"))))
    for line in _lines(sections.get("Pitfalls", "")):
        if m := _PITFALL_LINE.match(line):
            state.pitfalls.append((m.group("what"), m.group("error"), int(m.group("id"))))
    for line in _lines(sections.get("Skills loaded", "")):
        if m := _SKILL_LINE.match(line):
            state.skills.append((m.group("name"), int(m.group("id"))))
    for line in _lines(sections.get(structure.TURN_SECTION, ""))[:1]:
        if m := _TURN_LINE.match(line):
            calls = m.group("en_n") or m.group("zh_n") or "0"
            request = int(m.group("en") or m.group("zh"))
            last = _TURN_LAST.search(line)
            state.turn = _Turn(request, int(calls.replace(",", "")), last.group("last") if last else "")
    for line in _lines(sections.get("Goals", "")):
        if m := _POINTER_LINE.match(line):
            state.request, state.pointer = int(m.group("id")), True
        elif m := _QUEUE_LINE.match(line):
            state.request = int(m.group("en") or m.group("zh"))
            k = m.group("en_k") or m.group("zh_k")
            state.position = int(k.replace(",", "")) - 1 if k else None
    return state


def _lines(body: str) -> list[str]:
    return [ln for ln in body.splitlines() if ln.strip() and not structure.is_empty_body(ln)]


def _first_request(delta: Sequence[dict[str, Any]], session: Any, since: int) -> int | None:
    """The id of the user's first message that is more than an acknowledgement, near the record's start."""
    head: Any = delta if since == 0 or session is None else session.iter_items(None, min(since, FIRST_REQUEST_LOOKUP))
    for count, item in enumerate(head):
        if count >= FIRST_REQUEST_LOOKUP:
            break
        if _typed(item) and not is_trivial(str(item.get("content", ""))):
            return int(item["id"])
    return None


def _message(session: Any, delta: Sequence[dict[str, Any]], item_id: int | None) -> dict[str, Any] | None:
    if item_id is None:
        return None
    found = next((it for it in delta if it.get("id") == item_id), None)
    if found is None and session is not None:
        found = session.get(item_id)
    return found if found is not None and _typed(found) else None


def _typed(item: dict[str, Any]) -> bool:
    return item.get("type") == "user" and item.get("source") == "user"


# -- the newly covered items ------------------------------------------------------------------------------
def _take(
    state: _State,
    item: dict[str, Any],
    calls: dict[Any, dict[str, Any]],
    pending: dict[str, dict[str, Any]],
    session: Any,
) -> None:
    kind = item.get("type")
    if kind == "user":
        state.turn = _Turn(int(item["id"]))
        for record in item.get("attachments") or []:
            _file(state, str(record.get("name") or record.get("path") or ""), "attached", item["id"])
    elif kind == "tool_call":
        pending[str(item.get("call_id"))] = item
        if state.turn is not None:
            state.turn.calls += 1
            state.turn.last = call_digest(item, CALL_CHARS)
    elif kind == "tool_result":
        call = calls.get(item.get("call_id"))
        pending.pop(str(item.get("call_id")), None)
        if item.get("ok", True):
            _succeeded(state, item, call)
        else:
            original = session.get(item["id"]) if session is not None and _shown_differently(item) else None
            what = call_digest(call, CALL_CHARS) if call is not None else str(item.get("name") or "tool")
            _pitfall(state, what, _error_text(original or item), item["id"])
    elif kind == "assistant" and item.get("status") == "error" and item.get("error"):
        _pitfall(state, "", _error_text({"content": item["error"]}), item["id"])


def _shown_differently(item: dict[str, Any]) -> bool:
    """A result the request showed as a digest or cut: its error text is read from the record."""
    return bool(item.get("hidden")) or "cut" in item


def _succeeded(state: _State, result: dict[str, Any], call: dict[str, Any] | None) -> None:
    name = str(result.get("name") or "")
    args = _arguments(call)
    if name == "load_skill":
        found = _SKILL_NAME.match(str(result.get("content", "")))
        skill = found.group(1) if found else str(args.get("name") or "")
        if skill:
            state.skills = [(skill, result["id"]), *(s for s in state.skills if s[0] != skill)]
        return
    op = _file_op(name)
    if op is None:
        return
    for path in _paths(args):
        _file(state, path, op, result["id"])


def _file_op(tool: str) -> str | None:
    """What a successful call of ``tool`` did to the files its arguments name (None: nothing, or unknown)."""
    if tool in _TOOL_OPS:
        return _TOOL_OPS[tool]
    if _MCP_SEPARATOR not in tool:
        return None
    name = tool.split(_MCP_SEPARATOR, 1)[1].lower()
    if any(word in name for word in _NOT_A_FILE):
        return None
    return next((op for words, op in _MCP_OPS if any(word in name for word in words)), None)


def _arguments(call: dict[str, Any] | None) -> dict[str, Any]:
    if call is None:
        return {}
    try:
        value = jsontext.loads(call.get("arguments") or "{}")
    except ValueError:  # a recorded call must never make a compression fail
        return {}
    return value if isinstance(value, dict) else {}


def _paths(args: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in _PATH_KEYS:
        value = args.get(key)
        values = value if isinstance(value, list) else [value]
        out += [v for v in values[:FILES_MAX] if isinstance(v, str) and v.strip() and "://" not in v]
    return out


def _file(state: _State, path: str, op: str, item_id: int) -> None:
    path = " ".join(path.split())
    if path.startswith("./"):
        path = path[2:]
    if not path:
        return
    if len(path) > PATH_CHARS:
        path = "…" + path[-(PATH_CHARS - 1) :]
    state.files = [(path, op, item_id), *(f for f in state.files if f[0] != path)][: FILES_MAX * 2]


def _error_text(item: dict[str, Any]) -> str:
    """The first line of a failed result, exactly, within :data:`ERROR_CHARS`."""
    content = item.get("content", "")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = first.replace(" → ", " -> ")  # the line's own separator
    return first if len(first) <= ERROR_CHARS else first[: ERROR_CHARS - 1] + "…"


def _pitfall(state: _State, what: str, error: str, item_id: int) -> None:
    tool = what.split("(", 1)[0]
    rest = [p for p in state.pitfalls if (p[0].split("(", 1)[0], p[1]) != (tool, error)]
    state.pitfalls = [(what, error, item_id), *rest][:PITFALLS_MAX]


def _turn_ended(delta: Sequence[dict[str, Any]], following: dict[str, Any] | None) -> bool:
    """Whether the turn the covered items reach ended among them: its last item is a reply after which the
    turn called no more tools (or one that failed or was stopped)."""
    last = next((it for it in reversed(delta) if it.get("type") != "notice"), None)
    if last is None or last.get("type") != "assistant":
        return False
    if last.get("status", "complete") != "complete":
        return True
    return following is None or following.get("type") != "tool_call"


# -- the queue --------------------------------------------------------------------------------------------
def _queue(text: str) -> _Queue | None:
    """The queue ``text`` names (the longest range or list in it), or None."""
    best: _Queue | None = None
    for match in _RANGE.finditer(text):
        found = _range(match)
        if found is not None and (best is None or len(found.labels) > len(best.labels)):
            best = found
    listed = _list(text)
    if listed is not None and (best is None or len(listed.labels) > len(best.labels)):
        best = listed
    return best


def _range(m: re.Match[str]) -> _Queue | None:
    p1, p2, s1, s2 = m.group("p1") or "", m.group("p2") or "", m.group("s1") or "", m.group("s2") or ""
    first, last = int(m.group("n1")), int(m.group("n2"))
    if (p2 and p2 != p1) or (s1 and s2 and s1 != s2) or not 0 < last - first < QUEUE_MAX:
        return None
    prefix, suffix = p1, s2 or s1
    if not prefix and not suffix and m.group("sep").lower() not in _WORD_SEPARATORS:
        return None  # "10-12", "2024-05": numbers with a dash are no queue
    width = len(m.group("n1")) if m.group("n1").startswith("0") and len(m.group("n1")) > 1 else 0
    labels = [f"{prefix}{n:0{width}d}{suffix}" for n in range(first, last + 1)]
    pattern = re.compile(rf"(?<![A-Za-z0-9_.]){re.escape(prefix)}(\d+){re.escape(suffix)}{_AFTER}")
    return _Queue(labels, f"{labels[0]}–{labels[-1]}", pattern, first)


def _list(text: str) -> _Queue | None:
    runs: list[list[re.Match[str]]] = []
    for match in _LIST_ITEM.finditer(text):
        previous = runs[-1][-1] if runs else None
        if (
            previous is not None
            and previous.lastgroup == match.lastgroup
            and _LIST_GAP.match(text[previous.end() : match.start()])
        ):
            runs[-1].append(match)
        else:
            runs.append([match])
    run = max(runs, key=len, default=[])
    labels = list(dict.fromkeys(m.group(0).rstrip(".,;:") for m in run))[:QUEUE_MAX]  # not the sentence's stop
    if len(labels) < LIST_MIN:
        return None
    shown = ", ".join(labels)
    if len(shown) > QUEUE_SHOWN_CHARS:
        shown = f"{labels[0]}, {labels[1]} … {labels[-1]}"
    alternatives = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    return _Queue(labels, shown, re.compile(rf"(?<![A-Za-z0-9_.])(?:{alternatives}){_AFTER}"))


def _named(queue: _Queue, item: dict[str, Any], position: int | None) -> int | None:
    """The queue's position after ``item``: the last of its items named in it, when the user or the
    assistant named one (a tool call's arguments are the assistant's words too)."""
    kind = item.get("type")
    if kind == "tool_call":
        text = str(item.get("arguments") or "")
    elif (kind == "user" and item.get("source") == "user") or kind == "assistant":
        text = str(item.get("content") or "")
    else:
        return position
    for match in queue.pattern.finditer(text):
        index = queue.index_of(match)
        if index is not None:
            position = index
    return position


# -- writing ----------------------------------------------------------------------------------------------
def _write(
    sections: dict[str, str],
    state: _State,
    queue: _Queue | None,
    waiting: list[dict[str, Any]],
    covered: int,
    language: str,
) -> dict[str, str]:
    words = _WORDS.get(language, _WORDS["en"])
    note = structure.RECORD_NOTES.get(language, structure.RECORD_NOTES["en"])
    out = dict(sections)
    out["Goals"] = "\n".join(_goal_lines(sections.get("Goals", ""), state, queue, words, note))
    file_lines = [words["file"].format(path=p, op=words["ops"][op], id=i) for p, op, i in state.files]
    out["Files"] = "\n".join(_bounded(file_lines, FILES_MAX, FILES_CHARS))
    pitfall_lines = [
        words["pitfall"].format(what=what or words["reply"], error=error, id=i) for what, error, i in state.pitfalls
    ]
    out["Pitfalls"] = "\n".join(_bounded(pitfall_lines, PITFALLS_MAX, PITFALLS_CHARS))
    skill_lines = [words["skill"].format(name=name, id=i) for name, i in state.skills]
    out["Skills loaded"] = "\n".join(_bounded(skill_lines, SKILLS_MAX, SKILLS_CHARS))
    out[structure.TURN_SECTION] = "\n".join(_turn_lines(state.turn, waiting, covered, words))
    return out


def _points(goals: str, state: _State) -> bool:
    """Whether Goals gets the pointer to the user's first request: while no goal the model wrote cites it,
    and the model wrote none before the pointer was there (a model's goals from the start need none)."""
    if state.request is None:
        return False
    model_goals = [ln for ln in _lines(goals) if structure.goal_entries(ln) and not structure.is_app_line(ln)]
    cited = any((m := _GOAL_CITES.search(ln)) and int(m.group(1)) == state.request for ln in model_goals)
    return not cited and (state.pointer or not model_goals)


def _goal_lines(body: str, state: _State, queue: _Queue | None, words: dict[str, Any], note: str) -> list[str]:
    """Goals: the app's lines first (the pointer, the queue), then the model's, as they were."""
    own = [ln for ln in _lines(body) if not structure.is_app_line(ln)]
    request = state.request
    app: list[str] = []
    if state.pointer:
        app.append(words["pointer"].format(note=note, id=request))
    if request is not None and queue is not None:
        n = len(queue.labels)
        if state.position is None or not 0 <= state.position < n:
            app.append(words["queue_start"].format(note=note, id=request, n=n, shown=queue.shown))
        else:
            label = queue.labels[state.position]
            k = state.position + 1
            app.append(words["queue"].format(note=note, id=request, label=label, k=k, n=n, shown=queue.shown))
    return [*app, *own]


def _turn_lines(turn: _Turn | None, waiting: list[dict[str, Any]], covered: int, words: dict[str, Any]) -> list[str]:
    if turn is None:
        return []
    if turn.calls == 0:
        calls = words["no_call"]
    elif turn.calls == 1:
        calls = words["one_call"].format(last=turn.last)
    else:
        calls = words["calls"].format(n=f"{turn.calls:,}", last=turn.last)
    lines = [words["turn"].format(request=turn.request, at=covered, calls=calls)]
    for call in waiting[-WAITING_MAX:]:
        lines.append(words["waiting"].format(call=call_digest(call, CALL_CHARS), id=call["id"]))
    return lines


def _bounded(lines: list[str], most: int, chars: int) -> list[str]:
    """The first ``most`` of ``lines`` that fit ``chars`` (the first one always)."""
    out: list[str] = []
    used = 0
    for line in lines[:most]:
        if out and used + len(line) + 1 > chars:
            break
        out.append(line)
        used += len(line) + 1
    return out
