"""Providers (okbot.config.providers): one entry checked, and ``[PROVIDER/]MODEL`` references."""

from __future__ import annotations

import json
from pathlib import Path

from okbot.config.providers import ProviderConfig, resolve_model, split_ref
from okbot.config.settings import Settings


def write(path: Path, obj: dict) -> bytes:
    raw = json.dumps(obj).encode()
    path.write_bytes(raw)
    return raw


def test_model_references(tmp_path: Path) -> None:
    known = frozenset({"default", "router", "work"})
    assert split_ref("work/gpt-4o", known) == ("work", "gpt-4o")
    assert split_ref("meta-llama/Llama-3", known) == ("default", "meta-llama/Llama-3")
    assert split_ref("router/meta-llama/Llama-3", known) == ("router", "meta-llama/Llama-3")
    assert split_ref("gpt-4o", known) == ("default", "gpt-4o")
    settings = Settings.load(tmp_path / "settings.json")
    settings.providers.add(ProviderConfig("work", "http://w/v1"))
    config, model = resolve_model(settings, "work/m1")
    assert (config.name, config.base_url, model) == ("work", "http://w/v1", "m1")
    config, model = resolve_model(settings, None)
    assert (config.name, model) == ("default", settings.get("provider.model"))
