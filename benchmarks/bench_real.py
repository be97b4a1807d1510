"""Summary + Buffer with a real model doing everything: the chat replies AND the summaries.

``bench_fidelity`` scripts the chat replies and asks a real model only for summaries. This run
sends every request to the model at ``--base-url`` (e.g. a 1.5B instruct model on a local
llama.cpp server), the way the desktop app does: the turn runner for each message, and after each
reply a compression ahead of the next request when that request is predicted to cross the prepare
mark (``Compressor.compress_ahead``, on a background thread, as the chat page runs it).

The conversation: a bug-triage queue with a goal, a constraint, a permission and a preference stated
by the user up front, then one bug per message with acknowledgements in between. Measured:

- summaries accepted: model compressions applied / model compressions attempted (a plain move-out
  without the model counts as not accepted);
- invented references accepted: ids, numbers, paths and URLs in an applied summary that occur in
  no session item (checked independently of the app's own check, over the whole record);
- after every compression, in the next request: the user's constraint messages byte for byte, the
  goal, and the probe facts (goal, latest request, queue position, next step) present;
- seconds from send to the first streamed token, at turns right after a compression vs the others.
  The next message is sent once the ahead compression has finished, as a user typing it would
  (the time a compression takes after the reply is reported beside it).

    python -m benchmarks.bench_real --base-url URL --model NAME [--turns 30] [--window 4000]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import setup_env, table
from benchmarks.sent import Recorder, Sent
from okbot.core.turn.request import Send

GOAL = "Goal: triage the bug queue Q-7, BUG-101 to BUG-140, oldest first, one bug per message. Report each in one line."
CONSTRAINTS = [
    "Constraint: always answer in British English, and never close a bug yourself: only recommend.",
    "You may reproduce bugs on the staging server stg-4 without asking me first.",
    "Prefer replies under 40 words.",
]
SYMPTOMS = [
    "login page times out after 30 s",
    "CSV export drops the last row",
    "dark mode ignores the accent colour",
    "search returns duplicates for quoted terms",
    "upload fails for files over 2 GB",
    "timezone shown as UTC on invoices",
    "password reset mail arrives twice",
    "dashboard chart overlaps its legend",
]
ACKS = ["ok", "next", "thanks", "go on"]


@dataclass
class Turn:
    """One user message of the script; ``bug`` is the queue position it asks about."""

    text: str
    bug: str | None = None


def script(turns: int) -> list[Turn]:
    """The conversation: goal, three directives, then bugs in queue order with acknowledgements."""
    out = [Turn(GOAL), *(Turn(c) for c in CONSTRAINTS)]
    bug = 101
    while len(out) < turns:
        if len(out) % 4 == 3:
            out.append(Turn(ACKS[len(out) % len(ACKS)]))
            continue
        symptom = SYMPTOMS[bug % len(SYMPTOMS)]
        out.append(Turn(f"Next: BUG-{bug}, {symptom}. Your one-line verdict?", f"BUG-{bug}"))
        bug += 1
    return out[:turns]


@dataclass
class Compression:
    """One compression and what the next request showed."""

    turn: int
    where: str  # "ahead" (after the reply) or "before" (the turn waited)
    report: Any
    checks: dict[str, bool] = field(default_factory=dict)
    done_at: float = 0.0  # time.monotonic() when it finished


@dataclass
class ModeFigures:
    """What one mode of the run measured, for the comparison of background calls on and off."""

    background: bool
    turns: int = 0
    ttft: list[float] = field(default_factory=list)  # send -> first token, every turn that streamed one
    cut: list[int] = field(default_factory=list)  # turns whose reply was cut (a retry or an error mid-reply)
    cut_by_own: list[int] = field(default_factory=list)  # ... while one of OkBot's own calls was in flight
    own_calls: int = 0
    own_beside_chat: int = 0  # own calls in flight while a chat request was
    goals_after: list[bool] = field(default_factory=list)  # Goals non-empty after each model compression


MODES = {"off": (False,), "on": (True,), "both": (False, True)}


def _reference_check(summary: str, record_text: str) -> list[str]:
    """References in ``summary`` found nowhere in the whole record (an independent re-check)."""
    from okbot.core.compression import structure

    return structure.ungrounded(summary, [record_text])


def run(
    base_url: str, model: str, turns: int = 30, window: int = 4000, *, background: bool = False, typing: float = 2.0
) -> str:
    """One mode of the run (see the module docstring); returns its tables."""
    return run_mode(base_url, model, turns, window, background=background, typing=typing)[0]


def run_modes(
    base_url: str,
    model: str,
    turns: int,
    window: int,
    modes: tuple[bool, ...],
    typing: float = 2.0,
    reply_cap: int | None = None,
) -> str:
    """The run once per mode (background calls off, then on), each in a fresh data dir, and the comparison."""
    texts, figures = [], []
    for background in modes:
        text, fig = run_mode(base_url, model, turns, window, background=background, typing=typing, reply_cap=reply_cap)
        print(text, flush=True)
        texts.append(text)
        figures.append(fig)
    return "\n".join([*texts, compare(figures)])


def compare(figures: list[ModeFigures]) -> str:
    """Replies cut by OkBot's own calls, and send -> first token with background calls on against off."""
    rows = []
    for fig in figures:
        rows.append(
            [
                "on" if fig.background else "off",
                f"{len(fig.cut_by_own)} of {fig.turns}"
                + (f" (turns {_turn_list(fig.cut_by_own)})" if fig.cut_by_own else ""),
                f"{len(fig.cut)} of {fig.turns}",
                f"{fig.own_beside_chat} of {fig.own_calls}",
                f"{statistics.median(fig.ttft):.1f} s" if fig.ttft else "n/a",
                f"{statistics.mean(fig.ttft):.1f} s" if fig.ttft else "n/a",
                f"{sum(fig.goals_after)}/{len(fig.goals_after)}" if fig.goals_after else "n/a",
            ]
        )
    off = next((f for f in figures if not f.background and f.ttft), None)
    on = next((f for f in figures if f.background and f.ttft), None)
    ratio = ""
    if off and on:
        median_ratio = statistics.median(on.ttft) / statistics.median(off.ttft)
        mean_ratio = statistics.mean(on.ttft) / statistics.mean(off.ttft)
        ratio = (
            "\nsend -> first token, background calls on / off (goal <= 1.2x): "
            f"median {median_ratio:.2f}x, mean {mean_ratio:.2f}x"
        )
    return (
        table(
            "Background calls on against off (replies cut by OkBot's own calls: goal 0)",
            [
                "background calls",
                "replies cut by OkBot's own calls",
                "replies cut (any cause)",
                "own calls beside a chat request",
                "send -> first token (median)",
                "(mean)",
                "Goals non-empty after a model compression",
            ],
            rows,
        )
        + ratio
    )


