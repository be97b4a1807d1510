"""The usual test set-up against the fake server: settings pointed at it, and a provider for it."""

from __future__ import annotations

from typing import Any

from okbot.config.settings import Settings
from okbot.llm.openai_backend import OpenAIProvider
from tests.helpers.fake_openai import FakeOpenAIServer


def settings_for(server: FakeOpenAIServer, values: dict[str, Any] | None = None) -> Settings:
    """The settings of this test's OKBOT_HOME pointed at ``server`` (no API key), plus ``values``."""
    settings = Settings.load()
    for key, value in {"provider.baseUrl": server.base_url, "provider.keySource": "none", **(values or {})}.items():
        settings.set(key, value)
    return settings


def provider_for(server: FakeOpenAIServer, **options: Any) -> OpenAIProvider:
    """A real provider for ``server`` that never sleeps between retries (``options`` as OpenAIProvider takes)."""
    return OpenAIProvider(server.base_url, None, sleep=lambda _s: None, **options)
