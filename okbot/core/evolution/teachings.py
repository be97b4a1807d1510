"""What the user teaches in so many words: a rule, a prohibition, a permission or a procedure in their own message.

Upkeep (a model call, :mod:`.upkeep`) learns what is implicit; a small local model misses even what is
said outright. So when a message the user typed *is* a lasting instruction, the app offers it as
written (:mod:`.offers`): "from now on …", "always …", "never …", "you may … without asking", "when
I say X: 1) … 2) …", and in Chinese 以后… / 从现在起… / 永远不要… / 每次…都要… / 当我说X时：1）….

:func:`detect` is plain text rules, precise before complete: a missed teaching is still upkeep's to
notice, a wrong card is noise the user must wave away. So it reads only what the user addresses to
the assistant as a lasting instruction:

- the sentence must *be* the instruction: it starts with it ("Always …", "Never …", "You may …",
  "From now on, …") or carries a lasting marker ("… from now on", "in all your replies") in an
  instruction's form, never a statement about the user ("I always forget", "from now on I'll …");
- questions, quoted text (``"…"``, ``> …``), code (fenced or inline) and acknowledgements are never
  read as instructions; a sentence that only *mentions* never or always ("never mind", "it always
  fails") is no rule; "don't …" and a bare 不要… count only with a lasting marker ("again",
  "anymore", 以后, 再), since "don't change the title" is about this draft;
- a procedure needs a trigger the user names ("when I say X", "every time you finish …") and at
  least two numbered (or first/then) steps after it: "now write: 1) … 2) …" is a one-off request;
- a message holding a secret, or too long to be one teaching (a pasted document), offers nothing.

The result is the user's words: the sentences (or the trigger and steps) as typed, only whitespace
collapsed, never reworded. Every message found here is also a strong directive for the summary's
verbatim keeping (:func:`okbot.core.digest.directive_grade`), which serves as the cheap first gate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from okbot.core.digest import STRONG_DIRECTIVE, directive_grade, is_trivial
from okbot.core.evolution.persona import MAX_LINE_CHARS
from okbot.core.grounding import typed_by_user
from okbot.core.memory.secrets import has_secret

RULE, PROHIBITION, PERMISSION, PROCEDURE = "rule", "prohibition", "permission", "procedure"
KINDS = (RULE, PROHIBITION, PERMISSION, PROCEDURE)
MAX_MESSAGE_CHARS = 3000  # longer: a pasted text, not one teaching
MAX_SENTENCES = 12  # a message of more sentences is a document; its "never …" is not addressed to the assistant
MAX_LINES = 4  # directive sentences in one teaching (more: a pasted policy)
MAX_STEPS = 20
MAX_TRIGGER_CHARS = 80
MAX_NAME_CHARS = 40


@dataclass(frozen=True)
class Teaching:
    """A lasting instruction the user gave, in their words.

    ``text`` is what the card quotes. Rule kinds: ``lines`` are the instruction sentences (one persona
    line each). A procedure: ``trigger`` ("when I say ship it"), ``phrase`` (what is said or done: "ship
    it") and ``steps`` as typed, without their numbers.
    """

    kind: str
    text: str
    lines: tuple[str, ...] = ()
    trigger: str = ""
    phrase: str = ""
    steps: tuple[str, ...] = ()


# ------------------------------------------------------------------ masking what is not the user's instruction
_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_QUOTE_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_QUOTED = re.compile(
    r"\"[^\"\n]{1,200}\"|“[^”\n]{1,200}”|「[^」\n]{1,200}」|『[^』\n]{1,200}』|«[^»\n]{1,200}»|‘[^’\n]{1,200}’"
    r"|(?<![\w'])'[^'\n]{1,80}'(?![\w'])"
)


def _mask(text: str) -> str:
    """``text`` with code, quoted lines and quoted spans blanked out (same length, so offsets hold).

    Code and quote lines become spaces; a quoted span keeps its quote marks around ``x``-es, so "when I
    say 'ship it':" still reads as a trigger while a "never" inside quotes is no instruction.
    """

    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    def hide(m: re.Match[str]) -> str:
        s = m.group(0)
        return s[0] + "x" * (len(s) - 2) + s[-1]

    masked = _FENCE.sub(blank, text)
    masked = _INLINE_CODE.sub(hide, masked)
    masked = _QUOTE_LINE.sub(blank, masked)
    return _QUOTED.sub(hide, masked)


# ------------------------------------------------------------------ sentences
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]|\n")  # not ";": "Never X; I do it." is one rule
_CJK = re.compile(r"[\u3400-\u9fff]")


def _sentences(masked: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``masked`` (its end mark included), blank ones left out."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(masked):
        if masked[start : m.end()].strip():
            out.append((start, m.end()))
        start = m.end()
    if masked[start:].strip():
        out.append((start, len(masked)))
    return out


def _clean(text: str) -> str:
    """The user's words on one line: whitespace collapsed, a list bullet and trailing separators dropped."""
    text = " ".join(text.split())
    text = re.sub(r"^(?:[-*•+]\s+)", "", text)
    return text.strip(" ,;，；、")


# ------------------------------------------------------------------ English
_LASTING = (
    r"from now on|from here on(?: out)?|going forward|henceforth|from this point(?: on| forward)?|"
    r"in (?:the )?future|for the rest of (?:this|our|the) (?:chat|conversation|session)|"
    r"in (?:all|every|each|any) (?:of )?(?:your )?(?:repl(?:y|ies)|answers?|responses?|messages?)|"
    r"by default|as a rule|every time|each time|whenever|at all times|any ?more|ever again|again"
)
_LASTING_EN = re.compile(rf"\b(?:{_LASTING})\b")
_LEAD_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|also|and|so|btw|by the way|one more thing|one thing|oh|hey|great|thanks|thank you|"
    r"alright|all right|right|good|note|important|rule|remember|please note|ps|p\.s\.|one last thing|"
    r"new rule|another thing|cool|perfect)\b[\s,:!.—–-]+)+"
)
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+")
_LEAD_LASTING = re.compile(rf"^(?:{_LASTING}|for future reference|in general|generally)\b[\s,:—–-]*")
# The first word of a clause that is no imperative: a pronoun, an article, a question word, an auxiliary.
_NOT_IMPERATIVE = frozenset(
    "i i'm i'll i've i'd im ill we we're we'll we've it it's its this that these those there there's here the a an "
    "my our his her their they they're he she he's she's your yours is are was were be been being will would could "
    "can should may might must do does did has have had what why how when where who whom which whose if because "
    "since as so but or not no yes yeah nope maybe perhaps probably everything nothing everyone someone something "
    "anything today tomorrow yesterday now then thanks thank sorry hello hi hey lol haha wow ok okay well sure "
    "also just very really one two three all some any each every many much more most less few after before".split()
)
_MODAL = r"(?:should|must|shall|need to|have to|are to|will|would|'ll|may|can|always|never|are going to)"
_QUESTION_START = re.compile(
    r"^(?:do|does|did|can|could|would|will|should|shall|is|are|am|was|were|have|has|may|might|why|how|what|which|"
    r"who|where|when)\b(?! i (?:say|type|write|ask|send)\b)(?! you (?:finish|are done|complete|get|see|open|"
    r"start|end|commit|push|write|make|create|reply|answer)\b)"
)
_PERMIT_EN = re.compile(
    r"\bwithout (?:first )?(?:asking|checking|confirming|confirmation|waiting|approval|permission|"
    r"my (?:ok|okay|approval|permission|go-ahead|say-so)|(?:asking|checking with|consulting) me)\b"
    r"|\b(?:don'?t|do not|never|needn'?t) (?:need|have) to (?:ask|check|confirm|wait)\b"
    r"|\bno need to (?:ask|check|confirm|wait)\b|\byou needn'?t (?:ask|check|confirm)\b"
    r"|\byou(?:'re| are) (?:allowed|permitted|free|welcome) to\b|\byou have (?:my )?permission to\b"
    r"|\bi (?:allow|permit|authori[sz]e) you to\b|\bi give you (?:my )?permission\b"
)
_PERMIT_START = re.compile(
    r"^(?:you(?:'re| are)?\b|feel free\b|go ahead\b|no need\b|don'?t|do not|never|needn'?t|i (?:allow|permit|"
    r"authori[sz]e|give)\b)"
)
_DONT_ASK = re.compile(
    r"^(?:don'?t|do not|never) (?:bother )?(?:ask(?:ing)?|check(?:ing)? with me|wait(?:ing)? for me)\b"
)
_MAY = re.compile(r"^(?:you (?:may|can|could)|feel free to|go ahead and)\b")
_NEVER = re.compile(r"^never\b(?! mind\b| again\b| before\b| ever (?:have|had|did)\b|\W*$)")
_DONT = re.compile(r"^(?:don'?t|do not)\b(?! (?:worry|mind|bother|forget|panic|be (?:silly|sorry|sad|shy))\b)")
_DONT_EVER = re.compile(r"^(?:(?:don'?t|do not) ever|never ever)\b")
_YOU_MUST_NOT = re.compile(
    r"^you (?:must not|mustn'?t|are not to|shall not|are never to|may never|must never|should never|"
    r"will never|need to never|have to never)\b"
)
_YOU_SHOULD_NOT = re.compile(r"^you (?:should not|shouldn'?t|may not|can'?t|cannot|won'?t|will not)\b")
_MAKE_SURE_NEVER = re.compile(
    r"^(?:make sure|be sure|remember|take care) (?:that )?(?:you )?(?:never|not to|to never|don'?t ever)\b"
    r"|^(?:i want|i'?d like|i would like|i need|i expect) you to never\b"
    r"|^i (?:don'?t|do not) want you to ever\b"
)
_ALWAYS = re.compile(r"^always\b(?! (?:the|a|an|has|have|had|been|is|was|were|so|like that|same)\b|\W*$)")
_YOU_ALWAYS = re.compile(
    r"^you (?:should|must|shall|need to|have to|are to|will|'ll|are going to) always\b|^you'll always\b"
    r"|^(?:make sure|be sure|remember|take care) (?:that )?(?:you )?(?:always|to always)\b"
    r"|^(?:i want|i'?d like|i would like|i need|i expect) you to always\b"
)
_TRIGGER_RULE = re.compile(
    r"^(?:every time|each time|whenever|any ?time|when(?:ever)? i (?:say|type|write|ask|send|give)|"
    r"if i (?:say|type|write|ask|send))\b[^,:]{1,80}[,:]\s*(?P<main>.+)$"
)
_ME = re.compile(
    r"^i(?:'d| would)? (?:want|need|expect|prefer|like) you\b|^i(?:'d| would)? prefer\b|^i(?:'d| would) like\b"
)