def _turn_list(turns: list[int]) -> str:
    return ", ".join(str(t + 1) for t in turns)


def run_mode(  # noqa: C901 - one scripted conversation, measured as it goes
    base_url: str,
    model: str,
    turns: int = 30,
    window: int = 4000,
    *,
    background: bool = False,
    typing: float = 2.0,
    reply_cap: int | None = None,
) -> tuple[str, ModeFigures]:
    """The conversation against ``base_url``.

    ``background=False``: none of OkBot's own calls overlaps a chat request (compress-ahead runs after the
    reply and the next message waits for it; no memory wrap-up or upkeep). ``background=True``: as the
    desktop app runs: the memory keeper (wrap-up and persona and skill upkeep) after each turn on its
    thread, compress-ahead on another thread after each reply, and the next message sent ``typing``
    seconds after the reply whatever is still running. Every provider is a :class:`ProviderPool` over the
    settings, one per job as the app builds them, each recorded on its way out. ``reply_cap``: chat replies
    capped at that many tokens (a slow machine; OkBot's own calls are not capped).
    """
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-real-")))
    from okbot.app.wiring import make_compressor, make_turn_runner
    from okbot.config.settings import Settings
    from okbot.core.compression import structure
    from okbot.core.context import build_context
    from okbot.core.items import item_text
    from okbot.core.memory.keeper import MemoryKeeper
    from okbot.core.search_history import SEARCH_HISTORY
    from okbot.core.sources import ContextSources
    from okbot.core.tools import ToolRegistry
    from okbot.core.turn.outcome import TurnCallbacks
    from okbot.core.workspace import Workspace
    from okbot.llm.providers import ProviderPool

    settings = Settings.load()
    settings.set("provider.baseUrl", base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.model", model)
    settings.set("provider.timeout", 600.0)  # a 1.5B model on two cores reads a long prompt slowly
    settings.set("model.contextWindow", window)  # after the model: the override is per model
    settings.set("contextCompression.autoTopicCompress", False)  # one topic: every compression is by size
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws, tools=ToolRegistry([SEARCH_HISTORY]))
    sources.loaded_counter(target)
    log: list[Sent] = []
    pools: list[Any] = []

    def make_provider() -> Recorder:
        pool = ProviderPool(settings)
        pools.append(pool)
        return Recorder(pool, log, chat_max_tokens=reply_cap)

    keeper = MemoryKeeper(sources, make_provider) if background else None
    compressions: list[Compression] = []
    ttft: list[tuple[int, float, bool]] = []  # (turn, seconds, right after a compression)
    ahead_seconds: list[float] = []
    user_ids: list[int] = []  # the session id of each turn's user message
    figures = ModeFigures(background=background)
    runner = make_turn_runner(sources, make_provider(), keeper)
    ahead: list[threading.Thread] = []

    def compress_ahead(turn: int) -> None:
        began = time.monotonic()
        report = make_compressor(sources, make_provider(), keeper).compress_ahead(target)
        if report is not None:
            ahead_seconds.append(time.monotonic() - began)
            compressions.append(Compression(turn, "ahead", report, done_at=time.monotonic()))
            print(
                f"  compressed ahead in {ahead_seconds[-1]:.1f} s (after turn {turn + 1}): {report.message}", flush=True
            )

    plan = script(turns)
    started = time.monotonic()
    for current, turn in enumerate(plan):
        sent = time.monotonic()
        fresh = [c for c in compressions if not c.checks and c.done_at <= sent]
        first: list[float] = []
        reports: list[Any] = []

        def on_delta(_text: str, first: list[float] = first) -> None:
            if not first:
                first.append(time.monotonic())

        log_at = len(log)
        callbacks = TurnCallbacks(on_delta=on_delta, on_compressed=reports.append)
        result = runner.run(target, Send(turn.text), callbacks=callbacks)
        ended = time.monotonic()
        user_ids.append(result.user_id)
        compressions.extend(Compression(current, "before", r, done_at=ended) for r in reports)
        after_compression = bool(fresh) or bool(reports)
        if first:
            ttft.append((current, first[0] - sent, after_compression))
        for comp in [*fresh, *compressions[len(compressions) - len(reports) :]]:
            comp.checks = _checks(build_context(target, result.user_id, sources=sources), plan, current, user_ids)
        chats = [s for s in log[log_at:] if s.kind == "chat"]
        if result.status != "complete" or any(s.retries or s.error for s in chats):
            figures.cut.append(current)
            if any(_beside(own, chat) for chat in chats for own in log if own.kind != "chat"):
                figures.cut_by_own.append(current)
        print(
            f"turn {current + 1}/{len(plan)}: {result.status}, {len(result.reply_text)} chars, "
            f"first token {first[0] - sent if first else float('nan'):.1f} s"
            + "".join(f"\n  cut: {r}" for s in chats for r in s.retries)
            + (f"\n  error: {result.error}" if result.error else ""),
            flush=True,
        )
        # after the reply: compress ahead of the next request, as the chat page does on a pool thread
        if not background:
            compress_ahead(current)  # the user's next message waits for it: nothing overlaps the chat
        else:
            if not any(t.is_alive() for t in ahead):  # one compress-ahead per chat at a time, as the app runs it
                thread = threading.Thread(target=compress_ahead, args=(current,), daemon=True)
                ahead.append(thread)
                thread.start()
            time.sleep(typing)  # the user types the next message; whatever still runs, runs beside it
    elapsed = time.monotonic() - started
    for thread in ahead:
        thread.join()
    if keeper is not None and not keeper.drain(timeout=900):
        print("  the memory keeper was still busy 15 min after the last turn", flush=True)
    for pool in pools:
        pool.close()

    figures.turns = len(plan)
    figures.ttft = [s for _, s, _after in ttft]
    own = [s for s in log if s.kind != "chat"]
    figures.own_calls = len(own)
    figures.own_beside_chat = sum(any(_beside(o, c) for c in log if c.kind == "chat") for o in own)
    session = sources.session(target)
    record_text = "\n".join(f"#{it['id']} {item_text(it)}" for it in session.iter_items())
    model_runs = [c for c in compressions if c.report.summarizer_calls]
    figures.goals_after = [c.checks.get("goals non-empty", False) for c in model_runs if c.checks]
    accepted = [c for c in model_runs if c.report.ok and not c.report.fallback]
    summary, _ = sources.summary(target)
    invented = _reference_check(summary.summary, record_text)
    rows = [
        [
            str(n),
            str(c.turn + 1),
            c.where,
            c.report.trigger,
            "yes" if c.report.ok else "no",
            c.report.fallback or "-",
            str(c.report.covered_items),
            str(c.report.summarizer_calls),
            f"{c.report.seconds:.0f} s",
            " ".join(k for k, ok in c.checks.items() if not ok) or ("all present" if c.checks else "not checked"),
        ]
        for n, c in enumerate(compressions, start=1)
    ]
    checked = [c for c in compressions if c.checks]

    def share(key: str) -> str:
        return f"{sum(c.checks[key] for c in checked)}/{len(checked)}" if checked else "n/a"

    with_comp = [s for _, s, after in ttft if after]
    without = [s for _, s, after in ttft if not after]
    mode = "on (as the desktop app)" if background else "off (nothing of OkBot's own beside a chat)"
    summary_rows = [
        ["background calls", mode],
        ["chat reply cap", f"{reply_cap} tokens" if reply_cap else "none"],
        [
            "turns / compressions (ahead, before a request)",
            f"{len(plan)} / {len(compressions)} ({sum(c.where == 'ahead' for c in compressions)}, "
            f"{sum(c.where == 'before' for c in compressions)})",
        ],
        ["wall time", f"{elapsed / 60:.1f} min"],
        [
            "summaries accepted / model compressions attempted",
            f"{len(accepted)}/{len(model_runs)} ({len(accepted) / max(1, len(model_runs)):.0%})",
        ],
        ["summarizer calls in all (repairs included)", str(sum(c.report.summarizer_calls for c in compressions))],
        ["invented references in the final summary (independent check)", str(len(invented))],
        ["user constraint messages byte for byte after each compression", share("constraints")],
        ["Goals section non-empty after each compression", share("goals non-empty")],
        [
            "probe, from the projection alone: goal / latest request / queue position / next step",
            f"{share('goal')} / {share('latest request')} / {share('queue position')} / {share('next step')}",
        ],
        [
            "replies cut (a retry or an error mid-reply) / by OkBot's own calls",
            f"{len(figures.cut)} / {len(figures.cut_by_own)} of {len(plan)}",
        ],
        ["OkBot's own calls / in flight beside a chat request", f"{figures.own_calls} / {figures.own_beside_chat}"],
        [
            "send → first token, turns right after a compression (median)",
            f"{statistics.median(with_comp):.1f} s over {len(with_comp)}" if with_comp else "n/a",
        ],
        [
            "send → first token, other turns (median)",
            f"{statistics.median(without):.1f} s over {len(without)}" if without else "n/a",
        ],
        [
            "compress-ahead time after a reply (median)",
            f"{statistics.median(ahead_seconds):.0f} s over {len(ahead_seconds)}" if ahead_seconds else "n/a",
        ],
    ]
    goals = structure.parse_sections(summary.summary)[0].get("Goals", "") if summary.summary else ""
    text = "\n".join(
        [
            table(
                f"Compressions (real model {model} at {base_url}, window {window:,}, background calls "
                f"{'on' if background else 'off'})",
                ["#", "turn", "where", "trigger", "applied", "fallback", "covered", "calls", "took", "missing after"],
                rows,
            ),
            table("Real-model Summary + Buffer", ["measure", "value"], summary_rows),
            "Final summary:\n" + summary.summary,
            "Final Goals section: " + (goals.replace("\n", " / ") or "(no summary)"),
            "Invented references: " + (", ".join(invented) or "none"),
        ]
    )
    return text, figures


