"""Summary + Buffer beside the peers' strategies: the same conversations, model, window and counter.

Five strategies play the scenarios of :mod:`benchmarks.strategy_scenarios` (a queue of pull requests with a
constraint, a permission and an interruption rule; a detour and return; the queue in Chinese; one long tool
turn; a squad):

- the four peers of :mod:`benchmarks.strategy_peers` (truncation, rewrite summary, Codex-style, structured
  rewrite), each a loop over the transcript that builds every request, tool rounds included;
- **OkBot**: the real ``make_turn_runner`` (``build_context``, the ``Compressor`` before and inside the turn), as
  the app and the CLI run it, with its own counter, threshold, kept words and summarizer; memory upkeep after a
  turn is left out (it is not context management, and on a slow real model it would double the run).

Every request goes through one **front server** on 127.0.0.1 (the fake OpenAI-compatible server of the tests):
it refuses requests over the window with llama.cpp's words, counting with :func:`benchmarks.sent.estimate_tokens`
(the peers count with the same rule, so they never misjudge it); it reports that count as ``prompt_tokens`` and,
as a prompt cache with one slot would (llama.cpp's), the tokens of the prefix shared with its previous request as
``prompt_tokens_details.cached_tokens``; it scripts what the bench does not measure (the tool turn's
``read_file`` calls, one part at a time until the request shows every part read; a squad captain's delegation
and the member's scripted answer); everything else it answers with **the model**: with ``--base-url`` the real
server (tool messages turned into plain text for it, replies capped, sampling seeded by the run's seed, identical
requests answered once), else a fake model that writes faithful OkBot summaries, extractive peer summaries and
answers questions from what the request shows.

**Probes** (scored by the program, exact strings; see the scenarios module) are checked on every request that
follows a compression (a request that does not extend the one before it: something was summarized or dropped)
and on the last request of the conversation: *present*. After the last turn each probe's question is asked of the
model, with the last request as its context: *answered*. **Cost**: summarizer tokens (in + out), chat prompt
tokens, OkBot's other own calls (topic checks, memory), the exact-prefix share between consecutive chat requests
(characters of the serialized request a prompt cache can reuse), and the cached tokens the server reported.
Every cell is the median (and range) of ``--seeds`` runs.

    python -m benchmarks.bench_strategies --fake                      # every strategy and scenario, fake model
    python -m benchmarks.bench_strategies --base-url URL --model NAME # the real model (see README for the budget)
    python -m benchmarks.bench_strategies --fake --json               # one object per strategy x scenario x probe
"""

from __future__ import annotations

import argparse
import bisect
import dataclasses
import hashlib
import json
import logging
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import setup_env, table
from benchmarks.sent import Recorder, Sent, estimate_tokens, message_text
from benchmarks.strategy_peers import CODEX_ASK, PEERS, REWRITE_ASK, STRUCTURED_ASK, Peer, PeerContext
from benchmarks.strategy_scenarios import SCENARIOS, Probe, Scenario, Step
from okbot.core.turn.request import Send

STRATEGIES = ["truncation", "rewrite", "codex", "structured", "okbot"]
FAKE_MODEL = "qwen"
PERSONA = "You are a careful assistant who helps the user with software work. Be brief."
PART = re.compile(r"\bpart(\d+)\.txt\b")
READ_FILE_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "read a UTF-8 text file of the workspace",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
}


@dataclass
class Config:
    window: int = 4096
    reply_cap: int = 64  # chat replies, tokens
    summary_cap: int = 512  # the peers' summary calls, tokens
    answer_cap: int = 48  # the probes' questions, tokens
    seeds: int = 3
    base_url: str | None = None  # the real model; None: the fake model
    model: str = FAKE_MODEL
    temperature: float = 0.7
    turns: dict[str, int] = field(default_factory=dict)  # scenario -> its size (default: the scenario's own)
    # chat replies written by the fake model even with a real one (its summaries and answers stay real): a
    # small machine's real run then pays only for what the strategies differ in
    scripted_replies: bool = False


