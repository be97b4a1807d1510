"""Compress ahead: after a reply, predict the next request and compress before the user sends it.

The prediction rule. The next turn is assumed to cost about what the last one did::

    allowance = tokens of the newest exchange (the last user message and everything after it:
                the reply, tool calls and their results), at least MIN_ALLOWANCE_TOKENS and at
                most a quarter of the window
    predicted = round((projected tokens now + allowance) x calibration factor)

Compression is due when ``predicted`` reaches the prepare mark (``window x prepareRatio``, never
above ``window x ratio``) and more than ``keepRecentMin`` items follow the summary. Compressing
ahead aims below the prepare mark with the allowance added, not just below the threshold, so the
turns that follow do not each start another compression (as far as ``keepRecentMin`` allows).
"""

from __future__ import annotations

from dataclasses import replace

from okbot.core.projection import ContextProjection

# A short exchange still adds a message and a reply: never predict less than this.
MIN_ALLOWANCE_TOKENS = 200


def next_turn_allowance(proj: ContextProjection) -> int:
    """Tokens the next user message and its reply are expected to add (see the module's rule)."""
    last_user = max((i for i, it in enumerate(proj.items) if it.get("type") == "user"), default=None)
    exchange = sum(proj.item_tokens[last_user:]) if last_user is not None else 0
    return max(MIN_ALLOWANCE_TOKENS, min(exchange, proj.window // 4))


def predicted_tokens(proj: ContextProjection, allowance: int) -> int:
    """The next request's predicted (calibrated) size."""
    return round((proj.total_tokens + allowance) * proj.calibration_factor)


def is_due(proj: ContextProjection, allowance: int, keep_min: int) -> bool:
    """Whether to compress now, ahead of the next request."""
    return predicted_tokens(proj, allowance) >= proj.prepare_threshold and len(proj.items) > keep_min


def aiming_at_prepare_mark(proj: ContextProjection, allowance: int) -> ContextProjection:
    """``proj`` with its threshold lowered so that the cut aims below the prepare mark, next exchange included.

    The allowance lowers the aim instead of counting as part of the request: fewer than
    ``keepRecentMin`` originals are kept only when the request as it is cannot fit, never for a
    predicted one.
    """
    aim = max(0, proj.prepare_threshold - round(allowance * proj.calibration_factor))
    return replace(proj, ratio=aim / proj.window if proj.window else proj.ratio)
