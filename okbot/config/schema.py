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
import re
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from okbot.i18n import LANGUAGE_NAMES, LANGUAGES
from okbot.storage.errors import OkBotError

_TRUE_WORDS = frozenset({"true", "on", "yes", "1"})
_FALSE_WORDS = frozenset({"false", "off", "no", "0"})
_NULL_WORDS = frozenset({"", "null"})
_SHOWN_VALUE_CHARS = 80
REDACTED = "[redacted]"  # the mark okbot.llm.keys puts in place of a key
# Query (or fragment) parameters whose value is a credential: api_key, key, token, access_token …
_SECRET_PARAM = re.compile(r"(?i)key|token|secret|pass|pwd|auth|credential|signature|^sig$")


class SettingError(OkBotError):
    """A setting key or value that OkBot refuses, with a message that says what is allowed.

    ``message`` names the key (what ``okbot config set`` takes); ``words`` is the same refusal for
    the Settings dialog, naming the setting by its label (“Summary length must be between …”). It is
    the message itself when the refusal is not about one setting's value (a file that cannot be saved).
    """

    def __init__(self, message: str, *, hint: str = "", words: str = "") -> None:
        super().__init__(message, hint=hint)
        self.words = words or message


def show_value(value: Any) -> str:
    """``value`` as a user would type it in settings.json (shortened when long)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if len(text) > _SHOWN_VALUE_CHARS:
        text = text[: _SHOWN_VALUE_CHARS - 1] + "…"
    return text


def _redact_params(text: str) -> str:
    """``a=1&api_key=x`` → ``a=1&api_key=[redacted]``: credential-like parameters hidden."""
    pieces = []
    for piece in text.split("&"):
        name, eq, _ = piece.partition("=")
        pieces.append(f"{name}={REDACTED}" if eq and _SECRET_PARAM.search(unquote_plus(name)) else piece)
    return "&".join(pieces)


def redact_url(value: Any) -> Any:
    """``value`` with a password in its userinfo and credential-like query values redacted.

    ``https://user:pw@host/v1?api_key=k`` prints as ``https://user:[redacted]@host/v1?api_key=[redacted]``;
    a URL with nothing to hide, and anything that is not text, comes back unchanged.
    """
    if not isinstance(value, str):
        return value
    try:
        parts = urlsplit(value)
    except ValueError:  # not parseable as a URL: still hide whatever sits between "//user:" and "@"
        return re.sub(r"(//[^/?#@:]*:)[^/?#]*@", rf"\1{REDACTED}@", value)
    userinfo, at, host = parts.netloc.rpartition("@")
    user, colon, _ = userinfo.partition(":")
    netloc = f"{user}:{REDACTED}@{host}" if at and colon else parts.netloc
    hidden = parts._replace(netloc=netloc, query=_redact_params(parts.query), fragment=_redact_params(parts.fragment))
    return value if hidden == parts else urlunsplit(hidden)


def _type_name(kind: type) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}[kind]


def _format_bound(value: float) -> str:
    return f"{value:,}".replace(",", "_") if isinstance(value, int) and abs(value) >= 10_000 else str(value)


def _number_words(value: float) -> str:
    """``value`` as the dialog writes it: 8,000 and 600 (never 600.0), 0.95."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,}"
    return f"{int(value):,}"


_TYPE_WORDS = {bool: "on or off", int: "a whole number", float: "a number", str: "text"}


@dataclass(frozen=True)
class Section:
    """A titled group of settings on one page of the Settings dialog."""

    page: str
    heading: str
    description: str = ""


