"""The MCP servers of one OkBot process, run on one background event loop.

The ``mcp`` SDK is asynchronous; OkBot's turns run on worker threads. One daemon thread runs an
asyncio loop; every server has a *keeper* task there that enters the SDK's ``Client`` (which spawns a
stdio server in its own process group, or opens a Streamable HTTP session) and holds it until the
server is stopped. Worker threads call :meth:`McpHub.prepare` and :meth:`McpHub.call`, which block
them (never the GUI thread) on the loop's futures, polling the turn's cancel token.

Lifecycle:

* A server starts on first use (:meth:`prepare`, at the start of a turn of an assistant that may use
  it), within ``mcp.startupSeconds``; one that does not answer in time is stopped and reported.
* A server that stops by itself (crashed, or died mid-call) is restarted once, at its next use; if it
  stops again it stays stopped and is reported until the user restarts it (:meth:`restart`).
* A stdio server's stderr goes to OkBot's log, line by line (the log redacts secrets), and its last
  lines are quoted when it fails; a line is read in bounded pieces and kept to its first
  ``STDERR_LINE_CHARS`` characters, however long the server makes it.
* A line on its stdout that is not JSON-RPC is logged once per start (the SDK's traceback for each is
  not shown); an answer that cannot be read (nested deeper than the SDK parses) fails the request
  waiting for it at once, with why, instead of leaving it to time out.
* Everything a server says (its name, tool descriptions, stderr, results) is cleaned of escape sequences
  and control characters (:mod:`okbot.mcp.said`) where it enters OkBot.
* :meth:`close` stops every server (stdin closed, then SIGTERM and SIGKILL to its process group: the
  SDK's shutdown) and the loop; OkBot calls it when it quits. On Linux a stdio server runs under
  :mod:`okbot.mcp.warden`, which also ends what the server detached from its group (``setsid``).

A server offers at most ``MAX_TOOLS_PER_SERVER`` tools (the first it lists; :meth:`McpHub.cut` says
so). The tool lists are kept in ``mcp-tools.json`` in the data dir, so the tools offered (part of the
stable prefix of every request) stay the same across restarts and View context can show them
without starting anything; a list is re-read when a server says its tools changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import os
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okbot import __version__
from okbot.config.mcp import TOOL_SEPARATOR, McpServerConfig
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.llm.keys import remember_secret
from okbot.mcp import schema, warden
from okbot.mcp.said import clean
from okbot.mcp.secrets import ServerSecrets
from okbot.storage.atomic import atomic_write_json
from okbot.storage.errors import OkBotError
from okbot.storage.jsontext import loads

log = logging.getLogger("okbot.mcp")

CACHE_VERSION = 2  # 2: each tool kept as offered (its fitted schema and notes), not as the server sent it
CACHE_DEPTH = 64  # a fitted schema nests far less (schema.MAX_DEPTH)
CLOSE_SECONDS = 8.0  # the SDK's own shutdown waits at most ~4.5 s per server (they stop together)
HTTP_ATTEMPTS = 3  # a remote server that cannot be reached is tried this many times, 1 s then 2 s apart
MAX_TOOL_PAGES = 50
MAX_TOOLS_PER_SERVER = 100  # the first ones a server lists; the rest are not offered (and that is said)
STDERR_TAIL = 20
STDERR_LINE_CHARS = 2_000
STDERR_READ_BYTES = 8_192  # read at most this much of a line at once; the rest of a longer line is skipped
POLL_SECONDS = 0.1  # how often a waiting worker looks at its cancel token
RETRY_START_SECONDS = 300.0  # a server that could not start is tried again at a use this much later

# values compared in code; marked so a view can show them translated (translate("hub", state))
IDLE = QT_TRANSLATE_NOOP("hub", "not started")
STARTING = QT_TRANSLATE_NOOP("hub", "starting")
RUNNING = QT_TRANSLATE_NOOP("hub", "running")
FAILED = QT_TRANSLATE_NOOP("hub", "failed")
STOPPED = QT_TRANSLATE_NOOP("hub", "stopped")

Said = tuple[str, str]  # a text twice: in the user's language (notices, Settings) and in English (for the model)


def _say(template: str, **fields: Any) -> Said:
    """``template`` (marked with ``QT_TRANSLATE_NOOP("hub", …)``) filled in the user's language and in English;
    a field that is itself a :data:`Said` pair gives each its own half."""
    shown = {k: v[0] if isinstance(v, tuple) else v for k, v in fields.items()}
    english = {k: v[1] if isinstance(v, tuple) else v for k, v in fields.items()}
    return translate("hub", template).format(**shown), template.format(**english)


class McpUnavailable(OkBotError):
    """A server could not be started or reached (the message says which and why).

    ``message`` is in the user's language (a notice, Settings); ``english`` is what a tool result tells the model.
    """

    def __init__(self, said: Said) -> None:
        super().__init__(said[0])
        self.english = said[1]


@dataclass(frozen=True)
class McpTool:
    """One tool of one server, as offered to the model (``offered`` = ``<server>__<tool>``)."""

    server: str
    name: str
    offered: str
    description: str
    parameters: dict[str, Any] = field(compare=False)
    notes: tuple[str, ...] = ()  # what had to change in its schema for providers to take it


@dataclass(frozen=True)
class _Listing:
    """A server's tool list as last read: where it was read from, the tools offered, how many it listed."""

    where: str
    tools: list[McpTool]
    listed: int
    hidden: tuple[str, ...] = ()  # tools listed but not offered: they must run as MCP tasks (see tools_from_listing)


