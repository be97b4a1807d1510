"""Fixtures for the shell's UI tests: a real fake OpenAI server and an AppContext pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.ui.app_context import AppContext
from tests.helpers.fake_openai import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """A FakeOpenAIServer on 127.0.0.1, stopped after the test."""
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def ctx(qapp: object, server: FakeOpenAIServer) -> Iterator[AppContext]:
    """An AppContext in the test's OKBOT_HOME whose provider is the fake server (no key)."""
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.maxRetries", 1)
    ws = Workspace()
    ws.ensure_default()
    context = AppContext.create(ws, settings)
    yield context
    context.tasks.wait_for_done(5000)