@dataclass(frozen=True)
class Setting:
    """One setting: its key, type, default, bounds, and how the Settings dialog shows it.

    ``check`` is an extra rule for the value (after the type and bounds pass); it returns a
    message fragment describing what is wrong, or ``None`` when the value is fine.
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

    def shown(self, value: Any) -> Any:
        """``value`` as OkBot prints it (``okbot config get``, error messages): secrets in it redacted."""
        return self.redact(value) if self.redact is not None else value

    def allowed(self) -> str:
        """What values are allowed, in words (for error messages and help text)."""
        if self.choices is not None:
            text = "one of " + ", ".join(self.choices)
        elif self.minimum is not None and self.maximum is not None:
            low, high = _format_bound(self.minimum), _format_bound(self.maximum)
            text = f"{_type_name(self.type)} from {low} to {high}"
        elif self.minimum is not None:
            text = f"{_type_name(self.type)} of at least {_format_bound(self.minimum)}"
        elif self.maximum is not None:
            text = f"{_type_name(self.type)} of at most {_format_bound(self.maximum)}"
        else:
            text = _type_name(self.type)
        return text + (", or null for the default" if self.nullable else "")

    def words_for(self, value: Any) -> str:
        """``value`` as the Settings dialog shows it: “2,000 characters”, “Model default”, “on”."""
        if value is None:
            return self.null_words or "empty"
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, (int, float)):
            return _number_words(value) + (f" {self.unit}" if self.unit else "")
        return self.choice_words.get(value, str(self.shown(value)))

    def allowed_words(self) -> str:
        """What values are allowed, in the dialog's words: “between 100 and 8,000 characters”."""
        unit = f" {self.unit}" if self.unit else ""
        if self.choices is not None:
            text = "one of: " + ", ".join(self.words_for(choice) for choice in self.choices)
        elif self.minimum is not None and self.maximum is not None:
            text = f"between {_number_words(self.minimum)} and {_number_words(self.maximum)}{unit}"
        elif self.minimum is not None:
            text = f"at least {_number_words(self.minimum)}{unit}"
        elif self.maximum is not None:
            text = f"at most {_number_words(self.maximum)}{unit}"
        else:
            text = _TYPE_WORDS[self.type]
        return text + (f", or {self.null_words}" if self.nullable else "")

    def _refuse(self, value: Any, why: str = "", *, wrong_type: bool = False) -> SettingError:
        """The error for ``value``: names the key, the value, and the allowed range or choices.

        Its ``words`` name the label instead; ``wrong_type`` says the value was not even of the
        right kind (“must be a whole number”), unless there are choices to list.
        """
        detail = f" ({why})" if why else ""
        if wrong_type and self.choices is None:
            allowed = _TYPE_WORDS[self.type] + (f", or {self.null_words}" if self.nullable else "")
        else:
            allowed = self.allowed_words()
        return SettingError(
            f"{self.key}: {show_value(self.shown(value))} is not allowed{detail}; expected {self.allowed()}",
            words=f"“{self.label}” must be {allowed}.",
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
            raise self._refuse(original, "too small")
        if self.maximum is not None and value > self.maximum:
            raise self._refuse(original, "too large")

    def _check_rule(self, value: Any, original: Any) -> None:
        """Raise :class:`SettingError` (naming ``original``) when the extra ``check`` finds ``value`` wrong."""
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise SettingError(
                    f"{self.key}: {show_value(self.shown(original))} is not allowed; it {problem}",
                    words=f"“{self.label}” {problem}.",
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
            raise self._refuse(text, "use true/false, on/off, yes/no or 1/0", wrong_type=True)
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
        return "must be an http:// or https:// URL"
    return None


def _non_empty(value: str) -> str | None:
    return "must not be empty" if not value else None


# The pages of the Settings dialog, and their sections in the order they appear.
MODELS_PAGE = "Models"
COMPRESSION_PAGE = "Context compression"
TOOLS_PAGE = "Tools"
APPEARANCE_PAGE = "Appearance"
ADVANCED_PAGE = "Advanced"

PROVIDER = Section(
    MODELS_PAGE, "Provider", "Any OpenAI-compatible server: a hosted API, or one running on this computer."
)
MODEL = Section(MODELS_PAGE, "Model")
WHEN_TO_COMPRESS = Section(
    COMPRESSION_PAGE,
    "When to compress",
    "Older messages are folded into a summary; the full chat is always kept on disk and shown.",
)
WHAT_IS_KEPT = Section(COMPRESSION_PAGE, "What the model keeps")
CHAT_HISTORY = Section(
    TOOLS_PAGE, "Chat history", "The model can look up the original words of earlier, summarized messages."
)
ON_THIS_COMPUTER = Section(
    TOOLS_PAGE,
    "On this computer",
    "Each assistant works in its own workspace folder; a path outside it always asks first.",
)
LIMITS = Section(TOOLS_PAGE, "Limits")
LOOK = Section(APPEARANCE_PAGE, "Look", "Changes show at once, in every window.")
LANGUAGE = Section(ADVANCED_PAGE, "Language", "Windows and messages change the next time OkBot starts.")
DEVELOPER = Section(ADVANCED_PAGE, "Developer")
MEMORY = Section(ADVANCED_PAGE, "Memory", "How much of what OkBot remembers goes into each request.")
EVOLUTION = Section(
    ADVANCED_PAGE,
    "Evolution",
    "Assistants keep their persona (SOUL.md) and skills up with what you teach them. Every change cites your"
    " words and can be undone in the assistant's dialog.",
)
CONNECTION = Section(ADVANCED_PAGE, "Connection")
SECTIONS: tuple[Section, ...] = (
    PROVIDER,
    MODEL,
    WHEN_TO_COMPRESS,
    WHAT_IS_KEPT,
    CHAT_HISTORY,
    ON_THIS_COMPUTER,
    LIMITS,
    LOOK,
    LANGUAGE,
    DEVELOPER,
    MEMORY,
    EVOLUTION,
    CONNECTION,
)

APPROVAL_WORDS = {"allow": "Allow", "ask": "Ask me first", "deny": "Deny"}

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "provider.baseUrl",
        str,
        "https://api.openai.com/v1",
        "Base URL of the OpenAI-compatible API (OKBOT_BASE_URL overrides it without saving).",
        label="Base URL",
        section=PROVIDER,
        check=_http_url,
        redact=redact_url,
    ),
    Setting(
        "provider.model",
        str,
        "gpt-4o-mini",
        "Model name sent to the provider (OKBOT_MODEL overrides it without saving).",
        label="Model",
        section=MODEL,
        check=_non_empty,
    ),
    Setting(
        "provider.keySource",
        str,
        "env",
        "Where the API key comes from: the environment (OKBOT_API_KEY or OPENAI_API_KEY), the system keyring, "
        "or nowhere, for servers that need no key. The key itself is never stored in settings.json.",
        label="Key from",
        section=PROVIDER,
        choices=("env", "keyring", "none"),
        choice_words={
            "env": "Environment variable",
            "keyring": "System keyring",
            "none": "No key needed",
        },
    ),
    Setting(
        "model.contextWindow",
        int,
        None,
        "Context window in tokens for the current model; Model default uses the model's known window. "
        "Stored per model, so switching models does not carry it over.",
        label="Context window",
        section=MODEL,
        unit="tokens",
        minimum=1000,
        maximum=10_000_000,
        nullable=True,
        null_words="Model default",
        per_model=True,
    ),
    Setting(
        "contextCompression.ratio",
        float,
        0.6,
        "Compress when the estimated prompt reaches this fraction of the context window.",
        label="Compress at",
        section=WHEN_TO_COMPRESS,
        minimum=0.30,
        maximum=0.95,
    ),
    Setting(
        "contextCompression.summarizerModel",
        str,
        "",
        "Model that writes summaries and extracts memories, as [PROVIDER/]MODEL; empty uses each assistant's "
        "own model. A cheaper model here saves cost on long chats.",
        label="Summarizer model",
        section=WHEN_TO_COMPRESS,
    ),
    Setting(
        "contextCompression.prepareRatio",
        float,
        0.5,
        "After a reply, compress in the background when the next request is predicted to reach this "
        "fraction of the context window, so the next message does not wait for it. Set above "
        "“Compress at”, it starts at “Compress at” instead.",
        label="Prepare ahead at",
        section=WHEN_TO_COMPRESS,
        minimum=0.20,
        maximum=0.95,
    ),
    Setting(
        "contextCompression.keepRecentMin",
        int,
        8,
        "Fewest recent messages kept word for word after a compression (no more than “Keep at most”).",
        label="Keep at least",
        section=WHAT_IS_KEPT,
        unit="items",
        minimum=1,
        maximum=500,
    ),
    Setting(
        "contextCompression.keepRecentMax",
        int,
        12,
        "Most recent messages kept word for word after a compression (no fewer than “Keep at least”).",
        label="Keep at most",
        section=WHAT_IS_KEPT,
        unit="items",
        minimum=1,
        maximum=500,
    ),
    Setting(
        "contextCompression.summaryMaxChars",
        int,
        2000,
        "Longest session summary, in characters.",
        label="Summary length",
        section=WHAT_IS_KEPT,
        unit="characters",
        minimum=100,
        maximum=8000,
    ),
    Setting(
        "contextCompression.autoTopicCompress",
        bool,
        True,
        "When a message starts a new topic, send the model only the summary and the new message.",
        label="Compress when the topic changes",
        section=WHEN_TO_COMPRESS,
    ),
    Setting(
        "memory.maxEntries",
        int,
        40,
        "Most durable memories recalled into the instructions (0 turns recall off).",
        label="Memories recalled",
        section=MEMORY,
        minimum=0,
        maximum=1000,
    ),
    Setting(
        "memory.maxChars",
        int,
        4000,
        "Most characters of recalled memories in the instructions.",
        label="Memory characters",
        section=MEMORY,
        unit="characters",
        minimum=0,
        maximum=100_000,
    ),
    Setting(
        "evolution.enabled",
        bool,
        True,
        "Keep each assistant's persona and skills up with what you teach it (each assistant can turn it off).",
        label="Learn from the conversation",
        section=EVOLUTION,
    ),
    Setting(
        "evolution.everyTurns",
        int,
        5,
        "Look for what you taught after this many of your messages (and always when older messages are summarized).",
        label="Look every",
        section=EVOLUTION,
        unit="messages",
        minimum=1,
        maximum=100,
    ),
    Setting(
        "evolution.everyChars",
        int,
        6000,
        "Or sooner, once the conversation grew by this many characters.",
        label="Or after",
        section=EVOLUTION,
        unit="characters",
        minimum=500,
        maximum=200_000,
    ),
    Setting(
        "evolution.waitTurns",
        int,
        10,
        "Changes wait for the next summary update, so the model's cached prompt stays valid; at most this many of"
        " your messages.",
        label="Changes wait at most",
        section=EVOLUTION,
        unit="messages",
        minimum=0,
        maximum=200,
    ),
    Setting(
        "evolution.structuredOutput",
        bool,
        True,
        "Ask the model for its proposals as JSON under a schema, where the server supports it.",
        label="Ask for structured answers",
        section=EVOLUTION,
    ),
    Setting(
        "tools.search_history.approval",
        str,
        "allow",
        "Whether the model may read this session's original record: allow, ask the user first, or deny.",
        label="Search chat history",
        section=CHAT_HISTORY,
        choices=("allow", "ask", "deny"),
        choice_words=APPROVAL_WORDS,
    ),
    *(
        Setting(
            f"tools.{name}.approval",
            str,
            default,
            f"{what}: allow, ask the user first, or deny.",
            label=label,
            section=ON_THIS_COMPUTER,
            choices=("allow", "ask", "deny"),
            choice_words=APPROVAL_WORDS,
        )
        for name, default, label, what in (
            (
                "read_file",
                "allow",
                "Read files",
                "Reading files (outside the assistant's workspace folder it always asks)",
            ),
            ("list_dir", "allow", "List folders", "Listing folders (outside the workspace folder it always asks)"),
            ("write_file", "ask", "Write files", "Writing files"),
            ("edit_file", "ask", "Edit files", "Editing files"),
            ("run_shell", "ask", "Run commands", "Running shell commands"),
            ("web_fetch", "allow", "Fetch web pages", "Fetching public web pages"),
        )
    ),
    Setting(
        "tools.approvalTimeout",
        int,
        300,
        "Seconds an approval card waits for an answer before it counts as Deny.",
        label="Approval waits (s)",
        section=ON_THIS_COMPUTER,
        minimum=10,
        maximum=86_400,
    ),
    Setting(
        "tools.maxRounds",
        int,
        8,
        "Most tool-call rounds in one turn before the model must answer.",
        label="Tool rounds per turn",
        section=LIMITS,
        minimum=1,
        maximum=100,
    ),
    Setting(
        "tools.maxCallsPerTurn",
        int,
        40,
        "Most tool calls in one turn, shared by a squad's captain and its members.",
        label="Tool calls per turn",
        section=LIMITS,
        minimum=1,
        maximum=1000,
    ),
    Setting(
        "tools.turnSeconds",
        int,
        900,
        "Most seconds one turn may spend running tools (shared by a squad's captain and members).",
        label="Tool time per turn (s)",
        section=LIMITS,
        minimum=10,
        maximum=86_400,
    ),
    Setting(
        "mcp.startupSeconds",
        int,
        30,
        "Seconds an MCP server may take to start (or to be reached) before it counts as failed.",
        label="MCP server start-up (s)",
        section=LIMITS,
        minimum=1,
        maximum=600,
    ),
    Setting(
        "mcp.callSeconds",
        int,
        120,
        "Seconds one call of an MCP server's tool may take (never more than the turn's tool time left).",
        label="MCP tool call (s)",
        section=LIMITS,
        minimum=1,
        maximum=86_400,
    ),
    Setting(
        "ui.theme",
        str,
        "system",
        "Light or dark colours, or the same as the rest of your desktop.",
        label="Theme",
        section=LOOK,
        choices=("system", "light", "dark"),
        choice_words={"system": "Same as the system", "light": "Light", "dark": "Dark"},
    ),
    Setting(
        "ui.language",
        str,
        "system",
        "Language of OkBot's windows and messages: the system's, English or Simplified Chinese. Summaries and"
        " memories follow the language you write in.",
        label="Language",
        section=LANGUAGE,
        choices=("system", *LANGUAGES),
        choice_words={"system": "Same as the system", **LANGUAGE_NAMES},
    ),
    Setting(
        "ui.fontSize",
        int,
        None,
        "Size of the messages in the chat and of the text you type, in points.",
        label="Chat text size",
        section=LOOK,
        unit="pt",
        minimum=8,
        maximum=32,
        nullable=True,
        null_words="System default",
    ),
    Setting(
        "developerMode",
        bool,
        False,
        "Show developer tools such as View context on user messages.",
        label="Developer mode",
        section=DEVELOPER,
    ),
    Setting(
        "provider.timeout",
        float,
        60.0,
        "Seconds to wait for the server to answer (and between parts of a streamed reply).",
        label="Timeout",
        section=CONNECTION,
        unit="s",
        minimum=5,
        maximum=600,
    ),
    Setting(
        "provider.maxRetries",
        int,
        3,
        "How often a failed request (rate limit, server error, dropped connection) is retried "
        "before the error is shown. Nothing is retried once the reply has started to appear.",
        label="Retries",
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
    hint = f"did you mean {' or '.join(close)}?" if close else "run `okbot config get` to list the settings"
    raise SettingError(f"unknown setting {show_value(key)}", hint=hint)
