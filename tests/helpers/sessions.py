"""Sessions of a wanted size, for compression tests: user/assistant pairs appended until a predicate holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from okbot.core.compression.ahead import next_turn_allowance, predicted_tokens
from okbot.core.context import ContextProjection, build_context
from okbot.core.items import new_item, user_message
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
