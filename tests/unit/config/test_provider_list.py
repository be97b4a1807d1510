"""The providers in settings.json (okbot.config.provider_list): the default one from an older file, add /
remove / models saved at once, bad entries dropped with a message. Real files in a temp dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from okbot.config.providers import DEFAULT_PROVIDER, ProviderConfig
from okbot.config.schema import SettingError
from okbot.config.settings import Settings


def write(path: Path, obj: dict) -> bytes:
    raw = json.dumps(obj).encode()
    path.write_bytes(raw)
    return raw


def test_a_version_1_file_becomes_the_default_provider_and_its_old_keys_still_read(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    raw = write(
        path,
        {
            "version": 1,
            "provider.baseUrl": "http://127.0.0.1:9/v1",
            "provider.keySource": "none",
            "provider.model": "m",
        },
    )
    settings = Settings.load(path)
    assert settings.get("provider.baseUrl") == "http://127.0.0.1:9/v1"
    assert settings.get("provider.keySource") == "none"
    [default] = settings.providers.all()
    assert (default.name, default.base_url, default.key_source) == (DEFAULT_PROVIDER, "http://127.0.0.1:9/v1", "none")
    assert path.read_bytes() == raw  # reading never writes
    settings.set("developerMode", True)
    stored = json.loads(path.read_text())
    assert stored["version"] == 2 and "provider.baseUrl" not in stored
    assert stored["providers"] == [{"name": "default", "baseUrl": "http://127.0.0.1:9/v1", "keySource": "none"}]
    assert (tmp_path / "settings.json.v1.bak").read_bytes() == raw
    again = Settings.load(path)
    assert again.get("provider.baseUrl") == "http://127.0.0.1:9/v1" and not again.problems


def test_a_newer_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    raw = write(path, {"version": 3, "providers": [{"name": "x", "baseUrl": "http://a/v1", "future": 1}]})
    settings = Settings.load(path)
    with pytest.raises(SettingError):
        settings.providers.add(ProviderConfig("y", "http://b/v1"))
    assert path.read_bytes() == raw


def test_add_and_remove_providers_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = Settings.load(path)
    seen: list[str] = []
    settings.subscribe(seen.append)
    settings.providers.add(ProviderConfig("router", "https://openrouter.ai/api/v1", "env", "ROUTER_KEY"))
    assert seen == ["providers"]
    loaded = Settings.load(path)
    assert [p.name for p in loaded.providers.all()] == ["default", "router"]
    assert loaded.providers.get("router").key_env == "ROUTER_KEY"
    loaded.providers.set_models("router", ["b", "a"])
    assert Settings.load(path).providers.get("router").models == ("a", "b")
    with pytest.raises(SettingError):
        loaded.providers.remove("default")
    with pytest.raises(SettingError, match="no provider called"):
        loaded.providers.remove("nope")
    loaded.providers.remove("router")
    assert [p.name for p in Settings.load(path).providers.all()] == ["default"]


def test_bad_entries_are_refused_or_dropped_with_a_message(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = Settings.load(path)
    for bad in (
        ProviderConfig("a/b", "http://x/v1"),
        ProviderConfig("ok", "ftp://x"),
        ProviderConfig("k", "http://x", "x"),
    ):
        with pytest.raises(SettingError):
            settings.providers.add(bad)
    write(path, {"version": 2, "providers": [{"name": "w", "baseUrl": "nope"}, {"name": "v", "baseUrl": "http://v/1"}]})
    loaded = Settings.load(path)
    assert [p.name for p in loaded.providers.all()] == ["default", "v"]
    assert any("baseUrl must be" in m for m in loaded.problems)
