"""MCP servers a user declared: how to reach each one, and how its tools are approved.

Listed under ``mcpServers`` in settings.json (an older OkBot keeps the key untouched)::

    "mcpServers": [
      {"name": "time", "command": "mcp-server-time", "args": ["--local-timezone", "Europe/Paris"],
       "env": ["TZ"], "approval": "ask", "toolApproval": {"get_current_time": "allow"}},
      {"name": "tracker", "url": "https://mcp.example.com/mcp", "headers": ["Authorization"]}
    ]

A server has either a ``command`` (stdio: OkBot starts it) or a ``url`` (Streamable HTTP). ``env`` and
``headers`` hold only the *names* of the variables and headers: their values can be credentials, so they
are kept with the API keys (:mod:`okbot.mcp.secrets`), never in settings.json. ``approval`` is what a call
of any of its tools needs (``allow`` | ``ask`` | ``deny``; a new server asks), ``toolApproval`` one tool's
own choice ("Always allow this tool" on an approval card).

Which assistants may use a server is the assistant's choice, in its ``assistant.json`` (``mcpServers``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from okbot.config.schema import SettingError
from okbot.i18n import translate

MCP_KEY = "mcpServers"
APPROVALS = ("allow", "ask", "deny")
DEFAULT_APPROVAL = "ask"
TOOL_SEPARATOR = "__"  # a tool is offered to the model as <server>__<tool>
# Lower-case letters, digits, '-' and single '_': the name starts every tool name the model sees, and
# Chat Completions function names allow only [A-Za-z0-9_-]; "__" separates server from tool.
_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]|_(?!_)){0,23}$")
_ENV_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP token (RFC 9110)


@dataclass(frozen=True)
class McpServerConfig:
    """One declared server (never the values of its env or headers: see :mod:`okbot.mcp.secrets`)."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    url: str = ""
    env: tuple[str, ...] = ()  # names of the variables set for a stdio server
    headers: tuple[str, ...] = ()  # names of the headers sent to a remote server
    approval: str = DEFAULT_APPROVAL
    tool_approval: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def remote(self) -> bool:
        return bool(self.url)

    def where(self) -> str:
        """How the server is reached, in words (never a secret: only names of variables and headers)."""
        if self.remote:
            return self.url
        return " ".join([self.command, *self.args])

    def approval_of(self, tool: str) -> str:
        """What a call of ``tool`` (the server's own name for it) needs: its own choice, else the server's."""
        return self.tool_approval.get(tool, self.approval)

    def to_json(self) -> dict[str, Any]:
        """The entry written under ``mcpServers`` (empty fields left out)."""
        out: dict[str, Any] = {"name": self.name}
        if self.remote:
            out["url"] = self.url
        else:
            out["command"] = self.command
            if self.args:
                out["args"] = list(self.args)
        if self.env:
            out["env"] = list(self.env)
        if self.headers:
            out["headers"] = list(self.headers)
        out["approval"] = self.approval
        if self.tool_approval:
            out["toolApproval"] = dict(sorted(self.tool_approval.items()))
        return out


def check_server_name(name: Any) -> str:
    """``name`` if it can name an MCP server, else :class:`SettingError` saying what is allowed."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise SettingError(
            translate("mcp", "MCP server name {name} is not allowed").format(name=repr(name)),
            hint=translate(
                "mcp", "use up to 24 lower-case letters, digits, '-' or '_' (not '__'), starting with a letter or digit"
            ),
        )
    return name


def check_approval(value: Any, what: str) -> str:
    if value not in APPROVALS:
        raise SettingError(
            translate("mcp", "{what}: approval must be one of {choices}, not {value}").format(
                what=what, choices=", ".join(APPROVALS), value=repr(value)
            )
        )
    return value


def _names(value: Any, pattern: re.Pattern[str], what: str, about: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and pattern.match(v) for v in value):
        raise SettingError(translate("mcp", "{what} must be a list of names").format(what=what), about=about)
    return tuple(dict.fromkeys(value))


def server_from_json(entry: Any) -> McpServerConfig:
    """A validated :class:`McpServerConfig` from an ``mcpServers`` entry; :class:`SettingError` says why not."""
    if not isinstance(entry, dict):
        raise SettingError(
            translate("mcp", "an {key} entry was {entry}, not an object").format(key=MCP_KEY, entry=repr(entry))
        )
    name = check_server_name(entry.get("name"))
    what = translate("mcp", "MCP server {name}").format(name=name)
    command, url = entry.get("command", ""), entry.get("url", "")
    if bool(command) == bool(url):
        raise SettingError(
            translate("mcp", "{what}: give either a command (a local server) or a url (a remote one)").format(what=what)
        )
    if command and (not isinstance(command, str) or not command.strip() or "\0" in command):
        raise SettingError(
            translate("mcp", "{what}: command must be the program to run").format(what=what), about="command"
        )
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) and "\0" not in a for a in args):
        raise SettingError(translate("mcp", "{what}: args must be a list of texts").format(what=what), about="args")
    if url:
        parts = urlsplit(url) if isinstance(url, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
            raise SettingError(
                translate("mcp", "{what}: url must be an http:// or https:// URL").format(what=what), about="url"
            )
        if parts.username or parts.password:
            raise SettingError(
                translate("mcp", "{what}: put credentials in a header, not in the URL").format(what=what), about="url"
            )
    tool_approval = entry.get("toolApproval", {})
    if not isinstance(tool_approval, dict) or not all(isinstance(k, str) for k in tool_approval):
        raise SettingError(
            translate("mcp", "{what}: toolApproval must map tool names to allow, ask or deny").format(what=what),
            about="toolApproval",
        )
    for tool, value in tool_approval.items():
        check_approval(value, translate("mcp", "{what}, tool {tool}").format(what=what, tool=tool))
    return McpServerConfig(
        name=name,
        command=command.strip() if command else "",
        args=tuple(args) if command else (),
        url=url.strip() if url else "",
        env=_names(entry.get("env", []), _ENV_VAR, translate("mcp", "{what}: env").format(what=what), "env"),
        headers=_names(
            entry.get("headers", []), _HEADER, translate("mcp", "{what}: headers").format(what=what), "headers"
        ),
        approval=check_approval(entry.get("approval", DEFAULT_APPROVAL), what),
        tool_approval=dict(tool_approval),
    )


def parse_pairs(specs: list[str], what: str) -> dict[str, str]:
    """``K=V`` texts (``--env``, ``--header``) as a dict; :class:`SettingError` names one that is not.

    The value is everything after the first ``=`` (a header value may hold ``=`` itself)."""
    pattern = _ENV_VAR if what == "env" else _HEADER
    pairs = {}
    for spec in specs:
        key, sep, value = spec.partition("=")
        key = key.strip()
        if not sep or not pattern.match(key):
            if what == "env":
                template = translate("mcp", "{spec}: expected NAME=VALUE for an environment variable, e.g. {example}")
                example = "TOKEN=abc123"
            else:
                template = translate("mcp", "{spec}: expected NAME=VALUE for a header, e.g. {example}")
                example = "Authorization=Bearer abc123"
            raise SettingError(template.format(spec=repr(spec.split("=")[0]), example=example))
        pairs[key] = value
    return pairs


def assistant_servers(record: dict[str, Any]) -> tuple[str, ...]:
    """The MCP servers an assistant may use, from its ``assistant.json`` (none unless listed)."""
    value = record.get(MCP_KEY, [])
    if not isinstance(value, list):
        return ()
    return tuple(dict.fromkeys(v for v in value if isinstance(v, str) and _NAME.match(v)))
