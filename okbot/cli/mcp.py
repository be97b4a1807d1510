"""``okbot mcp add|list|rm|allow|disallow|approval``: the MCP servers a user declared, and who may use them.

The values given with ``--env K=V`` and ``--header K=V`` can be credentials: they go to the system
keyring (or the 0600 key file) through :mod:`okbot.mcp.secrets`; settings.json and every line printed
here hold only their names. ``okbot mcp list`` starts the servers (within ``mcp.startupSeconds``) to
report their state and tools, and stops them before it returns; ``--no-start`` shows the tool lists
kept from the last time instead.

``okbot mcp list --json`` prints a list with one object per server, in the order they were added::

    {"name": "time", "transport": "stdio" | "http", "command": "mcp-server-time", "args": [...],
     "url": "", "env": ["TZ"], "headers": [], "approval": "ask", "toolApproval": {"tool": "allow"},
     "assistants": [{"id": "ann", "name": "Ann"}],
     "state": "running" | "failed" | "not started", "detail": "why it failed, or which program answered",
     "note": "why fewer tools are offered than it lists (or empty)",
     "tools": [{"name": "get_current_time", "offered": "time__get_current_time", "description": "...",
                "approval": "ask", "notes": ["how its schema was simplified for providers"]}]}

``okbot mcp add --json`` prints that row (nothing is started: its state is "not started") with ``replaced``,
``secretsKeptIn`` ("keyring", "file" or null) and ``keyFile``; rm, allow, disallow and approval print what
they changed.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from okbot.cli.output import add_json_flag, print_json
from okbot.config.mcp import (
    APPROVALS,
    MCP_KEY,
    McpServerConfig,
    check_server_name,
    parse_pairs,
    server_from_json,
)
from okbot.config.settings import Settings
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage.errors import OkBotError

# a server's state (okbot.mcp.hub's words, compared in code) as ``mcp list`` shows it
STATE_WORDS = {
    "not started": QT_TRANSLATE_NOOP("cli_mcp", "not started"),
    "starting": QT_TRANSLATE_NOOP("cli_mcp", "starting"),
    "running": QT_TRANSLATE_NOOP("cli_mcp", "running"),
    "failed": QT_TRANSLATE_NOOP("cli_mcp", "failed"),
    "stopped": QT_TRANSLATE_NOOP("cli_mcp", "stopped"),
}


class _IntermixedParser(argparse.ArgumentParser):
    """A subcommand parser that takes its options and positionals in any order, so that
    ``add NAME --env K=V -- CMD -m ARG`` works (plain argparse takes NAME as the last positional and
    refuses the command line after the options)."""

    _inner = False

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if self._inner:  # parse_known_intermixed_args calls back here, twice
            return super().parse_known_args(args, namespace)
        self._inner = True
        usage = self.usage
        if usage is None:  # argparse would cut len("usage: ") off the usage line, whatever its language
            self.usage = self.format_usage()[len(translate("argparse", "usage: ")) :]
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inner = False
            self.usage = usage


def add_parsers(sub: Any) -> None:
    """Declare ``mcp …`` on the main parser's subcommands."""
    p = sub.add_parser(
        "mcp", help=translate("cli_mcp", "MCP servers whose tools assistants may use: add, list, rm, allow, approval")
    )
    msub = p.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=_IntermixedParser)
    a = msub.add_parser(
        "add",
        help=translate("cli_mcp", "add an MCP server (or replace one of that name)"),
        epilog=translate(
            "cli_mcp",
            "A local server: okbot mcp add NAME --command CMD [ARG...] [options]\n"
            "  or, when an argument of the command starts with '-': okbot mcp add NAME [options] -- CMD ARG...\n"
            "  (everything after '--' is the command line). A remote one: okbot mcp add NAME --url URL "
            "[--header K=V]...\n"
            "The values of --env and --header are kept in the system keyring (or the private key file), never in\n"
            "settings.json. Adding a name that exists replaces that server.",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument(
        "name",
        metavar="NAME",
        help=translate("cli_mcp", "lower-case letters, digits, '-' or '_'; starts its tools' names"),
    )
    a.add_argument(
        "--command",
        dest="program",
        default="",
        metavar="CMD",
        help=translate("cli_mcp", "the program that runs a local (stdio) server"),
    )
    a.add_argument(
        "argv",
        nargs="*",
        metavar="ARG",
        help=translate("cli_mcp", "its arguments (after '--': the command and its arguments)"),
    )
    a.add_argument(
        "--url", default="", metavar="URL", help=translate("cli_mcp", "a remote (Streamable HTTP) server's address")
    )
    a.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help=translate("cli_mcp", "a variable set for a local server; repeatable"),
    )
    a.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="K=V",
        help=translate("cli_mcp", "a header sent to a remote server; repeatable"),
    )
    a.add_argument(
        "--approval",
        choices=APPROVALS,
        default="ask",
        help=translate("cli_mcp", "what a call of its tools needs (default: ask)"),
    )
    a.add_argument(
        "--assistant",
        action="append",
        default=[],
        metavar="TARGET",
        help=translate("cli_mcp", "an assistant that may use it; repeatable"),
    )
    add_json_flag(a)
    ls = msub.add_parser(
        "list", help=translate("cli_mcp", "the servers, their state (each is started, then stopped) and tools")
    )
    ls.add_argument("--json", action="store_true", help=translate("cli_mcp", "machine-readable output"))
    ls.add_argument(
        "--no-start",
        action="store_true",
        help=translate("cli_mcp", "start nothing: show the tools kept from the last time"),
    )
    rm = msub.add_parser(
        "rm", help=translate("cli_mcp", "remove a server, its kept values, and every assistant's use of it")
    )
    rm.add_argument("name", metavar="NAME")
    add_json_flag(rm)
    allow_help = {
        "allow": translate("cli_mcp", "assistants that may use a server's tools"),
        "disallow": translate("cli_mcp", "assistants that may no longer use a server's tools"),
    }
    for action, text in allow_help.items():
        p = msub.add_parser(action, help=text)
        p.add_argument("server", metavar="SERVER")
        p.add_argument("targets", nargs="+", metavar="TARGET", help=translate("cli_mcp", "an assistant id or name"))
        add_json_flag(p)
    ap = msub.add_parser(
        "approval", help=translate("cli_mcp", "what a call of a server's tools (or of one tool) needs")
    )
    ap.add_argument("server", metavar="SERVER")
    ap.add_argument("approval", choices=APPROVALS)
    ap.add_argument(
        "--tool", default=None, metavar="TOOL", help=translate("cli_mcp", "that tool only (its name on the server)")
    )
    add_json_flag(ap)