def _beside(own: Sent, chat: Sent) -> bool:
    """Whether ``own`` was in flight while ``chat`` was."""
    own_end = own.ended if own.ended is not None else float("inf")
    chat_end = chat.ended if chat.ended is not None else float("inf")
    return own.started < chat_end and own_end > chat.started


def _checks(proj: Any, plan: list[Turn], current: int, user_ids: list[int]) -> dict[str, bool]:
    """What the request for turn ``current`` shows of the conversation so far.

    "next step": the summary block itself says how far the queue got, i.e. names the last bug whose
    message it covers (the tail alone would also answer, but then only while it lasts).
    """
    text = proj.system_text() + "\n" + "\n".join(str(m.get("content") or "") for m in proj.to_messages())
    last_bug = next((t.bug for t in reversed(plan[: current + 1]) if t.bug), None)
    covered_bugs = [t.bug for t, uid in zip(plan, user_ids, strict=False) if t.bug and uid <= proj.covered_through_id]
    summary = next((b.text for b in proj.blocks if b.name == "summary"), "")
    return {
        "goals non-empty": _goals_filled(summary),
        "constraints": all(c in text for c in CONSTRAINTS),
        "goal": GOAL in text,
        "latest request": plan[current].text in text,
        "queue position": last_bug is None or last_bug in text,
        "next step": not covered_bugs or covered_bugs[-1] in summary,
    }


