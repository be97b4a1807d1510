"""Summary + Buffer: decide, summarize incrementally, apply safely, fall back by keeping more.

``Compressor.before_run`` is the turn runner's hook: before each run it checks the estimate
against ``window x ratio`` (and, with ``autoTopicCompress``, whether the new message starts a new
topic), folds the oldest items into the summary, and makes sure the request fits the window --
hiding the oldest tool output, then moving the oldest part out as a plain marked digest, and only
then refusing the turn. ``within_turn`` is the runner's hook before each later round of a turn: the
same checks inside the turn, in the order :mod:`okbot.core.compression.inturn` decides (digests of
the turn's older tool output, the summarizer with the turn's request pinned, a plain digest, a cut of
the newest result, and only then one plain message). ``compress_now`` serves the Compress-now button
and ``okbot compress``.
``compress_ahead`` runs after a reply, in the background, when the next request is predicted to
cross the prepare mark (see :mod:`okbot.core.compression.ahead`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from okbot.core.compression import ahead, inturn, ledger, moved_out, structure
from okbot.core.compression.history import HistoryWriter, SummaryHistory
from okbot.core.compression.inturn import TurnFit
from okbot.core.compression.plan import choose_keep, max_batch_tokens, next_batch, safe_keep
from okbot.core.compression.report import CompressionReport
from okbot.core.compression.summarizer import Summarizer, SummaryRejected
from okbot.core.compression.topic import is_new_topic
from okbot.core.context import build_context, reply_reserve
from okbot.core.digest import checklist_entry, item_digest, user_checklist
from okbot.core.items import item_text, now_iso
from okbot.core.kept_words import checklist_share
from okbot.core.messages import PIN_KEY
from okbot.core.projection import ContextProjection
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.workspace import Target
from okbot.i18n import plural, translate
from okbot.llm.errors import ProviderError
from okbot.llm.provider import CancelToken, ChatRequest, Provider
from okbot.llm.slots import LendingLock
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.compression")

TOPIC_BUDGET_SECONDS = 4.0
MIN_TOPIC_ITEMS = 4

# One lock per session summary, shared by every Compressor of the process: the app builds one per
# turn, and a compression running ahead in the background must be seen by the next turn's.
# A turn that waits for one lends its place at the server to the holder (the one-slot scheduler).
_SESSION_LOCKS: dict[Path, LendingLock] = {}
_SESSION_LOCKS_GUARD = threading.Lock()


def session_lock(target: Target) -> LendingLock:
    """The process-wide lock of ``target``'s summary: one compression (or undo) per session at a time."""
    with _SESSION_LOCKS_GUARD:
        return _SESSION_LOCKS.setdefault(target.summary_path, LendingLock())


