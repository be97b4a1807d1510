"""web_search as the model calls it, against fake Tavily, Brave, Serper and SearXNG services on 127.0.0.1:
each service's request and answer shape, the address guard (hosted hosts public only, the configured SearXNG
host let through and nothing else), every failure as a clear error, and the key never in what comes back."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from okbot.config.settings import Settings
from okbot.core.local_tools.web.search_setup import save_key
from okbot.core.local_tools.web.search_tool import make_web_search
from okbot.core.local_tools.web.tool import WEB_FETCH
from okbot.core.tools import ToolContext
from okbot.core.workspace import Target
from okbot.llm.keystore import KeyStore
from okbot.llm.provider import CancelToken
from tests.helpers.fake_search import (
    RESULTS,
    SEARXNG_PATH,
    TAVILY_PATH,
    FakeSearch,
    Fault,
)
from tests.helpers.keyrings import no_keyring, system_keyring
from tests.unit.core.local_tools.web.fakes import LOOPBACK, FakeDNS, only_test_server

HOSTED = ("tavily", "brave", "serper")


class SearchRuntime:
    """The running turn as web_search sees it: the settings (through its sources), Stop, progress lines."""

    def __init__(self, settings: Settings) -> None:
        self.sources = SimpleNamespace(settings=settings)
        self.cancel = CancelToken()
        self.progress_lines: list[str] = []

    def progress(self, tool: str, call_id: str, text: str) -> None:
        assert tool == "web_search" and call_id == "call-1"
        self.progress_lines.append(text)


@pytest.fixture(autouse=True)
def file_keys_only() -> Iterator[None]:
    """Keys go to the key file of the test's data dir: never a keyring another test left behind."""
    with system_keyring(no_keyring()):
        yield


@pytest.fixture
def fake() -> Iterator[FakeSearch]:
    with FakeSearch() as srv:
        yield srv


@pytest.fixture
def keys(tmp_path: Path) -> KeyStore:
    return KeyStore(tmp_path / "keys.json")


def ctx(tmp_path: Path, runtime: SearchRuntime) -> ToolContext:
    return ToolContext(Target("assistant", "a", "A", tmp_path, {}), session=None, runtime=runtime, call_id="call-1")


def configured(service: str, fake: FakeSearch, keys: KeyStore, key: str | None = None) -> SearchRuntime:
    settings = Settings.load()
    settings.set("webSearch.provider", service)
    if service == "searxng":
        settings.set("webSearch.searxngUrl", fake.searxng_url())
    else:
        save_key(keys, service, key or fake.key)
    return SearchRuntime(settings)


def tool_for(fake: FakeSearch, keys: KeyStore, **options: object):
    """web_search with the hosted services pointed at the fake (whose 127.0.0.1 is the one address let through)."""
    return make_web_search(keys, endpoints=fake.endpoints(), check=only_test_server, **options)


# -- each service: its request and answer shapes ---------------------------------------------------------


@pytest.mark.parametrize("service", [*HOSTED, "searxng"])
def test_each_service_answers_with_titles_urls_and_snippets(fake, keys, tmp_path, service):
    runtime = configured(service, fake, keys)
    out = tool_for(fake, keys).run({"query": "python  language"}, ctx(tmp_path, runtime))
    assert out.ok, out.content
    head, *rows = out.content.split("\n\n")
    assert head.startswith('Web search: "python language" · ') and head.endswith("· 3 results")
    for n, (title, url, snippet) in enumerate(RESULTS, 1):
        assert rows[n - 1] == f"{n}. {title}\n   {url}\n   {snippet}"  # Brave's <strong> marks are gone
    assert fake.key not in out.content and all(fake.key not in line for line in runtime.progress_lines)


def test_tavily_is_a_post_with_a_json_body_and_a_bearer_key(fake, keys, tmp_path):
    runtime = configured("tavily", fake, keys)
    tool_for(fake, keys).run({"query": "okbot", "max_results": 2}, ctx(tmp_path, runtime))
    (seen,) = fake.seen
    assert seen.method == "POST" and seen.path == TAVILY_PATH
    assert seen.headers["Authorization"] == f"Bearer {fake.key}" and seen.headers["Content-Type"] == "application/json"
    assert seen.json() == {"query": "okbot", "max_results": 2}  # the key travels in the header only


def test_brave_is_a_get_with_the_key_in_its_header(fake, keys, tmp_path):
    runtime = configured("brave", fake, keys)
    runtime.sources.settings.set("webSearch.maxResults", 7)
    tool_for(fake, keys).run({"query": "a&b c"}, ctx(tmp_path, runtime))
    (seen,) = fake.seen
    assert seen.method == "GET" and seen.query() == {"q": ["a&b c"], "count": ["7"]}
    assert seen.headers["X-Subscription-Token"] == fake.key and fake.key not in seen.path