def cmd_mcp(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``okbot mcp ACTION …``."""
    settings = Settings.load()
    for problem in settings.problems:
        print(translate("cli_mcp", "okbot: note: {text}").format(text=problem), file=err)
    if args.action == "add":
        return _add(settings, args, out, err)
    if args.action == "list":
        return _list(settings, as_json=args.json, start=not args.no_start, out=out)
    if args.action == "rm":
        return _remove(settings, args.name, args.json, out)
    if args.action in ("allow", "disallow"):
        return _allow(settings, args.server, args.targets, allow=args.action == "allow", as_json=args.json, out=out)
    return _approval(settings, args.server, args.approval, args.tool, args.json, out, err)


# ---------------------------------------------------------------------------------- add
def _add(settings: Settings, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core.workspace import Workspace
    from okbot.llm.keystore import FILE, KeyStore
    from okbot.mcp import secrets

    name = check_server_name(args.name)
    env, headers = parse_pairs(args.env, "env"), parse_pairs(args.header, "header")
    config = server_from_json(_config(name, args, env, headers).to_json())  # every refusal before any change
    ws = Workspace()
    ws.ensure_default()  # as every command that names an assistant: on a fresh data dir, the default one
    targets = [_assistant(ws, ref, name) for ref in args.assistant]
    replaced = any(c.name == name for c in settings.mcp_servers.all())
    store = KeyStore()
    where = secrets.save(store, name, secrets.ServerSecrets(env=env, headers=headers))
    settings.mcp_servers.add(config)
    for target in targets:
        _set_servers(ws, target, [*target.mcp_servers, name])
    if args.json:
        key_file = str(store.key_file) if where == FILE else None
        print_json(
            _unstarted_row(settings, name)
            | {"replaced": replaced, "secretsKeptIn": where or None, "keyFile": key_file},
            out,
        )
    else:
        if replaced:
            text = translate("cli_mcp", "replaced MCP server {name}: {where}  approval: {approval}")
        else:
            text = translate("cli_mcp", "added MCP server {name}: {where}  approval: {approval}")
        print(text.format(name=name, where=config.where(), approval=config.approval), file=out)
        if where:
            text = translate("cli_mcp", "values of {names} kept in {where} (not in settings.json)")
            print(text.format(names=", ".join([*env, *headers]), where=store.place(where)), file=out)
        for target in targets:
            text = translate("cli_mcp", "{name} ({id}) may use {server}")
            print(text.format(name=target.name, id=target.id, server=name), file=out)
    if not replaced and not targets:  # its tools reach no chat until an assistant may use them: say how
        text = translate(
            "cli_mcp", "okbot: note: no assistant may use {server} yet: okbot mcp allow {server} ASSISTANT"
        )
        print(text.format(server=name), file=err)
    return 0


def _config(name: str, args: argparse.Namespace, env: dict[str, str], headers: dict[str, str]) -> McpServerConfig:
    """The server ``add`` describes; :class:`OkBotError` when it names both or neither of a command and a URL."""
    command, argv = args.program.strip(), list(args.argv)
    if args.url and command:
        raise OkBotError(
            translate("cli_mcp", "give either --command (a local server) or --url (a remote one), not both")
        )
    if args.url and argv:
        raise OkBotError(
            translate("cli_mcp", "a remote server takes no command line: {args} is left over").format(
                args=repr(" ".join(argv))
            )
        )
    if args.url:
        if env:
            raise OkBotError(
                translate("cli_mcp", "--env sets variables of a local server; a remote one takes --header")
            )
        return McpServerConfig(name, url=args.url.strip(), headers=tuple(headers), approval=args.approval)
    if not command and argv:  # the `-- CMD ARG...` form
        command, argv = argv[0], argv[1:]
    if not command:
        raise OkBotError(
            translate("cli_mcp", "give either --command CMD (a local server) or --url URL (a remote one)"),
            hint=translate("cli_mcp", "or put the command line after '--': okbot mcp add NAME -- CMD ARG..."),
        )
    if headers:
        raise OkBotError(translate("cli_mcp", "--header is sent to a remote server; a local one takes --env"))
    return McpServerConfig(name, command, tuple(argv), env=tuple(env), approval=args.approval)


# ---------------------------------------------------------------------------------- list
def _list(settings: Settings, *, as_json: bool, start: bool, out: TextIO) -> int:
    from okbot.core.workspace import Workspace
    from okbot.llm.keystore import KeyStore
    from okbot.mcp import secrets
    from okbot.mcp.hub import McpHub
    from okbot.storage import paths

    configs = settings.mcp_servers.all()
    store = KeyStore()
    hub = McpHub(lambda: settings, secrets=lambda n: secrets.load(store, n), cache_file=paths.mcp_tools_file())
    try:
        states = hub.check() if start and configs else hub.states()
        rows = _rows(hub, configs, states, Workspace().list())
    finally:
        hub.close()
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=out)
        return 0
    if not rows:
        print(translate("cli_mcp", "no MCP servers (add one: okbot mcp add NAME --command CMD | --url URL)"), file=out)
    for row in rows:
        _print_row(row, out)
    return 0


def _unstarted_row(settings: Settings, name: str) -> dict[str, Any]:
    """Server ``name``'s row as ``mcp list --no-start --json`` gives it: nothing is started."""
    from okbot.core.workspace import Workspace
    from okbot.mcp.hub import McpHub
    from okbot.storage import paths

    config = settings.mcp_servers.get(name)
    hub = McpHub(lambda: settings, cache_file=paths.mcp_tools_file())
    try:
        [row] = _rows(hub, [config], [hub.state(name)], Workspace().list())
    finally:
        hub.close()
    return row


def _rows(hub: Any, configs: list[McpServerConfig], states: list[Any], targets: list[Any]) -> list[dict[str, Any]]:
    """The rows of ``mcp list --json`` for ``configs`` in ``states``; ``targets``: every assistant and squad."""
    from okbot.llm.keys import redact_remembered

    assistants = [t for t in targets if t.is_assistant]
    rows = [
        _row(config, state, hub.tools_of(config.name), [t for t in assistants if config.name in t.mcp_servers])
        | {"note": (hub.cut(config.name) or ("", ""))[0]}
        for config, state in zip(configs, states, strict=True)
    ]
    for row in rows:  # a failing server may have printed one of its values to its stderr
        row["detail"] = redact_remembered(row["detail"])
    return rows


def _row(config: McpServerConfig, state: Any, tools: list[Any], users: list[Any]) -> dict[str, Any]:
    return {
        "name": config.name,
        "transport": "http" if config.remote else "stdio",
        "command": config.command,
        "args": list(config.args),
        "url": config.url,
        "env": list(config.env),
        "headers": list(config.headers),
        "approval": config.approval,
        "toolApproval": dict(sorted(config.tool_approval.items())),
        "assistants": [_user(t) for t in users],
        "state": state.state,
        "detail": state.detail,
        "tools": [
            {
                "name": tool.name,
                "offered": tool.offered,
                "description": tool.description,
                "approval": config.approval_of(tool.name),
                "notes": list(tool.notes),
            }
            for tool in tools
        ],
    }


def _user(target: Any) -> dict[str, str]:
    """An assistant as the JSON of ``mcp …`` names it."""
    return {"id": target.id, "name": target.name}


def _print_row(row: dict[str, Any], out: TextIO) -> None:
    where = row["url"] if row["transport"] == "http" else " ".join([row["command"], *row["args"]])
    names = [translate("cli_mcp", "env: {names}").format(names=", ".join(row["env"]))] if row["env"] else []
    if row["headers"]:
        names.append(translate("cli_mcp", "headers: {names}").format(names=", ".join(row["headers"])))
    print(f"{row['name']}  {row['transport']}: {where}  {'  '.join(names)}".rstrip(), file=out)
    exceptions = ", ".join(f"{tool} {value}" for tool, value in row["toolApproval"].items())
    if exceptions:
        approval = translate("cli_mcp", "  approval: {approval} (except {exceptions})")
    else:
        approval = translate("cli_mcp", "  approval: {approval}")
    print(approval.format(approval=row["approval"], exceptions=exceptions), file=out)
    users = ", ".join(f"{u['name']} ({u['id']})" for u in row["assistants"])
    if not users:
        users = translate("cli_mcp", "none (okbot mcp allow {server} TARGET)").format(server=row["name"])
    print(translate("cli_mcp", "  assistants: {names}").format(names=users), file=out)
    state = translate("cli_mcp", STATE_WORDS.get(row["state"], row["state"]))
    if row["detail"]:
        state = f"{state}: {row['detail']}"
    print(translate("cli_mcp", "  state: {state}").format(state=state), file=out)
    if row["note"]:
        print(translate("cli_mcp", "  note: {note}").format(note=row["note"]), file=out)
    for tool in row["tools"]:
        summary = tool["description"].splitlines()[0] if tool["description"] else ""
        print(f"  {tool['offered']}  {summary}".rstrip(), file=out)
        for note in tool["notes"]:
            print(translate("cli_mcp", "    note: {note}").format(note=note), file=out)


# ---------------------------------------------------------------------------------- rm, allow, approval
def _remove(settings: Settings, name: str, as_json: bool, out: TextIO) -> int:
    from okbot.core.workspace import Workspace
    from okbot.llm.keystore import KeyStore
    from okbot.mcp import secrets

    settings.mcp_servers.remove(name)  # an unknown name: an error naming the declared ones
    secrets.delete(KeyStore(), name)
    ws = Workspace()
    users = [t for t in ws.list() if t.is_assistant and name in t.mcp_servers]
    for target in users:
        _set_servers(ws, target, [s for s in target.mcp_servers if s != name])
    if as_json:
        print_json({"server": name, "assistants": [_user(t) for t in users]}, out)
        return 0
    print(translate("cli_mcp", "removed MCP server {name}").format(name=name), file=out)
    for target in users:
        text = translate("cli_mcp", "{name} ({id}) no longer uses {server}")
        print(text.format(name=target.name, id=target.id, server=name), file=out)
    return 0


def _allow(settings: Settings, server: str, refs: list[str], *, allow: bool, as_json: bool, out: TextIO) -> int:
    from okbot.core.workspace import Workspace

    settings.mcp_servers.get(server)  # an unknown name: an error naming the declared ones
    ws = Workspace()
    ws.ensure_default()
    targets = [_assistant(ws, ref, server) for ref in refs]
    for target in targets:
        servers = [s for s in target.mcp_servers if s != server] + ([server] if allow else [])
        _set_servers(ws, target, servers)
    if as_json:
        print_json({"server": server, "allowed": allow, "assistants": [_user(t) for t in targets]}, out)
        return 0
    for target in targets:
        if allow:
            text = translate("cli_mcp", "{name} ({id}) may use {server}")
        else:
            text = translate("cli_mcp", "{name} ({id}) may not use {server}")
        print(text.format(name=target.name, id=target.id, server=server), file=out)
    return 0


def _approval(
    settings: Settings, server: str, approval: str, tool: str | None, as_json: bool, out: TextIO, err: TextIO
) -> int:
    from okbot.mcp.hub import McpHub
    from okbot.storage import paths

    settings.mcp_servers.set_approval(server, approval, tool)
    if tool:  # the tool lists kept from the last start (nothing is started here)
        hub = McpHub(lambda: settings, cache_file=paths.mcp_tools_file())
        known = [t.name for t in hub.tools_of(server)]
        if known and tool not in known:
            text = translate("cli_mcp", "okbot: note: {server} did not list a tool {tool} (its tools: {tools})")
            print(text.format(server=server, tool=repr(tool), tools=", ".join(known)), file=err)
    if as_json:
        print_json({"server": server, "tool": tool, "approval": approval}, out)
        return 0
    if tool:
        text = translate("cli_mcp", "calls of {server}'s tool {tool}: {approval}")
    else:
        text = translate("cli_mcp", "calls of {server}'s tools: {approval}")
    print(text.format(server=server, tool=tool, approval=approval), file=out)
    return 0


def _assistant(ws: Any, ref: str, server: str) -> Any:
    """The assistant ``ref`` names; :class:`OkBotError` for a squad (its captain uses no MCP server)."""
    target = ws.resolve(ref)
    if not target.is_assistant:
        raise OkBotError(
            translate("cli_mcp", "{name} is a squad: its captain uses no MCP server; nothing was changed").format(
                name=target.name
            ),
            hint=translate("cli_mcp", "allow each member instead: okbot mcp allow {server} MEMBER").format(
                server=server
            ),
        )
    return target


def _set_servers(ws: Any, target: Any, servers: list[str]) -> None:
    ws.set_meta(target, MCP_KEY, list(dict.fromkeys(servers)))
