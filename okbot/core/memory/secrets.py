"""Secrets in a text, found by kind: what a memory must never hold.

Three ways a secret shows itself, each with its own kind so a refusal can say *what* it saw
without repeating it:

- **labelled**: a label word (password, PIN, API key, seed phrase, 密码 …) followed by "is", ":",
  "=" and a value ("wifi pass is Tr0ub4dor&3", "bank PIN is 4921"), or directly by a value with a
  digit in it ("bank PIN 4921");
- **shaped**: a known key format (``sk-…``, ``ghp_…``, ``AKIA…``, ``xoxb-…``, ``AIza…``, a JWT, a
  ``-----BEGIN … PRIVATE KEY-----`` block, a Bearer token, ``user:password@`` in a URL) or a long
  run with the entropy and mixed character classes of random key material (base64 or hex),
  wherever it stands;
- **checksummed**: a card number that passes Luhn, an IBAN that passes mod 97.

Ordinary facts must pass, so each check is narrow: a label needs a separator and a value that
looks like one ("the password is required" names no password, "PIN the dependency versions" has no
separator), a weak label ("pass", "key", "token") needs a value with digits or symbols (a bare
number only from six digits: "the answer key is 42"), hex next to
"commit"/"sha"/"checksum" is a hash, a path or URL is read segment by segment, and version strings,
dates, UUIDs and identifiers are not random enough.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

MIN_RANDOM_CHARS = 16  # shorter runs are too short to tell key material from words
MIN_HEX_CHARS = 32  # an unlabelled hex run: a 128-bit key or longer (shorter ones are ids and short shas)
MIN_VALUE_CHARS = 4  # a labelled value shorter than this is not a password ("the PIN is 4 digits")
MIN_CVV_DIGITS = 3
MIN_BARE_DIGITS = 6  # "password 123456" is one; "password 2024" may be a year
# Share of neighbouring characters of different classes (upper, lower, digit, symbol) in a random run:
# about 0.65 for base64, 0.5 for lowercase letters and digits; identifiers stay near 0.3.
MIN_SWITCHES_MIXED_CASE = 0.45
MIN_SWITCHES_ONE_CASE = 0.3


@dataclass(frozen=True)
class Secret:
    """One secret found in a text: its kind ("password", "API key", "card number" …) and where its value is."""

    kind: str
    start: int
    end: int


# -- labelled secrets -------------------------------------------------------------------------------------------

# label pattern -> kind. A strong label names a secret whatever the value looks like; a weak one ("pass",
# "key", "token", "secret") is a secret only when the value looks like key material (digits or symbols).
_STRONG_LABELS: dict[str, str] = {
    r"pass(?:word|wd|code|phrase)s?|pwd|pw": "password",
    r"pin(?:\s*code|\s*number)?s?": "PIN",
    r"(?:api|access|secret|private|signing|encryption|client)[\s_-]?keys?": "key",
    r"(?:access|auth|bearer|refresh|session|api)[\s_-]?tokens?": "token",
    r"client[\s_-]?secrets?|secret[\s_-]?access[\s_-]?keys?": "key",
    r"sign[\s-]?in\s+(?:value|code|secret)s?|login\s+(?:password|secret|code)s?": "password",
    r"credentials?": "credentials",
    r"(?:seed|recovery|mnemonic|backup)\s+(?:phrase|words?)": "seed phrase",
    r"(?:recovery|backup|2fa|mfa|otp|one[\s-]?time|verification|security|unlock|door|alarm|safe|auth)\s+codes?"
    r"|otp|totp": "one-time code",
    r"cvv2?|cvc2?|card\s+security\s+code": "card security code",
    r"(?:credit|debit|bank)?\s*card\s+numbers?": "card number",
    r"iban|account\s+number": "bank account number",
    r"social\s+security\s+number|ssn": "ID number",
}
_WEAK_LABELS: dict[str, str] = {  # singular: "tokens: 800" and "keys: 3" are counts
    r"pass": "password",
    r"key|license\s+key": "key",
    r"token": "token",
    r"secret": "secret",
}
_CJK_LABELS: dict[str, str] = {
    "支付密码": "password",
    "密码": "password",
    "口令": "password",
    "密钥": "key",
    "私钥": "key",
    "验证码": "one-time code",
    "助记词": "seed phrase",
    "PIN码": "PIN",
}
# "is", ":", "=", optionally with "now"/"set to"; a short "for the router" may stand between label and separator.
_SEPARATOR = (
    r"(?:\s+(?:is|was|are|were|reads|=)\s+|\s*[:=]\s*)(?:(?:now|still|currently|actually|set\s+to|changed\s+to)\s+)?"
)
_QUALIFIER = r"(?:\s+(?:for|of|to|on|at)\s+(?:the\s+|my\s+|our\s+|their\s+|his\s+|her\s+)?[\w.@-]+)?"
_VALUE = r"[\"'`“‘]?(?P<value>[^\s\"'`”’,;]+)"
_LABELLED = [
    (re.compile(rf"(?<![\w-])(?:{label}){_QUALIFIER}{_SEPARATOR}{_VALUE}", re.IGNORECASE), kind, strong)
    for labels, strong in ((_STRONG_LABELS, True), (_WEAK_LABELS, False))
    for label, kind in labels.items()
]
_CJK_LABELLED = [
    (re.compile(rf"{re.escape(label)}\s*(?:是|为|:|：|=)\s*[\"'“]?(?P<value>[^\s\"'”，。；,;]+)", re.IGNORECASE), kind)
    for label, kind in _CJK_LABELS.items()
]
# Without a separator a strong label takes only a value with a digit in it: "bank PIN 4921", "password hunter2".
_BARE = [
    (re.compile(rf"(?<![\w-])(?:{label})\s+#?{_VALUE}", re.IGNORECASE), kind) for label, kind in _STRONG_LABELS.items()
]
_VERSION = re.compile(r"[vV]?\d+(?:\.\d+)+")
_CLOSING = ".,:;)]}>"  # punctuation that ends a sentence or a bracket, not a password
_NUMERIC_KINDS = ("PIN", "one-time code", "card security code")
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*=?~|")  # not "+": "the key is Ctrl+Shift+P"
_CLAUSE_END = re.compile(r"\s*(?:$|[.,;!?)]|(?:and|but|or)\b)")
# Words that follow "password is" in sentences that hold no password.
_NOT_A_VALUE = frozenset(
    """a an the this that these those my your our their his her its some any no not none nothing null n/a
    required needed mandatory optional missing empty blank unset set stored saved kept hidden secret private
    correct incorrect wrong invalid valid expired changed reset rotated revoked hashed encrypted salted managed
    strong weak long short secure insecure safe unsafe same different new old unknown known case-sensitive
    ok okay fine good bad too also only just in on at from by with for of to into via under inside
    being been going used shown visible masked redacted withheld elsewhere here there never always usually
    often sometimes rarely""".split()
)


def _value_counts(value: str, after: str, kind: str, strong: bool) -> bool:
    """Is ``value`` (after a label and a separator) plausibly the secret itself?

    ``after`` is the text that follows it: a plain lowercase word after a strong label is a
    password only when it ends the clause ("the wifi password is swordfish."), not when the
    sentence goes on ("API keys are never read from settings").
    """
    core = value.rstrip(".,;:!?)]}>")
    if core.casefold() in _NOT_A_VALUE or core[:1] in "[<{(" or "(" in core:
        return False  # a word that describes the secret, a placeholder, or code
    digits = sum(ch.isdigit() for ch in core)
    if kind in _NUMERIC_KINDS:
        return digits >= (MIN_CVV_DIGITS if kind == "card security code" else MIN_VALUE_CHARS)
    if len(core) < MIN_VALUE_CHARS:
        return False
    if core.isdigit() and not strong:
        return digits >= MIN_BARE_DIGITS  # "the key is 42" is an answer, "the pass is 83920174" a password
    if digits or any(ch in _PASSWORD_SYMBOLS for ch in core):
        return True
    if not strong:
        return False
    if any(ch.isupper() for ch in core[1:]):
        return True
    return kind == "seed phrase" or core != value or bool(_CLAUSE_END.match(after))


def _labelled(text: str) -> list[Secret]:
    found = []
    for pattern, kind, strong in _LABELLED:
        for m in pattern.finditer(text):
            if _value_counts(m.group("value"), text[m.end("value") :], kind, strong):
                found.append(_value_span(kind, m))
    for pattern, kind in _CJK_LABELLED:
        for m in pattern.finditer(text):
            if _value_counts(m.group("value"), "", kind, True):
                found.append(_value_span(kind, m))
    for pattern, kind in _BARE:
        for m in pattern.finditer(text):
            if _bare_value_counts(m.group("value"), kind):
                found.append(_value_span(kind, m))
    return found


def _value_span(kind: str, m: re.Match[str]) -> Secret:
    """The value's span without the sentence's closing punctuation ("… is hunter2." keeps its full stop)."""
    value = m.group("value")
    return Secret(kind, m.start("value"), m.end("value") - (len(value) - len(value.rstrip(_CLOSING))))


def _bare_value_counts(value: str, kind: str) -> bool:
    """A value right after a label, with no "is" or ":" between: only one that has a digit and is no version."""
    core = value.rstrip(".,;:!?)]}>")
    digits = sum(ch.isdigit() for ch in core)
    if not digits or "(" in core or _VERSION.fullmatch(core):
        return False
    if kind in _NUMERIC_KINDS:
        return core.isdigit() and digits >= (MIN_CVV_DIGITS if kind == "card security code" else MIN_VALUE_CHARS)
    return len(core) >= MIN_VALUE_CHARS and (not core.isdigit() or digits >= MIN_BARE_DIGITS)


# -- secrets by their shape -------------------------------------------------------------------------------------

_KEY_FORMATS = [
    (
        re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END [A-Z0-9 ]*-----)?", re.DOTALL),
        "private key",
    ),
    (re.compile(r"\beyJ[\w-]{8,}\.eyJ[\w-]{8,}(?:\.[\w-]+)?"), "token"),  # a JWT: header.payload[.signature]
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "API key"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), "API key"),
    (re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}|\bgithub_pat_[A-Za-z0-9_]{20,}"), "token"),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}|\bnpm_[A-Za-z0-9]{30,}|\bhf_[A-Za-z0-9]{30,}"), "token"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-[A-Za-z0-9-]{10,}"), "token"),
    (re.compile(r"\b[spr]k_(?:live|test)_[A-Za-z0-9]{10,}"), "API key"),
    (re.compile(r"(?<=\bBearer )[A-Za-z0-9._~+/-]{16,}=*", re.IGNORECASE), "token"),
    (re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"), "password"),  # user:password@ in a URL
    # sk-… keys (OpenAI, Anthropic and many look-alikes): some run of 16+ letters and digits with both in it
    (
        re.compile(r"\bsk-(?:[A-Za-z0-9]+-)*?(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{16,}[\w-]*"),
        "API key",
    ),
]
# A run of key material: base64 (with / + =) or base64url (- _); dots, colons and other punctuation end it.
_RUN = re.compile(r"[A-Za-z0-9+/=_-]{16,}")
_SEGMENT = re.compile(r"[A-Za-z0-9+=_-]{16,}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HASH_WORDS = r"commit|sha\d*|hash|digest|checksum|revision|rev|tree|blob|object|build|md5|etag|fingerprint"
_HASH_CONTEXT = re.compile(rf"\b(?:{_HASH_WORDS})s?(?:\s+(?:is|was|of|=)\b|\W){{0,3}}\s*$", re.IGNORECASE)
HASH_CONTEXT_CHARS = 40  # how far before a hex run a word such as "commit" or "sha256" is looked for
_URL_OR_PATH = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|www\.)\S+|(?<![\w/+=-])(?:~|\.{1,2})?/[\w.@%+~-]+(?:/[\w.@%+~-]*)+", re.I
)


def _entropy(text: str) -> float:
    """Shannon entropy of ``text`` in bits per character."""
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _random_looking(run: str) -> bool:
    """Does ``run`` (letters, digits, + / = _ -) look like generated key material rather than words or ids?

    Random text has letters and digits, switches between character classes far more often than
    identifiers do ("TestUserProfileV2Serializer" switches about once per word), and its entropy
    is close to the maximum its length allows; all three must hold.
    """
    body = run.strip("=-_/+")
    n = len(body)
    if n < MIN_RANDOM_CHARS or _HEX.fullmatch(body) or _UUID.fullmatch(body):
        return False  # too short; hex is judged on its own (it may be a commit sha); a UUID is an id
    parts = [p for p in re.split(r"[-_/+=]", body) if p]
    if len(parts) > 2 and max(map(len, parts)) < MIN_RANDOM_CHARS:
        return False  # dash-separated words and numbers: a slug, a package name, a version, a date
    upper = any(ch.isupper() for ch in body)
    lower = any(ch.islower() for ch in body)
    if not (upper or lower) or not any(ch.isdigit() for ch in body):
        return False
    switches = sum(_kind(a) != _kind(b) for a, b in zip(body, body[1:], strict=False)) / (n - 1)
    return _entropy(body) >= 0.8 * math.log2(min(n, 64)) and switches >= (
        MIN_SWITCHES_MIXED_CASE if upper and lower else MIN_SWITCHES_ONE_CASE
    )


def _kind(ch: str) -> int:
    return 0 if ch.isupper() else 1 if ch.islower() else 2 if ch.isdigit() else 3


def _hex_key(text: str, start: int, run: str) -> bool:
    """A long hex run outside a path or URL is a key, unless the words before it name it a hash."""
    digits = sum(ch.isdigit() for ch in run)
    if len(run) < MIN_HEX_CHARS or not 0 < digits < len(run) or _entropy(run) < 3.0:
        return False
    return not _HASH_CONTEXT.search(text[max(0, start - HASH_CONTEXT_CHARS) : start])


def _key_formats(text: str) -> list[Secret]:
    return [Secret(kind, m.start(), m.end()) for pattern, kind in _KEY_FORMATS for m in pattern.finditer(text)]


def _key_material(text: str) -> list[Secret]:
    return [
        Secret("key material", start, end)
        for start, end, in_path in _runs(text)
        if _random_looking(text[start:end])
        or (not in_path and _HEX.fullmatch(text[start:end]) and _hex_key(text, start, text[start:end]))
    ]


def _runs(text: str) -> list[tuple[int, int, bool]]:
    """``(start, end, in a path)`` of each run of key-material characters; in a path or URL, of each segment.

    In a path or URL the slashes separate segments, and a hex segment there is a commit or a
    content hash; elsewhere "/" and "+" belong to base64 ("wJalr…/K7MDENG/…").
    """
    runs = []
    cursor = 0
    for m in [*_URL_OR_PATH.finditer(text), None]:
        stop = m.start() if m else len(text)
        runs.extend((cursor + r.start(), cursor + r.end(), False) for r in _RUN.finditer(text[cursor:stop]))
        if m:
            runs.extend((m.start() + r.start(), m.start() + r.end(), True) for r in _SEGMENT.finditer(m.group(0)))
            cursor = m.end()
    return runs


# -- checksummed numbers ---------------------------------------------------------------------------------------

_CARD = re.compile(r"(?<![\d.-])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\d-]|\.\d)")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _iban_valid(iban: str) -> bool:
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def _checksummed(text: str) -> list[Secret]:
    found = []
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            found.append(Secret("card number", m.start(), m.end()))
    for m in _IBAN.finditer(text):
        if _iban_valid(m.group(0).replace(" ", "")):
            found.append(Secret("bank account number", m.start(), m.end()))
    return found


# -- the public face ---------------------------------------------------------------------------------------------


def find_secrets(text: str) -> list[Secret]:
    """Every secret in ``text``, in order of position (overlapping finds merged into the first)."""
    # Where two finds start together the more specific kind names the secret: a key format, a checksummed
    # number, then a label, then mere randomness.
    ranked = [_key_formats(text), _checksummed(text), _labelled(text), _key_material(text)]
    order = {id(secret): rank for rank, finds in enumerate(ranked) for secret in finds}
    found = sorted((s for finds in ranked for s in finds), key=lambda s: (s.start, order[id(s)]))
    merged: list[Secret] = []
    for secret in found:
        if merged and secret.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Secret(last.kind, last.start, max(last.end, secret.end))
        else:
            merged.append(secret)
    return merged


def has_secret(text: str) -> bool:
    """Does ``text`` carry a password, PIN, key, token, card number or other secret?"""
    return bool(find_secrets(text))


def secret_kinds(text: str) -> list[str]:
    """The kinds of secret in ``text``, each once, in order of appearance (safe to show or log)."""
    return list(dict.fromkeys(s.kind for s in find_secrets(text)))


def redact(text: str) -> str:
    """``text`` with each secret's value replaced by ``[<kind> withheld]`` (safe to show or log)."""
    out, cursor = [], 0
    for secret in find_secrets(text):
        out.append(text[cursor : secret.start])
        out.append(f"[{secret.kind} withheld]")
        cursor = secret.end
    out.append(text[cursor:])
    return "".join(out)
