"""Shared fixtures: every test gets its own data dir and may ask for a fake OpenAI-compatible server.

Exact token counts come from the encodings bundled in ``resources/tiktoken`` (found first by
``okbot.core.tokens``); nothing here reaches outside the repository.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from okbot import i18n
from okbot.llm import slots
from tests.helpers.fake_openai import FakeOpenAIServer

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Never let a test reach for the network to fetch an encoding.
os.environ["OKBOT_TIKTOKEN_DOWNLOAD"] = "0"


@pytest.fixture(autouse=True)
def okbot_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point OKBOT_HOME at a fresh temp dir and clear scripting overrides for every test."""
    home = tmp_path / "okbot-home"
    monkeypatch.setenv("OKBOT_HOME", str(home))
    for var in ("OKBOT_BASE_URL", "OKBOT_MODEL", "OKBOT_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    slots.forget_all()  # nor what one taught about its slots
    # English unless a test asks otherwise, whatever the developer's locale ("system" follows LANGUAGE/LANG)
    monkeypatch.setenv("LANGUAGE", "en")
    return home


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """A test that switched the language (and failed before switching back) leaves the next one in English."""
    yield
    if i18n.language() != i18n.SOURCE_LANGUAGE:
        i18n.set_language(i18n.SOURCE_LANGUAGE)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server on 127.0.0.1 (a test file may define its own, e.g. with a default reply)."""
    with FakeOpenAIServer() as srv:
        yield srv
