"""One round of a turn on its way out: the request made to fit, recorded as sent, streamed, and, when the
server refuses it as too long for its context window, fitted to that window and sent once more.

:func:`fit_round` builds the round's request: from round 2 on through the in-turn hook of the turn's compression
(:meth:`okbot.core.compression.Compressor.within_turn`), which moves this turn's older tool output, earlier
items and, last, part of the newest result out until it fits; the first round was seen to before the turn.

:func:`send_round` records the request (``as-sent``) and streams it. A ``context_length`` refusal
(:class:`~okbot.llm.errors.ProviderError`: the server's words said the request does not fit) is the one
refusal answered here: the server's window is learnt (``ContextSources.learn_window``) when its words name
it, the prompt tokens it counted calibrate OkBot's estimate, the request is fitted again (to that window, or
below the refused size when no window was named) and sent once more, in the same attempt (``retryOf``). A
second refusal ends the turn with the server's plain message, as any failed request does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from okbot.core.assent import AsSentStore
from okbot.core.context import build_context
from okbot.core.projection import ContextProjection
from okbot.core.turn.env import TurnEnv
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.stream import Round, own_count, stream_round
from okbot.core.turn.timing import COMPRESSION, PREPARING, TurnTiming
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.llm.errors import ProviderError
from okbot.llm.provider import CancelToken, ChatRequest
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.runner")

# With no window in the server's words, the request is fitted to this share of the size it was refused at.
REFUSED_SHARE = 0.75


@dataclass
class SentRound:
    """A round's request as it finally went out: its projection, its as-sent id and what the stream produced."""

    projection: ContextProjection
    request_id: int
    round: Round


def fit_round(
    env: TurnEnv,
    target: Target,
    user_id: int,
    round_no: int,
    callbacks: TurnCallbacks,
    tell: Callable[[str], None],
    timing: TurnTiming,
    *,
    window: int | None = None,
) -> ContextProjection | OkBotError:
    """The request of round ``round_no`` of the turn answering ``user_id``; from round 2 on (or after a refusal:
    ``window``) made to fit by the in-turn hook, its quiet lines told with ``tell``, the summarizer's part timed
    with ``timing``. An OkBotError when it cannot fit."""
    if (round_no == 1 and window is None) or env.compression is None:
        return build_context(target, sources=env.sources)
    with timing.on_demand(COMPRESSION) as begin:

        def started() -> None:
            begin()
            callbacks.on_compressing()

        try:
            fit = env.compression.within_turn(target, [user_id], on_start=started, window=window)
        except OkBotError as exc:  # the summary could not be saved (a full disk, a newer OkBot's file)
            return exc
    for report in fit.reports:
        callbacks.on_compressed(report)
    for note in fit.notes:
        tell(note)
    return fit.error if fit.projection is None else fit.projection


def send_round(
    env: TurnEnv,
    target: Target,
    user_id: int,
    round_no: int,
    proj: ContextProjection,
    tool_specs: list[dict[str, Any]],
    callbacks: TurnCallbacks,
    cancel: CancelToken,
    tell: Callable[[str], None],
    degraded: list[Any],
    timing: TurnTiming,
) -> SentRound | OkBotError:
    """Record and stream round ``round_no``'s request ``proj`` (sent once more after a refusal as too long:
    see the module's docstring), timed with ``timing``. An OkBotError, before anything streamed, when the as-sent
    record cannot be written or the refused request cannot be made to fit."""
    as_sent = env.sources.as_sent(target)
    names = [s["function"]["name"] for s in tool_specs]
    retry_of: int | None = None
    while True:
        try:
            with timing.span(PREPARING):
                request_id = as_sent.record(proj, user_id=user_id, tools=names, round_no=round_no, retry_of=retry_of)
                request = ChatRequest(model=proj.model, messages=proj.to_messages(), tools=tool_specs or None)
        except OkBotError as exc:  # nothing is sent that View context could not show as sent
            return OkBotError(
                translate("runner", "the as-sent record could not be written: {error}").format(error=exc),
                hint=exc.hint,
            )
        rnd = stream_round(
            env.provider,
            request,
            cancel,
            callbacks.on_delta,
            callbacks.on_event,
            degraded,
            own_count(proj),
            on_reasoning=callbacks.on_event,
            clock=env.clock,
            timing=timing,
        )
        refusal = rnd.error
        if retry_of is not None or cancel.cancelled or not _too_long(refusal) or rnd.text or rnd.calls:
            return SentRound(proj, request_id, rnd)
        assert isinstance(refusal, ProviderError)  # _too_long said so
        record_usage(as_sent, request_id, None, "error")
        window = _learn(env, target, proj, refusal)
        tell(_refused_note(refusal, window))
        fitted = fit_round(env, target, user_id, round_no, callbacks, tell, timing, window=window)
        if isinstance(fitted, OkBotError):
            return fitted
        proj, retry_of = fitted, request_id


def record_usage(as_sent: AsSentStore, request_id: int, usage: dict[str, Any] | None, status: str) -> None:
    """Usage is informational: a disk that refuses it must not cost the reply that follows."""
    try:
        as_sent.record_usage(request_id, usage, status)
    except OkBotError as exc:
        log.warning("usage of request %s not recorded: %s", request_id, exc)


def _too_long(error: OkBotError | None) -> bool:
    return isinstance(error, ProviderError) and error.kind == "context_length"


def _learn(env: TurnEnv, target: Target, proj: ContextProjection, refusal: ProviderError) -> int:
    """What a refusal teaches: the server's window (remembered) and its count of the prompt (calibrates the
    estimate). Returns the window to fit the request to now."""
    sources = env.sources
    if refusal.prompt_tokens:
        sources.calibration.record(proj.model, proj.total_tokens, refusal.prompt_tokens)
    if refusal.window:
        sources.learn_window(target, refusal.window)
        log.info("%s: the server's window is %d tokens (learnt from its refusal)", target.id, refusal.window)
        return refusal.window
    refused_at = refusal.prompt_tokens or proj.calibrated_tokens
    return max(1, int(min(refused_at, proj.window) * REFUSED_SHARE))


def _refused_note(refusal: ProviderError, window: int) -> str:
    """The quiet line saying the server refused the request and what happens now."""
    if refusal.window:
        return translate(
            "turn_round",
            "The server refused the request as too long for its context window of {window} tokens; OkBot uses "
            "that window from now on and sends the request again, made to fit.",
        ).format(window=f"{refusal.window:,}")
    return translate(
        "turn_round",
        "The server refused the request as too long for its context window; OkBot sends it again, made smaller.",
    )
