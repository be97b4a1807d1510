"""Sessions of a wanted size, for compression tests: user/assistant pairs appended until a predicate holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from okbot.core.compression.ahead import next_turn_allowance, predicted_tokens
from okbot.core.context import build_context
from okbot.core.items import new_item, user_message
from okbot.core.projection import ContextProjection
from okbot.core.turn.request import Retry, Send
from okbot.core.workspace import Target


def fill_until(sources: Any, target: Target, done: Callable[[ContextProjection], bool], *, words: int = 30) -> None:
    """Append user/assistant pairs until ``done(projection)``."""
    session = sources.session(target)
    for i in range(200):
        if done(build_context(target, sources=sources)):
            return
        session.append(user_message(f"Step {i}: handle table {i}. " + "detail " * words))
        reply = f"Table {i} done. " + "note " * words
        session.append(new_item("assistant", author="okbot", source="app", content=reply))
    raise AssertionError("the session never reached the wanted size")


def predicted(proj: ContextProjection) -> int:
    """The next request's size as compress-ahead predicts it."""
    return predicted_tokens(proj, next_turn_allowance(proj))


def near_the_prepare_mark(proj: ContextProjection) -> bool:
    """One long reply short of the prepare mark."""
    return predicted(proj) >= proj.prepare_threshold - 400


def over_the_prepare_mark(proj: ContextProjection) -> bool:
    """The next request is predicted over the prepare mark, this one well under the threshold."""
    return predicted(proj) >= proj.prepare_threshold and proj.calibrated_tokens < proj.threshold - 300


def run_retried_turns(runner: Any, target: Any, server: Any) -> list[dict]:
    """Turn 1 answered; turn 2: a tool round, then the stream is cut (an error), then Retry answers; three
    more turns. Real turns through ``runner`` against the fake ``server``; returns the chat requests it saw."""
    from tests.helpers.fake_openai import Reply, tool_call

    server.enqueue(
        Reply(text="Step one works like this."),
        Reply(tool_calls=[tool_call("search_history", {"query": "step one"})]),
        Reply(text="The search shows that step", chunk_chars=4, cut_after_chunks=2),
        Reply(text="Found it: step one is the parser."),
    )
    assert runner.run(target, Send("How does step one work?")).status == "complete"
    assert runner.run(target, Send("Look up what we said about step one.")).status == "error"
    assert runner.run(target, Retry()).status == "complete"
    for i in range(3):
        server.enqueue(Reply(text=f"Answer {i}."))
        assert runner.run(target, Send(f"Follow-up question {i}?")).status == "complete"
    return list(server.chat_requests())
