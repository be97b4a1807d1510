"""Which language the user writes in, so summaries and memories are written in it too.

Read from the user's own messages, never from the app's language: someone may run OkBot in English
and chat in Chinese. A Chinese character carries about what a four- or five-letter English word
does, so Han characters are weighed four to one against Latin letters; code, paths and names in a
Chinese message therefore do not make it English, nor a Chinese name an English one.
"""

from __future__ import annotations

from collections.abc import Iterable

ENGLISH, CHINESE = "en", "zh_CN"
# How the summarizer and memory prompts name the language they ask for.
LANGUAGE_WORDS = {ENGLISH: "English", CHINESE: "Simplified Chinese (简体中文)"}
_HAN_WEIGHT = 4


def is_han(char: str) -> bool:
    """A CJK ideograph (the unified block, extension A and the compatibility block)."""
    code = ord(char)
    return 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF


def writing_language(texts: Iterable[str]) -> str | None:
    """``zh_CN`` or ``en`` for what ``texts`` are mostly written in; None when they hold no letters."""
    han = latin = 0
    for text in texts:
        for char in text:
            if char.isascii():
                latin += char.isalpha()
            elif is_han(char):
                han += 1
    if not han and not latin:
        return None
    return CHINESE if han * _HAN_WEIGHT >= latin else ENGLISH


def users_language(items: Iterable[dict], default: str = ENGLISH) -> str:
    """The language of the messages the user typed among ``items`` (``default`` when there are none)."""
    texts = (
        str(it.get("content") or "") for it in items if it.get("type") == "user" and it.get("source", "user") == "user"
    )
    return writing_language(texts) or default