def test_serper_is_a_post_with_q_and_num(fake, keys, tmp_path):
    runtime = configured("serper", fake, keys)
    tool_for(fake, keys).run({"query": "okbot", "max_results": 50}, ctx(tmp_path, runtime))
    (seen,) = fake.seen
    assert seen.method == "POST" and seen.headers["X-API-KEY"] == fake.key
    assert seen.json() == {"q": "okbot", "num": 20}  # asked for 50: at most 20


def test_searxng_asks_for_json_at_its_search_path(fake, keys, tmp_path):
    runtime = configured("searxng", fake, keys)
    runtime.sources.settings.set("webSearch.searxngUrl", fake.searxng_url() + "/search/")  # pasted with /search
    runtime.sources.settings.set("webSearch.maxResults", 2)
    out = tool_for(fake, keys).run({"query": "okbot"}, ctx(tmp_path, runtime))
    (seen,) = fake.seen
    assert seen.path.startswith(SEARXNG_PATH + "/search?") and seen.query() == {"q": ["okbot"], "format": ["json"]}
    assert out.ok and out.content.count("\n   https://") == 2  # SearXNG returns its page; two are kept


def test_no_results_is_said_plainly(fake, keys, tmp_path):
    fake.results = ()
    for service in HOSTED:
        out = tool_for(fake, keys).run({"query": "zzz"}, ctx(tmp_path, configured(service, fake, keys)))
        assert out.ok and out.content.endswith("· 0 results\n\nNo results."), (service, out.content)


# -- the address guard ----------------------------------------------------------------------------------


def test_the_configured_searxng_host_is_reached_on_loopback_with_the_real_address_check(fake, keys, tmp_path):
    runtime = configured("searxng", fake, keys)
    out = make_web_search(keys).run({"query": "okbot"}, ctx(tmp_path, runtime))  # the production guard
    assert out.ok, out.content
    assert len(fake.seen) == 1


def test_a_searxng_name_on_the_local_network_is_let_through(fake, keys, tmp_path):
    runtime = configured("searxng", fake, keys)
    runtime.sources.settings.set("webSearch.searxngUrl", fake.searxng_url(host="searx.lan"))
    dns = FakeDNS({"searx.lan": [LOOPBACK]})
    out = make_web_search(keys, resolve=dns).run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert out.ok, out.content
    assert dns.calls == [("searx.lan", fake.port)] and fake.seen[0].headers["Host"] == f"searx.lan:{fake.port}"


def test_a_hosted_service_on_a_private_address_is_refused_by_the_normal_guard(fake, keys, tmp_path):
    runtime = configured("tavily", fake, keys)
    tool = make_web_search(keys, endpoints=fake.endpoints())  # the real check: 127.0.0.1 is not public
    out = tool.run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert not out.ok and "refused" in out.content and "non-public address" in out.content
    assert fake.seen == []


def test_the_searxng_exemption_covers_searxng_alone(fake, keys, tmp_path):
    runtime = configured("tavily", fake, keys)
    runtime.sources.settings.set("webSearch.searxngUrl", fake.searxng_url())  # the same 127.0.0.1 host and port
    out = make_web_search(keys, endpoints=fake.endpoints()).run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert not out.ok and "non-public address" in out.content and fake.seen == []


def test_a_searxng_redirect_is_not_followed(fake, keys, tmp_path):
    runtime = configured("searxng", fake, keys)
    fake.fault = Fault(redirect_to=f"http://{LOOPBACK}:{fake.port}/admin")
    out = make_web_search(keys).run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert not out.ok and "redirect (HTTP 302)" in out.content and "not followed" in out.content
    assert len(fake.seen) == 1


def test_the_searxng_host_stays_refused_for_web_fetch(fake, keys, tmp_path):
    configured("searxng", fake, keys)
    out = WEB_FETCH.run({"url": fake.searxng_url() + "/search?q=x&format=json"}, ctx(tmp_path, None))
    assert not out.ok and "non-public address" in out.content and fake.seen == []


def test_the_cloud_metadata_address_is_refused_even_as_the_searxng_host(keys, tmp_path):
    settings = Settings.load()
    settings.set("webSearch.provider", "searxng")
    settings.set("webSearch.searxngUrl", "http://169.254.169.254")
    out = make_web_search(keys).run({"query": "x"}, ctx(tmp_path, SearchRuntime(settings)))
    assert not out.ok and "metadata" in out.content


# -- failures: clear errors, never the key --------------------------------------------------------------


def test_a_wrong_key_is_refused_in_each_services_words(fake, keys, tmp_path):
    wrong = "wrong-KEY-abcdef0123456789"
    for service, status in (("tavily", 401), ("brave", 422), ("serper", 403)):
        runtime = configured(service, fake, keys, key=wrong)
        out = tool_for(fake, keys).run({"query": "okbot"}, ctx(tmp_path, runtime))
        assert not out.ok and f"refused the API key (HTTP {status}" in out.content, out.content
        assert "Settings → Tools → Web search" in out.content and wrong not in out.content


