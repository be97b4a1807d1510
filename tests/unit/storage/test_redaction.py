"""Redaction (okbot.storage.redaction): how a URL is shown, and when it holds a user name or password."""

from __future__ import annotations

import pytest

from okbot.storage.redaction import REDACTED, holds_userinfo, redact_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pass@host/v1", "https://[redacted]@host/v1"),
        ("http://:pw@127.0.0.1:8080/v1", "http://[redacted]@127.0.0.1:8080/v1"),
        (
            "https://host/v1?api_key=k1&key=k2&token=t&x=1",
            "https://host/v1?api_key=[redacted]&key=[redacted]&token=[redacted]&x=1",
        ),
        ("https://host/v1?access_token=a#sig=s", "https://host/v1?access_token=[redacted]#sig=[redacted]"),
        ("https://user@host/v1", "https://[redacted]@host/v1"),  # a token passes as a user name
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),
        ("https://host/v1?", "https://host/v1?"),  # nothing to hide: the text comes back exactly
        ("http://u:p@[::1/v1", "http://[redacted]@[::1/v1"),  # not parseable, still hidden
    ],
)
def test_redact_url_hides_passwords_and_credential_parameters(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_anything_that_is_not_text_comes_back_unchanged() -> None:
    assert redact_url(None) is None and redact_url(8080) == 8080


@pytest.mark.parametrize(
    ("url", "holds"),
    [
        ("https://sk-secret@llm.example/v1", True),
        ("http://user:pw@127.0.0.1:8080/v1", True),
        ("https://llm.example/v1?user=a@b", False),  # an "@" after the host is no userinfo
        ("https://api.openai.com/v1", False),
        ("http://[::1/v1", False),  # not a URL: the other checks say so
    ],
)
def test_holds_userinfo(url: str, holds: bool) -> None:
    assert holds_userinfo(url) is holds
    assert (REDACTED in redact_url(url)) is holds
