"""Compress ahead: after a reply, in the background; the next turn waits only when it cannot fit."""

from __future__ import annotations

import json
import threading

import pytest

from okbot.config.settings import Settings
from okbot.core.compression.compressor import Compressor
from okbot.core.context import build_context
from okbot.core.render import header_lines
from okbot.core.summary import SummaryStore
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from tests.helpers.fake_openai import Reply
from tests.helpers.fake_summarizer import faithful, is_summarizer_request
from tests.helpers.patience import PATIENT_SECONDS
from tests.helpers.scripted import ScriptedProvider
from tests.helpers.sessions import fill_until, near_the_prepare_mark, over_the_prepare_mark, predicted

WINDOW = 3000  # threshold 1800 (ratio 0.6), prepare mark 1500 (prepareRatio 0.5), fits up to 2250
GATE_SECONDS = 20  # a gated summarizer answers by itself after this (only when the code under test is wrong)


@pytest.fixture
def ahead_env(env):
    """``(target, sources, compressor, runner)``: the shared set-up plus a turn runner that compresses first."""
    target, sources, compressor, _events = env
    return target, sources, compressor, TurnRunner(sources, compressor.provider, compression=compressor)


class Gate:
    """A summarizer that answers only when the test opens the gate; records the order of events."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.asked = threading.Event()
        self.order: list[str] = []

    def reply(self, body: dict) -> Reply:
        if not is_summarizer_request(body):
            return faithful(body)
        self.order.append("summarizer asked")
        self.asked.set()
        self.open.wait(GATE_SECONDS)
        self.order.append("summary answered")
        return faithful(body)


def compress_ahead_behind_a_gate(server, compressor, target) -> tuple[Gate, list, threading.Thread]:
    """Start ``compress_ahead`` on a thread; return once its summarizer request waits behind the gate."""
    gate = Gate()
    server.set_default(gate.reply)
    reports: list = []
    background = threading.Thread(target=lambda: reports.append(compressor.compress_ahead(target)))
    background.start()
    assert gate.asked.wait(PATIENT_SECONDS)
    return gate, reports, background


def summarizer_calls(server) -> list[dict]:
    return [b for b in server.chat_requests() if is_summarizer_request(b)]


def chat_calls(server) -> list[dict]:
    return [b for b in server.chat_requests() if not is_summarizer_request(b) and b.get("stream")]


def test_a_reply_that_brings_the_next_request_over_the_prepare_mark_compresses_before_the_next_message(
    ahead_env, server
):
    target, sources, compressor, runner = ahead_env
    sources.settings.set("model.contextWindow", 2 * WINDOW)  # room to aim below the mark with 8 originals kept
    assert runner.run(target, Send("Hello")).status == "complete"  # calibrates the estimate
    # a reply short of the prepare mark: nothing to prepare
    fill_until(sources, target, near_the_prepare_mark)
    assert compressor.compress_ahead(target) is None and summarizer_calls(server) == []
    # the reply that brings the next request over the prepare mark (still under the threshold)
    server.enqueue(Reply(text="Here is the plan. " + "step " * 300))
    assert runner.run(target, Send("What next?")).status == "complete"
    proj = build_context(target, sources=sources)
    assert predicted(proj) >= proj.prepare_threshold and proj.calibrated_tokens < proj.threshold
    started = []
    report = compressor.compress_ahead(target, on_start=lambda: started.append(True))
    assert report is not None and report.ok and started == [True]
    after = build_context(target, sources=sources)
    assert after.covered_through_id == report.new_ids[-1] > proj.covered_through_id
    assert len(after.items) >= sources.settings.get("contextCompression.keepRecentMin")
    assert predicted(after) < after.prepare_threshold  # aimed below the mark: the next reply won't compress again
    # the next message starts at once: no compression in its turn
    asked = len(summarizer_calls(server))
    reports = []
    assert runner.run(target, Send("and then?"), callbacks=TurnCallbacks(on_compressed=reports.append)).status == (
        "complete"
    )
    assert reports == [] and len(summarizer_calls(server)) == asked


def test_a_local_server_reads_the_new_prompt_right_after_a_compression_ahead(ahead_env, server):
    """The fake server runs on 127.0.0.1 like a llama.cpp server: after compressing ahead, the new request's
    prefix is sent once (one token asked), so the server's prompt cache holds it before the user sends."""
    target, sources, compressor, runner = ahead_env
    fill_until(sources, target, over_the_prepare_mark)
    assert compressor.provider.local
    report = compressor.compress_ahead(target)
    assert report is not None and report.ok
    warm = [b for b in server.chat_requests() if not is_summarizer_request(b)][-1]
    assert warm["max_tokens"] == 1 and not warm.get("stream")
    assert warm["messages"] == build_context(target, sources=sources).to_messages()
    assert runner.run(target, Send("and then?")).status == "complete"
    sent = chat_calls(server)[-1]
    assert sent["messages"][: len(warm["messages"])] == warm["messages"]  # the whole warmed prompt is its prefix
    assert sent.get("tools") == warm.get("tools")


def test_a_hosted_server_is_never_sent_a_warm_up(env):
    target, sources, _, _ = env
    provider = ScriptedProvider()  # stands in for a hosted server; an unscripted request would raise
    hosted = Compressor(sources, provider)
    assert not provider.local and not hosted.warm_prompt_cache(target) and provider.requests == []


