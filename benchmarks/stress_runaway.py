"""A runaway reply: one model reply asking for 10,000 tool calls, through the real runner and the fake server.

An outside attack measured 61 s and 20,000 items written for it (40 calls ran). The turn's call budget
now bounds what one reply can make OkBot record and run; this prints what it costs today.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.common import setup_env, table
from okbot.core.turn.request import Send

CALLS = 10_000


def run(calls: int = CALLS) -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-stress-runaway-")))
    from okbot.core.session import SessionStore
    from okbot.core.sources import ContextSources
    from okbot.core.turn.runner import TurnRunner
    from okbot.core.workspace import Workspace
    from tests.helpers.env import provider_for, settings_for
    from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call

    with FakeOpenAIServer() as server:
        settings_for(server)
        ws = Workspace()
        target = ws.ensure_default()
        sources = ContextSources(ws)
        provider = provider_for(server, max_reply_seconds=600)
        server.enqueue(
            Reply(tool_calls=[tool_call("search_history", {"query": f"q{n}"}) for n in range(calls)]),
            Reply(text="Done."),
        )
        started = time.perf_counter()
        result = TurnRunner(sources, provider).run(target, Send("search everything"))
        seconds = time.perf_counter() - started
        provider.close()
        written = list(SessionStore(target.session_path).iter_items())
    kinds = [it["type"] for it in written]
    return table(
        f"Runaway reply: {calls:,} tool calls in one reply",
        ["turn", "seconds", "items written", "calls recorded", "results", "notices"],
        [
            [
                result.status,
                f"{seconds:.1f}",
                f"{len(written):,}",
                str(kinds.count("tool_call")),
                str(kinds.count("tool_result")),
                str(kinds.count("notice")),
            ]
        ],
    )


if __name__ == "__main__":
    print(run())
