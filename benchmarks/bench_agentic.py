"""Summary + Buffer inside one long turn: an assistant reads N files one tool round at a time.

The workspace holds ``part0.txt`` … of ~9 KB each, every one with a few ``FACT-1234``-style numbers among
filler; the user asks, in one message, to read them one by one and list every FACT number. One turn of N
tool rounds and an answer, in a window of 8k or 16k tokens, through the real runner
(``make_turn_runner``: the compression before the request, and whatever the runner does between rounds).

Two agents:

- **the fake server** (default): its reply factory acts as the agent from the request it got alone: it calls
  ``read_file`` on the first part no earlier round of that request shows read (a path seen in a tool call,
  a result, a digest or the summary; not the user's message, which names the first), and once every part
  shows read (or no tools are offered) answers with every FACT number *visible in that request*. So the
  score is what context management let through. Where the fake server can enforce a window
  (``ModelRules(context_window=…)``), it does, in llama.cpp's words; its summaries are the careful
  scripted ones (``tests/helpers/fake_summarizer.faithful``).
- **a real model** (``--base-url``/``--model``, e.g. Qwen2.5-Coder-1.5B on llama.cpp, whose ``n_ctx``
  enforces the window): the model's own tool calls (a small model writes them as text; OkBot reads them).

Measured per run, from what was sent (:mod:`benchmarks.sent`: every request recorded on its way out, its
size by a documented estimate, and the server's own ``prompt_tokens`` where it reported them):

- rounds completed and how the turn ended; requests over the window (goal 0) and those the server refused
  as too long; the largest request against the window, and all chat tokens sent against a keep-everything
  baseline of the same run (each round resending every earlier result in full);
- the user's goal answerable at the end: the task message word for word in the last request the model read
  (a request the server refused was not read), and how it is marked (the user's own message, pinned as the
  current request, or among the summary's kept words);
- every FACT number answerable at the end: in the final answer or in that last request read;
- compactions inside the turn (rounds whose earlier messages were rewritten: results replaced by digests
  or a new summary), summarizer calls inside the turn and their tokens (estimate, input + output), and the
  compressions the runner reported;
- wall time.

    python -m benchmarks.bench_agentic [--files 10,30] [--windows 8192,16384]
    python -m benchmarks.bench_agentic --base-url URL --model NAME [--files 10] [--windows 8192]
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import random
import re
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import setup_env, table
from benchmarks.sent import Recorder, Sent, estimate_tokens, message_text
from okbot.core.turn.request import Send

FACT = re.compile(r"\bFACT-\d{4}\b")
PART = re.compile(r"\bpart(\d+)\.txt\b")
FILE_BYTES = 9_000
FACTS_PER_FILE = 3
FAKE_MODEL = "gpt-4o-mini"
_WORDS = (
    "the survey team logged routine readings along the northern ridge and noted nothing unusual "
    "about the weather the soil or the water levels while the crew replaced two worn cables checked "
    "the pumps and wrote the daily report before dinner as the manual asks"
).split()


def task_text(files: int) -> str:
    """The user's one message: the goal, the queue, the answer wanted and the first step (a small model
    answers a task it is only told about in prose; told the first call, it makes it)."""
    return (
        f"In the workspace there are {files} text files named partN.txt, for N = 0 to {files - 1}. "
        "Read them one by one with read_file, in order, one file per tool call, and when you have read "
        "them all, list every FACT- number they contain. Begin now: call read_file on part0.txt."
    )


def write_parts(folder: Path, files: int, seed: int = 32) -> list[str]:
    """``part0.txt`` … of ~``FILE_BYTES`` each in ``folder``; returns every FACT number, in file order."""
    rng = random.Random(seed)
    numbers = rng.sample(range(1000, 10000), files * FACTS_PER_FILE)
    facts: list[str] = []
    for i in range(files):
        own = [f"FACT-{n}" for n in numbers[i * FACTS_PER_FILE : (i + 1) * FACTS_PER_FILE]]
        lines = [f"part{i}.txt: field notes, page {i + 1} of {files}."]
        size = len(lines[0]) + 1
        while size < FILE_BYTES:
            line = " ".join(rng.choice(_WORDS) for _ in range(14)).capitalize() + "."
            lines.append(line)
            size += len(line) + 1
        for fact, at in zip(own, sorted(rng.sample(range(2, len(lines)), len(own))), strict=True):
            lines[at] = f"Recorded: {fact} (keep this number)."
        (folder / f"part{i}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        facts.extend(own)
    return facts


# -- the fake agent -----------------------------------------------------------------------------------
def agent_reply(files: int) -> Any:
    """The fake server's reply factory: summaries as a careful model writes them, the topic check answered
    "no", and the chat answered by an agent that knows only the request in front of it."""
    from tests.helpers.fake_openai import Reply, tool_call
    from tests.helpers.fake_summarizer import TOPIC_QUESTION, faithful, is_summarizer_request

    task = task_text(files)

    def reply(body: dict[str, Any]) -> Reply:
        if is_summarizer_request(body):
            return faithful(body)
        # what the request shows was done: the user's own words (naming the first part) are no evidence
        seen = "\n".join(message_text(m) for m in body.get("messages") or []).replace(task, "")
        if TOPIC_QUESTION in seen:
            return Reply(text="no")
        if body.get("max_tokens") == 1 or body.get("max_completion_tokens") == 1:
            return Reply(text="ok")  # a prompt-cache warm-up
        read = {int(n) for n in PART.findall(seen)}
        unread = [i for i in range(files) if i not in read]
        if unread and body.get("tools"):
            return Reply(tool_calls=[tool_call("read_file", {"path": f"part{unread[0]}.txt"})])
        found = sorted(set(FACT.findall(seen)), key=seen.index)
        return Reply(text="The FACT numbers I can see: " + (", ".join(found) or "none") + ".")

    return reply


def fake_rules(window: int) -> Any:
    """The fake's model rules: llama.cpp's window enforcement where the fake server has it, else none."""
    from tests.helpers.fake_openai import ModelRules

    names = {f.name for f in dataclasses.fields(ModelRules)}
    if "context_window" not in names:
        return None
    return ModelRules(context_window=window, window_style="llama.cpp")


# -- one run ----------------------------------------------------------------------------------------
@dataclass
class Run:
    """What one run did, for the tables."""

    agent: str
    files: int
    window: int
    facts: list[str]
    status: str = ""
    error: str = ""
    rounds: int = 0
    parts_read: int = 0
    seconds: float = 0.0
    sent: list[Sent] = field(default_factory=list)
    turn_start: float = 0.0
    reply: str = ""
    reports: list[Any] = field(default_factory=list)  # compressions the runner reported
    notices: list[str] = field(default_factory=list)
    enforced: bool = False
    reply_cap: int | None = None
    baseline_tokens: int = 0  # chat tokens a keep-everything run sends (estimate)
    final_request: Sent | None = None


def _settings(settings: Any, base_url: str, model: str, window: int, files: int, real: bool) -> None:
    settings.set("provider.baseUrl", base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.model", model)
    settings.set("model.contextWindow", window)  # after the model: the override is per model
    settings.set("contextCompression.autoTopicCompress", False)  # one turn, one topic
    settings.set("tools.maxRounds", files + 2)
    settings.set("tools.maxCallsPerTurn", max(40, 2 * files + 4))
    if real:
        settings.set("provider.timeout", 600.0)  # a 1.5B model on two cores reads an 8k prompt in minutes
        settings.set("tools.turnSeconds", 3600)


def run_one(
    base_url: str,
    model: str,
    files: int,
    window: int,
    *,
    real: bool,
    budget: float | None = None,
    reply_cap: int | None = None,
) -> Run:
    """One turn of ``files`` reads in a ``window``-token window against the server at ``base_url``."""
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-agentic-")))
    from okbot.app.wiring import make_turn_runner
    from okbot.config.settings import Settings
    from okbot.core.local_tools.guard import workspace_dir
    from okbot.core.sources import ContextSources
    from okbot.core.turn.outcome import TurnCallbacks
    from okbot.core.workspace import Workspace
    from okbot.llm.provider import CancelToken
    from okbot.llm.providers import ProviderPool

    settings = Settings.load()
    _settings(settings, base_url, model, window, files, real)
    ws = Workspace()
    target = ws.ensure_default()
    run = Run(agent=model if real else "fake", files=files, window=window, facts=[], reply_cap=reply_cap)
    run.facts = write_parts(workspace_dir(target), files)
    sources = ContextSources(ws)
    sources.loaded_counter(target)
    pool = ProviderPool(settings)
    recorder = Recorder(pool, chat_max_tokens=reply_cap)
    runner = make_turn_runner(sources, recorder)
    cancel = CancelToken()
    timer = threading.Timer(budget, cancel.cancel) if budget else None
    callbacks = TurnCallbacks(
        on_compressed=run.reports.append,
        on_item=lambda it: run.notices.append(str(it.get("content") or "")) if it.get("type") == "notice" else None,
    )
    started = time.monotonic()
    run.turn_start = started
    if timer is not None:
        timer.start()
    try:
        result = runner.run(target, Send(task_text(files)), callbacks=callbacks, cancel=cancel)
    finally:
        if timer is not None:
            timer.cancel()
        pool.close()
    run.seconds = time.monotonic() - started
    run.status = result.status
    run.error = str(result.error or "")
    run.rounds = result.rounds
    run.reply = result.reply_text
    run.sent = list(recorder.sent)
    chats = [s for s in run.sent if s.kind == "chat"]
    read = [s for s in chats if not s.refused_as_too_long]  # a refused request was never read by the model
    run.final_request = read[-1] if read else None
    results = [it for it in result.items if it.get("type") == "tool_result"]
    run.parts_read = len({PART.search(str(it.get("content") or "")).group(1) for it in results if _names_part(it)})
    run.baseline_tokens = _keep_everything(chats, results)
    return run


def _names_part(item: dict[str, Any]) -> bool:
    return item.get("ok", True) and PART.search(str(item.get("content") or "")) is not None


def _keep_everything(chats: list[Sent], results: list[dict[str, Any]]) -> int:
    """Chat tokens a run that moves nothing out would send over the same rounds: each round's request is
    the first one plus every earlier call and result in full (estimate)."""
    if not chats:
        return 0
    first = chats[0].tokens
    grown = [0]
    for it in results:
        call = {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": it.get("name", "")}}]}
        step = estimate_tokens([call, {"role": "tool", "content": str(it.get("content") or "")}]) - 3
        grown.append(grown[-1] + step + 20)  # the call's id and arguments
    return sum(first + grown[min(i, len(grown) - 1)] for i in range(len(chats)))


# -- scoring ----------------------------------------------------------------------------------------
def goal_where(final: Sent | None, task: str) -> str:
    """Where the task message stands word for word in the last request, and how it is marked."""
    if final is None:
        return "no request"
    for message in final.messages:
        text = message_text(message)
        if task not in text:
            continue
        if message.get("role") == "user":
            return "pinned, marked as the current request" if "current request" in text else "the user's own message"
        return "kept among the summary's user words" if message.get("role") == "system" else "elsewhere"
    return "missing"


def rewrites(chats: list[Sent]) -> int:
    """Rounds whose request did not extend the one before (earlier messages changed: digests, a summary)."""
    count = 0
    for before, now in zip(chats, chats[1:], strict=False):
        if now.messages[: len(before.messages)] != before.messages:
            count += 1
    return count


def report(run: Run) -> str:
    chats = [s for s in run.sent if s.kind == "chat"]
    over = [s for s in run.sent if max(s.tokens, s.reported or 0) > run.window]
    refused = [s for s in run.sent if s.refused_as_too_long]
    summaries = [s for s in run.sent if s.kind == "summary"]
    inside = [s for s in summaries if chats and s.started > chats[0].started]
    summary_tokens = sum(s.tokens + estimate_tokens([{"role": "assistant", "content": s.reply}]) for s in summaries)
    final = run.final_request
    final_text = final.text if final is not None else ""
    answered = set(FACT.findall(run.reply)) & set(run.facts)
    visible = set(FACT.findall(final_text)) & set(run.facts)
    where = goal_where(final, task_text(run.files))
    largest = max((max(s.tokens, s.reported or 0) for s in run.sent), default=0)
    sent_tokens = sum(s.tokens for s in chats)
    rows = [
        ["turn ended", f"{run.status}" + (f" ({run.error[:90]})" if run.error else "")],
        ["tool rounds completed / parts read", f"{run.rounds} / {run.parts_read} of {run.files}"],
        ["requests sent (chat, summary, other own calls)", _kinds(run.sent)],
        ["requests over the window (goal 0)", f"{len(over)} of {len(run.sent)}"],
        ["refused by the server as too long", str(len(refused))],
        ["largest request / window", f"{largest:,} / {run.window:,} tokens ({largest / run.window:.2f}x)"],
        [
            "chat tokens sent / keep-everything baseline",
            f"{sent_tokens:,} / {run.baseline_tokens:,} ({sent_tokens / max(1, run.baseline_tokens):.2f}x)",
        ],
        ["user's goal answerable at the end", f"{'yes' if where not in ('missing', 'no request') else 'no'} ({where})"],
        [
            "FACT numbers answerable at the end (answer or last request read)",
            f"{len(answered | visible)}/{len(run.facts)} (in the answer {len(answered)}, in the last request read "
            f"{len(visible)})",
        ],
        ["compactions inside the turn (rounds that rewrote earlier messages)", str(rewrites(chats))],
        [
            "summarizer calls (inside the turn) / tokens spent (estimate, in + out)",
            f"{len(summaries)} ({len(inside)}) / {summary_tokens:,}",
        ],
        ["compressions the runner reported (their summarizer calls)", _reported(run.reports)],
        ["notices in the chat", str(len(run.notices))],
        ["wall time", f"{run.seconds:.1f} s"],
    ]
    title = (
        f"Agentic turn: {run.agent}, {run.files} files, window {run.window:,}"
        + (f", chat replies capped at {run.reply_cap} tokens" if run.reply_cap else "")
        + (" (enforced by the fake, llama.cpp's words)" if run.enforced else "")
        + ("" if run.agent != "fake" or run.enforced else " (not enforced: this fake server cannot)")
    )
    per_request = [
        [
            str(n),
            s.kind,
            f"{s.started - run.turn_start:.1f}",
            f"{s.tokens:,}",
            f"{s.reported:,}" if s.reported is not None else "-",
            "OVER" if max(s.tokens, s.reported or 0) > run.window else "",
            (s.error[:70] + (" (too long)" if s.refused_as_too_long else "")) if s.error else "",
        ]
        for n, s in enumerate(run.sent, start=1)
    ]
    return "\n".join(
        [
            table(title, ["measure", "value"], rows),
            table(
                "  its requests",
                ["#", "kind", "at s", "tokens (est.)", "server's count", "over", "error"],
                per_request,
            ),
            *(f"  notice: {n.strip()[:200]}" for n in run.notices),
            "  final answer: " + (run.reply.strip().replace("\n", " ")[:400] or "(none)"),
        ]
    )


def _reported(reports: list[Any]) -> str:
    calls = sum(int(getattr(r, "summarizer_calls", 0) or 0) for r in reports)
    triggers = sorted({str(getattr(r, "trigger", "") or "?") for r in reports})
    return f"{len(reports)} ({calls})" + (f", triggers: {', '.join(triggers)}" if reports else "")


def _kinds(sent: list[Sent]) -> str:
    count = {k: sum(s.kind == k for s in sent) for k in ("chat", "summary", "warm-up", "own")}
    return f"{len(sent)} ({count['chat']}, {count['summary']}, {count['warm-up'] + count['own']})"


def run_fake(files: list[int], windows: list[int]) -> str:
    from tests.helpers.fake_openai import FakeOpenAIServer

    out = []
    for n in files:
        for window in windows:
            rules = fake_rules(window)
            with FakeOpenAIServer(models=(FAKE_MODEL,), rules={FAKE_MODEL: rules} if rules else None) as server:
                server.set_default(agent_reply(n))
                run = run_one(server.base_url, FAKE_MODEL, n, window, real=False)
                run.enforced = rules is not None
            out.append(report(run))
            print(out[-1], flush=True)
    return "\n".join(out)


def run_real(
    base_url: str, model: str, files: list[int], windows: list[int], budget: float | None, reply_cap: int | None
) -> str:
    out = []
    for n in files:
        for window in windows:
            run = run_one(base_url, model, n, window, real=True, budget=budget, reply_cap=reply_cap)
            out.append(report(run))
            print(out[-1], flush=True)
    return "\n".join(out)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", help="a real OpenAI-compatible server (omit: the fake agent)")
    parser.add_argument("--model", help="the real server's model name")
    parser.add_argument("--files", default=None, help="comma-separated file counts (fake: 10,30; real: 10)")
    parser.add_argument("--windows", default="8192,16384", help="comma-separated windows in tokens")
    parser.add_argument("--budget-minutes", type=float, default=None, help="real runs: stop a turn after this")
    parser.add_argument(
        "--reply-cap", type=int, default=300, help="real runs: cap each chat reply at this many tokens (0: none)"
    )
    args = parser.parse_args()
    logging.basicConfig(format="  %(name)s: %(message)s")
    logging.getLogger("okbot.compression").setLevel(logging.INFO)
    windows = _ints(args.windows)
    if args.base_url:
        if not args.model:
            parser.error("--model is needed with --base-url")
        budget = args.budget_minutes * 60 if args.budget_minutes else None
        run_real(args.base_url, args.model, _ints(args.files or "10"), windows, budget, args.reply_cap or None)
    else:
        run_fake(_ints(args.files or "10,30"), windows)


if __name__ == "__main__":
    main()
