"""The one error of web_fetch: every layer raises it, the tool turns it into a failed outcome."""

from __future__ import annotations


class FetchError(Exception):
    """A fetch that cannot go on; the message is written for the model."""