def _instruction_form(clause: str, *, lasting: bool) -> bool:
    """Is ``clause`` (lower case) worded as an instruction to the assistant: an imperative, "please …",
    "you should …", "I want you to …"? With a lasting marker a plain "you answer …" counts too."""
    clause = re.sub(r"^(?:please|and|also|then|just|kindly)\b[\s,]*", "", clause).strip()
    if not clause:
        return False
    if re.match(r"^(?:please|let'?s|make sure|be sure|remember to|try to|keep)\b", clause):
        return True
    if _ME.match(clause):
        return True
    m = re.match(r"^you(?:'re| are)?\b\s*(\S*)", clause)
    if m:
        nxt = m.group(1)
        if re.match(rf"^{_MODAL}\b", clause[m.end(0) - len(nxt) :]) or clause.startswith(("you'll", "you're to")):
            return True
        return lasting and nxt not in ("were", "was", "had", "did", "said", "told", "asked", "know", "knew", "seem")
    word = re.match(r"^[\w'-]+", clause)
    if word is None:
        return False
    first = word.group(0)
    return first not in _NOT_IMPERATIVE and not first.isdigit() and not first.endswith("ed")


def _english(sentence: str, *, lasting: bool = False) -> str:
    """The kind of teaching an English sentence (lower case, masked) is, or ``""``; ``lasting``: a lasting
    marker ("from now on, …") came before it."""
    s = _LEAD_FILLER.sub("", _BULLET.sub("", sentence)).strip()
    s = re.sub(r"^(?:please|kindly)\b[\s,]*", "", s)
    if not s or s.rstrip().endswith("?") or _QUESTION_START.match(s):
        return ""
    lasting = lasting or bool(_LASTING_EN.search(s))
    if _PERMIT_EN.search(s) and _PERMIT_START.match(_LEAD_LASTING.sub("", s)) or _DONT_ASK.match(s):
        return PERMISSION
    if _MAY.match(_LEAD_LASTING.sub("", s)) and lasting:
        return PERMISSION
    if _NEVER.match(s) or _DONT_EVER.match(s) or _YOU_MUST_NOT.match(s) or _MAKE_SURE_NEVER.match(s):
        return PROHIBITION
    if (_DONT.match(s) or _YOU_SHOULD_NOT.match(s)) and lasting:
        return PROHIBITION
    if _ALWAYS.match(s) or _YOU_ALWAYS.match(s):
        return RULE
    trigger = _TRIGGER_RULE.match(s)
    if trigger:
        main = trigger.group("main")
        if not main.rstrip().endswith("?") and _instruction_form(main, lasting=False):
            return _english(main) or RULE
        return ""
    rest = _LEAD_LASTING.sub("", s)
    if rest != s:  # "From now on, …": what follows must be the instruction
        return _english(rest, lasting=True) or (RULE if _instruction_form(rest, lasting=True) else "")
    if lasting and _instruction_form(s, lasting=True) and not re.search(r"\b(?:again|any ?more|ever again)\b", s):
        return RULE
    return ""