@dataclass(frozen=True)
class ServerState:
    """What the user is shown about a server."""

    name: str
    state: str
    detail: str = ""  # why it failed, or which program answered ("mcp-time 2026.10.19")
    tools: int = 0
    restarts: int = 0


@dataclass(frozen=True)
class CallResult:
    text: str
    ok: bool


def needs_tasks(entry: dict[str, Any]) -> bool:
    """Whether a listed tool can only be called as an MCP task (``execution.taskSupport: "required"``, spec
    2025-11-25): OkBot calls tools directly, and such a call fails every time (error -32601)."""
    execution = entry.get("execution")
    return isinstance(execution, dict) and execution.get("taskSupport") == "required"


def tools_from_listing(server: str, listed: Iterable[dict[str, Any]]) -> tuple[list[McpTool], list[str]]:
    """``(the tools of a tools/list answer (as plain JSON), named and fitted for providers, the names of those
    not offered because they must run as MCP tasks)``."""
    tools, taken, hidden = [], set(), []
    for entry in listed:
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            continue
        if not name.isprintable():  # it is what a call sends back: never altered, never shown raw
            log.warning("MCP %s: tool %r left out (its name holds control characters)", server, clean(name))
            continue
        if needs_tasks(entry):
            log.info("MCP %s: tool %s not offered: it runs only as an MCP task", server, name)
            hidden.append(name)
            continue
        offered = schema.offered_name(server, name)
        if offered in taken:  # two names that differ only in characters a provider refuses
            log.warning("MCP %s: tool %r left out (its name clashes with another once fitted)", server, name)
            continue
        taken.add(offered)
        parameters, notes = schema.simplify(entry.get("inputSchema"))
        description = entry.get("description") if isinstance(entry.get("description"), str) else ""
        tools.append(McpTool(server, name, offered, clean(description).strip(), parameters, tuple(notes)))
    return tools, hidden


class _Conn:
    """One server's running state (touched only on the loop thread, apart from reads of plain fields)."""

    def __init__(self, config: McpServerConfig) -> None:
        self.config = config
        self.client: Any = None
        self.task: asyncio.Task[None] | None = None
        self.stop: asyncio.Event | None = None
        self.starting: asyncio.Future[Any] | None = None
        self.state = IDLE
        self.detail = ""  # shown to the user (translated)
        self.detail_en = ""  # the same for the model (a call's result)
        self.crashes = 0  # stops the user did not ask for since the last (re)start by the user
        self.restarts = 0
        self.stale = True  # its tool list must be read (never read by this process, or it changed)
        self.stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        self.dead = False  # the running session ended without being asked to (reset at each start)
        self.stopping = False  # OkBot is stopping it: its end is no crash
        self.exited: asyncio.Event | None = None  # set when a stdio server's stderr closes (it exited)
        self.failed_at = 0.0  # when it last could not start (monotonic; 0: never)
        self.waiting: set[asyncio.Future[Any]] = set()  # requests that an unreadable answer fails
        self.junk = 0  # lines on its stdout that were not JSON-RPC, since it started
        self.answered = ""  # which program answered its start ("mcp-time 2026.10.19")

    def last_words(self) -> Said:
        lines = [line for line in self.stderr if line.strip()]
        return (
            _say(QT_TRANSLATE_NOOP("hub", " Its last output: “{line}”."), line=lines[-1][:300]) if lines else ("", "")
        )

    def failure(self) -> Said:
        return self.detail, self.detail_en


