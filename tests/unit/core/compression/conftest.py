"""Shared set-up for compression tests: the fake server (a faithful summarizer) and real files in a temp dir."""

from __future__ import annotations

import pytest

from okbot.config.settings import Settings
from okbot.core.compression import Compressor
from okbot.core.sources import ContextSources
from okbot.core.workspace import Workspace
from okbot.llm.openai_backend import OpenAIProvider
from tests.helpers.fake_openai import FakeOpenAIServer
from tests.helpers.fake_summarizer import faithful


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        srv.set_default(faithful)
        yield srv


@pytest.fixture
def env(server):
    """``(target, sources, compressor, events)`` for the default assistant, window 3,000; ``events`` holds
    the ids of each coverage advance."""
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    settings.set("model.contextWindow", 3000)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    events: list[list[int]] = []
    provider = OpenAIProvider(server.base_url, None, sleep=lambda _s: None, max_retries=0)
    compressor = Compressor(sources, provider, on_coverage_advanced=lambda _t, ids: events.append(list(ids)))
    return target, sources, compressor, events