# ------------------------------------------------------------------ Chinese
_ZH_FILLER = re.compile(
    r"^(?:(?:好的|好吧|好|嗯|哦|另外|还有|对了|记住|请记住|注意|请注意|规则|新规则|重要|顺便说一下|顺便|谢谢|最后)[，,：:！!。\s]*)+"
)
_ZH_LASTING_START = r"(?:从现在起|从现在开始|从今天起|从今往后|从此以后|从此|以后|今后|往后|将来)"
_ZH_LASTING = re.compile(
    rf"{_ZH_LASTING_START}|永远|任何时候|每次|每当|所有|始终|总是|一律|再|(?:你的)?(?:回答|回复)[中里时]"
)
_ZH_QUESTION = re.compile(
    r"[？?]\s*$|[吗嘛么呢]\s*[。.!！]?\s*$|是不是|能不能|可不可以|要不要|会不会|行不行|好不好|对不对"
)
_ZH_PERMIT = re.compile(
    r"(?:不用|不必|无需|不需要|用不着|没必要)(?:再)?(?:先)?(?:问|请示|征求|征得|确认|经过|等|询问)"
    r"|允许你|你有权|我(?:允许|授权|同意)你|你(?:随时|尽管|直接)?可以(?:随时|直接|自己|自行|放心)"
)
_ZH_PROHIBIT_STRONG = re.compile(
    r"^(?:请|你|您|以后|今后|往后|从现在起|从现在开始|永远|[，,\s])*"
    r"(?:永远不要|永远别|永远不能|永远不许|绝对不要|绝对不能|绝对别|绝不|决不|千万不要|千万别|再也不要|再也别|不要再|别再|不许再|不准再|"
    r"一律不|从不)"
)
_ZH_PROHIBIT = re.compile(r"^(?:请|你|您|[，,\s])*(?:不要|别|不许|不准|禁止|请勿|不能|不可以)")
_ZH_FORBIDS = re.compile(r"不要|不许|不准|禁止|请勿|永远不|绝不|决不|别再|(?:^|[，,\s你请])别")
_ZH_NOT_PROHIBITION = re.compile(
    r"^(?:请|你)?(?:不要紧|别客气|不客气|别急|不要急|别担心|不要担心|别忘了|不要忘了|别忘记|不要忘记|别管|别介意|不要介意|别着急|不着急)"
)
_ZH_RULE_AFTER = (
    r"(?:请|都|一律|统一|你(?:要|必须|得|应该|需要|都|就|每次|总是|始终|永远|只|一律|用|说|写|回答|回复|称呼|叫|先|把|给)|"
    r"要|用|只|先|把|给|回答|回复|说|写|称呼|叫|每次|总是|始终|永远|务必|记得|别|不要|保持|使用|改用|加上|附上|标注|在)"
)
_ZH_RULE = re.compile(
    rf"^{_ZH_LASTING_START}[，,\s]*{_ZH_RULE_AFTER}"
    r"|^(?:请|你)?(?:始终|总是|一直|永远|一律|务必)(?:要|用|以|先|保持|使用|回答|回复|说|写|加|把|给|在|称|叫|附|带|标|只)"
    r"|^你(?:必须|要|应该|得|需要)(?:始终|总是|一直|永远|一律|每次)"
    r"|^我(?:希望|要|想让|需要|要求)你(?:以后|今后|从现在起|始终|总是|一直|永远|每次)"
    r"|^(?:请)?(?:在)?(?:每次|每当|只要)[^。！？]{0,40}?(?:都|就|请|你就|你都)(?:要|得|必须|需要|应该|请|先|记得|给我|帮我)"
    r"|^(?:当|每当|如果|只要)?我(?:说|输入|发)[^，,。！？]{1,24}?(?:的时候|时候|时|之后|后)?[，,]\s*"
    r"(?:请|你就?(?:要|得|必须)|就|要|只|用|控制|保持|回答|回复)"
)


