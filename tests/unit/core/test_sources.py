"""ContextSources.tools_for: only tools that can do something are offered, and the tool notes agree.

Checked where it matters, in what the real runner sends to the fake server and what build_context shows.
"""

from __future__ import annotations

import pytest

from okbot.core.context import build_context
from okbot.core.skills import create_skill
from okbot.core.sources import ContextSources
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Target, Workspace
from okbot.llm.openai_backend import CapabilityMemory
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import FakeOpenAIServer, Reply


@pytest.fixture
def env(server: FakeOpenAIServer) -> tuple[Target, ContextSources, TurnRunner]:
    settings_for(server)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.loaded_counter(target)
    provider = provider_for(server, capabilities=CapabilityMemory())
    return target, sources, TurnRunner(sources, provider)


def offered(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def tool_notes(target: Target, sources: ContextSources) -> str:
    """The instructions (system message) build_context makes for the next turn."""
    messages = build_context(target, sources=sources).to_messages()
    return messages[0]["content"]


def test_no_load_skill_while_the_assistant_has_no_skill(env, server: FakeOpenAIServer) -> None:
    target, sources, runner = env
    assert not sources.skill_catalog(target)
    server.enqueue(Reply(text="hello"))
    runner.run(target, Send("hi"))
    tools = offered(server.chat_requests()[-1])
    assert tools and "load_skill" not in tools and "search_history" in tools
    notes = tool_notes(target, sources)
    assert "- search_history:" in notes and "load_skill" not in notes


def test_load_skill_is_offered_once_a_skill_exists(env, server: FakeOpenAIServer) -> None:
    target, sources, runner = env
    create_skill(target.skills_dir, "greet", "Greet people.")
    server.enqueue(Reply(text="hello"))
    runner.run(target, Send("hi"))
    assert "load_skill" in offered(server.chat_requests()[-1])
    assert "- load_skill:" in tool_notes(target, sources)
    names = [tool.name for tool in sources.tools_for(target)]
    assert names == [tool.name for tool in sources.tools]  # nothing else withdrawn


def test_the_assistants_own_model_is_sent_and_its_window_counts(env, server: FakeOpenAIServer) -> None:
    target, sources, runner = env
    sources.settings.set("provider.model", "small-model")
    sources.settings.set("model.contextWindow", 9_000)  # known for small-model only
    sources.settings.set("provider.model", "gpt-4o-mini")
    target = sources.workspace.set_meta(target, "model", "small-model")
    assert sources.model_for(target) == "small-model"
    assert sources.context_window(target) == 9_000
    assert build_context(target, sources=sources).window == 9_000  # the gauge and the threshold follow it
    server.enqueue(Reply(text="hi"))
    runner.run(target, Send("hello"))
    assert server.chat_requests()[-1]["model"] == "small-model"
    target = sources.workspace.set_meta(target, "model", None)  # back to the default
    assert sources.model_for(target) == "gpt-4o-mini"
