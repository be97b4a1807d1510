"""A small MCP server for tests, written with the official SDK's ``MCPServer``.

Run ``python -m tests.helpers.mcp_server [--never-start | --exit-at-start] [--http PORT]``. Its tools:
``echo`` (text, times), ``big`` (a result of N megabytes), ``crash`` (the process dies mid-call),
``slow`` (sleeps), ``whoami`` (pid and process group, for lifecycle tests), ``env`` (one variable's
value), ``lookup`` (a schema with ``$ref`` / ``oneOf`` that providers refuse, so OkBot simplifies it),
and ``echo_secret`` (writes its argument to stderr, for the redaction test).
"""

from __future__ import annotations

import os
import sys
import time
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
    def slow(seconds: float) -> str:
        """Wait this many seconds, then answer."""
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


def main(argv: list[str]) -> None:
    if "--exit-at-start" in argv:
        sys.stderr.write("cannot start: the configuration file is missing\n")
        sys.exit(2)
    if "--never-start" in argv:
        time.sleep(3600)
    app = build()
    if "--http" in argv:
        app.run("streamable-http", port=int(argv[argv.index("--http") + 1]))  # type: ignore[attr-defined]
    else:
        app.run()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main(sys.argv[1:])
