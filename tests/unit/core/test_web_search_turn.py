"""web_search in real turns: the fake OpenAI server asks for it, a fake search service on 127.0.0.1 answers,
and the results reach the model's next request under the tool's source line. Unconfigured, the tool is not
offered at all; the key is in no record, log, request or context view."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

from okbot.app.context_view import load_snapshot
from okbot.core.local_tools.web.search_setup import delete_key, key_changed, save_key
from okbot.core.local_tools.web.search_tool import make_web_search
from okbot.core.session import SessionStore
from okbot.core.sources import ContextSources
from okbot.core.tools import ToolRegistry
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from okbot.llm.keystore import KeyStore
from okbot.storage import paths
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import Reply, tool_call
from tests.helpers.fake_search import RESULTS, FakeSearch, Fault
from tests.helpers.keyrings import no_keyring, system_keyring
from tests.unit.core.local_tools.web.fakes import only_test_server


@pytest.fixture(autouse=True)
def file_keys_only() -> Iterator[None]:
    """Keys go to the key file of the test's data dir: never a keyring another test left behind."""
    with system_keyring(no_keyring()):
        yield


@pytest.fixture
def fake() -> Iterator[FakeSearch]:
    with FakeSearch() as srv:
        yield srv


def tool_names(request: dict) -> list[str]:
    return [spec["function"]["name"] for spec in request.get("tools", [])]


def turn_env(server, tools=None):
    settings_for(server)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws, tools=tools)
    return target, sources, TurnRunner(sources, provider_for(server))


def test_unconfigured_the_tool_is_not_offered_and_configured_it_is(server, fake):
    target, sources, runner = turn_env(server)  # the production tools: WEB_SEARCH with the real key store
    key_changed()
    server.enqueue(Reply(text="one"), Reply(text="two"), Reply(text="three"), Reply(text="four"))
    runner.run(target, Send("hi"))
    sources.settings.set("webSearch.provider", "tavily")  # chosen, but no key yet: still not offered
    runner.run(target, Send("hi again"))
    save_key(KeyStore(), "tavily", fake.key)
    runner.run(target, Send("and now"))
    delete_key(KeyStore(), "tavily")
    runner.run(target, Send("gone"))
    offered = [tool_names(body) for body in server.chat_requests()]
    assert [("web_search" in names) for names in offered] == [False, False, True, False]
    assert "web_fetch" in offered[0]  # the other local tools are there all along
    system = [m["content"] for m in server.chat_requests()[2]["messages"] if m["role"] == "system"]
    assert any("web_search" in text for text in system)  # the tool notes agree with the tools offered


def test_searxng_needs_only_its_url_to_be_offered(server, fake):
    target, sources, runner = turn_env(server)
    sources.settings.set("webSearch.provider", "searxng")
    server.enqueue(Reply(text="one"), Reply(text="two"))
    runner.run(target, Send("hi"))
    sources.settings.set("webSearch.searxngUrl", fake.searxng_url())
    runner.run(target, Send("hi again"))
    assert [("web_search" in tool_names(body)) for body in server.chat_requests()] == [False, True]


def test_denied_it_is_not_offered_even_when_configured(server, fake):
    target, sources, runner = turn_env(server)
    sources.settings.set("webSearch.provider", "searxng")
    sources.settings.set("webSearch.searxngUrl", fake.searxng_url())
    sources.settings.set("tools.web_search.approval", "deny")
    server.enqueue(Reply(text="one"))
    runner.run(target, Send("hi"))
    assert "web_search" not in tool_names(server.chat_requests()[0])


@pytest.mark.parametrize("service", ["tavily", "brave", "serper", "searxng"])
def test_the_model_searches_and_reads_the_results_in_its_next_request(server, fake, service):
    keys = KeyStore()
    tool = make_web_search(keys, endpoints=fake.endpoints(), check=only_test_server)
    target, sources, runner = turn_env(server, ToolRegistry([tool]))
    sources.settings.set("webSearch.provider", service)
    if service == "searxng":
        sources.settings.set("webSearch.searxngUrl", fake.searxng_url())
    else:
        save_key(keys, service, fake.key)
    call = tool_call("web_search", {"query": "python language", "max_results": 3})
    server.enqueue(Reply(tool_calls=[call]), Reply(text="Python is a language."))
    result = runner.run(target, Send("what is python?"))
    assert result.status == "complete"
    first, second = server.chat_requests()
    assert tool_names(first) == ["web_search"]
    (answer,) = [m for m in second["messages"] if m["role"] == "tool"]
    assert answer["tool_call_id"] == call.call_id
    lines = answer["content"].split("\n")
    assert lines[0] == f"[source: tool web_search (call {call.call_id}) — not the user]"
    assert lines[1].startswith('Web search: "python language" · ') and lines[1].endswith("· 3 results")
    for title, url, snippet in RESULTS:
        assert title in answer["content"] and url in answer["content"] and snippet in answer["content"]
    records = list(SessionStore(target.session_path).iter_items())
    (stored,) = [it for it in records if it["type"] == "tool_result"]
    assert stored["ok"] and stored["name"] == "web_search"


def test_the_key_is_in_no_record_log_request_or_context_view(server, fake, caplog):
    caplog.set_level(logging.DEBUG)
    keys = KeyStore()
    tool = make_web_search(keys, endpoints=fake.endpoints(), check=only_test_server)
    target, sources, runner = turn_env(server, ToolRegistry([tool]))
    sources.settings.set("webSearch.provider", "serper")
    save_key(keys, "serper", fake.key)
    server.enqueue(Reply(tool_calls=[tool_call("web_search", {"query": "ok"})]), Reply(text="found"))
    runner.run(target, Send("search"))
    fake.fault = Fault(status=400, body=json.dumps({"message": f"bad request for key {fake.key}"}).encode())
    server.enqueue(Reply(tool_calls=[tool_call("web_search", {"query": "again"})]), Reply(text="failed"))
    runner.run(target, Send("search again"))
    assert len(fake.seen) == 2 and all(seen.headers["X-API-KEY"] == fake.key for seen in fake.seen)

    secret = fake.key.encode()
    for path in paths.data_dir().rglob("*"):
        if path.is_file() and path != keys.key_file:
            assert secret not in path.read_bytes(), path
    assert fake.key not in json.dumps(server.chat_requests())
    assert fake.key not in "\n".join(record.getMessage() for record in caplog.records)
    failed = [it for it in SessionStore(target.session_path).iter_items() if it["type"] == "tool_result"][-1]
    assert not failed["ok"] and "HTTP 400" in failed["content"]
    for item in [it for it in SessionStore(target.session_path).iter_items() if it["type"] == "user"]:
        snap = load_snapshot(sources, target, item["id"])
        assert fake.key not in snap.full_markdown
        if snap.as_sent is not None:
            assert fake.key not in json.dumps(snap.as_sent.__dict__, default=str)
