"""Fixtures shared by the core tests."""

from __future__ import annotations

import pytest

from okbot.config.settings import Settings
from okbot.core.sources import ContextSources
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from okbot.llm.openai_backend import OpenAIProvider
from tests.helpers.patience import PATIENT_SECONDS


@pytest.fixture
def env(server):
    """(target, sources, runner): the default assistant, talking to the fake server without a key."""
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    provider = OpenAIProvider(server.base_url, None, sleep=lambda _s: None, max_reply_seconds=PATIENT_SECONDS)
    return target, sources, TurnRunner(sources, provider)
