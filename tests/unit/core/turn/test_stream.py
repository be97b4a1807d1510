"""Token use a server did not report is OkBot's own count (real SDK -> local fake server -> real files).

The provider reports only what the server said; the turn fills in the figures with the tokenizer that
counted the context, so the gauge, the as-sent record and ``okbot chat --json`` agree with View context.
"""

from __future__ import annotations

from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.llm.events import UsageEvent
from tests.helpers.fake_openai import Reply


def usage_events(events: list) -> list[UsageEvent]:
    return [e for e in events if isinstance(e, UsageEvent)]


def test_unreported_usage_is_counted_by_the_context_s_tokenizer(env, server):
    target, sources, runner = env
    server.enqueue(Reply(text="A reply of a few words.", send_usage=False))
    events: list = []
    result = runner.run(target, Send("hi"), callbacks=TurnCallbacks(on_event=events.append))
    assert result.status == "complete"
    [usage] = usage_events(events)
    [sent] = sources.as_sent(target).requests()
    counter = sources.counter(sources.model_for(target))
    assert usage.estimated and usage.cached_tokens is None
    assert usage.prompt_tokens == sent.estimate > 0  # calibration factor 1: nothing was reported yet
    assert usage.completion_tokens == counter.count_text("A reply of a few words.")
    assert sent.usage == {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cached_tokens": None,
        "estimated": True,
    }
    assert sent.prompt_tokens is None  # an estimate never calibrates the estimate


def test_reasoning_and_tool_calls_count_as_completion_when_usage_is_unreported(env, server):
    target, sources, runner = env
    server.enqueue(
        Reply(text="ok", send_usage=False),
        Reply(text="ok", reasoning="a long thought " * 40, send_usage=False),
    )
    events: list = []
    runner.run(target, Send("first"), callbacks=TurnCallbacks(on_event=events.append))
    runner.run(target, Send("second"), callbacks=TurnCallbacks(on_event=events.append))
    plain, thought = usage_events(events)
    counter = sources.counter(sources.model_for(target))
    assert thought.completion_tokens == counter.count_text("ok" + "a long thought " * 40)
    assert thought.completion_tokens > plain.completion_tokens + 50
    assert thought.prompt_tokens > plain.prompt_tokens  # the second request carries the first exchange


def test_a_reported_usage_is_passed_on_as_the_server_said(env, server):
    target, sources, runner = env
    server.enqueue(Reply(text="fine"))
    events: list = []
    runner.run(target, Send("hi"), callbacks=TurnCallbacks(on_event=events.append))
    [usage] = usage_events(events)
    [sent] = sources.as_sent(target).requests()
    assert not usage.estimated and sent.prompt_tokens == usage.prompt_tokens