def _goals_filled(summary: str) -> bool:
    """Whether the summary's Goals section holds a line other than "(none yet)"."""
    from okbot.core.compression.structure import EMPTY_BODY, parse_sections

    goals = parse_sections(summary)[0].get("Goals", "") if summary else ""
    return any(line.strip() and line.strip() != EMPTY_BODY for line in goals.splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--window", type=int, default=4000)
    parser.add_argument(
        "--background",
        choices=sorted(MODES),
        default="off",
        help="OkBot's own calls beside the chat: off (none), on (as the desktop app), both (off, then on, compared)",
    )
    parser.add_argument("--typing", type=float, default=2.0, help="seconds between a reply and the next message (on)")
    parser.add_argument("--reply-cap", type=int, default=None, help="cap chat replies at this many tokens")
    args = parser.parse_args()
    logging.basicConfig(format="  %(name)s: %(message)s")  # what the summarizer refused and why, as it happens
    logging.getLogger("okbot.compression").setLevel(logging.INFO)
    modes = MODES[args.background]
    if len(modes) == 1:
        text, figures = run_mode(
            args.base_url,
            args.model,
            args.turns,
            args.window,
            background=modes[0],
            typing=args.typing,
            reply_cap=args.reply_cap,
        )
        print(text)
        print(compare([figures]))
    else:
        print(run_modes(args.base_url, args.model, args.turns, args.window, modes, args.typing, args.reply_cap))


if __name__ == "__main__":
    main()
