"""Provider faults, counted: each fault the issue lists, through the real runner and the fake server.

For every fault: the turn ends with a clear message, what the user saw is kept (interrupted or
error), Retry then completes the turn, and the record reopens with nothing lost and no problem.
"""

from __future__ import annotations

import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import setup_env, table
from okbot.core.turn.request import Retry, Send

NEVER_END_SECONDS = 2.0  # the reply-duration guard used for the never-ending stream
TIMEOUT_SECONDS = 1.0


@dataclass
class Outcome:
    fault: str
    status: str
    message: str
    kept_chars: int
    retry_status: str
    lost: int
    problems: int

    @property
    def survived(self) -> bool:
        """Clear message (or read anyway), nothing lost, the record clean, and Retry completed (or, after a
        reply read whole despite the fault, refused: there is nothing to run again)."""
        retried = self.retry_status == "complete" or (self.status == "complete" and self.retry_status == "refused")
        return retried and self.lost == 0 and self.problems == 0


def _faults() -> dict[str, tuple[list, dict]]:
    from tests.helpers.fake_openai import Reply

    return {
        "429 with Retry-After (persisting)": ([Reply(status=429, retry_after=0.01)] * 3, {"max_retries": 2}),
        "500": ([Reply(status=500)] * 3, {"max_retries": 2}),
        "401": ([Reply(status=401)], {}),
        "timeout (no first byte)": (
            [Reply(text="late", first_byte_delay=10)] * 2,
            {"timeout": TIMEOUT_SECONDS, "max_retries": 1},
        ),
        "connection refused": ([], {"base_url": "refused", "max_retries": 1}),
        "cut mid-stream": ([Reply(text="partial words here", chunk_chars=3, cut_after_chunks=3)], {}),
        "malformed SSE": ([Reply(text="some text then junk", chunk_chars=4, malformed_chunk_at=2)], {}),
        "wrong content type": ([Reply(text="fine anyway", wrong_content_type=True)], {}),
        "never-ending stream": ([Reply(text="and on ", never_end=True)], {"max_reply_seconds": NEVER_END_SECONDS}),
        "50 MB reply": ([Reply(huge_bytes=50_000_000, chunk_chars=65536)], {}),
    }


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there once the socket is closed


def _one(fault: str, replies: list, options: dict) -> Outcome:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-stress-faults-")))
    from okbot.core.session import SessionStore
    from okbot.core.sources import ContextSources
    from okbot.core.turn.outcome import FinishedTurn, TurnCallbacks
    from okbot.core.turn.runner import TurnRunner
    from okbot.core.workspace import Workspace
    from okbot.llm.openai_backend import OpenAIProvider
    from tests.helpers.env import provider_for, settings_for
    from tests.helpers.fake_openai import FakeOpenAIServer, Reply

    with FakeOpenAIServer() as server:
        settings_for(server)
        ws = Workspace()
        target = ws.ensure_default()
        sources = ContextSources(ws)
        options = dict(options)
        base_url = _closed_port_url() if options.pop("base_url", None) == "refused" else server.base_url
        faulty = OpenAIProvider(base_url, None, sleep=lambda _s: None, **options)
        server.enqueue(*replies)
        seen: list[str] = []
        result = TurnRunner(sources, faulty).run(target, Send("go"), callbacks=TurnCallbacks(on_delta=seen.append))
        faulty.close()
        healthy = provider_for(server)
        server.enqueue(Reply(text="Recovered."))
        try:
            retry_status = TurnRunner(sources, healthy).run(target, Retry()).status
        except FinishedTurn:  # the reply was read whole: Retry refuses, writing nothing (Regenerate is for that)
            retry_status = "refused"
        healthy.close()
        reopened = SessionStore(target.session_path)
        items = list(reopened.iter_items())
        kept = next((it for it in items if it["type"] == "assistant"), None)  # what the faulty turn left
        lost = 0 if kept is not None and kept["content"] == "".join(seen) else 1
        replies = 1 if retry_status == "refused" else 2
        lost += 0 if [it["type"] for it in items] == ["user", *["assistant"] * replies] else 1
        message = str(result.error) if result.error else "(read despite the fault)"
        return Outcome(
            fault,
            result.status,
            message,
            len(kept["content"]) if kept else 0,
            retry_status,
            lost,
            len(reopened.problems),
        )


def run(count: int | None = None) -> str:
    """Every fault once (``count`` limits how many, for a quick look)."""
    faults = list(_faults().items())[: count or None]
    outcomes: list[Outcome] = []
    started = time.monotonic()
    for fault, (replies, options) in faults:
        outcomes.append(_one(fault, replies, options))
    rows = [
        [
            o.fault,
            o.status,
            o.message[:70],
            f"{o.kept_chars:,}",
            o.retry_status,
            str(o.lost),
            "yes" if o.survived else "NO",
        ]
        for o in outcomes
    ]
    survived = sum(o.survived for o in outcomes)
    return table(
        f"Provider faults: {survived} of {len(outcomes)} survived ({time.monotonic() - started:.1f} s)",
        ["fault", "turn", "message", "kept chars", "retry", "lost", "survived"],
        rows,
    )


def outcomes(count: int | None = None, *, pick: Callable[[str], bool] = lambda _f: True) -> list[Outcome]:
    """The outcomes themselves (for the test)."""
    return [_one(f, r, o) for f, (r, o) in list(_faults().items())[: count or None] if pick(f)]


if __name__ == "__main__":
    print(run())
