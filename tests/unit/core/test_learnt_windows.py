"""The windows servers taught OkBot: remembered per provider and model, only ever lower, in one small file that
a damaged or hand-edited copy never breaks."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from okbot.config.settings import Settings
from okbot.core.learnt_windows import LearntWindows, provider_key
from okbot.core.sources import ContextSources
from okbot.core.workspace import Workspace
from okbot.llm.errors import ProviderError
from okbot.llm.openai_backend import OpenAIProvider
from okbot.llm.provider import ChatRequest
from okbot.storage import paths
from tests.helpers.fake_openai import FakeOpenAIServer, llama_server_rules

URL = "http://127.0.0.1:8080/v1"


@pytest.fixture
def store(tmp_path: Path) -> LearntWindows:
    return LearntWindows(tmp_path / "windows.json")


def test_a_learnt_window_is_remembered_across_processes(store: LearntWindows) -> None:
    assert store.get(URL, "qwen") is None
    assert store.learn(URL, "qwen", 4096, prompt_tokens=5000) is True
    again = LearntWindows(store.path).get(URL, "qwen")
    assert again is not None and (again.window, again.prompt_tokens) == (4096, 5000)
    assert again.learnt_at  # when it was refused, for the Settings line


def test_only_ever_lower_and_never_nonsense(store: LearntWindows) -> None:
    store.learn(URL, "qwen", 8192)
    assert store.learn(URL, "qwen", 16384) is False  # a larger figure never raises what a refusal taught
    assert store.learn(URL, "qwen", 255) is False  # nonsense below 256
    assert store.learn(URL, "qwen", 0) is False
    assert store.get(URL, "qwen").window == 8192
    assert store.learn(URL, "qwen", 4096) is True
    assert store.get(URL, "qwen").window == 4096


def test_keyed_by_provider_and_model_with_nothing_secret_in_the_key(store: LearntWindows) -> None:
    secret_url = "http://alice:hunter2@Example.TEST:8080/v1/?api_key=sk-canary-123#frag"
    store.learn(secret_url, "qwen", 4096)
    store.learn(URL, "qwen", 2048)
    assert store.get("http://example.test:8080/v1", "qwen").window == 4096
    assert store.get(URL, "qwen").window == 2048
    assert store.get(URL, "other") is None
    text = store.path.read_text(encoding="utf-8")
    for secret in ("alice", "hunter2", "sk-canary-123", "frag"):
        assert secret not in text
    assert provider_key(secret_url) == "http://example.test:8080/v1"


def test_forget(store: LearntWindows) -> None:
    store.learn(URL, "qwen", 4096)
    assert store.forget(URL, "qwen") is True
    assert store.forget(URL, "qwen") is False
    assert LearntWindows(store.path).get(URL, "qwen") is None


def test_bounded_oldest_goes_first(store: LearntWindows) -> None:
    for n in range(LearntWindows.MAX_ENTRIES + 5):
        store.learn(URL, f"model-{n}", 4096)
    entries = LearntWindows(store.path).entries()
    assert len(entries) == LearntWindows.MAX_ENTRIES
    assert store.get(URL, "model-0") is None and store.get(URL, f"model-{LearntWindows.MAX_ENTRIES + 4}")


@pytest.mark.parametrize("text", ["{not json", "[]", '{"version": 99, "windows": []}', '{"windows": "x"}', "\xff"])
def test_a_damaged_file_means_nothing_learnt_and_says_so(
    tmp_path: Path, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "windows.json"
    path.write_text(text, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="okbot.windows"):
        store = LearntWindows(path)
        assert store.entries() == []
    assert str(path) in caplog.text and "ignor" in caplog.text
    assert store.learn(URL, "qwen", 4096) and LearntWindows(path).get(URL, "qwen").window == 4096


def test_a_hand_edited_entry_is_ignored_alone(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "windows.json"
    good = {"baseUrl": URL, "model": "qwen", "window": 4096, "learntAt": "2026-01-02T03:04:05Z"}
    bad = [{"baseUrl": URL, "model": "m", "window": "4096"}, {"baseUrl": URL, "model": "t", "window": 12}, "x"]
    path.write_text(json.dumps({"version": 1, "windows": [good, *bad]}), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="okbot.windows"):
        store = LearntWindows(path)
        assert [(e.model, e.window) for e in store.entries()] == [("qwen", 4096)]
    assert caplog.text.count("ignoring") == 3


def test_a_write_by_another_process_is_seen(store: LearntWindows) -> None:
    assert store.get(URL, "qwen") is None
    LearntWindows(store.path).learn(URL, "qwen", 4096)
    assert store.get(URL, "qwen").window == 4096


# ---------------------------------------------------------------- ContextSources


@pytest.fixture
def sources(server: FakeOpenAIServer) -> ContextSources:
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.model", "qwen-local")
    return ContextSources(Workspace())


def test_the_context_window_is_the_smaller_of_the_setting_and_the_learnt(sources: ContextSources) -> None:
    target = sources.workspace.ensure_default()
    before = sources.context_window(target)
    assert before > 4096
    assert sources.learn_window(target, 4096) is True
    assert sources.context_window(target) == 4096 == sources.context_window()
    assert sources.learn_window(target, before * 2) is False
    assert sources.context_window(target) == 4096
    assert paths.learnt_windows_file().is_file()
    assert sources.forget_window(target) is True
    assert sources.context_window(target) == before


def test_a_window_is_learnt_for_the_assistants_own_model_only(sources: ContextSources) -> None:
    target = sources.workspace.ensure_default()
    window = sources.context_window(target)
    target.meta["model"] = "other-model"
    sources.learn_window(target, 2048)
    assert sources.context_window(target) == 2048
    target.meta.pop("model")
    assert sources.context_window(target) == window


def test_what_llama_cpp_says_is_what_is_learnt(sources: ContextSources) -> None:
    """The whole chain without the runner: the real backend meets llama.cpp's refusal, the window it states
    is learnt for that server and model, and the next context is built against it."""
    target = sources.workspace.ensure_default()
    with FakeOpenAIServer(models=["qwen-local"], rules={"qwen-local": llama_server_rules(4096)}) as small:
        sources.settings.set("provider.baseUrl", small.base_url)
        with OpenAIProvider(small.base_url, None, sleep=lambda _s: None) as provider:
            request = ChatRequest("qwen-local", [{"role": "user", "content": "z" * 20_000}])
            with pytest.raises(ProviderError) as caught:
                provider.complete(request)
        assert caught.value.window == 4096
        assert sources.learn_window(target, caught.value.window)
        assert sources.context_window(target) == 4096
