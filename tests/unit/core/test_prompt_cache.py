"""Prompt-cache hits shown (issue 33): per recorded request, how much of it repeats the chat's request
before it exactly (what a provider's prompt cache can reuse), and the cached tokens the provider reported.

Real turns through the real openai SDK against the local fake server, real files; the CLI runs as a user
runs it.
"""

from __future__ import annotations

import json

import pytest

from okbot.__main__ import main
from okbot.config.settings import Settings
from okbot.core.context import build_context
from okbot.core.prompt_cache import attach_prompt_cache
from okbot.core.render import as_sent_header_lines, as_sent_json
from okbot.core.sent_request import load_sent
from okbot.core.sources import ContextSources
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from tests.helpers.fake_openai import Reply, tool_call

LONG = "Please keep this in mind: " + "the parser reads one line at a time and never looks back. " * 40


@pytest.fixture
def env(server):
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    from tests.helpers.env import provider_for
    from tests.helpers.patience import PATIENT_SECONDS

    return target, sources, TurnRunner(sources, provider_for(server, max_reply_seconds=PATIENT_SECONDS))


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def requests(sources, target):
    return sources.as_sent(target).requests()


def loaded(sources, target, req):
    sent = load_sent(sources, target, req.user_id, req.id)
    attach_prompt_cache(sources, target, sent)
    return sent


def header(sent, sources, target):
    live = build_context(target, sent.request.user_id, sources=sources)
    return "\n".join(as_sent_header_lines(sent, live))


def test_the_chats_first_request_has_nothing_to_repeat(env, server):
    target, sources, runner = env
    server.enqueue(Reply(text="Hello.", cached_tokens=0))
    runner.run(target, Send(LONG))
    (first,) = requests(sources, target)
    sent = loaded(sources, target, first)
    assert sent.cache.previous_id is None and sent.cache.share is None
    text = header(sent, sources, target)
    assert "Prompt cache: the chat's first recorded request: no earlier request to repeat" in text
    data = json.loads(as_sent_json(sent, []))
    assert data["promptCache"]["previousRequest"] is None and data["promptCache"]["share"] is None
    assert data["promptCache"]["cachedTokens"] == 0  # what the server reported, even when nothing


def test_a_tool_round_repeats_the_request_before_it_whole(env, server):
    target, sources, runner = env
    server.enqueue(Reply(text="Noted.", cached_tokens=0))
    runner.run(target, Send(LONG))
    server.enqueue(
        Reply(tool_calls=[tool_call("search_history", {"query": "parser"})], cached_tokens=0),
        Reply(text="It reads one line at a time.", cached_tokens=512),
    )
    runner.run(target, Send("What did I say about the parser?"))
    _, round1, round2 = requests(sources, target)
    sent = loaded(sources, target, round2)
    cache = sent.cache
    assert cache.previous_id == round1.id
    assert cache.parts_at == ""  # every message of round 1 went out again, first to last, then the tool's
    assert 0.75 < cache.share < 1.0  # all but the tool call and its result (a search hit of ~200 tokens)
    assert cache.shared_tokens < cache.tokens == sent.total_tokens
    assert cache.cached_tokens == 512
    text = header(sent, sources, target)
    line = next(x for x in text.splitlines() if x.startswith("Prompt cache: "))
    assert f"repeats request #{round1.id} exactly" in line and "then adds what is new" in line
    assert "512 cached, as the provider reported" in line
    # round 1 of that turn against the first turn's request: the new user message follows the old reply
    first_round = loaded(sources, target, round1).cache
    assert first_round.previous_id == round1.id - 1 and first_round.parts_at == "" and first_round.share > 0.8


def test_an_edited_persona_parts_the_request_at_its_block(env, server):
    target, sources, runner = env
    server.enqueue(Reply(text="Noted."), Reply(text="Still noted."))
    runner.run(target, Send(LONG))
    target.soul_path.write_text("You are Ada. You answer in one sentence.\n", encoding="utf-8")
    runner.run(target, Send("And now?"))
    first, second = requests(sources, target)
    cache = loaded(sources, target, second).cache
    assert cache.previous_id == first.id
    assert cache.parts_at == "block SOUL.md"  # the persona comes before the chat: little stays the same
    assert cache.share < 0.2
    text = header(loaded(sources, target, second), sources, target)
    assert "parts at block SOUL.md" in text


def test_other_tools_offered_part_the_request_before_its_first_message(env, server):
    target, sources, runner = env
    server.enqueue(Reply(text="Noted."), Reply(text="Still noted."))
    runner.run(target, Send(LONG))
    runner.run(target, Send("And now?"))
    first, second = requests(sources, target)
    # the record names the tools offered; a request that offered others cannot share its start
    log = target.dir / "as-sent" / "requests.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    lines = [
        json.dumps({**obj, "tools": obj["tools"][:1]}) if obj.get("id") == second.id else line
        for line, obj in ((line, json.loads(line)) for line in lines)
    ]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cache = loaded(sources, target, requests(sources, target)[1]).cache
    assert cache.previous_id == first.id and cache.parts_at == "tools offered" and cache.share == 0.0


def test_a_previous_request_that_cannot_be_read_back_is_not_compared(env, server):
    target, sources, runner = env
    server.enqueue(Reply(text="Noted."), Reply(text="Still noted.", cached_tokens=900))
    runner.run(target, Send(LONG))
    runner.run(target, Send("And now?"))
    first, second = requests(sources, target)
    for block in sources.as_sent(target).load_texts(first).blocks:  # a block file of request 1 lost
        (target.dir / "as-sent" / "blocks" / f"{block['sha']}.txt").unlink(missing_ok=True)
        break
    sent = loaded(sources, target, second)
    assert sent.cache.previous_id == first.id and sent.cache.share is None
    assert sent.cache.cached_tokens == 900  # the provider's figure stands alone
    text = header(sent, sources, target)
    assert f"request #{first.id} can no longer be read back whole, so it is not compared" in text
    assert "900 cached, as the provider reported" in text


def test_okbot_context_json_shows_the_prompt_cache_of_the_messages_request(env, server, capsys):
    target, sources, runner = env
    server.enqueue(Reply(text="Noted.", cached_tokens=0), Reply(text="Still noted.", cached_tokens=640))
    runner.run(target, Send(LONG))
    runner.run(target, Send("And now?"))
    first, second = requests(sources, target)
    code, out, err = run_cli(capsys, "context", "okbot", "--json")
    assert code == 0, err
    cache = json.loads(out)["promptCache"]
    assert cache["request"] == second.id and cache["previousRequest"] == first.id
    assert cache["partsAt"] == "" and 0.5 < cache["share"] < 1.0 and cache["cachedTokens"] == 640
    code, out, err = run_cli(capsys, "context", "okbot", "--at", str(second.user_id), "--as-sent", "--json")
    assert code == 0, err
    assert json.loads(out)["promptCache"] == cache
