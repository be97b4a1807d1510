"""Every setting OkBot has, declared once as data.

The Settings pages and ``okbot config get|set`` are both built from :data:`SETTINGS`; the
store (:mod:`okbot.config.settings`) validates through it. A declaration also says how the
Settings dialog shows the setting (its label, unit, words for its choices, and the page and
section it appears in), so the pages are generated from it and never restate it.

Keys are dotted and stable — users script them — so rename one only with a migration.

The API key is deliberately *not* a setting: it comes from the environment or the keyring
(see ``provider.keySource``) and is never written to ``settings.json``.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from okbot.i18n import LANGUAGE_NAMES, LANGUAGES, QT_TRANSLATE_NOOP, translate
from okbot.storage.errors import OkBotError
from okbot.storage.redaction import holds_userinfo, redact_url

_TRUE_WORDS = frozenset({"true", "on", "yes", "1"})
_FALSE_WORDS = frozenset({"false", "off", "no", "0"})
_NULL_WORDS = frozenset({"", "null"})
_SHOWN_VALUE_CHARS = 80


class SettingError(OkBotError):
    """A setting key or value that OkBot refuses, with a message that says what is allowed.

    ``message`` names the key (what ``okbot config set`` takes); ``words`` is the same refusal for
    the Settings dialog, naming the setting by its label (“Summary length must be between …”). It is
    the message itself when the refusal is not about one setting's value (a file that cannot be saved).
    ``about`` names the field of an entry the refusal is about (an MCP server's ``args``), "" when none:
    the message is in the user's language, so code never reads it to find out.
    """

    def __init__(self, message: str, *, hint: str = "", words: str = "", about: str = "") -> None:
        super().__init__(message, hint=hint)
        self.words = words or message
        self.about = about


def show_value(value: Any) -> str:
    """``value`` as a user would type it in settings.json (shortened when long)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if len(text) > _SHOWN_VALUE_CHARS:
        text = text[: _SHOWN_VALUE_CHARS - 1] + "…"
    return text


def _type_name(kind: type) -> str:
    """The type in the words of ``okbot config`` (where values are typed as JSON or text)."""
    if kind is bool:
        return translate("schema", "true or false")
    if kind is int:
        return translate("schema", "a whole number")
    return translate("schema", "a number") if kind is float else translate("schema", "text")


def _format_bound(value: float) -> str:
    return f"{value:,}".replace(",", "_") if isinstance(value, int) and abs(value) >= 10_000 else str(value)


def _number_words(value: float) -> str:
    """``value`` as the dialog writes it: 8,000 and 600 (never 600.0), 0.95."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,}"
    return f"{int(value):,}"


def _type_words(kind: type) -> str:
    """The type in the Settings dialog's words (what follows “must be”)."""
    if kind is bool:
        return translate("schema_must_be", "on or off")
    if kind is int:
        return translate("schema_must_be", "a whole number")
    if kind is float:
        return translate("schema_must_be", "a number")
    return translate("schema_must_be", "text")


def shown_text(text: str) -> str:
    """Schema data marked with ``QT_TRANSLATE_NOOP("settings", …)`` (a page title, a label) in the current language."""
    return translate("settings", text) if text else text


@dataclass(frozen=True)
class Section:
    """A titled group of settings on one page of the Settings dialog."""

    page: str
    heading: str
    description: str = ""

    def shown_heading(self) -> str:
        """The heading in the current language."""
        return shown_text(self.heading)

    def shown_description(self) -> str:
        """The description in the current language."""
        return shown_text(self.description)


@dataclass(frozen=True)
class Setting:
    """One setting: its key, type, default, bounds, and how the Settings dialog shows it.

    ``check`` is an extra rule for the value (after the type and bounds pass); it returns a
    message fragment describing what is wrong, or ``None`` when the value is fine. ``check_new`` is one
    more, for a value being set only (:meth:`validate_new`): a value already saved that it refuses still
    loads, where the default in its place would do harm (another server for the saved key).
    ``per_model`` marks a setting stored per model (under ``modelOverrides``) rather than
    globally. ``redact`` hides what must not be printed of a value (a password in a URL); see
    :meth:`shown`.

    ``label`` names the setting on its page (``description`` is the help text under it),
    ``section`` is where on which page it appears, ``unit`` follows a number ("tokens"), and
    ``choice_words`` gives friendlier words for some ``choices`` (the stored value stays the choice),
    ``null_words`` what the dialog shows for ``None`` (a nullable setting must say).
    """

    key: str
    type: type
    default: Any
    description: str
    _: KW_ONLY
    label: str
    section: Section
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    nullable: bool = False
    per_model: bool = False
    unit: str = ""
    choice_words: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    null_words: str = ""
    check: Callable[[Any], str | None] | None = field(default=None, compare=False, repr=False)
    check_new: Callable[[Any], str | None] | None = field(default=None, compare=False, repr=False)
    redact: Callable[[Any], Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.type not in (bool, int, float, str):
            raise TypeError(f"{self.key}: unsupported setting type {self.type!r}")
        if self.choices is not None and self.type is not str:
            raise TypeError(f"{self.key}: choices need type str")
        if not set(self.choice_words) <= set(self.choices or ()):
            raise TypeError(f"{self.key}: choice_words for values that are not choices")
        if self.nullable and not self.null_words:
            raise TypeError(f"{self.key}: a nullable setting needs null_words")
        # The declaration must be self-consistent: a default the schema would refuse is a bug.
        self.validate(self.default)

    @property
    def page(self) -> str:
        """The title of the Settings page this setting appears on."""
        return self.section.page

    def shown_label(self) -> str:
        """The label in the current language (``okbot config`` and the Settings dialog show this)."""
        return shown_text(self.label)

    def shown_description(self) -> str:
        """The description (help text) in the current language."""
        return shown_text(self.description)

    def shown_unit(self) -> str:
        """The unit in the current language ("" when there is none)."""
        return shown_text(self.unit)

    def shown_choice(self, choice: str) -> str:
        """The words for ``choice`` in the current language (the choice itself when it has none)."""
        words = self.choice_words.get(choice)
        return shown_text(words) if words else choice

    def shown_null_words(self) -> str:
        """What stands for no value (``null_words``) in the current language."""
        return shown_text(self.null_words)

    def shown(self, value: Any) -> Any:
        """``value`` as OkBot prints it (``okbot config get``, error messages): secrets in it redacted."""
        return self.redact(value) if self.redact is not None else value

    def allowed(self) -> str:
        """What values are allowed, in words (for error messages and help text)."""
        kind = _type_name(self.type)
        if self.choices is not None:
            text = translate("schema", "one of {choices}").format(choices=", ".join(self.choices))
        elif self.minimum is not None and self.maximum is not None:
            low, high = _format_bound(self.minimum), _format_bound(self.maximum)
            text = translate("schema", "{kind} from {low} to {high}").format(kind=kind, low=low, high=high)
        elif self.minimum is not None:
            low = _format_bound(self.minimum)
            text = translate("schema", "{kind} of at least {low}").format(kind=kind, low=low)
        elif self.maximum is not None:
            high = _format_bound(self.maximum)
            text = translate("schema", "{kind} of at most {high}").format(kind=kind, high=high)
        else:
            text = kind
        return text + (translate("schema", ", or null for the default") if self.nullable else "")

    def words_for(self, value: Any) -> str:
        """``value`` as the Settings dialog shows it: “2,000 characters”, “Model default”, “on”."""
        if value is None:
            return self.shown_null_words() or translate("schema", "empty")
        if isinstance(value, bool):
            return translate("schema", "on") if value else translate("schema", "off")
        if isinstance(value, (int, float)):
            return _number_words(value) + self._unit_words()
        if value in self.choice_words:
            return self.shown_choice(value)
        return str(self.shown(value))

    def _unit_words(self) -> str:
        """The unit as it follows a number (“ characters”), "" when there is none."""
        return f" {self.shown_unit()}" if self.unit else ""

    def allowed_words(self) -> str:
        """What values are allowed, in the dialog's words: “between 100 and 8,000 characters”."""
        unit = self._unit_words()
        if self.choices is not None:
            choices = translate("schema", ", ").join(self.words_for(choice) for choice in self.choices)
            text = translate("schema", "one of: {choices}").format(choices=choices)
        elif self.minimum is not None and self.maximum is not None:
            low, high = _number_words(self.minimum), _number_words(self.maximum)
            text = translate("schema", "between {low} and {high}{unit}").format(low=low, high=high, unit=unit)
        elif self.minimum is not None:
            text = translate("schema", "at least {low}{unit}").format(low=_number_words(self.minimum), unit=unit)
        elif self.maximum is not None:
            text = translate("schema", "at most {high}{unit}").format(high=_number_words(self.maximum), unit=unit)
        else:
            text = _type_words(self.type)
        return text + (self._or_null() if self.nullable else "")

    def _or_null(self) -> str:
        return translate("schema", ", or {null_words}").format(null_words=self.shown_null_words())

    def _refuse(self, value: Any, why: str = "", *, wrong_type: bool = False) -> SettingError:
        """The error for ``value``: names the key, the value, and the allowed range or choices.

        Its ``words`` name the label instead; ``wrong_type`` says the value was not even of the
        right kind (“must be a whole number”), unless there are choices to list.
        """
        detail = translate("schema", " ({why})").format(why=why) if why else ""
        if wrong_type and self.choices is None:
            allowed = _type_words(self.type) + (self._or_null() if self.nullable else "")
        else:
            allowed = self.allowed_words()
        return SettingError(
            translate("schema", "{key}: {value} is not allowed{detail}; expected {allowed}").format(
                key=self.key, value=show_value(self.shown(value)), detail=detail, allowed=self.allowed()
            ),
            words=translate("schema", "“{label}” must be {allowed}.").format(label=self.shown_label(), allowed=allowed),
        )

    def validate(self, value: Any) -> Any:
        """Return ``value`` normalised (floats as float, text stripped) or raise :class:`SettingError`."""
        if value is None:
            if self.nullable:
                return None
            raise self._refuse(value, wrong_type=True)
        normalised = self._check_type(value)
        self._check_bounds(normalised, value)
        self._check_rule(normalised, value)
        return normalised

    def _check_type(self, value: Any) -> Any:
        """``value`` (not ``None``) normalised for this setting's type, or raise :class:`SettingError`.

        A bool is not taken for a number; a float must be finite and comes back as ``float``;
        text comes back stripped and must be one of the ``choices`` when there are any.
        """
        kind = self.type
        if kind is bool:
            if not isinstance(value, bool):
                raise self._refuse(value, wrong_type=True)
        elif kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise self._refuse(value, wrong_type=True)
        elif kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self._refuse(value, wrong_type=True)
            if not math.isfinite(value):
                raise self._refuse(value, wrong_type=True)
            value = float(value)
        else:
            if not isinstance(value, str):
                raise self._refuse(value, wrong_type=True)
            value = value.strip()
            if self.choices is not None and value not in self.choices:
                raise self._refuse(value)
        return value

    def _check_bounds(self, value: Any, original: Any) -> None:
        """Raise :class:`SettingError` (naming ``original``) when ``value`` is outside ``minimum``..``maximum``."""
        if self.minimum is not None and value < self.minimum:
            raise self._refuse(original, translate("schema", "too small"))
        if self.maximum is not None and value > self.maximum:
            raise self._refuse(original, translate("schema", "too large"))

    def validate_new(self, value: Any) -> Any:
        """:meth:`validate`, plus ``check_new``: for a value being set (not one read from settings.json)."""
        value = self.validate(value)
        self._check_rule(value, value, self.check_new)
        return value

    def _check_rule(self, value: Any, original: Any, rule: Callable[[Any], str | None] | None = None) -> None:
        """Raise :class:`SettingError` (naming ``original``) when ``rule`` (the extra ``check`` when not given)
        finds ``value`` wrong."""
        rule = rule or self.check
        if rule is not None:
            problem = rule(value)
            if problem:
                raise SettingError(
                    translate("schema", "{key}: {value} is not allowed; it {problem}").format(
                        key=self.key, value=show_value(self.shown(original)), problem=problem
                    ),
                    words=translate("schema", "“{label}” {problem}.").format(label=self.shown_label(), problem=problem),
                )

    def parse(self, text: str) -> Any:
        """Turn command-line text into a valid value (``okbot config set``), or raise SettingError."""
        raw = text.strip()
        if self.nullable and raw.lower() in _NULL_WORDS:
            return None
        kind = self.type
        if kind is bool:
            word = raw.lower()
            if word in _TRUE_WORDS:
                return True
            if word in _FALSE_WORDS:
                return False
            raise self._refuse(text, translate("schema", "use true/false, on/off, yes/no or 1/0"), wrong_type=True)
        if kind is int:
            try:
                value: Any = int(raw)
            except ValueError:
                raise self._refuse(text, wrong_type=True) from None
        elif kind is float:
            try:
                value = float(raw)
            except ValueError:
                raise self._refuse(text, wrong_type=True) from None
        elif self.choices is not None:
            # Accept any capitalisation on the command line; store the canonical spelling.
            lowered = {c.lower(): c for c in self.choices}
            value = lowered.get(raw.lower(), raw)
        else:
            value = text
        return self.validate(value)


def _http_url(value: str) -> str | None:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return translate("schema", "must be an http:// or https:// URL")
    return None


def _no_userinfo(value: str) -> str | None:
    if holds_userinfo(value):
        return translate(
            "schema", "holds a user name or password, and OkBot keeps no secret in settings.json (give the key apart)"
        )
    return None


def _empty_or_http_url(value: str) -> str | None:
    return (_http_url(value) or _no_userinfo(value)) if value.strip() else None


def _non_empty(value: str) -> str | None:
    return translate("schema", "must not be empty") if not value else None


# The pages of the Settings dialog, and their sections in the order they appear.
MODELS_PAGE = QT_TRANSLATE_NOOP("settings", "Models")
COMPRESSION_PAGE = QT_TRANSLATE_NOOP("settings", "Context compression")
TOOLS_PAGE = QT_TRANSLATE_NOOP("settings", "Tools")
APPEARANCE_PAGE = QT_TRANSLATE_NOOP("settings", "Appearance")
ADVANCED_PAGE = QT_TRANSLATE_NOOP("settings", "Advanced")

PROVIDER = Section(
    MODELS_PAGE,
    QT_TRANSLATE_NOOP("settings", "Provider"),
    QT_TRANSLATE_NOOP("settings", "Any OpenAI-compatible server: a hosted API, or one running on this computer."),
)
MODEL = Section(MODELS_PAGE, QT_TRANSLATE_NOOP("settings", "Model"))
WHEN_TO_COMPRESS = Section(
    COMPRESSION_PAGE,
    QT_TRANSLATE_NOOP("settings", "When to compress"),
    QT_TRANSLATE_NOOP(
        "settings", "Older messages are folded into a summary; the full chat is always kept on disk and shown."
    ),
)
WHAT_IS_KEPT = Section(COMPRESSION_PAGE, QT_TRANSLATE_NOOP("settings", "What the model keeps"))
CHAT_HISTORY = Section(
    TOOLS_PAGE,
    QT_TRANSLATE_NOOP("settings", "Chat history"),
    QT_TRANSLATE_NOOP("settings", "The model can look up the original words of earlier, summarized messages."),
)
SCHEDULE = Section(
    TOOLS_PAGE,
    QT_TRANSLATE_NOOP("settings", "Schedules"),
    QT_TRANSLATE_NOOP("settings", "An assistant can set messages that OkBot sends to its chat at set times."),
)
ON_THIS_COMPUTER = Section(
    TOOLS_PAGE,
    QT_TRANSLATE_NOOP("settings", "On this computer"),
    QT_TRANSLATE_NOOP(
        "settings", "Each assistant works in its own workspace folder; a path outside it always asks first."
    ),
)
WEB_SEARCH = Section(
    TOOLS_PAGE,
    QT_TRANSLATE_NOOP("settings", "Web search"),
    QT_TRANSLATE_NOOP(
        "settings",
        "Assistants can search the web once a search service is chosen here (with its key, or your SearXNG"
        " server's address); until then the tool is not offered.",
    ),
)
LIMITS = Section(TOOLS_PAGE, QT_TRANSLATE_NOOP("settings", "Limits"))
LOOK = Section(
    APPEARANCE_PAGE,
    QT_TRANSLATE_NOOP("settings", "Look"),
    QT_TRANSLATE_NOOP("settings", "Changes show at once, in every window."),
)
WINDOW = Section(
    APPEARANCE_PAGE,
    QT_TRANSLATE_NOOP("settings", "Window"),
    QT_TRANSLATE_NOOP(
        "settings", "In the tray OkBot keeps running: replies finish, and schedules run, with the window closed."
    ),
)
LANGUAGE = Section(
    ADVANCED_PAGE,
    QT_TRANSLATE_NOOP("settings", "Language"),
    QT_TRANSLATE_NOOP("settings", "Windows and messages change the next time OkBot starts."),
)
DEVELOPER = Section(ADVANCED_PAGE, QT_TRANSLATE_NOOP("settings", "Developer"))
MEMORY = Section(
    ADVANCED_PAGE,
    QT_TRANSLATE_NOOP("settings", "Memory"),
    QT_TRANSLATE_NOOP("settings", "How much of what OkBot remembers goes into each request."),
)
EVOLUTION = Section(
    ADVANCED_PAGE,
    QT_TRANSLATE_NOOP("settings", "Evolution"),
    QT_TRANSLATE_NOOP(
        "settings",
        "Assistants keep their persona (SOUL.md) and skills up with what you teach them. Every change cites your"
        " words and can be undone in the assistant's dialog.",
    ),
)
CONNECTION = Section(ADVANCED_PAGE, QT_TRANSLATE_NOOP("settings", "Connection"))
SECTIONS: tuple[Section, ...] = (
    PROVIDER,
    MODEL,
    WHEN_TO_COMPRESS,
    WHAT_IS_KEPT,
    CHAT_HISTORY,
    SCHEDULE,
    ON_THIS_COMPUTER,
    WEB_SEARCH,
    LIMITS,
    LOOK,
    WINDOW,
    LANGUAGE,
    DEVELOPER,
    MEMORY,
    EVOLUTION,
    CONNECTION,
)

APPROVAL_WORDS = {
    "allow": QT_TRANSLATE_NOOP("settings", "Allow"),
    "ask": QT_TRANSLATE_NOOP("settings", "Ask me first"),
    "deny": QT_TRANSLATE_NOOP("settings", "Deny"),
}

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "provider.baseUrl",
        str,
        "https://api.openai.com/v1",
        QT_TRANSLATE_NOOP(
            "settings", "Base URL of the OpenAI-compatible API (OKBOT_BASE_URL overrides it without saving)."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Base URL"),
        section=PROVIDER,
        check=_http_url,
        check_new=_no_userinfo,
        redact=redact_url,
    ),
    Setting(
        "provider.model",
        str,
        "gpt-4o-mini",
        QT_TRANSLATE_NOOP("settings", "Model name sent to the provider (OKBOT_MODEL overrides it without saving)."),
        label=QT_TRANSLATE_NOOP("settings", "Model"),
        section=MODEL,
        check=_non_empty,
    ),
    Setting(
        "provider.keySource",
        str,
        "env",
        QT_TRANSLATE_NOOP(
            "settings",
            "Where the API key comes from: the environment (OKBOT_API_KEY or OPENAI_API_KEY), the system keyring, "
            "or nowhere, for servers that need no key. The key itself is never stored in settings.json.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Key from"),
        section=PROVIDER,
        choices=("env", "keyring", "none"),
        choice_words={
            "env": QT_TRANSLATE_NOOP("settings", "Environment variable"),
            "keyring": QT_TRANSLATE_NOOP("settings", "System keyring"),
            "none": QT_TRANSLATE_NOOP("settings", "No key needed"),
        },
    ),
    Setting(
        "provider.slots",
        int,
        None,
        QT_TRANSLATE_NOOP(
            "settings",
            "How many requests the server answers at once. A server on this computer (llama.cpp, Ollama, "
            "LM Studio) usually answers one and cuts a reply when another request arrives, so OkBot sends "
            "its own work only while no chat is running. Automatic: 1 on this computer, 4 for a hosted API.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Parallel requests"),
        section=PROVIDER,
        minimum=1,
        maximum=64,
        nullable=True,
        null_words=QT_TRANSLATE_NOOP("settings", "Automatic"),
    ),
    Setting(
        "model.contextWindow",
        int,
        None,
        QT_TRANSLATE_NOOP(
            "settings",
            "Context window in tokens for the current model; Model default uses the model's known window. "
            "Stored per model, so switching models does not carry it over.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Context window"),
        section=MODEL,
        unit=QT_TRANSLATE_NOOP("settings", "tokens"),
        minimum=1000,
        maximum=10_000_000,
        nullable=True,
        null_words=QT_TRANSLATE_NOOP("settings", "Model default"),
        per_model=True,
    ),
    Setting(
        "contextCompression.ratio",
        float,
        0.6,
        QT_TRANSLATE_NOOP(
            "settings", "Compress when the estimated prompt reaches this fraction of the context window."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Compress at"),
        section=WHEN_TO_COMPRESS,
        minimum=0.30,
        maximum=0.95,
    ),
    Setting(
        "contextCompression.summarizerModel",
        str,
        "",
        QT_TRANSLATE_NOOP(
            "settings",
            "Model that writes summaries and extracts memories, as [PROVIDER/]MODEL; empty uses each assistant's "
            "own model. A cheaper model here saves cost on long chats.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Summarizer model"),
        section=WHEN_TO_COMPRESS,
    ),
    Setting(
        "contextCompression.prepareRatio",
        float,
        0.5,
        QT_TRANSLATE_NOOP(
            "settings",
            "After a reply, compress in the background when the next request is predicted to reach this "
            "fraction of the context window, so the next message does not wait for it. Set above "
            "“Compress at”, it starts at “Compress at” instead.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Prepare ahead at"),
        section=WHEN_TO_COMPRESS,
        minimum=0.20,
        maximum=0.95,
    ),
    Setting(
        "contextCompression.keepRecentMin",
        int,
        8,
        QT_TRANSLATE_NOOP(
            "settings", "Fewest recent messages kept word for word after a compression (no more than “Keep at most”)."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Keep at least"),
        section=WHAT_IS_KEPT,
        unit=QT_TRANSLATE_NOOP("settings", "items"),
        minimum=1,
        maximum=500,
    ),
    Setting(
        "contextCompression.keepRecentMax",
        int,
        12,
        QT_TRANSLATE_NOOP(
            "settings", "Most recent messages kept word for word after a compression (no fewer than “Keep at least”)."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Keep at most"),
        section=WHAT_IS_KEPT,
        unit=QT_TRANSLATE_NOOP("settings", "items"),
        minimum=1,
        maximum=500,
    ),
    Setting(
        "contextCompression.summaryMaxChars",
        int,
        2000,
        QT_TRANSLATE_NOOP("settings", "Longest session summary, in characters."),
        label=QT_TRANSLATE_NOOP("settings", "Summary length"),
        section=WHAT_IS_KEPT,
        unit=QT_TRANSLATE_NOOP("settings", "characters"),
        minimum=100,
        maximum=8000,
    ),
    Setting(
        "contextCompression.autoTopicCompress",
        bool,
        True,
        QT_TRANSLATE_NOOP(
            "settings", "When a message starts a new topic, send the model only the summary and the new message."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Compress when the topic changes"),
        section=WHEN_TO_COMPRESS,
    ),
    Setting(
        "memory.maxEntries",
        int,
        40,
        QT_TRANSLATE_NOOP("settings", "Most durable memories recalled into the instructions (0 turns recall off)."),
        label=QT_TRANSLATE_NOOP("settings", "Memories recalled"),
        section=MEMORY,
        minimum=0,
        maximum=1000,
    ),
    Setting(
        "memory.maxChars",
        int,
        4000,
        QT_TRANSLATE_NOOP("settings", "Most characters of recalled memories in the instructions."),
        label=QT_TRANSLATE_NOOP("settings", "Memory characters"),
        section=MEMORY,
        unit=QT_TRANSLATE_NOOP("settings", "characters"),
        minimum=0,
        maximum=100_000,
    ),
    Setting(
        "evolution.enabled",
        bool,
        True,
        QT_TRANSLATE_NOOP(
            "settings",
            "Keep each assistant's persona and skills up with what you teach it (each assistant can turn it off).",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Learn from the conversation"),
        section=EVOLUTION,
    ),
    Setting(
        "evolution.offerTeachings",
        bool,
        True,
        QT_TRANSLATE_NOOP(
            "settings",
            "When your message sets a rule or teaches a procedure in so many words (“from now on …”, “when I say"
            " X: 1) …”), offer to keep it as you wrote it, on a card under the reply.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Offer what you teach to keep"),
        section=EVOLUTION,
    ),
    Setting(
        "evolution.everyTurns",
        int,
        5,
        QT_TRANSLATE_NOOP(
            "settings",
            "Look for what you taught after this many of your messages (and always when older messages are"
            " summarized).",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Look every"),
        section=EVOLUTION,
        unit=QT_TRANSLATE_NOOP("settings", "messages"),
        minimum=1,
        maximum=100,
    ),
    Setting(
        "evolution.everyChars",
        int,
        6000,
        QT_TRANSLATE_NOOP("settings", "Or sooner, once the conversation grew by this many characters."),
        label=QT_TRANSLATE_NOOP("settings", "Or after"),
        section=EVOLUTION,
        unit=QT_TRANSLATE_NOOP("settings", "characters"),
        minimum=500,
        maximum=200_000,
    ),
    Setting(
        "evolution.waitTurns",
        int,
        10,
        QT_TRANSLATE_NOOP(
            "settings",
            "Changes wait for the next summary update, so the model's cached prompt stays valid; at most this many of"
            " your messages.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Changes wait at most"),
        section=EVOLUTION,
        unit=QT_TRANSLATE_NOOP("settings", "messages"),
        minimum=0,
        maximum=200,
    ),
    Setting(
        "evolution.structuredOutput",
        bool,
        True,
        QT_TRANSLATE_NOOP(
            "settings", "Ask the model for its proposals as JSON under a schema, where the server supports it."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Ask for structured answers"),
        section=EVOLUTION,
    ),
    Setting(
        "tools.search_history.approval",
        str,
        "allow",
        QT_TRANSLATE_NOOP(
            "settings", "Whether the model may read this session's original record: allow, ask the user first, or deny."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Search chat history"),
        section=CHAT_HISTORY,
        choices=("allow", "ask", "deny"),
        choice_words=APPROVAL_WORDS,
    ),
    Setting(
        "tools.manage_schedule.approval",
        str,
        "ask",
        QT_TRANSLATE_NOOP(
            "settings",
            "Whether an assistant may set, list and remove the scheduled jobs of its own chat: allow, ask the user"
            " first, or deny.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Manage its schedule"),
        section=SCHEDULE,
        choices=("allow", "ask", "deny"),
        choice_words=APPROVAL_WORDS,
    ),
    *(
        Setting(
            f"tools.{name}.approval",
            str,
            default,
            description,
            label=label,
            section=ON_THIS_COMPUTER,
            choices=("allow", "ask", "deny"),
            choice_words=APPROVAL_WORDS,
        )
        for name, default, label, description in (
            (
                "read_file",
                "allow",
                QT_TRANSLATE_NOOP("settings", "Read files"),
                QT_TRANSLATE_NOOP(
                    "settings",
                    "Reading files (outside the assistant's workspace folder it always asks): allow, ask the user"
                    " first, or deny.",
                ),
            ),
            (
                "list_dir",
                "allow",
                QT_TRANSLATE_NOOP("settings", "List folders"),
                QT_TRANSLATE_NOOP(
                    "settings",
                    "Listing folders (outside the workspace folder it always asks): allow, ask the user first, or"
                    " deny.",
                ),
            ),
            (
                "write_file",
                "ask",
                QT_TRANSLATE_NOOP("settings", "Write files"),
                QT_TRANSLATE_NOOP("settings", "Writing files: allow, ask the user first, or deny."),
            ),
            (
                "edit_file",
                "ask",
                QT_TRANSLATE_NOOP("settings", "Edit files"),
                QT_TRANSLATE_NOOP("settings", "Editing files: allow, ask the user first, or deny."),
            ),
            (
                "run_shell",
                "ask",
                QT_TRANSLATE_NOOP("settings", "Run commands"),
                QT_TRANSLATE_NOOP("settings", "Running shell commands: allow, ask the user first, or deny."),
            ),
            (
                "web_fetch",
                "allow",
                QT_TRANSLATE_NOOP("settings", "Fetch web pages"),
                QT_TRANSLATE_NOOP("settings", "Fetching public web pages: allow, ask the user first, or deny."),
            ),
        )
    ),
    Setting(
        "webSearch.provider",
        str,
        "off",
        QT_TRANSLATE_NOOP(
            "settings",
            "The service web_search asks: a hosted one needs its API key (saved in the keyring), SearXNG the"
            " address of your own server.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Search service"),
        section=WEB_SEARCH,
        choices=("off", "tavily", "brave", "serper", "searxng"),
        choice_words={
            "off": QT_TRANSLATE_NOOP("settings", "Off"),
            "tavily": QT_TRANSLATE_NOOP("settings", "Tavily"),
            "brave": QT_TRANSLATE_NOOP("settings", "Brave Search"),
            "serper": QT_TRANSLATE_NOOP("settings", "Serper (Google results)"),
            "searxng": QT_TRANSLATE_NOOP("settings", "SearXNG (self-hosted)"),
        },
    ),
    Setting(
        "webSearch.searxngUrl",
        str,
        "",
        QT_TRANSLATE_NOOP(
            "settings",
            "Your SearXNG server, e.g. http://localhost:8888 (it may be on this computer or your network); its"
            " settings.yml must list json under search: formats.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "SearXNG URL"),
        section=WEB_SEARCH,
        check=_empty_or_http_url,
    ),
    Setting(
        "webSearch.maxResults",
        int,
        5,
        QT_TRANSLATE_NOOP("settings", "Results one search returns unless the assistant asks for fewer or more."),
        label=QT_TRANSLATE_NOOP("settings", "Results per search"),
        section=WEB_SEARCH,
        minimum=1,
        maximum=20,
    ),
    Setting(
        "tools.web_search.approval",
        str,
        "allow",
        QT_TRANSLATE_NOOP(
            "settings", "Searching the web (the query goes to the search service): allow, ask the user first, or deny."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Search the web"),
        section=WEB_SEARCH,
        choices=("allow", "ask", "deny"),
        choice_words=APPROVAL_WORDS,
    ),
    Setting(
        "tools.approvalTimeout",
        int,
        300,
        QT_TRANSLATE_NOOP("settings", "Seconds an approval card waits for an answer before it counts as Deny."),
        label=QT_TRANSLATE_NOOP("settings", "Approval waits (s)"),
        section=ON_THIS_COMPUTER,
        minimum=10,
        maximum=86_400,
    ),
    Setting(
        "tools.maxRounds",
        int,
        8,
        QT_TRANSLATE_NOOP("settings", "Most tool-call rounds in one turn before the model must answer."),
        label=QT_TRANSLATE_NOOP("settings", "Tool rounds per turn"),
        section=LIMITS,
        minimum=1,
        maximum=100,
    ),
    Setting(
        "tools.maxCallsPerTurn",
        int,
        40,
        QT_TRANSLATE_NOOP("settings", "Most tool calls in one turn, shared by a squad's captain and its members."),
        label=QT_TRANSLATE_NOOP("settings", "Tool calls per turn"),
        section=LIMITS,
        minimum=1,
        maximum=1000,
    ),
    Setting(
        "tools.turnSeconds",
        int,
        900,
        QT_TRANSLATE_NOOP(
            "settings", "Most seconds one turn may spend running tools (shared by a squad's captain and members)."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Tool time per turn (s)"),
        section=LIMITS,
        minimum=10,
        maximum=86_400,
    ),
    Setting(
        "mcp.startupSeconds",
        int,
        30,
        QT_TRANSLATE_NOOP(
            "settings", "Seconds an MCP server may take to start (or to be reached) before it counts as failed."
        ),
        label=QT_TRANSLATE_NOOP("settings", "MCP server start-up (s)"),
        section=LIMITS,
        minimum=1,
        maximum=600,
    ),
    Setting(
        "mcp.callSeconds",
        int,
        120,
        QT_TRANSLATE_NOOP(
            "settings", "Seconds one call of an MCP server's tool may take (never more than the turn's tool time left)."
        ),
        label=QT_TRANSLATE_NOOP("settings", "MCP tool call (s)"),
        section=LIMITS,
        minimum=1,
        maximum=86_400,
    ),
    Setting(
        "ui.theme",
        str,
        "system",
        QT_TRANSLATE_NOOP("settings", "Light or dark colours, or the same as the rest of your desktop."),
        label=QT_TRANSLATE_NOOP("settings", "Theme"),
        section=LOOK,
        choices=("system", "light", "dark"),
        choice_words={
            "system": QT_TRANSLATE_NOOP("settings", "Same as the system"),
            "light": QT_TRANSLATE_NOOP("settings", "Light"),
            "dark": QT_TRANSLATE_NOOP("settings", "Dark"),
        },
    ),
    Setting(
        "ui.language",
        str,
        "system",
        QT_TRANSLATE_NOOP(
            "settings",
            "Language of OkBot's windows and messages: the system's, English or Simplified Chinese. Summaries and"
            " memories follow the language you write in.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Language"),
        section=LANGUAGE,
        choices=("system", *LANGUAGES),
        choice_words={"system": QT_TRANSLATE_NOOP("settings", "Same as the system"), **LANGUAGE_NAMES},
    ),
    Setting(
        "ui.fontSize",
        int,
        None,
        QT_TRANSLATE_NOOP("settings", "Size of the messages in the chat and of the text you type, in points."),
        label=QT_TRANSLATE_NOOP("settings", "Chat text size"),
        section=LOOK,
        unit=QT_TRANSLATE_NOOP("settings", "pt"),
        minimum=8,
        maximum=32,
        nullable=True,
        null_words=QT_TRANSLATE_NOOP("settings", "System default"),
    ),
    Setting(
        "ui.onClose",
        str,
        "ask",
        QT_TRANSLATE_NOOP(
            "settings", "What closing the window does: ask the first time, keep running in the tray, or quit."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Closing the window"),
        section=WINDOW,
        choices=("ask", "tray", "quit"),
        choice_words={
            "ask": QT_TRANSLATE_NOOP("settings", "Ask the first time"),
            "tray": QT_TRANSLATE_NOOP("settings", "Keep running in the tray"),
            "quit": QT_TRANSLATE_NOOP("settings", "Quit OkBot"),
        },
    ),
    Setting(
        "developerMode",
        bool,
        False,
        QT_TRANSLATE_NOOP("settings", "Show developer tools such as View context on user messages."),
        label=QT_TRANSLATE_NOOP("settings", "Developer mode"),
        section=DEVELOPER,
    ),
    Setting(
        "provider.timeout",
        float,
        60.0,
        QT_TRANSLATE_NOOP(
            "settings", "Seconds to wait for the server to answer (and between parts of a streamed reply)."
        ),
        label=QT_TRANSLATE_NOOP("settings", "Timeout"),
        section=CONNECTION,
        unit=QT_TRANSLATE_NOOP("settings", "s"),
        minimum=5,
        maximum=600,
    ),
    Setting(
        "provider.maxRetries",
        int,
        3,
        QT_TRANSLATE_NOOP(
            "settings",
            "How often a failed request (rate limit, server error, dropped connection) is retried "
            "before the error is shown. Nothing is retried once the reply has started to appear.",
        ),
        label=QT_TRANSLATE_NOOP("settings", "Retries"),
        section=CONNECTION,
        minimum=0,
        maximum=10,
    ),
)

_BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}
if len(_BY_KEY) != len(SETTINGS):  # pragma: no cover - guards the declaration above
    raise RuntimeError("duplicate setting keys in SETTINGS")
if any(spec.section not in SECTIONS for spec in SETTINGS):  # pragma: no cover - the same
    raise RuntimeError("a setting in SETTINGS declares a section that SECTIONS does not list")

# Pairs (low, high) that must satisfy low <= high.
ORDERED_PAIRS: tuple[tuple[str, str], ...] = (("contextCompression.keepRecentMin", "contextCompression.keepRecentMax"),)


def suggest(key: str) -> list[str]:
    """Known keys a mistyped ``key`` probably meant (closest first, at most three)."""
    lowered = {k.lower(): k for k in _BY_KEY}
    wanted = key.strip().lower()
    scored = sorted(((difflib.SequenceMatcher(None, wanted, k).ratio(), k) for k in lowered), reverse=True)
    best = scored[0][0]
    # Only the clear winners: a near-tie of three keys is offered, a distant third is not.
    found = [lowered[k] for score, k in scored[:3] if score >= 0.6 and score >= best - 0.03]
    prefixed = [k for k in _BY_KEY if wanted and k.lower().startswith(wanted + ".")]
    if prefixed:  # "provider" alone: the keys in that group
        found = prefixed
    # "ratio" or "maxrounds" alone: match the last part of the dotted key.
    for k in _BY_KEY:
        if k.lower().rsplit(".", 1)[-1] == wanted and k not in found:
            found.append(k)
    return found[:3]


def setting(key: str) -> Setting:
    """The declaration for ``key``; :class:`SettingError` (with suggestions) when there is none."""
    try:
        return _BY_KEY[key]
    except (KeyError, TypeError):
        pass
    close = suggest(key) if isinstance(key, str) else []
    if close:
        hint = translate("schema", "did you mean {keys}?").format(keys=translate("schema", " or ").join(close))
    else:
        hint = translate("schema", "run `okbot config get` to list the settings")
    raise SettingError(translate("schema", "unknown setting {key}").format(key=show_value(key)), hint=hint)
