"""Fidelity of Summary + Buffer over a long scripted conversation (issue 4's benchmark).

The conversation (benchmarks/fidelity_scenario.py) runs through the real TurnRunner and
Compressor. Chat replies come from the fake server's script; summaries come from a deliberately
lossy fake summarizer (closes goals, shifts numbers, cites the assistant, ticks few ids) -- or, with
``--base-url/--model``, from a real model. After every compression the next request is checked:
are the user's constraint messages there byte for byte, are the goals there, is the queue
position there? Also: summarizer input per compression (early vs late, beside what a full
rewrite would send) and the exact-prefix share between consecutive requests.

    python -m benchmarks.bench_fidelity [--turns 420] [--base-url URL --model NAME] [--window N]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import setup_env, table
from benchmarks.fidelity_scenario import CONSTRAINTS, GOAL, TOPIC, Turn, build
from okbot.core.turn.request import Send


class LossySummarizer:
    """Answers with edits like a careless small model would, reproducibly: wrong goal status changes,
    shifted numbers, goals citing the assistant, vague progress, few ticks (the app refuses what it can)."""

    def __init__(self, seed: int = 5) -> None:
        self.rng = random.Random(seed)

    def __call__(self, body: dict[str, Any]) -> str:
        from tests.helpers.fake_summarizer import as_lines, faithful_edits, request_parts

        edits = faithful_edits(body)
        covered = request_parts(body).get("NEWLY COVERED ITEMS", "")
        done = re.findall(r"Done (T-\d+)", covered)
        if done and self.rng.random() < 0.7:
            edits["progress"] = [f"queue Q-7 done through {done[-1]}"]
            edits["drop_progress"] = [1]
        roll = self.rng.random()
        goals = len(re.findall(r"^\d+\. \[", request_parts(body)["PREVIOUS SUMMARY"], re.MULTILINE))
        first_covered = re.search(r"^#(\d+) ", covered, re.MULTILINE)
        if roll < 0.2 and goals and first_covered:
            # closes a goal the user still has, citing whatever was covered first
            edits["goal_status"] = [{"goal": 1, "status": "withdrawn", "because": int(first_covered.group(1))}]
        elif roll < 0.35:
            edits["references"] = [re.sub(r"\d{3,}", lambda m: str(int(m.group(0)) + 1), covered.split("\n")[0])]
        elif roll < 0.5 and (said := re.search(r"^#(\d+) (?!user\b)[\w-]+: (.{1,60})", covered, re.MULTILINE)):
            edits["new_goals"].append({"goal": said.group(2), "set_by": int(said.group(1))})  # the assistant's words
        elif roll < 0.6:
            edits["progress"] = ["work continues"]
        edits["keep"] = [i for i in edits["keep"] if self.rng.random() < 0.3]
        return json.dumps(edits) if body.get("response_format") else as_lines(edits)


def _serialize(body: dict[str, Any]) -> str:
    return "\n".join(f"{m['role']}: {m.get('content') or json.dumps(m.get('tool_calls'))}" for m in body["messages"])


class Harness:
    """Drives the scenario and collects what each request showed the model."""

    def __init__(self, script: list[Turn]) -> None:
        self.script = script
        self.turn = 0
        self.requests: list[tuple[int, dict[str, Any]]] = []  # (turn, body) of chat requests
        self.lossy = LossySummarizer()

    def reply(self, body: dict[str, Any]) -> Any:
        from tests.helpers.fake_openai import Reply, tool_call
        from tests.helpers.fake_summarizer import TOPIC_QUESTION, is_summarizer_request

        if is_summarizer_request(body):
            return Reply(text=self.lossy(body))
        if TOPIC_QUESTION in (body["messages"][-1].get("content") or ""):
            return Reply(text="no")
        self.requests.append((self.turn, body))
        turn = self.script[self.turn]
        if turn.tool_output is not None and body["messages"][-1]["role"] != "tool":
            return Reply(tool_calls=[tool_call("read_file", {"path": f"src/legacy/mod_{self.turn}.py"})])
        return Reply(text=turn.reply)


def _presence(text: str, script: list[Turn], upto: int) -> tuple[float, float, bool]:
    words = [GOAL, *CONSTRAINTS]
    constraint_share = sum(w in text for w in words) / len(words)
    goals = [("Q-7", GOAL)] + ([("Lisbon", TOPIC)] if any(t.user == TOPIC for t in script[:upto]) else [])
    goal_share = sum(key in text or full in text for key, full in goals) / len(goals)
    last_ticket = next((t.ticket for t in reversed(script[:upto]) if t.ticket), None)
    return constraint_share, goal_share, last_ticket is None or last_ticket in text


REASONING_MODEL = "gpt-5-mini"


def run(  # noqa: C901
    turns: int = 420,
    *,
    base_url: str | None = None,
    model: str | None = None,
    window: int = 16000,
    reasoning: bool = False,
) -> str:
    """The fidelity tables. ``reasoning``: the fake server answers as an OpenAI reasoning model does
    (``max_tokens`` and temperature 0 refused word for word, hidden reasoning spent from the cap)."""
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-fidelity-")))
    from okbot.config.settings import Settings
    from okbot.core.compression.compressor import Compressor
    from okbot.core.compression.summarizer import Summarizer
    from okbot.core.digest import user_checklist
    from okbot.core.search_history import SEARCH_HISTORY
    from okbot.core.sources import ContextSources
    from okbot.core.tools import Tool, ToolOutcome, ToolRegistry
    from okbot.core.turn.runner import TurnRunner
    from okbot.core.workspace import Workspace
    from okbot.llm.openai_backend import OpenAIProvider
    from tests.helpers.fake_openai import FakeOpenAIServer, gpt5_rules

    if reasoning:
        model = model or REASONING_MODEL
    script = build(turns)
    harness = Harness(script)
    rejected: list[str] = []
    refused: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = record.getMessage()
            if "summary rejected" in message:
                rejected.append(message.split(": ", 1)[-1])
            elif "refused edit: " in message:
                refused.append(message.split("refused edit: ", 1)[-1])

    server_refusals: list[str] = []  # parameters a server refused and the backend learnt (none for known families)

    class Refusals(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "sending the request again without it" in record.getMessage():
                server_refusals.append(record.getMessage())

    llm_log = logging.getLogger("okbot.llm")
    llm_log.addHandler(Refusals())
    llm_log.setLevel(logging.INFO)
    compression_log = logging.getLogger("okbot.compression")
    compression_log.addHandler(Catch())
    compression_log.setLevel(logging.INFO)  # refused edits are logged as info: the summary still applied
    with FakeOpenAIServer(models=(), rules={model: gpt5_rules()} if reasoning and model else None) as server:
        server.set_default(harness.reply)
        settings = Settings.load()
        settings.set("provider.baseUrl", server.base_url)
        settings.set("provider.keySource", "none")
        if model:
            settings.set("provider.model", model)
        settings.set("model.contextWindow", window)  # after the model: the override is per model
        ws = Workspace()
        target = ws.ensure_default()
        # the scenario's read_file returns scripted output (the real one would read this machine's files)
        scripted_read = Tool(
            "read_file",
            "read a file",
            {"type": "object", "properties": {}},
            lambda args, ctx: ToolOutcome(script[harness.turn].tool_output or ""),
        )
        sources = ContextSources(ws, tools=ToolRegistry([SEARCH_HISTORY, scripted_read]))
        counter = sources.counter(sources.model_for(target))
        counter.ensure_loaded(timeout=30)
        chat_provider = OpenAIProvider(server.base_url, None)
        summary_provider = OpenAIProvider(base_url, None, timeout=600, max_retries=1) if base_url else chat_provider
        compressor = Compressor(sources, summary_provider)
        compressions: list[dict[str, Any]] = []

        class Recorded:  # the compressor, each compression before a turn noted with where it happened
            within_turn = compressor.within_turn

            def before_run(self, tgt: Any, text: str | None, on_start: Any = None) -> Any:
                report = compressor.before_run(tgt, text, on_start)
                if report is not None:
                    compressions.append(
                        {"turn": harness.turn, "report": report, "requests_before": len(harness.requests)}
                    )
                return report

        runner = TurnRunner(sources, chat_provider, compression=Recorded())
        started = time.monotonic()
        for index, turn in enumerate(script):
            harness.turn = index
            runner.run(target, Send(turn.user))
        elapsed = time.monotonic() - started

        session = sources.session(target)
        measure = Summarizer(lambda _m: "", counter.count_text, max_chars=2000)
        rows = []
        for number, comp in enumerate(compressions, start=1):
            report = comp["report"]
            after = [b for t, b in harness.requests[comp["requests_before"] : comp["requests_before"] + 1]]
            if not after:
                continue
            text = _serialize(after[0])
            constraints, goals, queue = _presence(text, script, comp["turn"] + 1)
            covered = (
                [
                    it
                    for it in session.iter_items(end_id=report.new_ids[-1] if report.new_ids else 0)
                    if it.get("type") != "notice"
                ]
                if report.ok
                else []
            )
            full = measure.input_cost("", covered, user_checklist(covered)) if covered else 0
            comp.update(constraints=constraints, goals=goals, queue=queue, full=full)
            rows.append(
                [
                    str(number),
                    str(comp["turn"]),
                    report.trigger,
                    "yes" if report.ok else "no",
                    str(report.covered_items),
                    f"{report.summarizer_prompt_tokens:,}",
                    str(report.summarizer_calls),
                    f"{full:,}",
                    f"{constraints:.0%}",
                    f"{goals:.0%}",
                    "yes" if queue else "NO",
                    f"{report.tokens_before:,} → {report.tokens_after:,}",
                ]
            )

    applied = [c for c in compressions if c["report"].ok and c["report"].summarizer_prompt_tokens]
    model_runs = [c for c in compressions if c["report"].summarizer_calls]
    early = min(applied, key=lambda c: abs(c["turn"] - 50)) if applied else None
    late = applied[-1] if applied else None
    shares = _prefix_shares(harness.requests, compressions, counter)
    measured = [c for c in compressions if "constraints" in c]
    summary_rows = [
        ["turns / chat requests / compressions", f"{len(script)} / {len(harness.requests)} / {len(compressions)}"],
        [
            "model compressions applied / attempted",
            f"{sum(c['report'].ok for c in model_runs)}/{len(model_runs)}",
        ],
        ["parameters the server refused (400s learnt)", str(len(server_refusals))],
        ["wall time", f"{elapsed:.1f} s"],
        [
            "constraint messages byte-for-byte after each compression (min)",
            f"{min((c['constraints'] for c in measured), default=0):.0%}",
        ],
        ["goal entries present after each compression (min)", f"{min((c['goals'] for c in measured), default=0):.0%}"],
        ["queue position present after each compression", f"{sum(c['queue'] for c in measured)}/{len(measured)}"],
    ]
    if early and late:
        e, lt = early["report"].summarizer_prompt_tokens, late["report"].summarizer_prompt_tokens
        per_item = [c["report"].summarizer_prompt_tokens / max(1, c["report"].covered_items) for c in applied]
        summary_rows += [
            [
                f"summarizer input (first call), turn {early['turn']} vs turn {late['turn']}",
                f"{e:,} vs {lt:,} ({lt / e:.2f}x)",
            ],
            [
                "summarizer input per covered item, first vs last compression",
                f"{per_item[0]:.0f} vs {per_item[-1]:.0f} tokens ({per_item[-1] / per_item[0]:.2f}x)",
            ],
            [
                "summarizer calls in all (repairs included)",
                str(sum(c["report"].summarizer_calls for c in compressions)),
            ],
            [
                f"full-rewrite baseline input, turn {early['turn']} vs turn {late['turn']}",
                f"{early['full']:,} vs {late['full']:,} ({late['full'] / max(1, early['full']):.2f}x)",
            ],
        ]
    if shares:
        summary_rows.append(
            [
                "exact-prefix share between requests without compression (mean / min)",
                f"{statistics.mean(shares):.1%} / {min(shares):.1%} over {len(shares)} pairs",
            ]
        )
    reasons: dict[str, int] = {}
    for reason in rejected:
        key = re.sub(r"\d[\d,]*", "N", reason.split(";")[0])[:90]
        reasons[key] = reasons.get(key, 0) + 1
    summary_rows.append(["summaries rejected by the checks (after one repair)", str(len(rejected))])
    summary_rows += [[f"  rejected: {k}", str(v)] for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])[:5]]
    kinds: dict[str, int] = {}
    for reason in refused:
        key = re.sub(r"'[^']*'|\d[\d,]*", "…", reason)[:90]
        kinds[key] = kinds.get(key, 0) + 1
    summary_rows.append(["edits refused by the checks (the rest of the answer applied)", str(len(refused))])
    summary_rows += [[f"  refused: {k}", str(v)] for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:5]]
    mode = f"real model {model} at {base_url}" if base_url else "lossy fake summarizer"
    if reasoning:
        mode += f", fake server answering as the reasoning model {model}"
    return "\n".join(
        [
            table(
                f"Fidelity per compression ({mode}, window {window:,})",
                [
                    "#",
                    "turn",
                    "trigger",
                    "applied",
                    "covered",
                    "summ. input",
                    "calls",
                    "full rewrite",
                    "constraints",
                    "goals",
                    "queue pos",
                    "tokens before → after",
                ],
                rows,
            ),
            table("Fidelity summary", ["measure", "value"], summary_rows),
        ]
    )


def _prefix_shares(
    requests: list[tuple[int, dict[str, Any]]], compressions: list[dict[str, Any]], counter: Any
) -> list[float]:
    """For consecutive requests with no compression between: share of the earlier prompt repeated as prefix."""
    boundaries = {c["requests_before"] for c in compressions}
    shares = []
    for i in range(1, len(requests)):
        if i in boundaries:
            continue
        prev, cur = _serialize(requests[i - 1][1]), _serialize(requests[i][1])
        n = 0
        limit = min(len(prev), len(cur))
        while n < limit and prev[n] == cur[n]:
            n += 1
        shares.append(counter.count_text(prev[:n]) / max(1, counter.count_text(prev)))
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=420)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--window", type=int, default=16000)
    parser.add_argument(
        "--reasoning", action="store_true", help="the fake server answers as an OpenAI reasoning model (gpt-5-mini)"
    )
    args = parser.parse_args()
    print(run(args.turns, base_url=args.base_url, model=args.model, window=args.window, reasoning=args.reasoning))


if __name__ == "__main__":
    main()