class McpHub:
    """Starts, calls and stops the declared MCP servers. Thread-safe; no method may run on the GUI thread
    except :meth:`tools_of`, :meth:`states` and :meth:`subscribe` (they read memory only)."""

    def __init__(
        self,
        settings: Callable[[], Any],
        *,
        secrets: Callable[[str], ServerSecrets] | None = None,
        cache_file: Path | None = None,
    ) -> None:
        self._settings = settings
        self._secrets = secrets or (lambda _name: ServerSecrets())
        self._cache_file = cache_file
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._conns: dict[str, _Conn] = {}
        self._tools: dict[str, _Listing] = self._read_cache()
        self._subscribers: list[Callable[[str], None]] = []
        self._closed = False
        self._told: dict[str, str] = {}  # server -> the failure last reported to the user (see news)
        self._said: set[str] = set()  # what fresh() has let through
        logging.getLogger("mcp.client.stdio").addFilter(_not_a_parse_error)  # said once per server instead

    # ------------------------------------------------------------------ reading (any thread)
    @property
    def settings(self) -> Any:
        """The settings as they are now (another process may have changed the servers)."""
        return self._settings()

    def configs(self) -> list[McpServerConfig]:
        return self.settings.mcp_servers.all()

    def tools_of(self, name: str) -> list[McpTool]:
        """The tools server ``name`` offered when last asked (none for a server never started)."""
        try:
            config = self.settings.mcp_servers.get(name)
        except OkBotError:
            return []
        with self._lock:
            listing = self._tools.get(name)
        return list(listing.tools) if listing is not None and listing.where == config.where() else []

    def cut(self, name: str) -> Said | None:
        """Why server ``name`` offers fewer tools than it lists: some run only as MCP tasks, or it lists more than
        ``MAX_TOOLS_PER_SERVER``."""
        try:
            where = self.settings.mcp_servers.get(name).where()
        except OkBotError:
            return None
        with self._lock:
            listing = self._tools.get(name)
        if listing is None or listing.listed <= len(listing.tools) or listing.where != where:
            return None  # (a list read from another command or address than the one set now says nothing)
        said: list[Said] = []
        if listing.hidden:
            said.append(
                _say(
                    QT_TRANSLATE_NOOP(
                        "hub",
                        "MCP server {name}: {tools} not offered: it runs only as an MCP task, which OkBot cannot "
                        "call yet.",
                    ),
                    name=name,
                    tools=", ".join(listing.hidden),
                )
            )
        if listing.listed - len(listing.hidden) > len(listing.tools):
            said.append(
                _say(
                    QT_TRANSLATE_NOOP(
                        "hub",
                        "MCP server {name} lists {count} tools; only its first {kept} are offered (at most {kept} "
                        "a server).",
                    ),
                    name=name,
                    count=f"{listing.listed:,}",
                    kept=MAX_TOOLS_PER_SERVER,
                )
            )
        return (" ".join(s[0] for s in said), " ".join(s[1] for s in said)) if said else None

    def fresh(self, texts: Iterable[str]) -> list[str]:
        """Of ``texts`` (what a turn would tell the user about the servers), those not told before in this process."""
        with self._lock:
            new = [t for t in dict.fromkeys(texts) if t not in self._said]
            self._said.update(new)
        return new

    def usable(self, name: str) -> bool:
        """Whether server ``name``'s tools are offered: not when it failed to start or stopped twice (a server
        that stopped once is started again at its next use)."""
        with self._lock:
            conn = self._conns.get(name)
        return conn is None or conn.state != FAILED or (conn.dead and conn.crashes < 2)

    def states(self) -> list[ServerState]:
        """Every declared server's state, in the order they were declared."""
        return [self.state(config.name) for config in self.configs()]

    def state(self, name: str) -> ServerState:
        tools = len(self.tools_of(name))
        with self._lock:
            conn = self._conns.get(name)
            if conn is None:
                return ServerState(name, IDLE, tools=tools)
            return ServerState(name, conn.state, conn.detail, tools, conn.restarts)

    def subscribe(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """``callback(server name)`` after a server's state or tools change (on the hub's own thread)."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    # ------------------------------------------------------------------ blocking (worker threads)
    def prepare(self, names: Sequence[str], cancel: Any = None) -> dict[str, str]:
        """Start the servers ``names`` that are not running and read their tool lists when needed.

        Returns ``{name: why it is unavailable}`` for those that could not be used (empty: all ready)."""
        names = [n for n in dict.fromkeys(names) if self._config(n) is not None]
        if not names:
            return {}
        budget = self._startup_seconds() + 5.0
        try:
            return self._wait(self._prepare_all(names), budget, cancel) or {}
        except _Cancelled:
            return {n: translate("hub", "the turn was stopped") for n in names}
        except McpUnavailable as exc:
            return {n: str(exc) for n in names}

    def news(self, failed: dict[str, str]) -> list[str]:
        """Of ``failed`` (what :meth:`prepare` returned), the reasons not yet told; a server that works
        again will be told about again when it next fails."""
        with self._lock:
            for name in [n for n in self._told if n not in failed]:
                del self._told[name]
            fresh = [why for name, why in failed.items() if self._told.get(name) != why]
            self._told.update(failed)
        return fresh

    def call(self, offered: str, arguments: dict[str, Any], *, timeout: float, cancel: Any = None) -> CallResult:
        """Call the tool offered as ``offered`` with ``arguments``; never raises for what the server did."""
        tool = self.find_tool(offered)
        server = offered.split(TOOL_SEPARATOR, 1)[0]
        if tool is None and self._config(server) is not None and not self.tools_of(server):
            self.prepare([server], cancel)  # never started here, nor listed before: its first use
            tool = self.find_tool(offered)
        if tool is None:
            return CallResult(f"There is no MCP tool named {offered!r} right now.", False)
        try:
            return self._wait(self._call(tool, arguments, timeout), timeout + 10.0, cancel)
        except _Cancelled:
            return CallResult(f"{offered} was stopped: the user stopped the turn.", False)
        except McpUnavailable as exc:
            return CallResult(exc.english, False)
        except FutureTimeout:
            return CallResult(f"MCP server {tool.server} did not answer within {timeout:.0f} s.", False)

    def find_tool(self, offered: str) -> McpTool | None:
        server = offered.split(TOOL_SEPARATOR, 1)[0]
        return next((t for t in self.tools_of(server) if t.offered == offered), None)

    def check(self, names: Sequence[str] | None = None) -> list[ServerState]:
        """Start (or reach) each server, read its tools and report (``okbot mcp list``, Settings' Check)."""
        chosen = [c.name for c in self.configs()] if names is None else list(names)
        self.prepare(chosen)
        return [self.state(n) for n in chosen]

    def restart(self, name: str) -> ServerState:
        """Stop server ``name`` if it runs and start it again, forgetting earlier crashes (the user asked)."""
        self._stop_server(name)
        with self._lock:
            self._conns.pop(name, None)
        self.prepare([name])
        return self.state(name)

    def forget(self, name: str) -> None:
        """Server ``name`` was removed or changed: stop it; its next use starts it from its new settings."""
        self._stop_server(name)
        with self._lock:
            self._conns.pop(name, None)
        self._notify(name)

    def close(self) -> None:
        """Stop every server and the loop (OkBot quits). Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._stop_all(), loop).result(CLOSE_SECONDS + 2)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(2.0)

    # ------------------------------------------------------------------ the loop
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise McpUnavailable(
                    _say(QT_TRANSLATE_NOOP("hub", "OkBot is closing; MCP servers are not started any more"))
                )
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="okbot-mcp", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def _wait(self, coro: Any, seconds: float, cancel: Any) -> Any:
        try:
            loop = self._ensure_loop()
        except McpUnavailable:
            coro.close()
            raise
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, loop)
        deadline = time.monotonic() + seconds
        while True:
            if cancel is not None and getattr(cancel, "cancelled", False):
                future.cancel()
                raise _Cancelled
            try:
                return future.result(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
            except FutureTimeout:
                if time.monotonic() >= deadline:
                    future.cancel()
                    raise

    def _config(self, name: str) -> McpServerConfig | None:
        try:
            return self.settings.mcp_servers.get(name)
        except OkBotError:
            return None

    def _conn(self, name: str) -> _Conn:
        config = self._config(name)
        if config is None:
            raise McpUnavailable(
                _say(QT_TRANSLATE_NOOP("hub", "There is no MCP server called {name} any more."), name=repr(name))
            )
        with self._lock:
            conn = self._conns.get(name)
            if conn is None or conn.config != config:
                if conn is not None and conn.stop is not None:  # changed in Settings: the old one stops
                    conn.stop.set()
                conn = self._conns[name] = _Conn(config)
            return conn

    async def _prepare_all(self, names: list[str]) -> dict[str, str]:
        results = await asyncio.gather(*(self._prepare_one(n) for n in names), return_exceptions=True)
        return {n: _describe(r)[0] for n, r in zip(names, results, strict=True) if isinstance(r, BaseException)}

    async def _prepare_one(self, name: str) -> None:
        from mcp.shared.exceptions import MCPError

        conn = self._conn(name)
        client = await self._ensure(conn)
        if not conn.stale:
            return
        try:
            await self._list_tools(conn, client)
        except (McpUnavailable, MCPError, asyncio.TimeoutError) as exc:
            if isinstance(exc, asyncio.TimeoutError):
                why = _say(
                    QT_TRANSLATE_NOOP("hub", "it did not answer within {seconds} s"),
                    seconds=f"{self._call_seconds():.0f}",
                )
            elif isinstance(exc, MCPError):
                why = _server_error(exc)
            else:
                why = (str(exc), exc.english)
            self._fail(
                conn,
                _say(
                    QT_TRANSLATE_NOOP("hub", "MCP server {name} runs, but its tool list could not be read: {why}."),
                    name=name,
                    why=why,
                ),
            )
            log.warning("%s", conn.detail_en)
            raise McpUnavailable(conn.failure()) from None

    async def _ensure(self, conn: _Conn) -> Any:
        """A live client for ``conn``: the running one, else a newly started one (a crashed one once)."""
        if conn.client is not None and not conn.dead:
            return conn.client
        if conn.starting is not None and not conn.starting.done():
            return await asyncio.shield(conn.starting)
        if conn.crashes >= 2:
            raise McpUnavailable(conn.failure())
        if conn.failed_at and time.monotonic() - conn.failed_at < RETRY_START_SECONDS:
            raise McpUnavailable(conn.failure())  # no turn waits for it again and again: tried a while later
        if conn.crashes == 1 and conn.state == FAILED:
            conn.restarts += 1
            log.warning("MCP %s: restarting it once after it stopped", conn.config.name)
        return await self._start(conn)

    async def _start(self, conn: _Conn) -> Any:
        name, seconds = conn.config.name, self._startup_seconds()
        self._set(conn, STARTING, "")
        started: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        conn.starting = started
        conn.stop = asyncio.Event()
        conn.exited = asyncio.Event()
        conn.stale, conn.dead, conn.stopping, conn.junk = True, False, False, 0
        conn.task = asyncio.get_running_loop().create_task(self._keep(conn, started, conn.stop))
        try:
            client = await asyncio.wait_for(asyncio.shield(started), seconds)
        except asyncio.TimeoutError:
            conn.stopping = True
            started.cancel()  # done now: the next use starts afresh while this one is still being stopped
            conn.task.cancel()
            conn.failed_at = time.monotonic()
            self._fail(
                conn,
                _say(
                    QT_TRANSLATE_NOOP(
                        "hub", "MCP server {name} did not start within {seconds} s (mcp.startupSeconds)."
                    ),
                    name=name,
                    seconds=f"{seconds:.0f}",
                ),
            )
            raise McpUnavailable(conn.failure()) from None
        except Exception as exc:
            conn.stopping = True
            await _settle(conn.exited)  # its last words, when it said why
            conn.failed_at = time.monotonic()
            self._fail(
                conn,
                _say(
                    QT_TRANSLATE_NOOP("hub", "MCP server {name} could not start: {why}.{last_words}"),
                    name=name,
                    why=_describe(exc),
                    last_words=conn.last_words(),
                ),
            )
            raise McpUnavailable(conn.failure()) from None
        info = getattr(client, "server_info", None)
        detail = clean(f"{info.name} {info.version}", one_line=True) if info is not None else ""
        conn.failed_at = 0.0
        conn.answered = detail
        self._set(conn, RUNNING, detail)
        log.info("MCP %s: running (%s)", name, detail or conn.config.where())
        return client

    async def _keep(self, conn: _Conn, started: asyncio.Future[Any], stop: asyncio.Event) -> None:
        """Hold the server's session open until ``stop`` is set; the SDK stops the server on the way out."""
        errlog = None
        try:
            # the keyring may block (an unlock prompt): not on the loop, where other servers are served
            secrets = await asyncio.get_running_loop().run_in_executor(None, self._server_secrets, conn.config.name)
            async with AsyncExitStack() as stack:
                if conn.config.remote:
                    transport = await self._http_transport(conn, secrets, stack)
                else:
                    errlog = self._stderr_pipe(conn)
                    transport = self._stdio_transport(conn, secrets, errlog)
                client = await stack.enter_async_context(self._client(transport, conn))
                if errlog is not None:
                    errlog.close()  # the server holds its own copy: the reader sees EOF when it exits
                conn.client = client
                if not started.done():
                    started.set_result(client)
                await stop.wait()
        except asyncio.CancelledError:
            if not started.done():
                started.cancel()
            raise
        except BaseException as exc:  # the SDK raises exception groups from its task groups
            if not started.done():
                started.set_exception(_unwrap(exc))
            else:
                log.warning("MCP %s: session ended: %s", conn.config.name, _describe(exc)[1])
        finally:
            conn.client = None
            if errlog is not None and not errlog.closed:
                errlog.close()
            if not started.done():
                started.cancel()

    def _client(self, transport: Any, conn: _Conn) -> Any:
        from mcp import Client
        from mcp_types import Implementation

        async def on_message(message: Any) -> None:
            if isinstance(message, Exception):
                self._unreadable(conn, message)
                return
            method = getattr(message, "method", "")
            if method == "notifications/tools/list_changed":
                conn.stale = True
                log.info("MCP %s: its tools changed; re-read at the next turn", conn.config.name)

        return Client(
            transport,
            client_info=Implementation(name="OkBot", version=__version__),
            message_handler=on_message,
            cache=None,
        )

    def _stdio_transport(self, conn: _Conn, secrets: ServerSecrets, errlog: Any) -> Any:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        env = {k: v for k, v in secrets.env.items() if k in conn.config.env}
        command, args = conn.config.command, list(conn.config.args)
        if warden.available():  # what the server detaches ends with it
            command, args = warden.command_line(_program(command), args)
        params = StdioServerParameters(command=command, args=args, env=env or None)
        return stdio_client(params, errlog=errlog)

    async def _http_transport(self, conn: _Conn, secrets: ServerSecrets, stack: AsyncExitStack) -> Any:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        headers = {k: v for k, v in secrets.headers.items() if k in conn.config.headers}
        timeout = httpx2.Timeout(10.0, read=self._call_seconds() + 30.0)
        http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=timeout))
        for attempt in range(1, HTTP_ATTEMPTS + 1):  # reachable at all? (the SDK's own errors are vaguer)
            try:
                await http.head(conn.config.url)
                break
            except httpx2.TransportError as exc:
                if attempt == HTTP_ATTEMPTS:
                    raise McpUnavailable(
                        _say(
                            QT_TRANSLATE_NOOP("hub", "could not reach {url} ({error}) after {attempts} attempts"),
                            url=conn.config.url,
                            error=type(exc).__name__,
                            attempts=attempt,
                        )
                    ) from None
                await asyncio.sleep(attempt)
        return streamable_http_client(conn.config.url, http_client=http)

    def _server_secrets(self, name: str) -> ServerSecrets:
        """The server's env and header values, each remembered for redaction before the server can echo it."""
        secrets = self._secrets(name)
        for value in (*secrets.env.values(), *secrets.headers.values()):
            remember_secret(value)
        return secrets

    def _stderr_pipe(self, conn: _Conn) -> Any:
        """A pipe for the server's stderr; a thread copies its lines to the log and the conn's tail, and
        reports its end (the server exited: it closed its stderr) to the loop."""
        read_fd, write_fd = os.pipe()
        name, loop, exited = conn.config.name, asyncio.get_running_loop(), conn.exited

        def copy() -> None:
            with open(read_fd, "rb") as stream:
                rest_of_long_line = False
                while piece := stream.readline(STDERR_READ_BYTES):
                    if not rest_of_long_line:
                        line = clean(piece.decode("utf-8", errors="replace"), one_line=True)[:STDERR_LINE_CHARS]
                        conn.stderr.append(line)
                        log.info("MCP %s stderr: %s", name, line)
                    rest_of_long_line = not piece.endswith(b"\n")
            with contextlib.suppress(RuntimeError):  # the loop is closed: OkBot is quitting
                loop.call_soon_threadsafe(self._exited, conn, exited)

        threading.Thread(target=copy, name=f"okbot-mcp-{name}-stderr", daemon=True).start()
        return open(write_fd, "w", encoding="utf-8")

    def _unreadable(self, conn: _Conn, exc: Exception) -> None:
        """A line of the server's stdout the SDK could not read: a message too deep to parse fails the
        requests waiting (it was surely one's answer); any other line is logged, the first only."""
        errors = exc.errors() if callable(getattr(exc, "errors", None)) else []
        line = errors[0].get("input") if errors and isinstance(errors[0].get("input"), str) else ""
        if line.lstrip().startswith("{") and "recursion limit" in str(exc):
            why = _say(QT_TRANSLATE_NOOP("hub", "its answer is nested too deeply to read"))
            for waiting in [w for w in conn.waiting if not w.done()]:
                waiting.set_exception(McpUnavailable(why))
            log.warning("MCP %s: %s", conn.config.name, why[1])
            return
        conn.junk += 1
        if conn.junk == 1:
            log.warning(
                "MCP %s: a line on its stdout is not JSON-RPC and was ignored (later ones are not logged): %s",
                conn.config.name,
                clean(line[:300], one_line=True) or type(exc).__name__,
            )

    async def _answer(self, conn: _Conn, request: Any, seconds: float) -> Any:
        """The answer to ``request`` (a coroutine of the client), within ``seconds``; raises
        :class:`McpUnavailable` at once when the answer arrives unreadable."""
        unreadable: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        asking = asyncio.ensure_future(request)
        conn.waiting.add(unreadable)
        try:
            done, _ = await asyncio.wait({asking, unreadable}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            conn.waiting.discard(unreadable)
            if not asking.done():
                asking.cancel()
        if asking in done:
            return asking.result()
        if unreadable in done:
            raise unreadable.exception()  # type: ignore[misc]
        raise asyncio.TimeoutError

    async def _list_tools(self, conn: _Conn, client: Any) -> None:
        listed: list[dict[str, Any]] = []
        count, cursor = 0, None
        for _ in range(MAX_TOOL_PAGES):
            page = await self._answer(conn, client.list_tools(cursor=cursor), self._call_seconds())
            count += len(page.tools)
            room = MAX_TOOLS_PER_SERVER - len(listed)
            listed += [tool.model_dump(by_alias=True, exclude_none=True) for tool in page.tools[: max(0, room)]]
            cursor = getattr(page, "next_cursor", None)
            if not cursor or count > MAX_TOOLS_PER_SERVER:  # pages past the cut are not asked for
                break
        tools, hidden = tools_from_listing(conn.config.name, listed)
        if count > MAX_TOOLS_PER_SERVER:
            log.warning(
                "MCP %s: lists %s tools or more; only its first %s are offered", conn.config.name, count, len(tools)
            )
        conn.stale = False
        if conn.state == FAILED:  # its list could not be read before: it can now
            self._set(conn, RUNNING, conn.answered)
        with self._lock:
            before = self._tools.get(conn.config.name)
            self._tools[conn.config.name] = _Listing(conn.config.where(), tools, count, tuple(hidden))
            changed = before != self._tools[conn.config.name]
        if changed:
            self._write_cache()
        for tool in tools:
            for note in tool.notes:
                log.info("MCP %s: tool %s: %s", conn.config.name, tool.name, note)
        self._notify(conn.config.name)

    async def _call(self, tool: McpTool, arguments: dict[str, Any], timeout: float) -> CallResult:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        conn = self._conn(tool.server)
        try:
            client = await self._ensure(conn)
        except McpUnavailable as exc:
            return CallResult(exc.english, False)
        try:
            result = await self._answer(conn, client.call_tool(tool.name, arguments), timeout)
        except McpUnavailable as exc:
            return CallResult(
                f"MCP server {tool.server}'s answer to the {tool.name} call could not be read: {exc.english}", False
            )
        except asyncio.TimeoutError:
            return CallResult(f"MCP server {tool.server} did not answer {tool.name} within {timeout:.0f} s.", False)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                await _settle(conn.exited)  # its last stderr lines
                self._crashed(conn, _say(QT_TRANSLATE_NOOP("hub", "stopped during a call")))
                return CallResult(
                    f"MCP server {tool.server} stopped during the {tool.name} call, so it may or may not have taken "
                    f"effect.{conn.last_words()[1]}",
                    False,
                )
            return CallResult(f"MCP server {tool.server} refused the {tool.name} call: {_server_error(exc)[1]}", False)
        return _result_text(result)

    def _exited(self, conn: _Conn, exited: asyncio.Event | None) -> None:
        if exited is not None:
            exited.set()
        if exited is conn.exited and conn.state == RUNNING and not conn.stopping:
            self._crashed(conn, _say(QT_TRANSLATE_NOOP("hub", "stopped by itself")))

    def _crashed(self, conn: _Conn, how: Said) -> None:
        if conn.dead:
            return
        conn.dead = True
        conn.crashes += 1
        if conn.stop is not None:
            conn.stop.set()
        conn.client = None
        if conn.crashes >= 2:
            self._fail(
                conn,
                _say(
                    QT_TRANSLATE_NOOP(
                        "hub",
                        "MCP server {name} {how} again after a restart, so it is not restarted any more."
                        "{last_words} Restart it in Settings → MCP servers (or restart OkBot) once it is fixed.",
                    ),
                    name=conn.config.name,
                    how=how,
                    last_words=conn.last_words(),
                ),
            )
        else:
            self._fail(
                conn,
                _say(
                    QT_TRANSLATE_NOOP("hub", "MCP server {name} {how}; it is restarted at its next use.{last_words}"),
                    name=conn.config.name,
                    how=how,
                    last_words=conn.last_words(),
                ),
            )
        log.warning("%s", conn.detail_en)

    def _fail(self, conn: _Conn, detail: Said) -> None:
        self._set(conn, FAILED, detail)

    def _set(self, conn: _Conn, state: str, detail: str | Said) -> None:
        """``detail``: a text not translated (which program answered), or a :data:`Said` pair."""
        conn.state = state
        conn.detail, conn.detail_en = detail if isinstance(detail, tuple) else (detail, detail)
        self._notify(conn.config.name)

    def _notify(self, name: str) -> None:
        for callback in list(self._subscribers):
            try:
                callback(name)
            except Exception:  # a listener's bug must not stop a server
                log.exception("MCP state listener failed")

    def _stop_server(self, name: str) -> None:
        with self._lock:
            loop, conn = self._loop, self._conns.get(name)
        if loop is None or conn is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._stop(conn), loop).result(CLOSE_SECONDS)

    async def _stop(self, conn: _Conn) -> None:
        conn.stopping = True
        if conn.stop is not None:
            conn.stop.set()
        if conn.task is not None and not conn.task.done():
            try:
                await asyncio.wait_for(asyncio.shield(conn.task), CLOSE_SECONDS)
            except (asyncio.TimeoutError, asyncio.CancelledError, Exception):
                conn.task.cancel()
        if conn.state in (RUNNING, STARTING):
            self._set(conn, STOPPED, "")

    async def _stop_all(self) -> None:
        with self._lock:
            conns = list(self._conns.values())
        await asyncio.gather(*(self._stop(c) for c in conns), return_exceptions=True)

    # ------------------------------------------------------------------ settings and cache
    def _startup_seconds(self) -> float:
        return float(self.settings.get("mcp.startupSeconds"))

    def _call_seconds(self) -> float:
        return float(self.settings.get("mcp.callSeconds"))

    def _read_cache(self) -> dict[str, _Listing]:
        if self._cache_file is None:
            return {}
        try:
            data = loads(self._cache_file.read_bytes(), what=str(self._cache_file), max_depth=CACHE_DEPTH)
            servers = data["servers"] if data.get("version") == CACHE_VERSION else {}
            return {
                name: _Listing(
                    entry["where"],
                    [_kept_tool(name, t) for t in entry["tools"]],
                    int(entry["listed"]),
                    _kept_names(name, entry.get("hidden", [])),  # (a cache written before hidden tools: none)
                )
                for name, entry in servers.items()
            }
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("%s could not be read (%s); tool lists are read from the servers again", self._cache_file, exc)
            return {}

    def _write_cache(self) -> None:
        if self._cache_file is None:
            return
        with self._lock:
            servers = {
                name: {
                    "where": listing.where,
                    "listed": listing.listed,
                    "hidden": list(listing.hidden),
                    "tools": [
                        {"name": t.name, "description": t.description, "parameters": t.parameters, "notes": t.notes}
                        for t in listing.tools
                    ],
                }
                for name, listing in self._tools.items()
            }
        try:
            atomic_write_json(self._cache_file, {"version": CACHE_VERSION, "servers": servers})
        except OSError as exc:
            log.warning("MCP tool lists not kept in %s (%s)", self._cache_file, exc)


