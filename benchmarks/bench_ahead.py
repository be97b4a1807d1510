"""Compress ahead: time from send to first token, at turns that needed a compression and at turns that did not.

A conversation of :data:`TURNS` turns against the fake server, with a window small enough that the
summary is updated every few turns and a summarizer that takes :data:`SUMMARIZER_DELAY` seconds
to answer (a local model is slower still). Chat replies start at once, so the figures are OkBot's
own latency plus whatever compression it waits for.

* **before the request** -- compress-ahead off: the turn that crosses the threshold compresses
  first, and the user waits for the summarizer.
* **ahead** -- after each reply ``Compressor.compress_ahead`` runs on a background thread (as the
  app does on its TaskRunner) and the user sends the next message :data:`THINK_SECONDS` later,
  while the summarizer is still working: the turn does not wait when its request fits.

A turn "needed a compression" when one ran before its request (ahead mode: one started after the
previous reply, or one ran in the turn).
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.common import setup_env, table
from okbot.core.turn.request import Send

TURNS = 24
WINDOW = 8000  # threshold 4800 (ratio 0.6), prepare mark 4000 (prepareRatio 0.5)
KEEP = (4, 8)  # keepRecentMin, keepRecentMax: a few turns between compressions in this small window
SUMMARIZER_DELAY = 2.0
THINK_SECONDS = 0.5  # from the end of a reply to the next message (ahead mode)
QUESTION_WORDS = 120
REPLY_WORDS = 200


def _server_reply(body: dict) -> Any:
    from tests.helpers.fake_openai import Reply
    from tests.helpers.fake_summarizer import faithful, is_summarizer_request

    if is_summarizer_request(body):
        reply = faithful(body)
        reply.first_byte_delay = SUMMARIZER_DELAY
        return reply
    return Reply(text="Answer: " + "detail " * REPLY_WORDS, chunk_chars=64)


def _conversation(server: Any, *, ahead: bool) -> list[tuple[bool, float]]:
    """``(needed a compression, seconds from send to first token)`` per turn."""
    from okbot.config.settings import Settings
    from okbot.core.compression.compressor import Compressor
    from okbot.core.sources import ContextSources
    from okbot.core.turn.outcome import TurnCallbacks
    from okbot.core.turn.runner import TurnRunner
    from okbot.core.workspace import Workspace
    from okbot.llm.openai_backend import OpenAIProvider

    home = Path(tempfile.mkdtemp(prefix="okbot-bench-ahead-"))
    settings = Settings.load(home / "settings.json")
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    settings.set("model.contextWindow", WINDOW)
    settings.set("contextCompression.autoTopicCompress", False)
    settings.set("contextCompression.keepRecentMin", KEEP[0])
    settings.set("contextCompression.keepRecentMax", KEEP[1])
    ws = Workspace(home)
    target = ws.ensure_default()
    sources = ContextSources(ws, settings)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    provider = OpenAIProvider(server.base_url, None)
    compressor = Compressor(sources, provider)
    runner = TurnRunner(sources, provider, compression=compressor)
    turns: list[tuple[bool, float]] = []
    started = threading.Event()  # a compression ahead began since the last message
    background: threading.Thread | None = None
    for i in range(TURNS):
        first: list[float] = []
        compressed: list[Any] = []
        callbacks = TurnCallbacks(
            on_delta=lambda _text, first=first: first.append(time.perf_counter()) if not first else None,
            on_compressed=compressed.append,
        )
        needed_ahead = started.is_set()
        started.clear()
        sent = time.perf_counter()
        runner.run(target, Send(f"Question {i}: " + "context " * QUESTION_WORDS), callbacks=callbacks)
        turns.append((needed_ahead or any(r.ok for r in compressed), first[0] - sent))
        if ahead:
            if background is not None:
                background.join()
            background = threading.Thread(target=lambda: compressor.compress_ahead(target, on_start=started.set))
            background.start()
            time.sleep(THINK_SECONDS)
    if background is not None:
        background.join()
    provider.close()
    return turns


def _row(name: str, turns: list[tuple[bool, float]]) -> list[str]:
    needed = [s * 1000 for n, s in turns if n]
    other = [s * 1000 for n, s in turns if not n]

    def median(values: list[float]) -> str:
        return f"{statistics.median(values):,.0f}" if values else "n/a"

    return [name, f"{len(needed)} of {len(turns)}", median(needed), median(other)]


def run() -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-")))
    from tests.helpers.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        server.set_default(_server_reply)
        rows = [
            _row("before the request", _conversation(server, ahead=False)),
            _row(f"ahead (next message {THINK_SECONDS:g} s after the reply)", _conversation(server, ahead=True)),
        ]
    return table(
        f"Send to first token, median ms ({TURNS} turns, window {WINDOW:,}, summarizer answers after "
        f"{SUMMARIZER_DELAY:g} s)",
        ["compression", "turns that needed one", "needed one", "did not"],
        rows,
    )


if __name__ == "__main__":
    print(run())