# -- the front server ----------------------------------------------------------------------------------------------
class Front:
    """The one server every strategy talks to (see the module docstring)."""

    def __init__(self, cfg: Config) -> None:
        from tests.helpers.fake_openai import FakeOpenAIServer, llama_server_rules

        self.cfg = cfg
        self.server = FakeOpenAIServer(models=(cfg.model,), rules={cfg.model: llama_server_rules(cfg.window)})
        self.server.set_default(self.reply)
        self.scenario: Scenario | None = None
        self.step: Step | None = None
        self.seed = 0
        self.member_tools: dict[str, str] = {}  # member name -> its ask_ tool (OkBot's squad)
        self._previous = ""  # the last prompt (one slot's prompt cache)
        self._answers: dict[str, str] = {}  # identical requests to the real model, answered once
        self.model_seconds = 0.0
        self.model_calls = 0

    def __enter__(self) -> Front:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def reply(self, body: dict[str, Any]) -> Any:
        from tests.helpers.fake_openai import Reply

        scripted = self._scripted(body)
        reply = scripted if scripted is not None else Reply(text=self.model(body))
        prompt = serialize(body.get("messages") or [], body.get("tools"))
        shared = common_prefix(prompt, self._previous)
        self._previous = prompt
        tokens = estimate_tokens(body.get("messages") or [], body.get("tools"))
        cached = round(tokens * shared / max(1, len(prompt)))
        reply.usage = {
            "prompt_tokens": tokens,
            "completion_tokens": max(1, len(reply.text) // 4),
            "total_tokens": tokens + max(1, len(reply.text) // 4),
            "prompt_tokens_details": {"cached_tokens": cached},
        }
        return reply

    # what the bench scripts (not measured)
    def _scripted(self, body: dict[str, Any]) -> Any:
        from tests.helpers.fake_openai import Reply, tool_call
        from tests.helpers.fake_squad import speaker

        step, sc = self.step, self.scenario
        if step is None or sc is None:
            return None
        messages = body.get("messages") or []
        if step.tools and body.get("tools"):
            # what the request shows was read: the user's own words (naming the first part) are no evidence
            seen = "\n".join(message_text(m) for m in messages).replace(step.user, "")
            read = {int(n) for n in PART.findall(seen)}
            unread = [i for i in range(len(sc.files)) if i not in read]
            if unread:
                return Reply(tool_calls=[tool_call("read_file", {"path": f"part{unread[0]}.txt"})])
        if step.member and self.member_tools:
            name, said = step.member
            who = speaker(body)
            if who == name:
                return Reply(text=said)
            if who == "captain" and not any(m.get("role") == "tool" and said in message_text(m) for m in messages):
                return Reply(tool_calls=[tool_call(self.member_tools[name], {"task": step.user})])
        return None

    # the model
    def model(self, body: dict[str, Any], probe: Probe | None = None) -> str:
        started = time.monotonic()
        try:
            if self.cfg.base_url and not (self.cfg.scripted_replies and probe is None and _is_reply(body)):
                return self._real(body)
            return fake_model(body, probe)
        finally:
            self.model_seconds += time.monotonic() - started
            self.model_calls += 1

    def _real(self, body: dict[str, Any]) -> str:
        cap = self.cfg.reply_cap if _is_chat(body) else self.cfg.summary_cap
        asked = body.get("max_tokens") or body.get("max_completion_tokens") or cap
        payload = {
            "model": self.cfg.model,
            "messages": plain_messages(body.get("messages") or []),
            "max_tokens": min(int(asked), max(cap, self.cfg.summary_cap)),
            "temperature": body.get("temperature", self.cfg.temperature),
            "seed": self.seed,
            "stream": False,
        }
        key = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        if key not in self._answers:
            status, data = post_json(f"{self.cfg.base_url.rstrip('/')}/chat/completions", payload)
            if status != 200:
                raise RuntimeError(f"the real server answered {status}: {json.dumps(data)[:300]}")
            self._answers[key] = data["choices"][0]["message"].get("content") or ""
        return self._answers[key]

    def ask(self, request: list[dict[str, Any]], probe: Probe) -> str:
        """The probe's question after ``request`` (straight to the model: the question is not the strategy's)."""
        body = {
            "model": self.cfg.model,
            "messages": [*request, {"role": "user", "content": probe.question}],
            "max_tokens": self.cfg.answer_cap,
        }
        return self.model(body, probe)


def _is_chat(body: dict[str, Any]) -> bool:
    from tests.helpers.fake_summarizer import is_summarizer_request

    last = message_text((body.get("messages") or [{}])[-1])
    return not is_summarizer_request(body) and not any(a in last for a in (REWRITE_ASK, CODEX_ASK, STRUCTURED_ASK))


def _is_reply(body: dict[str, Any]) -> bool:
    """A chat reply to the user (not a summary, a topic check or a memory extraction)."""
    from tests.helpers.fake_memory import is_extraction_request
    from tests.helpers.fake_summarizer import TOPIC_QUESTION

    last = message_text((body.get("messages") or [{}])[-1])
    return _is_chat(body) and TOPIC_QUESTION not in last and not is_extraction_request(body)


def plain_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages a server without tool support reads: calls and results as text (the same for every strategy)."""
    out = []
    for m in messages:
        role = m.get("role")
        if role == "tool":
            out.append({"role": "user", "content": f"[tool result]\n{message_text(m)}"})
        elif role == "assistant" and m.get("tool_calls"):
            out.append({"role": "assistant", "content": f"[tool call] {message_text(m)}"})
        else:
            text = message_text(m)
            out.append({"role": role, "content": f"{m['name']}: {text}" if m.get("name") else text})
    return out


def fake_model(body: dict[str, Any], probe: Probe | None) -> str:
    """A model that writes from the request alone: OkBot's summaries as a careful model does, the peers'
    summaries as the lines of the history that carry ids and rules,
    chat replies that name the pull request asked for, and answers built from what the request shows."""
    from tests.helpers.fake_memory import careful_answer, is_extraction_request
    from tests.helpers.fake_summarizer import TOPIC_QUESTION, faithful_text, is_summarizer_request

    messages = body.get("messages") or []
    last = message_text(messages[-1]) if messages else ""
    if probe is not None:
        shown = "\n".join(message_text(m) for m in messages[:-1])
        named = [e for e in probe.expect if e in shown]
        return " ".join(named) if named else "I do not know."
    if is_summarizer_request(body):
        return faithful_text(body)
    if is_extraction_request(body):
        return json.dumps(careful_answer(body))
    if TOPIC_QUESTION in last:
        return "no"
    if body.get("max_tokens") == 1:
        return "ok"
    if any(a in last for a in (REWRITE_ASK, CODEX_ASK, STRUCTURED_ASK)):
        return _extractive(messages)
    asked = re.findall(r"PR-\d+", last)
    return f"On it: {asked[-1]}." if asked else "Noted."


def _extractive(messages: list[dict[str, Any]]) -> str:
    """A careful summary of the request's history: the first line, every line that sets direction or names
    an id, a path or an error, then the newest lines that fit, within ~1,400 characters (LobeChat's 400
    tokens)."""
    from okbot.core.digest import STRONG_DIRECTIVE, directive_grade

    asks = (REWRITE_ASK, CODEX_ASK, STRUCTURED_ASK)
    text = "\n".join(message_text(m) for m in messages[1:] if message_text(m) not in asks)
    for ask in asks:
        text = text.replace(ask, "")
    lines = [re.sub(r"</?\w+>", "", ln).strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("[")]  # CI log rows carry nothing to keep
    key = [ln for ln in lines if directive_grade(ln) == STRONG_DIRECTIVE or re.search(r"[A-Z]\d{3}|/\w", ln)]
    chosen = list(dict.fromkeys([*lines[:1], *key]))
    while sum(len(c) + 1 for c in chosen) > 1400 and len(chosen) > 1:
        chosen.pop(1)  # too many key lines: the oldest after the first goes first
    for ln in reversed(lines):  # then the newest lines, as room allows
        if ln not in chosen and sum(len(c) + 1 for c in chosen) + len(ln) + 1 <= 1400:
            chosen.append(ln)
    return "\n".join(chosen)


def serialize(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> str:
    """A request as the characters a server's prompt starts with: tools first, then the messages in order."""
    head = json.dumps(tools, sort_keys=True) if tools else ""
    return head + "".join(f"\x00{m.get('role')}\x01{message_text(m)}" for m in messages)


def common_prefix(a: str, b: str) -> int:
    """Characters ``a`` and ``b`` share from the start."""
    return len(os.path.commonprefix([a, b]))


# -- one run ----------------------------------------------------------------------------------------------------------
@dataclass
class Run:
    strategy: str
    scenario: str
    seed: int
    sent: list[Sent] = field(default_factory=list)
    step_starts: list[int] = field(default_factory=list)  # where in ``sent`` each scripted step began
    checkpoints: list[dict[str, float]] = field(default_factory=list)  # probe -> present, per checkpoint
    answered: dict[str, float | None] = field(default_factory=dict)
    compressions: int = 0
    refused: int = 0
    dropped: int = 0
    seconds: float = 0.0
    error: str = ""

    def chats(self) -> list[Sent]:
        return [s for s in self.sent if s.kind == "chat"]

    def read(self) -> list[tuple[int, Sent]]:
        """``(step, request)`` of the chat requests the model read (not refused)."""
        return [
            (bisect.bisect_right(self.step_starts, i) - 1, s)
            for i, s in enumerate(self.sent)
            if s.kind == "chat" and not s.error
        ]


def post_json(url: str, payload: dict[str, Any]) -> tuple[int, Any]:
    """POST ``payload``; ``(status, the JSON body)``, error statuses included."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url, json.dumps(payload).encode(), {"Content-Type": "application/json", "Authorization": "Bearer none"}
    )
    try:
        with urllib.request.urlopen(request, timeout=3600) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        body = exc.read()
        try:
            return exc.code, json.loads(body)
        except ValueError:
            return exc.code, {"error": body.decode("utf-8", "replace")}


def _post(front: Front, body: dict[str, Any], kind: str, log: list[Sent]) -> dict[str, Any]:
    sent = Sent(
        kind, list(body["messages"]), body.get("tools"), estimate_tokens(body["messages"], body.get("tools")), 0
    )
    log.append(sent)
    status, data = post_json(f"{front.base_url}/chat/completions", {"model": front.cfg.model, **body})
    if status != 200:
        sent.error = json.dumps(data.get("error") or data)[:300]
        sent.error_kind = "context_length" if "context" in sent.error else ""
        return {}
    usage = data.get("usage") or {}
    sent.reported = usage.get("prompt_tokens")
    sent.cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    message = data["choices"][0]["message"]
    sent.reply = message.get("content") or ""
    return message


def run_peer(front: Front, name: str, sc: Scenario, seed: int) -> Run:
    run = Run(name, sc.name, seed)
    peer: Peer = PEERS[name]()
    cfg = front.cfg
    from okbot.core.context import reply_reserve

    def summarize(messages: list[dict[str, Any]], cap: int) -> str:
        message = _post(front, {"messages": messages, "max_tokens": cap}, "summary", run.sent)
        return message.get("content") or ""

    tools = [READ_FILE_TOOL] if any(s.tools for s in sc.steps) else None
    ctx = PeerContext(cfg.window, reply_reserve(cfg.window), summarize, cfg.summary_cap, tools)
    system = {"role": "system", "content": PERSONA}
    history: list[dict[str, Any]] = []
    for step in sc.steps:
        front.step = step
        run.step_starts.append(len(run.sent))
        history.append({"role": "user", "content": step.user})
        if step.member:
            name_, said = step.member
            history.append({"role": "assistant", "name": name_, "content": said})
        for _round in range(len(sc.files) + 3 if step.tools else 1):
            messages = peer.build(system, history, ctx)
            offer = step.tools and _round < len(sc.files) + 2
            body = {"messages": messages, "max_tokens": cfg.reply_cap, **({"tools": tools} if offer else {})}
            message = _post(front, body, "chat", run.sent)
            calls = message.get("tool_calls") or []
            if not calls:
                if message:
                    history.append({"role": "assistant", "content": message.get("content") or ""})
                break
            history.append({"role": "assistant", "content": message.get("content") or "", "tool_calls": calls})
            for call in calls:
                path = json.loads(call["function"].get("arguments") or "{}").get("path", "")
                content = sc.files.get(path, f"error: no such file: {path}")
                history.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    run.compressions, run.dropped = peer.compressions, peer.dropped
    return run


def run_okbot(front: Front, sc: Scenario, seed: int, home: Path) -> Run:
    setup_env(home)
    from okbot.app.wiring import make_turn_runner
    from okbot.config.settings import Settings
    from okbot.core.local_tools.guard import workspace_dir
    from okbot.core.sources import ContextSources
    from okbot.core.squad import members
    from okbot.core.turn.outcome import TurnCallbacks
    from okbot.core.workspace import Workspace
    from okbot.llm.providers import ProviderPool
    from tests.helpers.fake_squad import speaker

    run = Run("okbot", sc.name, seed)
    settings = Settings.load()
    settings.set("provider.baseUrl", front.base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.model", front.cfg.model)
    settings.set("model.contextWindow", front.cfg.window)  # after the model: the override is per model
    # the tools the peers are offered too (read_file in the tool turn), and OkBot's own search_history
    for tool in (
        "list_dir",
        "write_file",
        "edit_file",
        "run_shell",
        "web_fetch",
        *(() if sc.files else ("read_file",)),
    ):
        settings.set(f"tools.{tool}.approval", "deny")
    if sc.files:
        settings.set("tools.maxRounds", len(sc.files) + 2)
    if front.cfg.base_url:
        settings.set("provider.timeout", 600.0)  # the most the setting takes; a 3k prompt reads in ~3 minutes
        settings.set("tools.turnSeconds", 7200)
    ws = Workspace()
    target = ws.create_assistant("OkBot bench", soul_text=PERSONA)
    if sc.members:
        for name in sc.members:
            ws.create_assistant(name, soul_text=PERSONA)
        target = ws.create_squad("Review", [(n, "release manager" if n == "Bo" else "reviewer") for n in sc.members])
        front.member_tools = {m.target.name: m.tool_name for m in members(target, ws)[0]}
    for path, text in sc.files.items():
        (workspace_dir(target) / path).write_text(text, encoding="utf-8")
    sources = ContextSources(ws)
    sources.loaded_counter(target)
    pool = ProviderPool(settings)
    recorder = Recorder(pool, chat_max_tokens=front.cfg.reply_cap)
    runner = make_turn_runner(sources, recorder)  # build_context and the Compressor (no memory upkeep)
    reports: list[Any] = []
    try:
        for step in sc.steps:
            front.step = step
            run.step_starts.append(len(recorder.sent))
            result = runner.run(target, Send(step.user), callbacks=TurnCallbacks(on_compressed=reports.append))
            if result.status == "error" and not run.error:
                run.error = str(result.error or "")[:200]
    finally:
        pool.close()
        front.member_tools = {}
    # a member's own request answers the captain, not the user: the captain's requests are the chat's
    run.sent = [s for s in recorder.sent if not (s.kind == "chat" and speaker({"messages": s.messages}) in sc.members)]
    run.compressions = sum(1 for r in reports if getattr(r, "ok", False))
    return run


# -- scoring ----------------------------------------------------------------------------------------------------------
def compressed_at(read: list[Sent]) -> list[int]:
    """Indexes of the chat requests that do not extend the one before (outside system messages)."""
    out = []
    for i in range(1, len(read)):
        before = [m for m in read[i - 1].messages if m.get("role") != "system"]
        now = [m for m in read[i].messages if m.get("role") != "system"]
        if [message_text(m) for m in now[: len(before)]] != [message_text(m) for m in before]:
            out.append(i)
    return out


def score(front: Front, run: Run, sc: Scenario) -> None:
    read = run.read()
    run.refused = sum(1 for s in run.chats() if s.error)
    if not read:
        run.error = run.error or "no request was read"
        run.answered = {p.name: 0.0 if p.question else None for p in sc.probes}
        return
    points = compressed_at([s for _step, s in read])
    run.compressions = max(run.compressions, len(points))
    if not points or points[-1] != len(read) - 1:
        points.append(len(read) - 1)
    for i in points:
        step, sent = read[i]
        done = sum(1 for s, _ in read[:i] if s == step)  # the step's requests read before: its tool rounds done
        run.checkpoints.append({p.name: p.present(sent.text) for p in sc.probes_at(step, done)})
    final = read[-1][1].messages
    front.step = None
    for probe in sc.probes:
        run.answered[probe.name] = probe.answered(front.ask(final, probe)) if probe.question else None


def prefix_share(read: list[Sent]) -> float | None:
    shares = []
    for a, b in zip(read, read[1:], strict=False):
        now = serialize(b.messages, b.tools)
        shares.append(common_prefix(now, serialize(a.messages, a.tools)) / max(1, len(now)))
    return statistics.mean(shares) if shares else None


def costs(run: Run) -> dict[str, Any]:
    def out_tokens(s: Sent) -> int:
        return estimate_tokens([{"role": "assistant", "content": s.reply}]) - 3

    summaries = [s for s in run.sent if s.kind == "summary"]
    own = [s for s in run.sent if s.kind in ("own", "warm-up")]
    cached = [s.cached for s in run.chats() if getattr(s, "cached", None) is not None]
    return {
        "summarizer_tokens": sum(s.tokens + out_tokens(s) for s in summaries),
        "summarizer_calls": len(summaries),
        "chat_prompt_tokens": sum(s.tokens for s in run.chats()),
        "chat_requests": len(run.chats()),
        "own_tokens": sum(s.tokens + out_tokens(s) for s in own),
        "prefix_share": prefix_share([s for _step, s in run.read()]),
        "cached_tokens": sum(cached) if cached else None,
        "compressions": run.compressions,
        "refused": run.refused,
        "dropped": run.dropped,
        "seconds": round(run.seconds, 1),
    }


# -- the whole bench --------------------------------------------------------------------------------------------------
def play(
    cfg: Config, strategies: list[str], scenarios: list[str], progress: Any = None, done: list[Run] = ()
) -> list[Run]:
    """Every strategy × scenario × seed, except those ``done`` holds (finished without an error): kept as they are."""
    runs: list[Run] = []
    finished = {(r.strategy, r.scenario, r.seed): r for r in done if not r.error}
    base = Path(tempfile.mkdtemp(prefix="okbot-bench-strategies-"))
    setup_env(base / "peers")
    with Front(cfg) as front:
        for name in scenarios:
            for seed in range(1, cfg.seeds + 1):
                sc = SCENARIOS[name](seed, **({"turns": cfg.turns[name]} if name in cfg.turns else {}))
                for strategy in strategies:
                    if (strategy, name, seed) in finished:
                        runs.append(finished[(strategy, name, seed)])
                        continue
                    front.scenario, front.seed = sc, seed
                    started = time.monotonic()
                    try:
                        if strategy == "okbot":
                            run = run_okbot(front, sc, seed, base / f"okbot-{name}-{seed}")
                        else:
                            run = run_peer(front, strategy, sc, seed)
                        score(front, run, sc)
                    except Exception as exc:  # a run that breaks is reported, the others go on
                        logging.getLogger("bench").exception("run %s/%s/%s failed", strategy, name, seed)
                        run = Run(strategy, name, seed, error=f"{type(exc).__name__}: {exc}"[:200])
                    run.seconds = time.monotonic() - started
                    runs.append(run)
                    if progress:
                        progress(run, front)
    return runs


def save_run(run: Run, path: Path) -> None:
    """Append ``run`` to ``path`` as one JSON line (a long real run keeps what it finished)."""
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(dataclasses.asdict(run), ensure_ascii=False) + "\n")


def load_runs(paths: list[Path]) -> list[Run]:
    """The runs :func:`save_run` wrote; a line that is not one is an error naming the file and line."""
    names = {f.name for f in dataclasses.fields(Run)}
    runs = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                data = json.loads(line)
                sent = [Sent(**s) for s in data.pop("sent")]
                runs.append(Run(**{k: v for k, v in data.items() if k in names}, sent=sent))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise SystemExit(f"{path}:{number}: not a saved run ({exc})") from None
    return runs


def cell(values: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)} if values else {}


def probe_scores(runs: list[Run]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(strategy, scenario, probe) -> the runs' present scores (mean over checkpoints) and answers."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for run in runs:
        for probe in {*run.answered, *(k for c in run.checkpoints for k in c)}:
            entry = out.setdefault((run.strategy, run.scenario, probe), {"runs": []})
            present = [c[probe] for c in run.checkpoints if probe in c]
            entry["runs"].append(
                {
                    "seed": run.seed,
                    "present": statistics.mean(present) if present else 0.0,
                    "answered": run.answered.get(probe),
                    "checkpoints": len(present),
                }
            )
    for entry in out.values():
        entry["present"] = cell([r["present"] for r in entry["runs"]])
        answers = [r["answered"] for r in entry["runs"] if r["answered"] is not None]
        entry["answered"] = cell(answers) if answers else None
    return out


def _fmt(c: dict[str, Any] | None) -> str:
    if not c:
        return "-"
    if c["min"] == c["max"]:
        return f"{c['median']:.2f}"
    return f"{c['median']:.2f} [{c['min']:.2f}–{c['max']:.2f}]"


def _seeds(n: int) -> str:
    return f"{n} seed" + ("s" if n != 1 else "")


def seeds_played(runs: list[Run]) -> str:
    """How many seeds each scenario was played with ("3 seeds", or "queue 3 seeds, chinese 1 seed" when a
    loaded set is uneven: a real run stopped early)."""
    counts = {}
    for run in runs:
        counts.setdefault(run.scenario, set()).add(run.seed)
    if len({len(seeds) for seeds in counts.values()}) <= 1:
        return _seeds(len(next(iter(counts.values()), ())))
    return ", ".join(f"{scenario} {_seeds(len(seeds))}" for scenario, seeds in counts.items())


def report(runs: list[Run], cfg: Config, strategies: list[str], scenarios: list[str]) -> str:
    scores = probe_scores(runs)
    out = []
    mode = f"real model {cfg.model} at {cfg.base_url}" if cfg.base_url else "fake model"
    if cfg.base_url and cfg.scripted_replies:
        mode += ", chat replies scripted"
    for sc_name in scenarios:
        probes = sorted({p for (_s, sc, p) in scores if sc == sc_name}, key=_probe_order)
        seeds = seeds_played([r for r in runs if r.scenario == sc_name])
        rows = []
        for probe in probes:
            row = [probe]
            for strategy in strategies:
                entry = scores.get((strategy, sc_name, probe))
                row.append(f"{_fmt(entry['present'])} / {_fmt(entry['answered'])}" if entry else "-")
            rows.append(row)
        out.append(
            table(
                f"{sc_name}: present in the request / answered ({mode}, window {cfg.window:,}, {seeds})",
                ["probe", *strategies],
                rows,
            )
        )
    totals = overall(runs, strategies)
    rows = [
        [
            s,
            f"{totals[s]['present']:.2f}",
            f"{totals[s]['answered']:.2f}",
            f"{totals[s]['summarizer_tokens']:,.0f}",
            f"{totals[s]['chat_prompt_tokens']:,.0f}",
            f"{totals[s]['own_tokens']:,.0f}",
            f"{totals[s]['prefix_share']:.0%}" if totals[s]["prefix_share"] is not None else "-",
            f"{totals[s]['cached_tokens']:,.0f}" if totals[s]["cached_tokens"] is not None else "not reported",
            f"{totals[s]['compressions']:.1f}",
            f"{totals[s]['refused']:.1f}",
            f"{totals[s]['seconds']:.0f}",
        ]
        for s in strategies
    ]
    out.append(
        table(
            "All scenarios: probe means and cost per run (median over seeds, mean over scenarios)",
            [
                "strategy",
                "present",
                "answered",
                "summarizer tokens",
                "chat prompt tokens",
                "other own calls",
                "prefix share",
                "cached (server)",
                "compressions",
                "refused",
                "s/run",
            ],
            rows,
        )
    )
    if "okbot" in strategies:
        rows = []
        ok = totals["okbot"]
        for s in strategies:
            if s == "okbot":
                continue
            t = totals[s]
            rows.append(
                [
                    s,
                    _ratio(ok["present"], t["present"]),
                    _ratio(ok["answered"], t["answered"]),
                    _ratio(ok["summarizer_tokens"], t["summarizer_tokens"]),
                ]
            )
        out.append(
            table(
                "OkBot against each strategy",
                ["strategy", "probe score (present) OkBot ÷", "answered OkBot ÷", "summarizer tokens OkBot ÷"],
                rows,
            )
        )
    broken = [r for r in runs if r.error]
    out += [f"  run {r.strategy}/{r.scenario}/seed {r.seed}: {r.error}" for r in broken]
    return "\n".join(out)


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×" if b else ("=" if not a else "∞")


def _probe_order(name: str) -> int:
    order = ["constraint", "permission", "goal", "queue position", "next step", "exact reference", "who said it"]
    return order.index(name) if name in order else len(order)


def overall(runs: list[Run], strategies: list[str]) -> dict[str, dict[str, Any]]:
    """Per strategy: the mean over scenarios of each scenario's median over seeds."""
    out: dict[str, dict[str, Any]] = {}
    for s in strategies:
        mine = [r for r in runs if r.strategy == s]
        per: dict[str, list[dict[str, Any]]] = {}
        for r in mine:
            present = [v for c in r.checkpoints for v in c.values()]
            answers = [v for v in r.answered.values() if v is not None]
            per.setdefault(r.scenario, []).append(
                {
                    "present": statistics.mean(present) if present else 0.0,
                    "answered": statistics.mean(answers) if answers else 0.0,
                    **costs(r),
                }
            )
        keys = ["present", "answered", "summarizer_tokens", "chat_prompt_tokens", "own_tokens"]
        keys += ["compressions", "refused", "seconds"]
        entry: dict[str, Any] = {}
        for k in [*keys, "prefix_share", "cached_tokens"]:
            medians = []
            for rows in per.values():
                values = [row[k] for row in rows if row[k] is not None]
                if values:
                    medians.append(statistics.median(values))
            entry[k] = (
                statistics.mean(medians) if medians else (None if k in ("prefix_share", "cached_tokens") else 0.0)
            )
        out[s] = entry
    return out


def as_json(runs: list[Run]) -> list[dict[str, Any]]:
    """One object per strategy x scenario x probe, then one cost object per strategy x scenario."""
    out = []
    for (strategy, scenario, probe), entry in sorted(probe_scores(runs).items()):
        out.append(
            {
                "strategy": strategy,
                "scenario": scenario,
                "probe": probe,
                "score": entry["present"]["median"],
                "range": [entry["present"]["min"], entry["present"]["max"]],
                "answered": entry["answered"]["median"] if entry["answered"] else None,
                "runs": entry["runs"],
            }
        )
    pairs = sorted({(r.strategy, r.scenario) for r in runs})
    for strategy, scenario in pairs:
        mine = [r for r in runs if (r.strategy, r.scenario) == (strategy, scenario)]
        out.append(
            {
                "strategy": strategy,
                "scenario": scenario,
                "cost": [{"seed": r.seed, **costs(r)} for r in mine],
                "errors": [r.error for r in mine if r.error],
            }
        )
    return out


def plot(runs: list[Run], strategies: list[str], path: Path, title: str) -> Path:
    """Bars per strategy: probes present, answered, and summarizer tokens (relative to the largest)."""
    from benchmarks.strategy_plot import bars

    totals = overall(runs, strategies)
    most = max((t["summarizer_tokens"] for t in totals.values()), default=0) or 1
    series = {
        "probes present in the request": [totals[s]["present"] for s in strategies],
        "probes answered by the model": [totals[s]["answered"] for s in strategies],
        "summarizer tokens (÷ the most)": [totals[s]["summarizer_tokens"] / most for s in strategies],
    }
    return bars(path, title, strategies, series)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fake", action="store_true", help="the fake model (the default without --base-url)")
    parser.add_argument("--base-url", help="a real OpenAI-compatible server")
    parser.add_argument("--model", help="its model name")
    parser.add_argument("--window", type=int, default=None, help="tokens (default 4096)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--turns", default="", help="scenario=N,… (queue turns, tool files …)")
    parser.add_argument("--reply-cap", type=int, default=64)
    parser.add_argument("--summary-cap", type=int, default=512)
    parser.add_argument(
        "--scripted-replies",
        action="store_true",
        help="with --base-url: chat replies scripted, summaries and answers from the real model",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--plot", type=Path, default=None, help="write the bar chart here (PNG)")
    parser.add_argument(
        "--save",
        type=Path,
        default=None,
        help="append each finished run here (JSON lines); runs it already holds are not played again (resume)",
    )
    parser.add_argument(
        "--load", type=Path, nargs="+", default=None, help="report the runs saved in these files (nothing is played)"
    )
    args = parser.parse_args()
    if args.base_url and not args.model:
        parser.error("--model is needed with --base-url")
    cfg = Config(
        window=args.window or 4096,
        reply_cap=args.reply_cap,
        summary_cap=args.summary_cap,
        seeds=args.seeds,
        base_url=None if args.fake else args.base_url,
        model=(args.model if args.base_url and not args.fake else FAKE_MODEL),
        turns={k: int(v) for k, v in (kv.split("=") for kv in args.turns.split(",") if kv)},
        scripted_replies=args.scripted_replies,
    )
    strategies = [s for s in args.strategies.split(",") if s]
    scenarios = [s for s in args.scenarios.split(",") if s]
    for name in strategies + scenarios:
        if name not in STRATEGIES and name not in SCENARIOS:
            parser.error(f"unknown strategy or scenario: {name}")
    logging.basicConfig(format="  %(name)s: %(message)s", level=logging.WARNING)

    def progress(run: Run, front: Front) -> None:
        if args.save:
            save_run(run, args.save)
        print(
            f"  {run.strategy:<10} {run.scenario:<8} seed {run.seed}: {run.seconds:6.1f} s, "
            f"{len(run.chats())} chat requests, {run.compressions} compressions"
            + (f", error: {run.error}" if run.error else ""),
            file=sys.stderr,
            flush=True,
        )

    if args.load:
        runs = [r for r in load_runs(args.load) if r.strategy in strategies and r.scenario in scenarios]
        scenarios = [s for s in scenarios if any(r.scenario == s for r in runs)]
    else:
        saved = load_runs([args.save]) if args.save and args.save.exists() else []
        runs = play(cfg, strategies, scenarios, progress, done=saved)
    if args.json:
        for obj in as_json(runs):
            print(json.dumps(obj, ensure_ascii=False))
    else:
        print(report(runs, cfg, strategies, scenarios))
    if args.plot:
        mode = cfg.model if cfg.base_url else "fake model"
        plot(runs, strategies, args.plot, f"Context strategies, {mode}, window {cfg.window:,}, {seeds_played(runs)}")
        print(f"plot: {args.plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
