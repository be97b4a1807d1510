"""Shared set-up for compression tests: the fake server (a faithful summarizer) and real files in a temp dir."""

from __future__ import annotations

import pytest

from okbot.core.compression.compressor import Compressor
from okbot.core.sources import ContextSources
from okbot.core.workspace import Workspace
from tests.helpers.env import provider_for, settings_for
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
    settings_for(server, {"model.contextWindow": 3000})
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    events: list[list[int]] = []
    provider = provider_for(server, max_retries=0)
    compressor = Compressor(sources, provider, on_coverage_advanced=lambda _t, ids: events.append(list(ids)))
    return target, sources, compressor, events