def _program(command: str) -> str:
    """``command`` as the path the warden runs; the errors the SDK's own start would raise when there is none."""
    found = shutil.which(command)
    if found is not None:
        return found
    if os.sep in command and os.path.exists(command):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), command)
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)


def _server_error(exc: Any) -> Said:
    """What an error answer says: the server's message, or the warden's for an answer it did not pass on."""
    data = exc.error.data
    if isinstance(data, dict) and data.get("okbotWarden") == "tooLong":
        return _say(
            QT_TRANSLATE_NOOP("hub", "its answer is over {megabytes} MB, more than OkBot reads"),
            megabytes=warden.MAX_MESSAGE_BYTES // (1024 * 1024),
        )
    return (clean(exc.message, one_line=True),) * 2


def _not_a_parse_error(record: logging.LogRecord) -> bool:
    """Drops the SDK's record (with its traceback) of each stdout line it could not parse: the hub
    reports those itself (:meth:`McpHub._unreadable`)."""
    return record.msg != "Failed to parse JSONRPC message from server"


def _kept_names(server: str, names: Any) -> tuple[str, ...]:
    """The hidden tools' names as :meth:`McpHub._write_cache` kept them; ``TypeError`` for what it did not write."""
    if not isinstance(names, list) or not all(isinstance(n, str) and n.isprintable() for n in names):
        raise TypeError(f"the hidden tools of {server} are not as written")
    return tuple(names)