def _chinese(sentence: str) -> str:
    """The kind of teaching a Chinese sentence (masked) is, or ``""``."""
    s = _ZH_FILLER.sub("", _BULLET.sub("", sentence.strip())).strip()
    if not s or _ZH_QUESTION.search(s):
        return ""
    addressed = re.match(
        rf"^(?:{_ZH_LASTING_START}|请|你|您|每次|每当|只要|当|如果|永远|始终|总是|一直|一律|务必|绝对|千万|再也|不要|别|不许|不准|"
        r"禁止|请勿|不能|不可以|不用|不必|无需|不需要|允许|直接|随时|只|记得|我(?:希望|要|想让|需要|要求|允许|同意|授权)你|我(?:说|输入|发))",
        s,
    )
    if not addressed:
        return ""
    if _ZH_PERMIT.search(s):
        return PERMISSION
    if _ZH_NOT_PROHIBITION.match(s):
        return ""
    if _ZH_PROHIBIT_STRONG.match(s):
        return PROHIBITION
    if _ZH_PROHIBIT.match(s) and _ZH_LASTING.search(s):
        return PROHIBITION
    if _ZH_RULE.match(s):
        return PROHIBITION if _ZH_FORBIDS.search(s) else RULE
    return ""


def _kind_of(sentence: str) -> str:
    if _CJK.search(sentence):
        kind = _chinese(sentence)
        if kind:
            return kind
    return _english(sentence.casefold().replace("’", "'"))


