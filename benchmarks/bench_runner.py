"""Runner figures: per-turn overhead excluding model time, and as-sent record growth.

The fake server answers instantly; time spent inside the provider's stream (SDK + HTTP + server)
is measured and subtracted, so what remains is OkBot's own work per turn: reading disk,
build_context, appending items (fsync included), the as-sent record and calibration.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.common import setup_env, table
from okbot.core.turn.request import Send

TURNS = 40
AS_SENT_TURNS = 500


class TimedProvider:
    """Wraps a provider and adds up the time spent inside its stream."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def stream(self, request: Any, cancel: Any = None) -> Iterator[Any]:
        gen = self.inner.stream(request, cancel)
        while True:
            start = time.perf_counter()
            try:
                event = next(gen)
            except StopIteration:
                self.seconds += time.perf_counter() - start
                return
            self.seconds += time.perf_counter() - start
            yield event


def _runner(home: Path, server: Any, session_dir: Path | None) -> tuple[Any, Any, TimedProvider]:
    from okbot.config.settings import Settings
    from okbot.core.sources import ContextSources
    from okbot.core.turn.runner import TurnRunner
    from okbot.core.workspace import Workspace
    from okbot.llm.openai_backend import OpenAIProvider

    settings = Settings.load(home / "settings.json")
    settings.set("provider.baseUrl", server.base_url)
    ws = Workspace(home)
    target = ws.ensure_default()
    if session_dir is not None:
        for name in ("session.jsonl", "session-summary.json"):
            shutil.copyfile(session_dir / name, target.dir / name)
    sources = ContextSources(ws, settings)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    provider = TimedProvider(OpenAIProvider(server.base_url, None))
    return target, TurnRunner(sources, provider), provider


def _overhead_ms(server: Any, count: int) -> tuple[float, float]:
    from benchmarks.bench_core import _session_dir

    home = Path(tempfile.mkdtemp(prefix="okbot-bench-run-"))
    target, runner, provider = _runner(home, server, _session_dir(count))
    runner.run(target, Send("warm up"))
    overheads, totals = [], []
    for i in range(TURNS):
        provider.seconds = 0.0
        start = time.perf_counter()
        runner.run(target, Send(f"question {i} about the plan"))
        total = time.perf_counter() - start
        totals.append(total * 1000)
        overheads.append((total - provider.seconds) * 1000)
    shutil.rmtree(home, ignore_errors=True)
    return statistics.median(overheads), statistics.median(totals)


def _front_end_turns_ms(server: Any, count: int) -> tuple[float, float]:
    """Whole-turn medians the way a front-end runs turns: ``(through the app's one runner, pool, compressor and
    keeper; with a runner, pool and compressor built for each turn, as the desktop did before okbot/app)``. Both
    share the sources and the memory keeper, so what differs is only what is rebuilt per turn."""
    from benchmarks.bench_core import _session_dir
    from okbot.app import OkBotApp
    from okbot.app.wiring import make_turn_runner
    from okbot.config.settings import Settings
    from okbot.core.workspace import Workspace
    from okbot.llm.providers import ProviderPool

    home = Path(tempfile.mkdtemp(prefix="okbot-bench-app-"))
    settings = Settings.load(home / "settings.json")
    settings.set("provider.baseUrl", server.base_url)
    app = OkBotApp(Workspace(home), settings)
    target = app.workspace.ensure_default()
    for name in ("session.jsonl", "session-summary.json"):
        shutil.copyfile(_session_dir(count) / name, target.dir / name)
    app.sources.loaded_counter(target)

    def per_turn_wiring(text: str) -> None:
        pool = ProviderPool(app.settings)
        try:
            make_turn_runner(app.sources, pool, app.keeper).run(target, Send(text))
        finally:
            pool.close()

    def through_the_app(text: str) -> None:
        app.run_turn(target, Send(text))

    medians = []
    for run in (through_the_app, per_turn_wiring):
        run("warm up")
        app.drain(60)
        times = []
        for i in range(TURNS):
            start = time.perf_counter()
            run(f"question {i} about the plan")
            times.append((time.perf_counter() - start) * 1000)
            app.drain(60)  # the memory wrap-up of the turn, outside the measure
        medians.append(statistics.median(times))
    app.close()
    shutil.rmtree(home, ignore_errors=True)
    return medians[0], medians[1]


def _as_sent_growth(server: Any) -> tuple[float, float, int]:
    home = Path(tempfile.mkdtemp(prefix="okbot-bench-assent-"))
    target, runner, _ = _runner(home, server, None)
    naive = 0
    for i in range(AS_SENT_TURNS):
        runner.run(target, Send(f"turn {i}"))
        naive += len(server.chat_requests()[-1]["messages"][0]["content"].encode("utf-8"))
    stored = runner.as_sent(target).disk_bytes()
    shutil.rmtree(home, ignore_errors=True)
    return stored / AS_SENT_TURNS, naive / AS_SENT_TURNS, stored


def run() -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-")))
    from tests.helpers.fake_openai import FakeOpenAIServer, Reply

    with FakeOpenAIServer() as server:
        server.set_default(lambda _body: Reply(text="ok", chunk_chars=64))
        rows, base = [], None
        for count in (1_000, 100_000):
            overhead, total = _overhead_ms(server, count)
            base = base or overhead
            rows.append([f"{count:,}", f"{overhead:.2f}", f"{total:.2f}", f"{overhead / base:.2f}x"])
        per_turn, naive, stored = _as_sent_growth(server)
        shared, rebuilt = _front_end_turns_ms(server, 1_000)
    return "\n".join(
        [
            table(
                f"Runner overhead per turn, model time excluded (median of {TURNS} turns)",
                ["items", "overhead ms", "whole turn ms", "vs 1k"],
                rows,
            ),
            table(
                f"A turn as a front-end runs it, 1,000 items (median of {TURNS} turns, model time included)",
                ["wiring", "whole turn ms", "vs rebuilt per turn"],
                [
                    ["the app's one runner, provider pool and compressor", f"{shared:.2f}", f"{shared / rebuilt:.2f}x"],
                    ["baseline: a runner, pool and compressor built per turn", f"{rebuilt:.2f}", "1.00x"],
                ],
            ),
            table(
                f"As-sent record over {AS_SENT_TURNS} turns",
                ["measure", "bytes"],
                [
                    ["stored per turn (content-addressed blocks + request lines)", f"{per_turn:,.0f}"],
                    ["baseline: storing the instructions text per turn", f"{naive:,.0f}"],
                    ["total on disk", f"{stored:,}"],
                ],
            ),
        ]
    )


if __name__ == "__main__":
    print(run())
