"""The chat view's colours, all derived from the widget's QPalette so light and dark themes both work."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette

_WARNING = QColor(217, 119, 6)  # amber; mixed with the palette's text so it reads on any base
_ERROR = QColor(220, 38, 38)
_FIND = QColor(250, 204, 21)  # yellow, like a highlighter pen
_FIND_CURRENT = QColor(249, 115, 22)  # orange: the match find-in-chat is on stands out from the others
# Code token hues (HSL hue, saturation): a classic scheme; lightness comes from the theme.
_SYNTAX_HUES = {
    "keyword": (285, 150),  # purple
    "builtin": (200, 170),  # cyan
    "function": (215, 170),  # blue
    "class": (35, 190),  # amber
    "string": (110, 120),  # green
    "number": (20, 180),  # orange
    "comment": None,  # muted text
    "decorator": (330, 140),  # pink
    "tag": (0, 150),  # red (HTML/XML tags)
    "attribute": (35, 190),
    "inserted": (120, 140),
    "deleted": (0, 160),
    "heading": (215, 170),
}


def blend(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved a fraction ``t`` towards ``b`` (opaque)."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def is_dark(palette: QPalette) -> bool:
    """True when the palette's base is darker than its text (a dark theme)."""
    return palette.color(QPalette.ColorRole.Base).lightness() < palette.color(QPalette.ColorRole.Text).lightness()


@dataclass(frozen=True)
class ChatColors:
    """Every colour the delegate paints with; build one per palette with :meth:`from_palette`."""

    dark: bool
    background: QColor
    text: QColor
    muted: QColor
    faint: QColor
    assistant_bg: QColor
    assistant_border: QColor
    user_bg: QColor
    user_border: QColor
    code_bg: QColor
    code_border: QColor
    inline_code_bg: QColor
    code_header: QColor
    code_header_bg: QColor
    accent: QColor
    accent_soft: QColor
    pill_bg: QColor
    warning: QColor
    warning_bg: QColor
    error: QColor
    error_bg: QColor
    rule: QColor
    link: QColor
    find_bg: QColor  # every match of find-in-chat
    find_current_bg: QColor  # the match find-in-chat is on

    @classmethod
    def from_palette(cls, palette: QPalette) -> ChatColors:
        """Colours for ``palette`` (its Base, Text and Highlight roles drive everything)."""
        role = QPalette.ColorRole
        base, text, highlight = palette.color(role.Base), palette.color(role.Text), palette.color(role.Highlight)
        dark = is_dark(palette)
        black, white = QColor(0, 0, 0), QColor(255, 255, 255)
        # an accent that reads as text on the base colour, whatever the theme's highlight is
        accent = blend(highlight, white, 0.35) if dark else blend(highlight, black, 0.12)
        assistant_bg = blend(base, text, 0.075 if dark else 0.04)
        return cls(
            dark=dark,
            background=base,
            text=text,
            muted=blend(text, base, 0.42),
            faint=blend(text, base, 0.62),
            assistant_bg=assistant_bg,
            assistant_border=blend(base, text, 0.14 if dark else 0.10),
            user_bg=blend(base, highlight, 0.30 if dark else 0.13),
            user_border=blend(base, highlight, 0.42 if dark else 0.24),
            code_bg=blend(base, black, 0.30) if dark else blend(base, text, 0.065),
            code_border=blend(base, text, 0.16 if dark else 0.13),
            inline_code_bg=QColor(text.red(), text.green(), text.blue(), 38 if dark else 22),  # tints any bubble
            code_header=blend(text, base, 0.38),
            code_header_bg=blend(base, text, 0.10 if dark else 0.085),
            accent=accent,
            accent_soft=blend(base, highlight, 0.22 if dark else 0.10),
            pill_bg=blend(base, text, 0.07 if dark else 0.05),
            warning=blend(_WARNING, white, 0.25) if dark else blend(_WARNING, black, 0.15),
            warning_bg=blend(base, _WARNING, 0.16 if dark else 0.10),
            error=blend(_ERROR, white, 0.30) if dark else blend(_ERROR, black, 0.10),
            error_bg=blend(base, _ERROR, 0.16 if dark else 0.08),
            rule=blend(base, text, 0.18),
            link=accent,
            find_bg=blend(base, _FIND, 0.30 if dark else 0.38),
            find_current_bg=blend(base, _FIND_CURRENT, 0.62 if dark else 0.70),
        )


def _slot_tone(colors: ChatColors, slot: int) -> QColor:
    """The full-strength hue of colour slot ``slot`` (0-7): 40° apart, none on the accent's (the captain's) hue."""
    hue = (max(0, colors.accent.hslHue()) + 40 + (slot % 8) * 40) % 360
    return QColor.fromHsl(hue, 150, 150 if colors.dark else 110)


def avatar_colors(colors: ChatColors, name: str, slot: int | None = None) -> tuple[QColor, QColor]:
    """(background, letter) for a squad speaker's avatar: one of eight hues, stable per name or ``slot``.

    ``slot`` < 0 is the captain: the palette's own accent, so it reads as the squad's voice.
    """
    if slot is not None and slot < 0:
        return colors.accent_soft, colors.accent
    tone = _slot_tone(colors, zlib.crc32(name.encode("utf-8")) % 8 if slot is None else slot)
    return blend(colors.background, tone, 0.30 if colors.dark else 0.16), (
        blend(tone, QColor(255, 255, 255), 0.35) if colors.dark else blend(tone, QColor(0, 0, 0), 0.1)
    )


def speaker_color(colors: ChatColors, slot: int) -> QColor:
    """A squad speaker's name colour: their hue, toned to read as text on the palette's base."""
    if slot < 0:
        return colors.accent
    tone = _slot_tone(colors, slot)
    return blend(tone, colors.text, 0.15) if colors.dark else blend(tone, QColor(0, 0, 0), 0.18)


def speaker_border(colors: ChatColors, slot: int) -> QColor:
    """A squad member's bubble border: their hue, faint (the captain keeps the plain border)."""
    if slot < 0:
        return colors.assistant_border
    return blend(colors.assistant_border, _slot_tone(colors, slot), 0.40 if colors.dark else 0.35)


def syntax_colors(colors: ChatColors) -> dict[str, QColor]:
    """Code token colours by category (see :mod:`okbot.ui.chat.syntax`), readable on ``colors.code_bg``.

    Light themes get dark tones, dark themes light ones; comments are the theme's muted text.
    """
    out: dict[str, QColor] = {}
    for category, hue in _SYNTAX_HUES.items():
        if hue is None:
            out[category] = colors.muted
            continue
        tone = QColor.fromHsl(hue[0], hue[1], 175 if colors.dark else 95)
        out[category] = blend(tone, colors.text, 0.12)
    return out