# ------------------------------------------------------------------ procedures
_TRIGGER_EN = re.compile(
    r"(?i)\b(?P<trigger>(?:when(?:ever)?|every time|each time|any ?time|if|once) I (?:say|type|write|send|ask(?: you)?"
    r"(?: for| to)?|tell you(?: to)?|give you)\b(?P<phrase>[^:\n]{1,60}?)"
    r"|(?:every time|each time|whenever|after|before|once) you (?P<event>[^:,\n]{2,60}?))"
    r"\s*(?::|,\s*(?=\(?1[.)]|first\b))"
)
_TRIGGER_YOU_LASTING = re.compile(
    r"(?i)\b(?P<trigger>when you (?P<event>[^:,\n]{2,60}?))\s*(?::|,\s*(?=\(?1[.)]|first\b))"
)
_TRIGGER_ZH = re.compile(
    r"(?P<trigger>(?:当|每当|每次|如果|只要|以后|今后)?我(?:说|输入|发送|发|打)(?P<phrase>[^，,：:。！？\n]{1,24}?)"
    r"(?:的时候|时候|时|之后|后)?"
    r"|(?:当|每当|每次|只要)你(?P<event>[^，,：:。！？\n]{1,24}?)(?:的时候|时候|时|之后|后)?)\s*[，,：:]"
)
_STEP_MARK = re.compile(r"(?:^|(?<=[\s,;:，；：。.、]))[(（]?(\d{1,2})[.)）、](?!\d)\s*|[①②③④⑤⑥⑦⑧⑨⑩]\s*")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
# What may stand between a trigger and step 1: "you should do the following:", "你就："
_STEPS_LEAD = re.compile(
    r"(?i)^[\s,，:：—-]*(?:(?:then |please |you (?:should |must )?)?(?:do (?:this|the following)|follow these steps)"
    r"|请你|你就|你要|就|请|你)?[\s,，:：—-]*$"
)
_STEP_END = re.compile(r"[.!?。！？](?=\s|$)|\n\s*\n")