ERRORS = [
    (
        Fault(status=429, body=json.dumps({"detail": {"error": "Too many"}}).encode()),
        "rate limit was reached (HTTP 429",
    ),
    (Fault(status=432, body=b'{"detail": {"error": "This request exceeds your plan\'s set usage limit."}}'), "used up"),
    (Fault(status=500, body=b"oops", content_type="text/plain"), "server error (HTTP 500"),
    (Fault(status=200, body=b'{"results": [', content_type="application/json"), "not valid JSON"),
    (Fault(status=200, body=b"<html>captcha</html>", content_type="text/html"), "Content-Type text/html"),
    (Fault(status=200, body=b'{"hits": []}'), "no results in the shape"),
    (Fault(status=200, body=b"[1, 2]"), "no results in the shape"),
    (Fault(status=200, body=b"\xff\xfe not utf-8"), "not valid JSON"),
]


@pytest.mark.parametrize(("fault", "words"), ERRORS)
@pytest.mark.parametrize("service", HOSTED)
def test_bad_answers_end_as_clear_errors(fake, keys, tmp_path, service, fault, words):
    runtime = configured(service, fake, keys)
    fake.fault = fault
    out = tool_for(fake, keys).run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert not out.ok and words in out.content, out.content
    assert out.content.startswith("web_search: ") and fake.key not in out.content


def test_an_error_body_that_echoes_the_key_is_redacted(fake, keys, tmp_path):
    runtime = configured("serper", fake, keys)
    fake.fault = Fault(status=400, body=json.dumps({"message": f"bad key {fake.key}", "statusCode": 400}).encode())
    out = tool_for(fake, keys).run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert not out.ok and "HTTP 400" in out.content and fake.key not in out.content and "[redacted]" in out.content


def test_searxng_without_the_json_format_says_how_to_enable_it(keys, tmp_path):
    with FakeSearch(searxng_json=False) as fake:
        runtime = configured("searxng", fake, keys)
        out = make_web_search(keys).run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert not out.ok and "HTTP 403 Forbidden" in out.content
    assert "enable the json format in its settings.yml" in out.content and "formats: [html, json]" in out.content


def test_a_service_that_does_not_answer_in_time_is_a_timeout(fake, keys, tmp_path):
    runtime = configured("tavily", fake, keys)
    fake.fault = Fault(delay=5.0, status=200, body=b"{}")
    out = tool_for(fake, keys, total_timeout=0.4).run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert not out.ok and "time limit" in out.content and fake.key not in out.content


def test_stop_before_the_call_sends_nothing(fake, keys, tmp_path):
    runtime = configured("tavily", fake, keys)
    runtime.cancel.cancel()
    out = tool_for(fake, keys).run({"query": "okbot"}, ctx(tmp_path, runtime))
    assert not out.ok and "stopped by the user" in out.content and fake.seen == []


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({}, "needs a 'query' string"),
        ({"query": "   "}, "needs a 'query' string"),
        ({"query": "x" * 401}, "at most 400"),
        ({"query": "x", "max_results": 0}, "max_results must be"),
        ({"query": "x", "max_results": "5"}, "max_results must be"),
        ({"query": "x", "max_results": True}, "max_results must be"),
    ],
)
def test_bad_arguments_are_refused_before_any_request(fake, keys, tmp_path, args, words):
    runtime = configured("tavily", fake, keys)
    out = tool_for(fake, keys).run(args, ctx(tmp_path, runtime))
    assert not out.ok and words in out.content and fake.seen == []


def test_unconfigured_it_says_what_to_set(fake, keys, tmp_path):
    settings = Settings.load()
    tool = tool_for(fake, keys)
    out = tool.run({"query": "x"}, ctx(tmp_path, SearchRuntime(settings)))
    assert not out.ok and "web search is off" in out.content
    settings.set("webSearch.provider", "brave")
    out = tool.run({"query": "x"}, ctx(tmp_path, SearchRuntime(settings)))
    assert not out.ok and "no API key is saved for Brave Search" in out.content
    settings.set("webSearch.provider", "searxng")
    out = tool.run({"query": "x"}, ctx(tmp_path, SearchRuntime(settings)))
    assert not out.ok and "no SearXNG URL is set" in out.content
    assert fake.seen == []


def test_the_key_is_in_no_log_line(fake, keys, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    wrong = "wrong-KEY-abcdef0123456789"
    for service in HOSTED:
        for key in (fake.key, wrong):
            runtime = configured(service, fake, keys, key=key)
            tool_for(fake, keys).run({"query": "okbot"}, ctx(tmp_path, runtime))
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert fake.key not in logged and wrong not in logged


def test_a_search_never_runs_past_the_turns_tool_time(fake, keys, tmp_path):
    runtime = configured("tavily", fake, keys)
    fake.fault = Fault(delay=5.0, status=200, body=b"{}")
    call = ToolContext(Target("assistant", "a", "A", tmp_path, {}), None, runtime, "call-1", seconds_left=0.4)
    out = tool_for(fake, keys).run({"query": "okbot"}, call)
    assert not out.ok and "time limit" in out.content