def test_the_next_turn_does_not_wait_for_a_slow_summarizer_when_its_request_fits(ahead_env, server):
    target, sources, compressor, runner = ahead_env
    fill_until(sources, target, over_the_prepare_mark)
    before = build_context(target, sources=sources)
    gate, reports, background = compress_ahead_behind_a_gate(server, compressor, target)
    waited = []
    result = runner.run(
        target, Send("A short question?"), callbacks=TurnCallbacks(on_compressing=lambda: waited.append(1))
    )
    gate.order.append("turn done")
    gate.open.set()
    background.join(30)
    assert result.status == "complete"
    assert gate.order == ["summarizer asked", "turn done", "summary answered"] and waited == []
    # the turn went out with the summary as it was, then the background result was applied
    turn_request = chat_calls(server)[-1]
    assert turn_request["messages"][1:3] == before.to_messages()[1:3]
    assert reports[0] is not None and reports[0].ok
    assert SummaryStore(target.summary_path).load().covered_through_id == reports[0].new_ids[-1]


def test_a_request_that_cannot_fit_waits_for_the_running_compression(ahead_env, server):
    target, sources, compressor, runner = ahead_env
    fill_until(sources, target, over_the_prepare_mark)
    before = build_context(target, sources=sources)
    gate, reports, background = compress_ahead_behind_a_gate(server, compressor, target)
    results = []
    big = "Please read all of this: " + "context " * 900  # fits the window alone, not with the session
    waited = []
    callbacks = TurnCallbacks(on_compressing=lambda: waited.append(1))
    turn = threading.Thread(target=lambda: results.append(runner.run(target, Send(big), callbacks=callbacks)))
    turn.start()
    turn.join(1.0)
    assert turn.is_alive() and chat_calls(server) == []  # waiting for the compression, nothing sent
    gate.open.set()
    turn.join(30)
    background.join(30)
    assert results[0].status == "complete" and waited  # the chat could say why nothing arrived yet
    assert gate.order[:2] == ["summarizer asked", "summary answered"]
    assert reports[0] is not None and reports[0].ok
    # the request that went out was built on the new summary: the covered items were not sent
    assert SummaryStore(target.summary_path).load().covered_through_id >= reports[0].new_ids[-1]
    sent = chat_calls(server)[-1]["messages"]
    assert len(sent) <= len(before.to_messages()) + 1 - len(reports[0].new_ids)


def test_a_failed_background_compression_keeps_the_summary_and_coverage_and_is_reported(ahead_env, server):
    target, sources, compressor, runner = ahead_env
    fill_until(sources, target, over_the_prepare_mark)
    assert compressor.compress_now(target).ok
    fill_until(sources, target, over_the_prepare_mark)
    store = SummaryStore(target.summary_path)
    before = store.load()

    def broken(body: dict) -> Reply:
        return Reply(text="I cannot summarize that.") if is_summarizer_request(body) else faithful(body)

    server.set_default(broken)
    report = compressor.compress_ahead(target)
    assert report is not None and not report.ok and report.error
    after = store.load()
    assert (after.summary, after.covered_through_id, after.kept_user_ids) == (
        before.summary,
        before.covered_through_id,
        before.kept_user_ids,
    )
    assert after.health["lastFailure"] == report.error  # the details, for View context
    # the compressor backs off: the next reply does not ask the failing summarizer again at once
    asked = len(summarizer_calls(server))
    assert compressor.compress_ahead(target) is None and len(summarizer_calls(server)) == asked


def test_an_unreachable_summarizer_is_a_reported_failure_that_changes_nothing(ahead_env, server):
    target, sources, compressor, _ = ahead_env
    fill_until(sources, target, over_the_prepare_mark)
    store = SummaryStore(target.summary_path)
    before = store.load()

    def down(body: dict) -> Reply:
        return Reply(status=503) if is_summarizer_request(body) else faithful(body)

    server.set_default(down)
    report = compressor.compress_ahead(target)
    assert report is not None and not report.ok and report.error
    after = store.load()
    assert (after.summary, after.covered_through_id) == (before.summary, before.covered_through_id)
    assert after.health["lastFailure"] == report.error and after.health["failures"] == 1


def test_the_prepare_mark_is_part_of_the_projection_and_never_above_the_threshold(ahead_env):
    target, sources, _, _ = ahead_env
    proj = build_context(target, sources=sources)
    assert proj.to_json()["prepareThreshold"] == proj.prepare_threshold == WINDOW // 2
    assert any(f"prepare ahead at {WINDOW // 2:,}" in line for line in header_lines(proj))
    sources.settings.set("contextCompression.prepareRatio", 0.7)  # above the ratio of 0.6: acts as the ratio
    proj = build_context(target, sources=sources)
    assert proj.prepare_threshold == proj.threshold


def test_a_saved_ratio_below_the_default_prepare_ratio_survives_loading(ahead_env):
    """A user who saved ratio 0.4 before prepareRatio existed (default 0.5) keeps their ratio."""
    _, sources, _, _ = ahead_env
    path = sources.settings.path
    data = json.loads(path.read_text(encoding="utf-8"))
    data["contextCompression.ratio"] = 0.4
    data.pop("contextCompression.prepareRatio", None)
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = Settings.load()
    assert loaded.get("contextCompression.ratio") == 0.4 and not loaded.problems
