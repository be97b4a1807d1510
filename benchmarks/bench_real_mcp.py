"""MCP tools with a real model: does it call them, with arguments the server takes, and use the result?

One assistant may use two real stdio servers: the published ``mcp-server-time`` and ours (its ``echo``).
Each question is one turn through the turn runner against the model at ``--base-url``, in a chat of its
own (a 1.5B model that saw one tool result in its chat writes the next "result" itself, tags and all,
instead of calling), with only the MCP tools offered (a small model then picks among them, not among 20).
Reported per question: the calls made, how many the server refused (wrong arguments), whether the
answer uses the result, and the seconds taken.

    python -m benchmarks.bench_real_mcp --base-url URL --model NAME
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import setup_env, table
from okbot.core.turn.request import Send

SERVER_SCRIPT = str(Path(__file__).resolve().parents[1] / "tests" / "helpers" / "mcp_server.py")

# (question, a check of the final answer against the tool results of that turn)
QUESTIONS = [
    ("What time is it in Tokyo right now? Use your tools.", "hour"),
    ("What day of the week is it in Sydney today? Use your tools.", "weekday"),
    ("Convert 09:30 in America/New_York to Europe/Paris time. Use your tools.", "converted"),
    ("Use the echo tool to repeat the word banana 3 times, and tell me what it returned.", "banana"),
]


def _uses_result(kind: str, results: list[dict], answer: str) -> bool:
    ok = [r for r in results if r.get("ok")]
    if not ok:
        return False
    text = ok[-1]["content"]
    if kind == "banana":
        return "bananabananabanana" in answer.replace(" ", "").lower()
    try:
        data = json.loads(text)
    except ValueError:
        return False
    if kind == "hour":
        clock = str(data.get("datetime", ""))[11:16]
    elif kind == "weekday":
        clock = str(data.get("day_of_week", "")).lower()
        answer = answer.lower()
    else:
        clock = str(data.get("target", {}).get("datetime", ""))[11:16]
    return bool(clock) and clock in answer


def run(base_url: str, model: str) -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-real-mcp-")))
    from okbot.config.mcp import McpServerConfig
    from okbot.config.settings import Settings
    from okbot.core.sources import ContextSources
    from okbot.core.tools import ToolRegistry
    from okbot.core.turn.outcome import TurnCallbacks
    from okbot.core.turn.runner import TurnRunner
    from okbot.core.workspace import Workspace
    from okbot.llm.openai_backend import OpenAIProvider

    settings = Settings.load()
    settings.set("provider.baseUrl", base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.model", model)
    settings.set("model.contextWindow", 8000)
    settings.set("contextCompression.autoTopicCompress", False)
    time_args = ("-m", "mcp_server_time", "--local-timezone", "UTC")
    settings.mcp_servers.add(McpServerConfig("time", command=sys.executable, args=time_args, approval="allow"))
    settings.mcp_servers.add(McpServerConfig("test", command=sys.executable, args=(SERVER_SCRIPT,)))  # asks
    ws = Workspace()
    sources = ContextSources(ws, tools=ToolRegistry([]))  # the MCP tools alone
    runner = TurnRunner(sources, OpenAIProvider(base_url, None, timeout=900, max_retries=1))
    asked: list[str] = []
    rows = []
    called = used = 0
    try:
        for n, (question, kind) in enumerate(QUESTIONS):
            target = ws.set_meta(ws.create_assistant(f"Asker {n}"), "mcpServers", ["time", "test"])
            sources.loaded_counter(target)
            started = time.monotonic()
            result = runner.run(
                target, Send(question), callbacks=TurnCallbacks(ask_approval=lambda n, a: asked.append(n) or True)
            )
            seconds = time.monotonic() - started
            calls = [it for it in result.items if it["type"] == "tool_call"]
            results = [it for it in result.items if it["type"] == "tool_result"]
            refused = sum(1 for r in results if not r.get("ok"))
            good = _uses_result(kind, results, result.reply_text)
            called += bool(calls)
            used += good
            rows.append(
                [
                    question[:48],
                    ", ".join(f"{c['name']}({c.get('arguments', '')[:40]})" for c in calls) or "none",
                    str(refused),
                    "yes" if good else "no",
                    f"{seconds:.0f}",
                    " ".join(result.reply_text.split())[:70],
                ]
            )
    finally:
        sources.close()
    rows.append(["total", f"{called}/{len(QUESTIONS)} turns called a tool", "", f"{used}/{len(QUESTIONS)}", "", ""])
    note = f"approval cards shown (test server asks): {asked.count('test__echo')}"
    return table(
        f"MCP tools with {model} ({note})",
        ["question", "calls (arguments)", "refused", "answer uses the result", "s", "answer begins"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    args = parser.parse_args()
    print(run(args.base_url, args.model))


if __name__ == "__main__":
    main()
