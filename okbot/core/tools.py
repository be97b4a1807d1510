"""The tool registry: what the model may call, its JSON schema, its note for the instructions.

Each tool declares an approval setting key (``tools.<id>.approval``: allow | ask | deny).
``deny`` tools are neither offered to the model nor listed in the tool-notes block; ``ask``
tools run only after the runner's approval callback said yes. Later capabilities (skills,
memory, local tools) register here the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from okbot.config.settings import Settings
from okbot.core.wire_names import NO_NAMES, WireNames
from okbot.core.workspace import Target
from okbot.llm.events import ToolCallDone
from okbot.storage import jsontext


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool returns to the model (``ok=False`` for an error the model should see).

    ``author``/``source`` name the speaker when it is not the tool itself (a squad member's reply).
    """

    content: str
    ok: bool = True
    author: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class ToolContext:
    """What a running tool may use: the target, its session store, and the turn it runs in.

    ``runtime`` is the running turn (squad delegation runs members through it); ``call_id`` the call;
    ``cancel`` the turn's cancel token and ``seconds_left`` its tool time left (a tool caps its wait with it).
    """

    target: Target
    session: Any
    runtime: Any = None
    call_id: str = ""
    cancel: Any = None
    seconds_left: float = float("inf")


@dataclass(frozen=True)
class Tool:
    """A callable tool: name, one-line note, JSON schema of its arguments, the function."""

    name: str
    note: str | Callable[[], str]  # a callable when the note depends on the system (read when first offered)
    parameters: dict[str, Any]
    run: Callable[[dict[str, Any], ToolContext], ToolOutcome]
    approval_key: str | None = None  # settings key; None = always allowed
    parallel: bool = False  # calls of it in one round may run at the same time
    approval_of: Callable[[Settings], str] | None = None  # its approval read otherwise (an MCP server's tool)
    description: str = ""  # the spec's description when longer than the one-line note (an MCP tool's own)
    available: Callable[[Settings], bool] | None = None  # offered only while this says so (web_search: configured)

    def note_text(self) -> str:
        """The one-line note for the tool-notes block."""
        return self.note() if callable(self.note) else self.note

    def spec(self) -> dict[str, Any]:
        """The Chat Completions ``tools`` entry."""
        description = self.description or self.note_text()
        return {
            "type": "function",
            "function": {"name": self.name, "description": description, "parameters": self.parameters},
        }


class ToolRegistry:
    """The tools a turn can offer, filtered by their approval settings.

    Tools are kept and called by their recorded names; ``names`` gives the ones the model sees instead
    (a squad's ``ask_<member>`` tools follow the members' current names: okbot.core.wire_names)."""

    def __init__(self, tools: Sequence[Tool] = (), names: WireNames = NO_NAMES) -> None:
        self.names = names
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} registered twice")
        self._tools[tool.name] = tool

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def approval(self, tool: Tool, settings: Settings) -> str:
        if tool.approval_of is not None:
            return tool.approval_of(settings)
        return settings.get(tool.approval_key) if tool.approval_key else "allow"

    def offered(self, settings: Settings) -> list[Tool]:
        """Tools the model may see this turn (everything not set to deny, nor unavailable), in registration order."""
        return [
            t
            for t in self._tools.values()
            if self.approval(t, settings) != "deny" and (t.available is None or t.available(settings))
        ]

    def specs(self, settings: Settings) -> list[dict[str, Any]]:
        """The Chat Completions ``tools`` entries, by the names the model sees."""
        specs = [t.spec() for t in self.offered(settings)]
        for spec in specs:
            spec["function"]["name"] = self.names.tool(spec["function"]["name"])
        return specs

    def notes(self, settings: Settings) -> list[tuple[str, str]]:
        """(name the model sees, note) pairs for the tool-notes instruction block."""
        return [(self.names.tool(t.name), t.note_text()) for t in self.offered(settings)]

    def recorded(self, call: ToolCallDone) -> ToolCallDone:
        """``call`` as it is recorded and run: by the tool's recorded name, whatever name the model used."""
        name = self.names.recorded(call.name)
        return call if name == call.name else replace(call, name=name)


def parse_arguments(text: str) -> dict[str, Any]:
    """Tool-call arguments as a dict, or ValueError with a message the model can act on."""
    if not text.strip():
        return {}
    value = jsontext.loads(text, what="the arguments")  # bad or too-deep JSON: refused like bad arguments
    if not isinstance(value, dict):
        raise ValueError("arguments must be a JSON object")
    return value
