"""The provider pool: routing by model reference, one backend per provider, each provider's own key."""

from __future__ import annotations

from pathlib import Path

import pytest

from okbot.config.providers import ProviderConfig
from okbot.config.settings import Settings
from okbot.llm.key_source import key_for
from okbot.llm.keystore import KeyStore
from okbot.llm.provider import ChatRequest
from okbot.llm.providers import ProviderPool, list_every_model
from tests.helpers.fake_openai import FakeOpenAIServer
from tests.helpers.keyrings import MemoryKeyring, no_keyring, system_keyring
from tests.helpers.patience import PATIENT_SECONDS


class Recorder:
    """A backend that records the requests it was given."""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self.sent: list[str] = []
        self.closed = False
        self.local = config.base_url.startswith("http://127.")

    def complete(self, request: ChatRequest, cancel=None) -> str:
        self.sent.append(request.model)
        return f"{self.config.name}:{request.model}"

    def stream(self, request: ChatRequest, cancel=None):
        self.sent.append(request.model)
        yield "event"

    def refuses(self, model: str, parameter: str) -> bool:
        return model == "old" and parameter == "response_format"

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def settings(okbot_home: Path) -> Settings:
    s = Settings.load()
    s.set("provider.baseUrl", "http://127.0.0.1:9/v1")
    s.providers.add(ProviderConfig("work", "https://work.example/v1", "none"))
    return s


def test_requests_are_routed_by_reference_and_backends_are_kept(settings):
    built: list[Recorder] = []

    def factory(_settings, config):
        built.append(Recorder(config))
        return built[-1]

    pool = ProviderPool(settings, factory)
    ask = lambda model: pool.complete(ChatRequest(model=model, messages=[]))  # noqa: E731
    assert ask("gpt-4o") == "default:gpt-4o"
    assert ask("work/meta-llama/Llama-3") == "work:meta-llama/Llama-3"
    assert ask("meta-llama/Llama-3") == "default:meta-llama/Llama-3"
    assert list(pool.stream(ChatRequest(model="work/m", messages=[]))) == ["event"]
    assert [b.config.name for b in built] == ["default", "work"]
    assert pool.local and pool.refuses("work/old", "response_format") and not pool.refuses("old2", "x")
    settings.providers.add(ProviderConfig("work", "https://elsewhere.example/v1", "none"))
    assert ask("work/m") == "work:m" and built[2].config.base_url.startswith("https://else")
    assert not built[1].closed  # a reply may still stream from it: closed with the pool
    pool.close()
    assert all(b.closed for b in built)


def test_each_provider_finds_its_own_key(settings, monkeypatch, okbot_home):
    monkeypatch.setenv("OKBOT_API_KEY", "sk-default-1234567890")
    monkeypatch.setenv("ROUTER_KEY", "sk-router-1234567890")
    with system_keyring(no_keyring()):  # no system keyring: the 0600 key file
        KeyStore().save("sk-vault-1234567890", "vault")
        assert key_for(ProviderConfig("vault", "https://v/v1", "keyring")) == "sk-vault-1234567890"
    with system_keyring(MemoryKeyring()):  # a system keyring: the key is kept there, under the provider's name
        KeyStore().save("sk-vault-abcdefghij", "vault")
        assert key_for(ProviderConfig("vault", "https://v/v1", "keyring")) == "sk-vault-abcdefghij"
    assert key_for(ProviderConfig("router", "https://r/v1", "env", "ROUTER_KEY")) == "sk-router-1234567890"
    assert key_for(ProviderConfig("other", "https://o/v1", "env")) == "sk-default-1234567890"
    assert key_for(ProviderConfig("none", "https://n/v1", "none")) is None


def test_a_hosted_provider_without_its_key_fails_before_sending(settings):
    with FakeOpenAIServer() as srv:
        settings.providers.add(ProviderConfig("hosted", "https://hosted.invalid/v1", "env", "NO_SUCH_KEY_VAR"))
        settings.providers.add(ProviderConfig("local", srv.base_url, "none"))
        pool = ProviderPool(settings)
        with pytest.raises(Exception, match="No API key"):
            pool.complete(ChatRequest(model="hosted/m", messages=[{"role": "user", "content": "x"}]))
        assert pool.complete(ChatRequest(model="local/fake-small", messages=[{"role": "user", "content": "hi"}]))
        assert srv.chat_requests()[0]["model"] == "fake-small"
        pool.close()


def test_the_picker_lists_every_providers_models_as_references(settings):
    with FakeOpenAIServer(models=("a", "b")) as default, FakeOpenAIServer(models=("meta-llama/Llama-3",)) as work:
        settings.set("provider.baseUrl", default.base_url)
        settings.set("provider.keySource", "none")
        settings.providers.add(ProviderConfig("work", work.base_url, "none"))
        settings.providers.add(ProviderConfig("gone", "http://127.0.0.1:9/v1", "none", models=("cached",)))
        assert list_every_model(settings, timeout=PATIENT_SECONDS) == [
            "a",
            "b",
            "work/meta-llama/Llama-3",
            "gone/cached",
        ]


def test_threads_asking_at_once_share_one_backend(settings):
    import threading

    built: list[Recorder] = []
    gate = threading.Barrier(4)

    def factory(_settings, config):
        gate.wait(timeout=PATIENT_SECONDS)  # all four build at the same moment
        built.append(Recorder(config))
        return built[-1]

    pool = ProviderPool(settings, factory)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(pool.route("work/m")[0])) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(b) for b in got}) == 1 and not got[0].closed
    assert sum(b.closed for b in built) == 3


def test_one_pool_serves_a_whole_run_and_rebuilds_only_what_changed(settings):
    built: list[Recorder] = []

    def factory(_settings, config):
        built.append(Recorder(config))
        return built[-1]

    pool = ProviderPool(settings, factory)
    ask = lambda: pool.complete(ChatRequest(model="m", messages=[]))  # noqa: E731
    ask(), ask()
    assert len(built) == 1  # kept across requests (and so across turns)
    settings.set("provider.timeout", 33)  # what the backend was built from changed
    ask()
    assert len(built) == 2 and not built[0].closed  # a reply may still stream from the old one
    pool.forget("default")  # its key was saved anew
    ask()
    assert len(built) == 3
    pool.close()
    assert all(b.closed for b in built)


def test_a_refused_key_is_read_afresh_on_the_next_request(settings, monkeypatch):
    with FakeOpenAIServer(require_key="sk-right-1234567890") as srv:
        settings.set("provider.baseUrl", srv.base_url)
        settings.set("provider.maxRetries", 0)
        monkeypatch.setenv("OKBOT_API_KEY", "sk-wrong-1234567890")
        pool = ProviderPool(settings)
        request = ChatRequest(model="fake-small", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(Exception, match="401"):
            pool.complete(request)
        monkeypatch.setenv("OKBOT_API_KEY", "sk-right-1234567890")  # the user fixed the key
        assert pool.complete(request)  # without restarting anything
        events = list(pool.stream(request))
        assert not [e for e in events if type(e).__name__ == "ErrorEvent"]
        pool.close()