def _steps(masked: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """Numbered steps 1, 2, … after ``start``: each step's ``(start, end)`` and where the last one ends."""
    marks = []
    expected = 1
    for m in _STEP_MARK.finditer(masked, start):
        number = int(m.group(1)) if m.group(1) else _CIRCLED.index(m.group(0).strip()) + 1
        if number != expected:
            if marks:
                break
            continue
        if not marks and not _STEPS_LEAD.match(masked[start : m.start()]):
            return [], start  # words between the trigger and step 1: not a list of steps for it
        marks.append(m)
        expected += 1
        if expected > MAX_STEPS:
            break
    if len(marks) < 2:
        return [], start
    spans = [(a.end(), b.start()) for a, b in zip(marks, marks[1:], strict=False)]
    last = marks[-1].end()
    line_end = masked.find("\n", last)
    end_mark = _STEP_END.search(masked, last)
    end = min(x for x in (line_end if line_end >= 0 else len(masked), end_mark.end() if end_mark else len(masked)))
    spans.append((last, end))
    return spans, end


def _ordered_steps(masked: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """Steps written "first …, then …, (and) finally …" (or 先…然后/再…最后…) right after ``start``."""
    rest = masked[start:]
    m = re.match(r"\s*(?:first(?:ly)?\b|先)[\s,]*", rest, re.IGNORECASE)
    if m is None:
        return [], start
    end_mark = _STEP_END.search(masked, start)
    end = end_mark.end() if end_mark else len(masked)
    body_start = start + m.end()
    cuts = [
        (c.start() + body_start, c.end() + body_start)
        for c in re.finditer(
            r"(?i)[,，;；]?\s*(?:and )?(?:then|after that|next|finally|lastly)\b[\s,]*"
            r"|[，,；;]?\s*(?:然后|接着|再|最后)",
            masked[body_start:end],
        )
    ]
    if not cuts:
        return [], start
    spans, at = [], body_start
    for a, b in cuts:
        spans.append((at, a))
        at = b
    spans.append((at, end))
    return spans, end


def _procedure(text: str, masked: str) -> Teaching | None:
    for pattern in (_TRIGGER_EN, _TRIGGER_ZH, _TRIGGER_YOU_LASTING):
        for m in pattern.finditer(masked):
            if pattern is _TRIGGER_YOU_LASTING and not _LASTING_EN.search(masked[: m.start()].casefold()):
                continue  # "when you have time: 1) … 2) …" is this once
            if len(m.group("trigger")) > MAX_TRIGGER_CHARS:
                continue
            spans, end = _steps(masked, m.end())
            if not spans:
                spans, end = _ordered_steps(masked, m.end())
            steps = tuple(s for a, b in spans if (s := _clean(text[a:b]).rstrip("。.")))
            if len(steps) < 2 or len(steps) != len(spans):
                continue
            begin = _sentence_start(masked, m.start())
            phrase_group = "phrase" if m.group("phrase") is not None else "event"
            a, b = m.span(phrase_group)
            phrase = _clean(text[a:b]).strip(" \"'“”‘’「」『』«»")
            return Teaching(
                PROCEDURE,
                _clean(text[begin:end]),
                trigger=_clean(text[m.start("trigger") : m.end("trigger")]),
                phrase=phrase[:MAX_NAME_CHARS],
                steps=steps,
            )
    return None


def _sentence_start(masked: str, at: int) -> int:
    """Where the sentence holding offset ``at`` starts (so "From now on, when I say …" keeps its start)."""
    start = 0
    for m in _SENTENCE_END.finditer(masked, 0, at):
        start = m.end()
    return start + len(masked[start:at]) - len(masked[start:at].lstrip())


# ------------------------------------------------------------------ the entry points
def detect(text: str) -> Teaching | None:
    """The teaching ``text`` (a message the user typed) states outright, or None. Never raises."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_MESSAGE_CHARS:
        return None
    if is_trivial(text) or directive_grade(text) != STRONG_DIRECTIVE or has_secret(text):
        return None
    masked = _mask(text)
    procedure = _procedure(text, masked)
    if procedure is not None:
        return procedure
    sentences = _sentences(masked)
    if len(sentences) > MAX_SENTENCES:
        return None
    found: list[tuple[str, str]] = []
    for start, end in sentences:
        kind = _kind_of(masked[start:end])
        if kind:
            found.append((kind, _clean(text[start:end])))
    if not found or len(found) > MAX_LINES or any(len(line) > MAX_LINE_CHARS for _k, line in found):
        return None
    lines = tuple(line for _k, line in found)
    return Teaching(found[0][0], " ".join(lines), lines=lines)


def detect_item(item: dict[str, Any]) -> Teaching | None:
    """:func:`detect` for a session item: only a message the user typed (never a tool's, the app's or a member's)."""
    if not typed_by_user(item) or item.get("source") != "user":
        return None
    return detect(str(item.get("content") or ""))