def _kept_tool(server: str, entry: dict[str, Any]) -> McpTool:
    """A tool as :meth:`McpHub._write_cache` kept it; ``TypeError``/``KeyError`` for an entry it did not write."""
    name, description, parameters, notes = entry["name"], entry["description"], entry["parameters"], entry["notes"]
    if not (
        isinstance(name, str) and name.isprintable() and isinstance(description, str) and isinstance(parameters, dict)
    ):
        raise TypeError(f"tool entry {name!r} of {server} is not as written")
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise TypeError(f"the notes of tool {name!r} of {server} are not as written")
    return McpTool(server, name, schema.offered_name(server, name), description, parameters, tuple(notes))


class _Cancelled(Exception):
    pass


async def _settle(event: asyncio.Event | None, seconds: float = 1.0) -> None:
    """Wait a little for ``event`` (a server's exit, so its last stderr lines are read)."""
    if event is not None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), seconds)


def _unwrap(exc: BaseException) -> BaseException:
    """The first real error inside the exception groups the SDK's task groups raise."""
    while isinstance(getattr(exc, "exceptions", None), tuple) and exc.exceptions:  # an ExceptionGroup (3.10 too)
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> Said:
    """Why ``exc`` stopped a server, in the user's language and in English."""
    exc = _unwrap(exc)
    if isinstance(exc, OkBotError):
        return str(exc), getattr(exc, "english", str(exc))
    if type(exc).__name__ == "MCPError" and str(exc) == "Connection closed":
        return _say(QT_TRANSLATE_NOOP("hub", "it exited before answering"))
    if isinstance(exc, FileNotFoundError):
        if not exc.filename:
            return _say(QT_TRANSLATE_NOOP("hub", "the program was not found"))
        return _say(QT_TRANSLATE_NOOP("hub", "the program {program} was not found"), program=exc.filename)
    if isinstance(exc, PermissionError):
        if not exc.filename:
            return _say(QT_TRANSLATE_NOOP("hub", "the program may not be run (permission denied)"))
        return _say(
            QT_TRANSLATE_NOOP("hub", "the program {program} may not be run (permission denied)"), program=exc.filename
        )
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status in (401, 403):
        return _say(
            QT_TRANSLATE_NOOP("hub", "the server refused the credentials (HTTP {status}); check its headers"),
            status=status,
        )
    if status is not None:
        return _say(QT_TRANSLATE_NOOP("hub", "the server answered HTTP {status}"), status=status)
    text = str(exc).strip()
    raw = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return raw, raw


def _result_text(result: Any) -> CallResult:
    """A ``CallToolResult`` as text for the model: its text blocks, other blocks named, errors marked."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "image" or kind == "audio":
            size = len(getattr(block, "data", "") or "") * 3 // 4
            parts.append(f"[{kind} of type {getattr(block, 'mime_type', '?')}, {size:,} bytes, not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {getattr(block, 'uri', '')} {getattr(block, 'name', '')}]".strip())
        elif kind == "resource":
            inner = getattr(block, "resource", None)
            text = getattr(inner, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource {getattr(inner, 'uri', '')}, not text]")
        else:
            parts.append(f"[{kind or 'unknown'} content, not shown]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=2))
    ok = not bool(getattr(result, "is_error", False))
    return CallResult(clean("\n".join(parts)) if parts else "(the tool returned nothing)", ok)
