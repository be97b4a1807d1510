"""Each request goes to its assistant's provider: two real fake servers, real settings, the app's provider pool."""

from __future__ import annotations

import pytest

from okbot.app.wiring import make_turn_runner
from okbot.config.providers import ProviderConfig
from okbot.core.sources import ContextSources
from okbot.core.turn.request import Send
from okbot.core.workspace import Workspace
from okbot.llm.providers import ProviderPool
from tests.helpers.env import settings_for
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.fake_squad import SquadScript, ask

WORK_KEY = "sk-work-0123456789abcdef"


@pytest.fixture
def script():
    return SquadScript()


@pytest.fixture
def server(script):
    with FakeOpenAIServer() as srv:
        srv.set_default(script)
        yield srv


@pytest.fixture
def work():
    """The second provider's server: it answers only with its own key."""
    with FakeOpenAIServer(models=("fake-small", "meta-llama/Llama-3"), require_key=WORK_KEY) as srv:
        yield srv


@pytest.fixture
def env(server, work, monkeypatch):
    monkeypatch.setenv("WORK_KEY", WORK_KEY)
    settings = settings_for(server, {"provider.maxRetries": 0})
    settings.providers.add(ProviderConfig("work", work.base_url, "env", "WORK_KEY"))
    ws = Workspace()
    ws.create_assistant("Ada")  # the default provider's model
    ws.create_assistant("Bob", model="work/meta-llama/Llama-3")
    sources = ContextSources(ws)
    pool = ProviderPool(sources.settings)
    yield ws, sources, make_turn_runner(sources, pool)
    pool.close()


def test_each_assistant_reaches_its_own_provider_with_its_own_key(env, server, work):
    ws, sources, runner = env
    assert runner.run(ws.resolve("Ada"), Send("hello one")).status == "complete"
    assert runner.run(ws.resolve("Bob"), Send("hello two")).status == "complete"
    [one] = server.chat_requests()
    [two] = work.chat_requests()
    assert one["model"] == "gpt-4o-mini" and one["messages"][-1]["content"] == "hello one"
    assert two["model"] == "meta-llama/Llama-3" and two["messages"][-1]["content"] == "hello two"
    [sent] = [r for r in work.requests if r.method == "POST"]
    assert sent.headers["authorization"] == f"Bearer {WORK_KEY}"
    assert all(WORK_KEY not in str(r.headers) for r in server.requests)  # one provider's key never goes to another


def test_a_squad_member_with_its_own_provider(env, server, work, script):
    ws, sources, runner = env
    squad = ws.create_squad("Team", [("Ada", "writer"), ("Bob", "reviewer")])
    script.captain += [Reply(tool_calls=[ask("bob", "Review it")]), Reply(text="All reviewed.")]
    result = runner.run(squad, Send("Please review"))
    assert result.status == "complete" and result.reply_text == "All reviewed."
    assert len(script.sent["captain"]) == 2  # the captain stays on the default provider
    [member] = work.chat_requests()
    assert member["model"] == "meta-llama/Llama-3"
    assert "Bob" in member["messages"][0]["content"]


def test_the_window_follows_the_provider_listed_window(env, work):
    ws, sources, _runner = env
    sources.settings.providers.add(
        ProviderConfig("work", work.base_url, "env", "WORK_KEY", context_windows={"meta-llama/Llama-3": 8192})
    )
    assert sources.context_window(ws.resolve("Bob")) == 8192
    assert sources.context_window(ws.resolve("Ada")) != 8192


def test_the_summarizer_model_setting_names_a_cheaper_model(env):
    ws, sources, _runner = env
    bob = ws.resolve("Bob")
    assert sources.summarizer_model(bob) == "work/meta-llama/Llama-3"
    sources.settings.set("contextCompression.summarizerModel", "fake-small")
    assert sources.summarizer_model(bob) == "fake-small"
