"""Does a new message start a new topic? Cheap first; at most one tiny yes/no model call.

Any failure or doubt means "same topic": covering everything is the bigger step, so it needs a
clear signal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from okbot.core.items import item_text, preview

_MARKERS = re.compile(
    r"\b(new topic|different topic|change of (topic|subject)|unrelated (question|topic)|switching (gears|topics)"
    r"|on another note|something (else|different) entirely|let'?s talk about something else)\b"
    r"|换个话题|新话题|另一个话题|话题无关",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{4,}", re.UNICODE)
_STOP = frozenset(
    "this that with have from they will would there their what when which about could should these those them then "
    "than into your just like also been were does done make made more most much need some such only other very "
    "here want please thanks thank know think okay really still give tell help".split()
)

YES_NO_PROMPT = (
    "Recent conversation:\n{recent}\n\nNew message:\n{new}\n\n"
    "Does the new message start a new topic that needs none of the recent conversation? "
    "Answer with one word: yes or no."
)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _STOP


def cheap_signal(new_text: str, recent: Sequence[dict[str, Any]]) -> str:
    """``"new"`` (explicit marker), ``"same"`` (shared vocabulary or too little to tell) or ``"unsure"``."""
    if _MARKERS.search(new_text):
        return "new"
    new_words = _words(new_text)
    if len(new_words) < 4:
        return "same"
    recent_words: set[str] = set()
    for item in recent:
        recent_words |= _words(item_text(item))
    return "unsure" if recent_words and not (new_words & recent_words) else "same"


def is_new_topic(new_text: str, recent: Sequence[dict[str, Any]], ask: Callable[[str], str] | None) -> bool:
    """The decision; ``ask`` sends one tiny prompt to the model (bounded by the caller) or is None."""
    signal = cheap_signal(new_text, recent)
    if signal != "unsure":
        return signal == "new"
    if ask is None:
        return False
    recent_text = "\n".join(f"- {preview(item_text(it), 160)}" for it in recent[-6:])
    try:
        answer = ask(YES_NO_PROMPT.format(recent=recent_text, new=preview(new_text, 400)))
    except Exception:  # noqa: BLE001 - any failure means "same topic"
        return False
    return answer.strip().lower().startswith("yes")
