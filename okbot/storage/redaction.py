"""How a secret is kept out of what OkBot shows, logs and stores: the one place redaction is done.

A URL is shown through :func:`redact_url` (its user name, password and credential-like parameters
hidden); :func:`holds_userinfo` tells a URL that carries a user name or password. Whatever is hidden
reads :data:`REDACTED`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote_plus, urlsplit, urlunsplit

REDACTED = "[redacted]"
# Query (or fragment) parameters whose value is a credential: api_key, key, token, access_token …
_SECRET_PARAM = re.compile(r"(?i)key|token|secret|pass|pwd|auth|credential|signature|^sig$")


def _redact_params(text: str) -> str:
    """``a=1&api_key=x`` → ``a=1&api_key=[redacted]``: credential-like parameters hidden."""
    pieces = []
    for piece in text.split("&"):
        name, eq, _ = piece.partition("=")
        pieces.append(f"{name}={REDACTED}" if eq and _SECRET_PARAM.search(unquote_plus(name)) else piece)
    return "&".join(pieces)


def redact_url(value: Any) -> Any:
    """``value`` with its userinfo and credential-like query values redacted: the one way a URL is shown.

    ``https://user:pw@host/v1?api_key=k`` prints as ``https://[redacted]@host/v1?api_key=[redacted]``. The
    user name goes too: a token is often passed as the user name (``https://TOKEN@host``,
    ``https://TOKEN:x-oauth-basic@host``). A URL with nothing to hide, and anything that is not text,
    comes back unchanged.
    """
    if not isinstance(value, str):
        return value
    try:
        parts = urlsplit(value)
    except ValueError:  # not parseable as a URL: still hide whatever sits between "//" and "@"
        return re.sub(r"//[^/?#@]*@", f"//{REDACTED}@", value)
    _, at, host = parts.netloc.rpartition("@")
    netloc = f"{REDACTED}@{host}" if at else parts.netloc
    hidden = parts._replace(netloc=netloc, query=_redact_params(parts.query), fragment=_redact_params(parts.fragment))
    return value if hidden == parts else urlunsplit(hidden)


def holds_userinfo(url: str) -> bool:
    """Whether ``url`` has a user name or password: often a token, and settings.json is no place for one
    (it is neither private nor left out of backups)."""
    try:
        return "@" in urlsplit(url).netloc
    except ValueError:  # not a URL at all: the other checks say so
        return False
