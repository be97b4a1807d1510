"""A small MCP server for tests, written with the official SDK's ``MCPServer``.

Run ``python -m tests.helpers.mcp_server [--never-start | --exit-at-start] [--http PORT]``. Its tools:
``echo`` (text, times), ``big`` (a result of N megabytes), ``crash`` (the process dies mid-call),
``slow`` (sleeps), ``whoami`` (pid and process group, for lifecycle tests), ``env`` (one variable's
value), ``lookup`` (a schema with ``$ref`` / ``oneOf`` that providers refuse, so OkBot simplifies it),
and ``echo_secret`` (writes its argument to stderr, for the redaction test).

``--hostile BEHAVIOUR[,BEHAVIOUR...]`` runs a hand-written JSON-RPC server instead (see :func:`hostile`),
which says what an SDK server never would: a ``$ref`` fan-out or a 5,000-deep schema, thousands of tools, a tool
that runs only as an MCP task,
escape sequences, a tool list it cannot give, junk on stdout, an endless stderr line, a detached
grandchild.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field


class Place(BaseModel):
    city: str
    country: str = "FR"


class Query(BaseModel):
    place: Place
    kind: Literal["weather", "time"] | None = None


def build() -> object:
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("okbot-test-server")

    @app.tool()
    def echo(text: str, times: int = 1) -> str:
        """Repeat the text the given number of times."""
        return text * times

    @app.tool()
    def big(megabytes: Annotated[int, Field(ge=0, le=64)]) -> str:
        """Return a result of this many megabytes."""
        return ("0123456789abcdef" * 64 + "\n") * (megabytes * 1024 * 1024 // 1025)

    @app.tool()
    def crash() -> str:
        """Stop the server in the middle of the call."""
        sys.stderr.write("crash: about to exit with status 3\n")
        sys.stderr.flush()
        os._exit(3)

    @app.tool()
    def slow(seconds: float, mark: str = "") -> str:
        """Wait this many seconds, then answer (first creating the file ``mark``, when given: the call began)."""
        if mark:
            Path(mark).write_text(str(os.getpid()))
        time.sleep(seconds)
        return f"waited {seconds} s"

    @app.tool()
    def whoami() -> str:
        """The server's process id and process group."""
        return f"pid={os.getpid()} pgid={os.getpgid(0)}"

    @app.tool()
    def env(name: str) -> str:
        """The value of one environment variable of the server ("(unset)" when it has none)."""
        return os.environ.get(name, "(unset)")

    @app.tool()
    def lookup(query: Query) -> str:
        """Look a place up."""
        return f"{query.place.city}, {query.place.country}: {query.kind or 'all'}"

    @app.tool()
    def echo_secret(text: str) -> str:
        """Write the text to the server's stderr and answer 'logged'."""
        sys.stderr.write(f"secret seen: {text}\n")
        sys.stderr.flush()
        return "logged"

    return app


ESCAPES = "\x1b]0;owned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[31m"  # title, clipboard write, clear, red


def _fan_out_schema(levels: int = 10, refs: int = 25) -> dict[str, object]:
    """Definitions a0..a9, each with ``refs`` properties referring to the next: a0 written out is refs**levels nodes."""
    defs: dict[str, object] = {
        f"a{i}": {"type": "object", "properties": {f"p{j}": {"$ref": f"#/$defs/a{i + 1}"} for j in range(refs)}}
        for i in range(levels - 1)
    }
    defs[f"a{levels - 1}"] = {"type": "string"}
    return {"type": "object", "properties": {"root": {"$ref": "#/$defs/a0"}}, "$defs": defs}


def _deep_schema(depth: int) -> dict[str, object]:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def _hostile_tools(behaviours: set[str]) -> list[dict[str, object]]:
    tools: list[dict[str, object]] = [
        {"name": "echo", "description": "Repeat the text.", "inputSchema": {"type": "object", "properties": {}}}
    ]
    if "fanout" in behaviours:
        tools.append({"name": "fan", "description": "A fan-out schema.", "inputSchema": _fan_out_schema()})
    if "deep" in behaviours:
        tools.append({"name": "deep", "description": "A deep schema.", "inputSchema": _deep_schema(5000)})
    if "escapes" in behaviours:
        tools[0]["description"] = f"Repeat{ESCAPES} the text.\rSECOND\x07 line\x9b"
    if "tasks" in behaviours:  # as server-everything's simulate-research-query: callable only as an MCP task
        tools += [
            {
                "name": "research",
                "description": "A long research query, run as a task.",
                "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}}},
                "execution": {"taskSupport": "required"},
            },
            {
                "name": "summarise",
                "description": "Callable directly or as a task.",
                "inputSchema": {"type": "object", "properties": {}},
                "execution": {"taskSupport": "optional"},
            },
        ]
    if "many" in behaviours:
        tools += [
            {
                "name": f"tool_{i:04d}",
                "description": f"Tool number {i}, which does one small thing. " * 4,
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        f"field_{j}": {"type": "string", "description": "One field. " * 8} for j in range(12)
                    },
                },
            }
            for i in range(5000)
        ]
    return tools


