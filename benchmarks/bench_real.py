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
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import setup_env, table

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


def _reference_check(summary: str, record_text: str) -> list[str]:
    """References in ``summary`` found nowhere in the whole record (an independent re-check)."""
    from okbot.core.compression import structure

    return structure.ungrounded(summary, [record_text])


def run(base_url: str, model: str, turns: int = 30, window: int = 4000) -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-real-")))
    from okbot.config.settings import Settings
    from okbot.core.compression import Compressor
    from okbot.core.context import build_context
    from okbot.core.items import item_text
    from okbot.core.runner import TurnCallbacks, TurnRunner
    from okbot.core.search_history import SEARCH_HISTORY
    from okbot.core.sources import ContextSources
    from okbot.core.tools import ToolRegistry
    from okbot.core.workspace import Workspace
    from okbot.llm.openai_backend import OpenAIProvider

    settings = Settings.load()
    settings.set("provider.baseUrl", base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.model", model)
    settings.set("model.contextWindow", window)  # after the model: the override is per model
    settings.set("contextCompression.autoTopicCompress", False)  # one topic: every compression is by size
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws, tools=ToolRegistry([SEARCH_HISTORY]))
    sources.loaded_counter(target)
    provider = OpenAIProvider(base_url, None, timeout=900, max_retries=1)
    compressor = Compressor(sources, provider)
    compressions: list[Compression] = []
    ttft: list[tuple[int, float, bool]] = []  # (turn, seconds, right after a compression)
    ahead_seconds: list[float] = []
    replies: list[str] = []
    user_ids: list[int] = []  # the session id of each turn's user message

    def before_run(tgt: Any, text: str | None) -> Any:
        report = compressor.before_run(tgt, text)
        if report is not None:
            compressions.append(Compression(current, "before", report))
        return report

    runner = TurnRunner(sources, provider, before_run=before_run)
    plan = script(turns)
    started = time.monotonic()
    for current, turn in enumerate(plan):
        fresh = [c for c in compressions if c.turn == current - 1 and c.where == "ahead"]
        sent = time.monotonic()
        first: list[float] = []

        def on_delta(_text: str, first: list[float] = first) -> None:
            if not first:
                first.append(time.monotonic())

        count_before = len(compressions)
        result = runner.run_turn(target, turn.text, callbacks=TurnCallbacks(on_delta=on_delta))
        replies.append(result.reply_text)
        user_ids.append(result.user_id)
        after_compression = bool(fresh) or len(compressions) > count_before
        if first:
            ttft.append((current, first[0] - sent, after_compression))
        for comp in [*fresh, *compressions[count_before:]]:
            comp.checks = _checks(build_context(target, result.user_id, sources=sources), plan, current, user_ids)
        print(
            f"turn {current + 1}/{len(plan)}: {result.status}, {len(result.reply_text)} chars, "
            f"first token {first[0] - sent if first else float('nan'):.1f} s",
            flush=True,
        )
        # after the reply: compress ahead of the next request, as the chat page does on a pool thread;
        # the user's next message is typed meanwhile and sent once this is done
        began = time.monotonic()
        report = compressor.compress_ahead(target)
        if report is not None:
            ahead_seconds.append(time.monotonic() - began)
            compressions.append(Compression(current, "ahead", report))
            print(f"  compressed ahead in {ahead_seconds[-1]:.1f} s: {report.message}", flush=True)
    elapsed = time.monotonic() - started

    session = sources.session(target)
    record_text = "\n".join(f"#{it['id']} {item_text(it)}" for it in session.iter_items())
    model_runs = [c for c in compressions if c.report.summarizer_calls]
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
            " ".join(k for k, ok in c.checks.items() if not ok) or "all present",
        ]
        for n, c in enumerate(compressions, start=1)
    ]
    checked = [c for c in compressions if c.checks]

    def share(key: str) -> str:
        return f"{sum(c.checks[key] for c in checked)}/{len(checked)}" if checked else "n/a"

    with_comp = [s for _, s, after in ttft if after]
    without = [s for _, s, after in ttft if not after]
    summary_rows = [
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
        ["goal present after each compression", share("goal")],
        [
            "probe: latest request / queue position / next step",
            f"{share('latest request')} / {share('queue position')} / {share('next step')}",
        ],
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
    return "\n".join(
        [
            table(
                f"Compressions (real model {model} at {base_url}, window {window:,})",
                ["#", "turn", "where", "trigger", "applied", "fallback", "covered", "calls", "took", "missing after"],
                rows,
            ),
            table("Real-model Summary + Buffer", ["measure", "value"], summary_rows),
            "Final summary:\n" + summary.summary,
            "Invented references: " + (", ".join(invented) or "none"),
        ]
    )


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
        "constraints": all(c in text for c in CONSTRAINTS),
        "goal": GOAL in text or "Q-7" in text,
        "latest request": plan[current].text in text,
        "queue position": last_bug is None or last_bug in text,
        "next step": not covered_bugs or covered_bugs[-1] in summary,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--window", type=int, default=4000)
    args = parser.parse_args()
    logging.basicConfig(format="  %(name)s: %(message)s")  # what the summarizer refused and why, as it happens
    logging.getLogger("okbot.compression").setLevel(logging.INFO)
    print(run(args.base_url, args.model, args.turns, args.window))


if __name__ == "__main__":
    main()
