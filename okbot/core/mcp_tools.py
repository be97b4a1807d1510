"""The tools of the MCP servers an assistant may use, as :class:`~okbot.core.tools.Tool`\\ s.

Each is offered as ``<server>__<tool>`` with its fitted schema and goes through the same guard as the
local tools (offered? valid arguments? approved? within the turn's call and time budgets?). Its
approval is the server's (or that tool's own) in settings; its result is capped like a local tool's,
recorded with ``source`` ``mcp:<server>`` so the model reads it under a label naming the server, and
digested for the summarizer and the collapsed rows like any tool result.

Together they take at most :data:`WINDOW_SHARE` of the model's context window (their entries in the
request and their lines in the tool notes): the tools past that are not offered, and
:func:`fit_mcp_tools` says which server was cut and why, so a server listing thousands of tools
cannot make every request too big for the window.
"""

from __future__ import annotations

import json
from typing import Any

from okbot.core.items import MCP_PREFIX
from okbot.core.tokens import approx_count
from okbot.core.tools import Tool, ToolContext, ToolOutcome
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.mcp.hub import McpHub, McpTool
from okbot.storage.errors import OkBotError

RESULT_CAP_CHARS = 30_000  # what the model reads of one result at most (a local command's output: 30,000 bytes)
NOTE_CHARS = 300  # of a tool's description's first line, in the tool-notes block
DESCRIPTION_CHARS = 2_000  # of its whole description, in the request's tools entry
WINDOW_SHARE = 0.25  # of the model's context window, for all the MCP tools of a request together


def mcp_tools(hub: McpHub, target: Target, window: int) -> list[Tool]:
    """The tools of the servers ``target`` may use that are not known to be down, servers in the order
    the assistant lists them, tools in the order each server lists them (stable: the prompt's prefix),
    within :data:`WINDOW_SHARE` of ``window`` tokens."""
    return fit_mcp_tools(hub, target, window)[0]


def fit_mcp_tools(hub: McpHub, target: Target, window: int) -> tuple[list[Tool], list[str]]:
    """``(the tools offered, why fewer were offered than the servers list)``: each server cut to the hub's
    cap, and all of them to :data:`WINDOW_SHARE` of ``window`` (a server's tools past it are left out)."""
    room = int(window * WINDOW_SHARE)
    tools: list[Tool] = []
    cuts: list[str] = []
    for server in target.mcp_servers:
        if not hub.usable(server):
            continue
        if (cut := hub.cut(server)) is not None:
            cuts.append(cut[0])
        offered = [_tool(hub, tool) for tool in hub.tools_of(server)]
        costs = [_tokens(tool) for tool in offered]
        kept = 0
        while kept < len(offered) and costs[kept] <= room:
            room -= costs[kept]
            kept += 1
        if kept < len(offered):
            cuts.append(
                translate(
                    "mcp_tools",
                    "MCP server {server}: only {kept} of its {count} tools are offered: all of them would take about "
                    "{tokens} tokens, over a quarter of the model's {window}-token window.",
                ).format(
                    server=server,
                    kept=kept,
                    count=len(offered),
                    tokens=f"{sum(costs):,}",
                    window=f"{window:,}",
                )
            )
        tools += offered[:kept]
    return tools, cuts


def _tokens(tool: Tool) -> int:
    """About what ``tool`` adds to a request: its ``tools`` entry and its line in the tool notes."""
    return approx_count(json.dumps(tool.spec(), ensure_ascii=False)) + approx_count(f"{tool.name}: {tool.note}")


def _tool(hub: McpHub, tool: McpTool) -> Tool:
    def run(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        seconds = min(float(hub.settings.get("mcp.callSeconds")), ctx.seconds_left)
        result = hub.call(tool.offered, args, timeout=max(1.0, seconds), cancel=ctx.cancel)
        return ToolOutcome(cap(result.text), ok=result.ok, source=MCP_PREFIX + tool.server)

    def approval(settings: Any) -> str:
        try:
            return settings.mcp_servers.get(tool.server).approval_of(tool.name)
        except OkBotError:  # removed meanwhile: nothing of it runs
            return "deny"

    first_line = (tool.description.splitlines() or [""])[0].strip()
    note = f"{first_line[:NOTE_CHARS]} (MCP server {tool.server})".strip()
    description = f"{tool.description[:DESCRIPTION_CHARS]}\n(A tool of the MCP server {tool.server}.)".strip()
    return Tool(
        name=tool.offered,
        note=note,
        parameters=tool.parameters,
        run=run,
        approval_of=approval,
        description=description,
    )


def cap(text: str) -> str:
    """At most :data:`RESULT_CAP_CHARS` characters, with a note of what was cut."""
    if len(text) <= RESULT_CAP_CHARS:
        return text
    return (
        text[:RESULT_CAP_CHARS] + f"\n[app note: the result was cut: the first {RESULT_CAP_CHARS:,} of its "
        f"{len(text):,} characters are shown]"
    )