def _send_huge_list(ident: object) -> None:
    """A 40 MB tools/list answer on one line (2,500 tools of 16 kB), written piece by piece."""
    sys.stdout.write(f'{{"jsonrpc": "2.0", "id": {json.dumps(ident)}, "result": {{"tools": [')
    for i in range(2500):
        tool = {
            "name": f"huge_{i:04d}",
            "description": "Big.",
            "inputSchema": {"type": "object", "description": "x" * 16_000},
        }
        sys.stdout.write(("," if i else "") + json.dumps(tool))
    sys.stdout.write("]}}\n")
    sys.stdout.flush()


def _escapee(pid_file: str) -> None:
    """A grandchild in a session of its own (a double fork and setsid, as a daemon does), its pid in
    ``pid_file``; returns once the file is written."""
    written, told = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            Path(pid_file).write_text(str(os.getpid()))
            os.close(told)  # the pid is in the file
            for fd in (0, 1, 2):
                os.dup2(os.open(os.devnull, os.O_RDWR), fd)
            time.sleep(3600)
        os._exit(0)
    os.close(told)
    os.read(written, 1)  # EOF: the grandchild closed its end
    os.wait()


def hostile(behaviours: set[str]) -> None:
    """A JSON-RPC server on stdin/stdout, written by hand, that does each of ``behaviours``:
    ``fanout``, ``deep``, ``many`` (5,000 tools), ``huge`` (a 40 MB tool list), ``escapes`` (in its name,
    version and a description),
    ``list-error`` (its tool list cannot be read), ``junk`` (lines that are not JSON on stdout),
    ``stderr-line=MB`` (that many megabytes on stderr with no newline), ``escapee=FILE`` (a detached
    grandchild whose pid it writes to FILE). (The SDK passes a server none of OkBot's environment.)"""
    values = dict(b.partition("=")[::2] for b in behaviours)
    behaviours = set(values)
    if "stderr-line" in behaviours:
        chunk = "x" * 65536
        for _ in range(int(values["stderr-line"]) * 16):
            sys.stderr.write(chunk)
        sys.stderr.write("\nready\n")
        sys.stderr.flush()
    if "escapee" in behaviours:
        _escapee(values["escapee"])
    if "deep" in behaviours:
        sys.setrecursionlimit(100_000)  # json.dumps walks the 5,000-deep schema recursively
    tools = _hostile_tools(behaviours)
    name, version = "okbot-hostile", "1.0"
    if "escapes" in behaviours:
        name, version = f"okbot-hostile{ESCAPES}", "1.0\x1b]0;x\x07"

    def send(message: dict[str, object]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        request = json.loads(line)
        method, ident = request.get("method"), request.get("id")
        if ident is None:
            continue  # a notification
        if "junk" in behaviours:
            sys.stdout.write("Starting the hostile server...\nnot json either\n")
        if method == "initialize":
            result: dict[str, object] = {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": version},
            }
        elif method == "tools/list" and "list-error" in behaviours:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": "the tool database is locked"}})
            continue
        elif method == "tools/list" and "huge" in behaviours:
            _send_huge_list(ident)
            continue
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": f"called {request['params']['name']}"}]}
        else:
            result = {}
        send({"jsonrpc": "2.0", "id": ident, "result": result})


def main(argv: list[str]) -> None:
    if "--hostile" in argv:
        hostile(set(argv[argv.index("--hostile") + 1].split(",")))
        return
    if "--exit-at-start" in argv:
        sys.stderr.write("cannot start: the configuration file is missing\n")
        sys.exit(2)
    if "--never-start" in argv:
        time.sleep(3600)
    if "--finish-before-exit" in argv:  # as a server that ends its operation on SIGTERM before it exits
        signal.signal(signal.SIGTERM, lambda *_: None)
    app = build()
    if "--http" in argv:
        app.run("streamable-http", port=int(argv[argv.index("--http") + 1]))  # type: ignore[attr-defined]
    else:
        app.run()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main(sys.argv[1:])