class Compressor:
    """Folds a session's older items into its summary (one compression per session at a time)."""

    def __init__(
        self,
        sources: Any,
        provider: Provider,
        *,
        on_coverage_advanced: Callable[[Target, list[int]], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sources = sources
        self.provider = provider
        self.on_coverage_advanced = on_coverage_advanced
        self.clock = clock

    # -- entry points -----------------------------------------------------------------------
    def before_run(
        self, target: Target, pending_text: str | None, on_start: Callable[[], None] | None = None
    ) -> CompressionReport | None:
        """The runner's hook. Raises OkBotError only when the request cannot fit at all.

        While another compression of this session runs (ahead, in the background), the turn waits
        for it only when its request cannot fit the window without it; otherwise the request goes
        out at once with the current summary, and nothing is compressed here. ``on_start`` is called
        before the turn waits for the summarizer (its own compression, or the running one).
        """
        started = on_start or (lambda: None)
        lock = self._lock(target)
        if not lock.acquire(blocking=False):
            if self._fits_as_is(target, pending_text):
                log.info("a compression of %s is running; this request fits without it", target.id)
                return None
            started()
            lock.acquire()  # cannot fit without it: wait for the running compression, then decide
        try:
            proj = build_context(target, sources=self.sources)
            pending = self._pending_tokens(proj, pending_text)
            report = None
            settings = self.sources.settings
            if (
                pending_text
                and settings.get("contextCompression.autoTopicCompress")
                and self._new_topic(proj, pending_text)
            ):
                started()
                report = self._compress(target, proj, keep=0, trigger="topic", pending=pending)
            elif (
                self._over_threshold(proj, pending)
                and len(proj.items) > settings.get("contextCompression.keepRecentMin")
                and not self._backing_off(proj)
            ):
                started()
                report = self._compress(target, proj, keep=None, trigger="ratio", pending=pending)
            self._ensure_fits(target, pending)
            return report
        finally:
            lock.release()

    def within_turn(
        self,
        target: Target,
        current: Sequence[int],
        *,
        on_start: Callable[[], None] | None = None,
        window: int | None = None,
    ) -> TurnFit:
        """The runner's hook before a later round's request of the turn answering ``current`` (its user
        message ids), and after a request refused as too long: make the request fit, in the order
        :mod:`~okbot.core.compression.inturn` decides (``window``: a smaller window to fit than the known one).

        Runs on the turn's thread (the summarizer's calls too). ``on_start`` is called before the request
        waits for the summarizer. Never raises for a request that cannot fit: the fit's ``error`` says so.
        """
        started = on_start or (lambda: None)
        lock = self._lock(target)
        if not lock.acquire(blocking=False):  # a compression ahead still running from before the turn
            proj = build_context(target, sources=self.sources)
            if not inturn.over(proj, proj.threshold):
                return TurnFit(projection=proj)
            started()
            lock.acquire()
        try:
            return self._fit_turn(target, list(current), started, window)
        finally:
            lock.release()

    def _fit_turn(
        self,
        target: Target,
        current: list[int],
        started: Callable[[], None],
        window: int | None = None,
    ) -> TurnFit:
        """Make the next request of the turn answering ``current`` fit, step by step (in
        :mod:`~okbot.core.compression.inturn`'s order).

        ``window``: fit this window when it is smaller than the known one (a server refused a request as too
        long without saying its window). The caller holds the session's compression lock."""
        fit = TurnFit()
        sources = self.sources

        def view() -> ContextProjection:
            built = build_context(target, sources=sources)
            return replace(built, window=window) if window is not None and window < built.window else built

        proj = view()
        counter = sources.counter(proj.model)
        after = max(current, default=0)  # this turn's items come after its message
        if inturn.over(proj, proj.threshold):  # 1. this turn's older tool output as digests
            proj = self._hide_results(
                target,
                view,
                proj,
                inturn.results_to_hide(proj, counter, proj.threshold, after, newest_round=False),
                fit,
            )
        if inturn.over(proj, proj.threshold) and self._may_summarize(proj):  # 2. the summarizer, request pinned
            started()
            try:
                report = self._compress(target, proj, keep=None, trigger="turn", pending=0, current=current)
            except OkBotError as exc:  # the summarizer could not be reached: nothing changed, step 3 moves out plainly
                self._record_failure(target, "turn", str(exc))
                report = CompressionReport.unchanged("turn", proj, str(exc))
            fit.reports.append(report)  # the chat's "updating the summary" ends with it
            if report.ok or report.error:
                fit.notes.append(inturn.summary_note(report))
            proj = view()
        limit = inturn.limit_of(proj)
        if inturn.over(proj, limit):  # 3. every result but the newest, then older items plainly
            proj = self._hide_results(
                target, view, proj, inturn.results_to_hide(proj, counter, limit, after, newest_round=True), fit
            )
        if inturn.over(proj, limit):
            moved = self._move_out_plainly(target, proj, 0, limit, current=current)
            if moved is not None and moved.ok:
                fit.reports.append(moved)
                fit.notes.append(inturn.moved_note(moved))
            proj = view()
        if inturn.over(proj, limit):  # 4. the newest tool result cut to fit
            newest = sources.session(target).get(proj.items[-1]["id"]) if proj.items else None
            cut = inturn.cut_to_fit(proj, counter, limit, newest)
            if cut is not None and newest is not None:
                SummaryStore(target.summary_path).save(
                    replace(proj.summary, cut_items={**proj.summary.cut_items, cut[0]: cut[1]})
                )
                fit.notes.append(inturn.cut_note(newest, cut[1]))
                proj = view()
        if inturn.over(proj, limit):  # 5. nothing more can move out
            fit.error = inturn.too_large(proj, limit)
            return fit
        fit.projection = proj
        return fit

    def _hide_results(
        self,
        target: Target,
        view: Callable[[], ContextProjection],
        proj: ContextProjection,
        ids: list[int],
        fit: TurnFit,
    ) -> ContextProjection:
        """Show the tool results ``ids`` as digests from now on; the request as it then is."""
        if not ids:
            return proj
        summary = proj.summary
        SummaryStore(target.summary_path).save(
            replace(summary, hidden_item_ids=sorted({*summary.hidden_item_ids, *ids}))
        )
        fit.notes.append(inturn.digests_note())
        log.info("%s: %d tool result(s) of this turn shown as digests to fit the window", target.id, len(ids))
        return view()

    def _may_summarize(self, proj: ContextProjection) -> bool:
        """More movable items than the keep floor, and no failed summary to back off from."""
        movable = [it for it in proj.items if not it.get(PIN_KEY)]
        keep_min = self.sources.settings.get("contextCompression.keepRecentMin")
        return len(movable) > keep_min and not self._backing_off(proj)

    def compress_ahead(self, target: Target, *, on_start: Callable[[], None] | None = None) -> CompressionReport | None:
        """After a reply: compress now when the next request is predicted to reach the prepare mark.

        Meant for a background thread. ``None`` when no compression is due, or one of this session
        is already running; otherwise the report (``error`` set when the summarizer failed or could
        not be reached: the summary and coverage are then unchanged, the failure is in the summary's
        health). ``on_start`` is called, on this thread, just before the summarizer is asked.
        """
        report = self._compress_ahead_locked(target, on_start)
        if report is not None and report.ok:
            self.warm_prompt_cache(target)
        return report

    def _compress_ahead_locked(self, target: Target, on_start: Callable[[], None] | None) -> CompressionReport | None:
        lock = self._lock(target)
        if not lock.acquire(blocking=False):
            return None
        try:
            proj = build_context(target, sources=self.sources)
            allowance = ahead.next_turn_allowance(proj)
            keep_min = self.sources.settings.get("contextCompression.keepRecentMin")
            if not ahead.is_due(proj, allowance, keep_min) or self._backing_off(proj):
                return None
            if on_start is not None:
                on_start()
            aimed = ahead.aiming_at_prepare_mark(proj, allowance)
            try:
                return self._compress(target, aimed, keep=None, trigger="ratio", pending=0)
            except OkBotError as exc:  # the summarizer could not be reached: nothing changed, back off
                self._record_failure(target, "ratio", str(exc))
                return CompressionReport(
                    ok=False,
                    trigger="ratio",
                    tokens_before=proj.calibrated_tokens,
                    tokens_after=proj.calibrated_tokens,
                    error=str(exc),
                    message=translate(
                        "compressor",
                        "The summary was not updated ({failure}); the previous summary and coverage are kept.",
                    ).format(failure=exc),
                )
        finally:
            lock.release()

    def warm_prompt_cache(self, target: Target) -> bool:
        """Send the new request's prefix once, asking for one token, when the server runs on this machine.

        A compression changes the instructions, so a local server (llama.cpp, Ollama, LM Studio) must
        read the whole prompt again: without this the user's next message waited for it (18 s for
        ~800 tokens with a 1.5B model on two cores, against 0.7 s with the prompt cached). Sent right
        after a compression ahead, the reading happens while the user types. Never sent to a hosted
        server, where it would cost a request. Best effort: any failure is logged and ignored.
        Returns whether the prefix was sent and answered.
        """
        if not self.provider.local:
            return False
        proj = build_context(target, sources=self.sources)
        specs = self.sources.tools_for(target).specs(self.sources.settings)
        request = ChatRequest(
            model=proj.model, messages=proj.to_messages(), tools=specs or None, max_tokens=1, background=True
        )
        try:
            self.provider.complete(request)
        except ProviderError as exc:
            if exc.kind == "no_answer":  # the one token was blank: the prompt was read all the same
                return True
            log.info("warming %s's prompt cache failed (the next request reads the whole prompt): %s", target.id, exc)
            return False
        return True

    def compress_now(self, target: Target) -> CompressionReport:
        """Compress on demand, keeping the ``keepRecentMin`` newest originals."""
        with self._lock(target):
            proj = build_context(target, sources=self.sources)
            keep_min = self.sources.settings.get("contextCompression.keepRecentMin")
            if len(proj.items) <= keep_min:
                return CompressionReport(
                    ok=False,
                    trigger="manual",
                    tokens_before=proj.calibrated_tokens,
                    tokens_after=proj.calibrated_tokens,
                    message=plural(
                        len(proj.items),
                        translate(
                            "compressor",
                            "Nothing to compress: {count} item after the summary, "
                            "and the newest {keep} are always kept.",
                        ),
                        translate(
                            "compressor",
                            "Nothing to compress: {count} items after the summary, "
                            "and the newest {keep} are always kept.",
                        ),
                    ).format(count=len(proj.items), keep=keep_min),
                )
            return self._compress(target, proj, keep=keep_min, trigger="manual", pending=0)

    # -- decisions --------------------------------------------------------------------------
    @staticmethod
    def _lock(target: Target) -> LendingLock:
        return session_lock(target)

    def _fits_as_is(self, target: Target, pending_text: str | None) -> bool:
        """Whether the request fits the window (less the reply reserve) with the summary as it is."""
        proj = build_context(target, sources=self.sources)
        return self._fits(proj, self._pending_tokens(proj, pending_text), self._limit(proj))

    def _pending_tokens(self, proj: ContextProjection, text: str | None) -> int:
        if not text:
            return 0
        counter = self.sources.counter(proj.model)
        return counter.count_message(text, "user")

    def _over_threshold(self, proj: ContextProjection, pending: int) -> bool:
        return round((proj.total_tokens + pending) * proj.calibration_factor) >= proj.threshold

    def _limit(self, proj: ContextProjection) -> int:
        return proj.window - reply_reserve(proj.window)

    def _new_topic(self, proj: ContextProjection, text: str) -> bool:
        if len(proj.items) < MIN_TOPIC_ITEMS:
            return False
        recent = [it for it in proj.items if it.get("type") in ("user", "assistant")][-6:]

        def ask(prompt: str) -> str:
            cancel = CancelToken()
            timer = threading.Timer(TOPIC_BUDGET_SECONDS, cancel.cancel)
            timer.start()
            try:
                return self.provider.complete(
                    ChatRequest(
                        model=proj.model,
                        messages=[{"role": "user", "content": prompt}],
                        max_tokens=3,
                        temperature=0,
                        background=True,
                    ),
                    cancel,
                )
            finally:
                timer.cancel()

        return is_new_topic(text, recent, ask)

    # -- compression ------------------------------------------------------------------------
    def _compress(
        self,
        target: Target,
        proj: ContextProjection,
        *,
        keep: int | None,
        trigger: str,
        pending: int,
        current: Sequence[int] = (),
    ) -> CompressionReport:
        """Fold the oldest items into the summary. ``current``: inside a turn, its message ids, which stay
        in the request word for word (pinned) when coverage passes them."""
        started = self.clock()
        settings = self.sources.settings
        items, item_tokens = _movable(proj)
        fixed = self._fixed_tokens(proj, items, item_tokens, pending, current)
        factor = proj.calibration_factor or 1.0
        if keep is None:
            kept = choose_keep(
                items,
                item_tokens,
                fixed_tokens=fixed,
                threshold=int(proj.threshold / factor),
                limit=int(self._limit(proj) / factor),
                keep_min=settings.get("contextCompression.keepRecentMin"),
                keep_max=settings.get("contextCompression.keepRecentMax"),
            )
        else:
            kept = safe_keep(items, keep)
        if current:  # inside a turn the newest round stays: the model has not seen its results yet
            kept = max(kept, inturn.newest_round_size(items))
        session = self.sources.session(target)
        to_cover = _originals(session, items[: len(items) - kept])
        if all(it["id"] in current for it in to_cover):  # nothing, or only the turn's request (pinned anyway)
            return CompressionReport(
                ok=False,
                trigger=trigger,
                tokens_before=proj.calibrated_tokens,
                tokens_after=proj.calibrated_tokens,
                message=translate("compressor", "nothing can be covered"),
            )
        summary = proj.summary
        summarizer_model = self.sources.summarizer_model(target)  # a cheaper one when settings name one
        summarizer = Summarizer(
            lambda messages: self._complete(summarizer_model, messages, proj.window),
            self.sources.counter(summarizer_model).count_text,
            max_chars=self._summary_chars(proj.window),
            names=proj.names,
        )
        text, kept_ids, covered_id = summary.summary, list(summary.kept_user_ids), summary.covered_through_id
        report = CompressionReport(
            ok=False, trigger=trigger, tokens_before=proj.calibrated_tokens, tokens_after=proj.calibrated_tokens
        )
        failure = ""
        remaining = list(to_cover)
        while remaining:  # each call's input measured as it will be: the summary and kept words grow
            kept_now, unlisted = checklist_share(
                _unique([session.get(i) for i in kept_ids]), summarizer.count_tokens, proj.window
            )
            batch = remaining[: self._next_batch(summarizer, text, remaining, kept_now, proj.window)]
            remaining = remaining[len(batch) :]
            checklist = _unique([*kept_now, *user_checklist(batch)])
            try:
                outcome = summarizer.summarize(
                    text,
                    batch,
                    checklist,
                    # the model sees item ids in the digests: citing them (#id) is grounded
                    sources=[f"#{it['id']} {item_text(it)}" for it in batch],
                    previously_kept=kept_ids,
                )
            except SummaryRejected as exc:
                report.summarizer_input_tokens += exc.input_tokens
                report.summarizer_calls += 2
                failure = "; ".join(exc.problems)
                log.warning("summary rejected for %s (kept the previous one): %s", target.id, failure)
                break
            report.summarizer_input_tokens += outcome.input_tokens
            report.summarizer_prompt_tokens += outcome.prompt_tokens
            report.summarizer_calls += outcome.calls
            for note in outcome.notes:
                log.info("summarizer for %s: %s", target.id, note)
            text, covered_id = outcome.summary, batch[-1]["id"]
            kept_ids = sorted({*outcome.keep_ids, *unlisted})  # not shown is not released
        new_ids = [it["id"] for it in to_cover if it["id"] <= covered_id]
        if not new_ids:
            self._record_failure(target, trigger, failure)
            report.seconds = self.clock() - started
            report.error = failure
            report.message = translate(
                "compressor", "The summary was not updated ({failure}); the previous summary and coverage are kept."
            ).format(failure=failure)
            return report
        new = SessionSummary(
            summary=text,
            covered_through_id=covered_id,
            # the turn's own request is kept too: pinned while the turn goes on, beside the summary after it
            kept_user_ids=sorted({*kept_ids, *(i for i in current if i <= covered_id)}),
            trigger=trigger,
            hidden_item_ids=[i for i in summary.hidden_item_ids if i > covered_id],
            health=dict(summary.health),
            current_request_ids=list(current),
            cut_items={i: n for i, n in summary.cut_items.items() if i > covered_id},
        )
        return self._apply(target, proj, new, new_ids, started, report, partial_failure=failure)

    def _next_batch(
        self,
        summarizer: Summarizer,
        previous: str,
        items: Sequence[dict[str, Any]],
        kept: Sequence[dict[str, Any]],
        window: int,
    ) -> int:
        """How many of ``items`` the next summarizer call takes: its whole input (instructions, the summary so
        far, the kept words, the items' digests and checklist lines) within the batch budget and the window
        less the room for its answer (with a margin: the server counts with its own tokenizer)."""
        count = summarizer.count_tokens
        base = summarizer.input_cost(previous, [], kept)
        # the bound is on what the call adds: the instructions, summary and kept words are paid once per call
        budget = min(base + max_batch_tokens(window), int((window - self._answer_tokens(window)) * 0.85))

        def cost(item: dict[str, Any]) -> int:
            listed = count(checklist_entry(item)) + 2 if item.get("type") == "user" else 0
            return count(item_digest(item, names=summarizer.names)) + 2 + listed

        return next_batch(items, cost, base, budget)

    def _summary_chars(self, window: int) -> int:
        return structure.summary_chars(self.sources.settings.get("contextCompression.summaryMaxChars"), window)

    def _answer_tokens(self, window: int) -> int:
        """The room asked for a summarizer's answer: edits are short, and one over twice the limit is refused."""
        return self._summary_chars(window) // 2 + 64

    def _complete(self, model: str, messages: list[dict[str, str]], window: int) -> str:
        return self.provider.complete(
            ChatRequest(
                model=model,
                messages=messages,
                temperature=0,
                max_tokens=self._answer_tokens(window),
                response_format=Summarizer.RESPONSE_FORMAT,
                background=True,
            )
        )

    def _apply(
        self,
        target: Target,
        proj: ContextProjection,
        new: SessionSummary,
        new_ids: list[int],
        started: float,
        report: CompressionReport,
        *,
        partial_failure: str = "",
    ) -> CompressionReport:
        """Save ``new`` unless the session's summary moved on meanwhile, with the part the app keeps from the
        record revised (:mod:`~okbot.core.compression.ledger`: files, pitfalls, skills, the turn, the goal
        pointer); fill in ``report``."""
        with SummaryHistory(target.summary_path).writing() as history:
            return self._apply_locked(target, proj, new, new_ids, started, report, history, partial_failure)

    def _apply_locked(
        self,
        target: Target,
        proj: ContextProjection,
        new: SessionSummary,
        new_ids: list[int],
        started: float,
        report: CompressionReport,
        history: HistoryWriter,
        partial_failure: str,
    ) -> CompressionReport:
        """:meth:`_apply` while the summary's history is locked: the check, the save and the history's new
        step happen together, so an undo (from this process or another) never comes in between."""
        store = SummaryStore(target.summary_path)
        previous = store.load()
        if previous.covered_through_id != proj.covered_through_id:
            report.message = translate(
                "compressor", "the session's summary moved on meanwhile; this result was discarded"
            )
            return report
        new = ledger.carry(new, proj.items, since=proj.covered_through_id, session=self.sources.session(target))
        after = build_context(target, sources=self.sources, summary=new)  # the request as it will be
        report.ok, report.new_ids, report.covered_items = True, new_ids, len(new_ids)
        report.tokens_after, report.seconds = after.calibrated_tokens, self.clock() - started
        report.message = plural(
            len(new_ids),
            translate("compressor", "Summarized {count} item (#{first}–#{last}); tokens {before} → {after}."),
            translate("compressor", "Summarized {count} items (#{first}–#{last}); tokens {before} → {after}."),
        ).format(
            count=len(new_ids),
            first=new_ids[0],
            last=new_ids[-1],
            before=f"{proj.calibrated_tokens:,}",
            after=f"{after.calibrated_tokens:,}",
        )
        new.health = {
            **new.health,
            "count": int(new.health.get("count", 0)) + 1,
            "lastTrigger": report.trigger,
            "lastAt": now_iso(),
            "lastSeconds": round(report.seconds, 3),
            "tokensBefore": report.tokens_before,
            "tokensAfter": report.tokens_after,
            "summarizerInputTokens": report.summarizer_input_tokens,
            "lastFallback": report.fallback or None,
            "lastFailure": partial_failure or new.health.get("lastFailure"),
        }
        store.save(new)
        try:
            history.append(
                "compression", previous, new, trigger=report.trigger, fallback=report.fallback, new_ids=new_ids
            )
        except OkBotError as exc:  # the compression stands; only its undo is lost
            log.warning("compression of %s not recorded in its history (it cannot be undone): %s", target.id, exc)
        if self.on_coverage_advanced is not None:
            self.on_coverage_advanced(target, new_ids)
        return report

    def _backing_off(self, proj: ContextProjection) -> bool:
        """After a failed summary, wait for ``keepRecentMin`` new items before asking the model again.

        A summarizer that keeps failing would otherwise cost a call (and a repair) on every turn;
        meanwhile the request still has to fit, which ``_ensure_fits`` sees to without the model.
        """
        health = proj.summary.health
        failed_at = health.get("lastFailedAtItem")
        if not isinstance(failed_at, int) or health.get("lastFailedCoverage") != proj.covered_through_id:
            return False
        newest = proj.items[-1]["id"] if proj.items else 0
        grown = sum(1 for it in proj.items if it["id"] > failed_at)
        return newest >= failed_at and grown < self.sources.settings.get("contextCompression.keepRecentMin")

    def _record_failure(self, target: Target, trigger: str, failure: str) -> None:
        store = SummaryStore(target.summary_path)
        current = store.load()
        current.health = {
            **current.health,
            "lastFailure": failure,
            "lastFailureAt": now_iso(),
            "failures": int(current.health.get("failures", 0)) + 1,
            "lastFailedTrigger": trigger,
            "lastFailedAtItem": self.sources.session(target).last_id(),
            "lastFailedCoverage": current.covered_through_id,
        }
        store.save(current)

    # -- making the request fit ---------------------------------------------------------------
    def _ensure_fits(self, target: Target, pending: int) -> None:
        proj = build_context(target, sources=self.sources)
        limit = self._limit(proj)
        if self._fits(proj, pending, limit):
            return
        self._hide_tool_output(target, proj, pending, limit)
        proj = build_context(target, sources=self.sources)
        if self._fits(proj, pending, limit):
            return
        self._move_out_plainly(target, proj, pending, limit)
        proj = build_context(target, sources=self.sources)
        if not self._fits(proj, pending, limit):
            need = round((proj.total_tokens + pending) * proj.calibration_factor)
            raise OkBotError(
                translate(
                    "compressor",
                    "this request needs about {tokens} tokens and the model's window is {window}, "
                    "even with older items moved out",
                ).format(tokens=f"{need:,}", window=f"{proj.window:,}"),
                hint=translate("compressor", "shorten the message or pick a model with a larger context window"),
            )

    @staticmethod
    def _fits(proj: ContextProjection, pending: int, limit: int) -> bool:
        return round((proj.total_tokens + pending) * proj.calibration_factor) <= limit

    def _hide_tool_output(self, target: Target, proj: ContextProjection, pending: int, limit: int) -> None:
        """Hide the oldest tool calls with their results from the model (they stay on disk, searchable)."""
        hidden = set(proj.summary.hidden_item_ids)
        excess = round((proj.total_tokens + pending) * proj.calibration_factor) - limit
        saved = 0
        by_call: dict[str, list[int]] = {}
        for item, tokens in zip(proj.items, proj.item_tokens, strict=True):
            if item.get("type") in ("tool_call", "tool_result") and not item.get("hidden"):
                by_call.setdefault(item["call_id"], []).append(item["id"])
                if item.get("type") == "tool_result":
                    saved += max(0, tokens - 40)
                    hidden.update(by_call[item["call_id"]])
                    if saved >= excess:
                        break
        if hidden == set(proj.summary.hidden_item_ids):
            return
        health = {**proj.summary.health, "lastFallback": "hid tool output", "lastFallbackAt": now_iso()}
        SummaryStore(target.summary_path).save(replace(proj.summary, hidden_item_ids=sorted(hidden), health=health))
        log.warning("hid %d tool item(s) from the model for %s to fit the window", len(hidden), target.id)

    def _move_out_plainly(
        self, target: Target, proj: ContextProjection, pending: int, limit: int, *, current: Sequence[int] = ()
    ) -> CompressionReport | None:
        """Cover the oldest items without the model: a plain, marked digest in the summary (``current``:
        inside a turn, its message ids, pinned in the request when coverage passes them). The report, or
        None when nothing could move."""
        items, item_tokens = _movable(proj)
        fixed = self._fixed_tokens(proj, items, item_tokens, pending, current)
        kept = choose_keep(items, item_tokens, fixed_tokens=fixed, threshold=limit, limit=limit, keep_min=0, keep_max=0)
        if current:  # inside a turn the newest round stays: a cut of its result comes next
            kept = max(kept, inturn.newest_round_size(items))
        to_cover = _originals(self.sources.session(target), items[: len(items) - kept])
        if all(it["id"] in current for it in to_cover):  # nothing, or only the turn's request (pinned anyway)
            return None
        max_chars = self._summary_chars(proj.window)
        summary = proj.summary
        covered = summary.covered_through_id
        new = SessionSummary(
            summary=moved_out.fit(summary.summary, to_cover, covered, max_chars),
            covered_through_id=to_cover[-1]["id"],
            # no model ticked anything: the user's directives (and first message) stay verbatim
            kept_user_ids=moved_out.kept_ids(summary.kept_user_ids, to_cover, covered),
            trigger="turn" if current else "ratio",
            hidden_item_ids=[i for i in summary.hidden_item_ids if i > to_cover[-1]["id"]],
            health=summary.health,
            current_request_ids=list(current),
            cut_items={i: n for i, n in summary.cut_items.items() if i > to_cover[-1]["id"]},
        )
        report = CompressionReport(
            ok=False, trigger=new.trigger, tokens_before=proj.calibrated_tokens, fallback="moved out without the model"
        )
        return self._apply(target, proj, new, [it["id"] for it in to_cover], self.clock(), report)

    # -- estimates --------------------------------------------------------------------------
    @staticmethod
    def _block_tokens(proj: ContextProjection, name: str) -> int:
        return sum(b.tokens for b in proj.blocks if b.name == name)

    def _fixed_tokens(
        self,
        proj: ContextProjection,
        items: list[dict[str, Any]],
        tokens: list[int],
        pending: int,
        current: Sequence[int],
    ) -> int:
        """What the request costs besides the movable ``items`` after a compression: the summary at its
        budget, ``pending`` and the turn's own message(s) among them (``current``: pinned when covered)."""
        pinned_anyway = sum(t for it, t in zip(items, tokens, strict=True) if it["id"] in current)
        rest = proj.total_tokens - sum(tokens) - self._block_tokens(proj, "summary")
        return rest + self._summary_budget_tokens(proj) + pending + pinned_anyway

    def _summary_budget_tokens(self, proj: ContextProjection) -> int:
        """What the summary block may cost after compressing: the summary at its limit plus the kept words."""
        max_chars = self._summary_chars(proj.window)
        return max(self._block_tokens(proj, "summary"), max_chars // 3 + 40)


def _movable(proj: ContextProjection) -> tuple[list[dict[str, Any]], list[int]]:
    """The items a compression may cover, with their tokens: all but the pinned current request."""
    pairs = [(it, t) for it, t in zip(proj.items, proj.item_tokens, strict=True) if not it.get(PIN_KEY)]
    return [it for it, _ in pairs], [t for _, t in pairs]


def _originals(session: Any, items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``items`` as recorded: a result the request shows as a digest or cut is summarized from its whole text."""
    return [(session.get(it["id"]) or it) if it.get("hidden") or "cut" in it else it for it in items]


def _unique(items: Sequence[dict[str, Any] | None]) -> list[dict[str, Any]]:
    seen: set[int] = set()
    out = []
    for item in items:
        if item is not None and item["id"] not in seen:
            seen.add(item["id"])
            out.append(item)
    return out
