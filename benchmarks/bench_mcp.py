"""MCP servers: what they cost a turn, against the same turn without them.

Two real stdio servers (ours, written with the SDK, and the published ``mcp-server-time``) serve one
assistant. Figures: their cold start (first use); the per-turn ``prepare`` once they run (what every
turn of that assistant pays); ``build_context`` with their 10 tools against the same assistant with none
(the baseline, measured in the same run); one tool call's round trip (``echo``) and a 1 MB result.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.common import median_ms, setup_env, table

SERVER_SCRIPT = str(Path(__file__).resolve().parents[1] / "tests" / "helpers" / "mcp_server.py")


def run() -> str:
    home = Path(tempfile.mkdtemp(prefix="okbot-bench-mcp-"))
    setup_env(home)
    from okbot.config.mcp import McpServerConfig
    from okbot.core.context import build_context
    from okbot.core.sources import ContextSources
    from okbot.core.workspace import Workspace
    from okbot.mcp.hub import McpHub

    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    settings = sources.settings
    settings.mcp_servers.add(McpServerConfig("test", command=sys.executable, args=(SERVER_SCRIPT,)))
    settings.mcp_servers.add(McpServerConfig("time", command=sys.executable, args=("-m", "mcp_server_time")))
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    rows = []
    try:
        for name in ("test", "time"):  # a fresh hub each time: a first use, cold
            cold = median_ms(lambda n=name: _start_once(McpHub(lambda: settings), n), repeat=3, warmup=0)
            rows.append([f"cold start of {name} (first use)", f"{cold:.0f}", ""])
        base = median_ms(lambda: build_context(target, sources=sources), repeat=200)
        target = ws.set_meta(target, "mcpServers", ["test", "time"])
        hub = sources.mcp
        hub.prepare(["test", "time"])
        prepare = median_ms(lambda: hub.prepare(["test", "time"]), repeat=200)
        with_tools = median_ms(lambda: build_context(target, sources=sources), repeat=200)
        echo = median_ms(lambda: hub.call("test__echo", {"text": "ping"}, timeout=10), repeat=100)
        big = median_ms(lambda: hub.call("test__big", {"megabytes": 1}, timeout=60), repeat=5)
        offered = len(sources.mcp_tools(target))
        rows += [
            ["prepare per turn, both running", f"{prepare:.2f}", ""],
            ["build_context, no MCP tools (baseline)", f"{base:.3f}", "1.00x"],
            [f"build_context with {offered} MCP tools", f"{with_tools:.3f}", f"{with_tools / base:.2f}x"],
            ["call round trip (echo)", f"{echo:.2f}", ""],
            ["call with a 1 MB result", f"{big:.0f}", ""],
        ]
    finally:
        sources.close()
        shutil.rmtree(home, ignore_errors=True)
    return table("MCP servers (two stdio servers, one assistant)", ["figure", "ms (median)", "vs baseline"], rows)


def _start_once(hub: object, name: str) -> None:
    try:
        failed = hub.prepare([name])  # type: ignore[attr-defined]
        if failed:
            raise RuntimeError(failed[name])
    finally:
        hub.close()  # type: ignore[attr-defined]


if __name__ == "__main__":
    print(run())
