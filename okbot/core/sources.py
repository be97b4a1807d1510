"""Where :func:`okbot.core.context.build_context` reads from, with cheap change detection.

One ``ContextSources`` per process (the GUI, a CLI run, a benchmark) holds the workspace, the
settings, one ``SessionStore`` per session file and small mtime-keyed caches for SOUL.md and the
summary, so building the context on every turn costs a few ``stat`` calls, not re-reading disk.
Capabilities that arrive later (memory recall, skills) plug in as providers that start empty;
tools come from one registry, so the tool-notes block and the tools offered always agree.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from okbot.config.providers import resolve_model
from okbot.config.settings import Settings
from okbot.core.assent import AsSentStore
from okbot.core.instructions import RosterEntry
from okbot.core.learnt_windows import LearntWindow, LearntWindows
from okbot.core.local_tools import LOCAL_TOOL_NAMES, LOCAL_TOOLS
from okbot.core.mcp_tools import fit_mcp_tools, mcp_tools
from okbot.core.memory.memories import Memories
from okbot.core.schedules.tool import MANAGE_SCHEDULE
from okbot.core.search_history import SEARCH_HISTORY
from okbot.core.session import SessionStore
from okbot.core.skills import LOAD_SKILL, SkillCatalog
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.tokens import Calibration, TokenCounter, counter_for_model, effective_context_window
from okbot.core.tools import Tool, ToolRegistry
from okbot.core.workspace import Target, Workspace, read_soul
from okbot.llm.keystore import KeyStore
from okbot.mcp import secrets as mcp_secrets
from okbot.mcp.hub import McpHub
from okbot.storage import paths
from okbot.storage.atomic import file_stamp
from okbot.storage.errors import OkBotError

if TYPE_CHECKING:
    from okbot.core.evolution.store import Evolution

log = logging.getLogger("okbot.context")

# A squad's captain has no workspace or skills of its own: its members do that work.
CAPTAIN_LACKS = frozenset({"load_skill", *LOCAL_TOOL_NAMES})
COUNTER_WAIT_S = 15.0  # how long a build waits for the tokenizer file before counting approximately
MemoryProvider = Callable[[Target], Sequence[str]]
SkillProvider = Callable[[Target], Sequence[tuple[str, str]]]


def default_tools() -> ToolRegistry:
    """The tools every assistant has: its history, its skills, its schedule, and the local tools (files, shell,
    web)."""
    return ToolRegistry([SEARCH_HISTORY, LOAD_SKILL, MANAGE_SCHEDULE, *LOCAL_TOOLS])


def context_files(target: Target) -> list[Path]:
    """Files and folders edited outside a turn whose changes alter ``target``'s context (for watchers)."""
    candidates = [
        target.soul_path,
        target.skills_dir,
        target.memory_dir,
        paths.global_memory_dir(),
        target.summary_path,
    ]
    return [p for p in candidates if p is not None]


class ContextSources:
    """Shared, cached access to everything the model's context is built from."""

    def __init__(
        self,
        workspace: Workspace | None = None,
        settings: Settings | None = None,
        *,
        calibration: Calibration | None = None,
        windows: LearntWindows | None = None,
        memories: MemoryProvider | None = None,
        skills: SkillProvider | None = None,
        tools: ToolRegistry | None = None,
    ) -> None:
        self.workspace = workspace or Workspace()
        self._settings = settings or Settings.load()
        self.calibration = calibration or Calibration(paths.calibration_file())
        self.windows = windows or LearntWindows(paths.learnt_windows_file())
        self.memory = Memories(self)
        self._evolution: Evolution | None = None
        self.memories = memories or self.memory.recalled
        self.skills = skills or self.skill_catalog
        self.tools = tools if tools is not None else default_tools()
        self._lock = threading.Lock()
        self._sessions: dict[Path, SessionStore] = {}
        self._as_sent: dict[Path, AsSentStore] = {}
        self._summaries: dict[Path, tuple[tuple[int, int] | None, SessionSummary, list[str]]] = {}
        self._souls: dict[Path, tuple[tuple[int, int] | None, str, str | None]] = {}
        self._skill_catalogs: dict[Path, SkillCatalog] = {}
        self._mcp: McpHub | None = None

    @property
    def evolution(self) -> Evolution:
        """Staged persona and skill changes, their log and undo (loaded on first use: it reads the grounding checks)."""
        with self._lock:
            if self._evolution is None:
                from okbot.core.evolution.store import Evolution

                self._evolution = Evolution(self)
            return self._evolution

    @property
    def mcp(self) -> McpHub:
        """The MCP servers of this process (nothing starts until a turn of an assistant that may use one)."""
        with self._lock:
            if self._mcp is None:
                store = KeyStore()
                self._mcp = McpHub(
                    lambda: self.settings,
                    secrets=lambda name: mcp_secrets.load(store, name),
                    cache_file=paths.mcp_tools_file(),
                )
            return self._mcp

    def close(self) -> None:
        """Stop what this process started (MCP servers); OkBot quits."""
        with self._lock:
            hub, self._mcp = self._mcp, None
        if hub is not None:
            hub.close()

    # -- settings ---------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """The settings, reloaded in place when another process (the CLI, an editor) changed the file."""
        if self._settings.file.changed_on_disk():
            with self._lock:
                if self._settings.file.changed_on_disk():
                    self._settings.reload()  # in place: subscribers stay subscribed
        return self._settings

    def own_model(self, target: Target) -> str | None:
        """The model an assistant was given itself (``model`` in assistant.json), or None (a squad: always None)."""
        model = target.meta.get("model") if target.is_assistant else None
        return model.strip() if isinstance(model, str) and model.strip() else None

    def model_for(self, target: Target) -> str:
        """The model reference ``[PROVIDER/]MODEL`` ``target`` talks to: its own (:meth:`own_model`), else the
        default in settings (a squad's captain always uses the default). A provider pool routes by it."""
        return self.own_model(target) or self.settings.get("provider.model")

    def summarizer_model(self, target: Target) -> str:
        """The model reference that summarizes ``target``'s session and extracts its memories: the setting
        ``contextCompression.summarizerModel`` when it names one, else ``target``'s own model."""
        return self.settings.get("contextCompression.summarizerModel") or self.model_for(target)

    def context_window(self, target: Target | None = None) -> int:
        """The context window of ``target``'s model (default: the settings' model): the window its provider
        lists for it, else the per-model setting or the model facts; lowered to the window its server stated
        when it refused a longer request (:meth:`learn_window`)."""
        if target is None:
            configured = effective_context_window(self.settings)
            config, model = resolve_model(self.settings, None)
        else:
            config, model = resolve_model(self.settings, self.model_for(target))
            listed = config.context_windows.get(model)
            configured = int(listed) if listed else effective_context_window(self.settings, model)
        learnt = self.windows.get(config.base_url, model)
        return min(configured, learnt.window) if learnt is not None else configured

    def learn_window(self, target: Target, window: int, *, prompt_tokens: int | None = None) -> bool:
        """Remember ``window`` (what the server of ``target``'s model stated when it refused a request) for that
        provider and model; False when nothing changed (not a real window, or not below what was learnt)."""
        config, model = resolve_model(self.settings, self.model_for(target))
        return self.windows.learn(config.base_url, model, window, prompt_tokens=prompt_tokens)

    def learnt_window(self, target: Target) -> LearntWindow | None:
        """What the server of ``target``'s model taught about its window, or None."""
        config, model = resolve_model(self.settings, self.model_for(target))
        return self.windows.get(config.base_url, model)

    def forget_window(self, target: Target) -> bool:
        """Forget the window learnt for ``target``'s provider and model; whether there was one."""
        config, model = resolve_model(self.settings, self.model_for(target))
        return self.windows.forget(config.base_url, model)

    def counter(self, model: str) -> TokenCounter:
        return counter_for_model(model)

    def loaded_counter(self, target: Target, wait: float = COUNTER_WAIT_S) -> TokenCounter:
        """``target``'s counter once its encoding has loaded (waiting up to ``wait`` s; never on the GUI
        thread), so what is counted next is exact whenever the encoding exists at all."""
        counter = self.counter(self.model_for(target))
        counter.ensure_loaded(timeout=wait)
        return counter

    # -- per-target files ---------------------------------------------------------------------
    def session(self, target: Target) -> SessionStore:
        path = target.session_path
        with self._lock:
            store = self._sessions.get(path)
            if store is None:
                store = self._sessions[path] = SessionStore(path)
            return store

    def as_sent(self, target: Target) -> AsSentStore:
        """The target's as-sent record: one store per folder in this process, so its thread lock covers
        every writer here (other processes wait on the file lock)."""
        path = target.dir / "as-sent"
        with self._lock:
            store = self._as_sent.get(path)
            if store is None:
                store = self._as_sent[path] = AsSentStore(path)
            return store

    def skills_of(self, target: Target) -> SkillCatalog:
        """The target's skill catalog (one per skills folder; it re-reads only what changed)."""
        directory = target.skills_dir
        if directory is None:
            return SkillCatalog(None)
        with self._lock:
            catalog = self._skill_catalogs.get(directory)
            if catalog is None:
                catalog = self._skill_catalogs[directory] = SkillCatalog(directory)
            return catalog

    def memory_and_skill_problems(self, target: Target) -> list[str]:
        """Torn memory lines, bad SKILL.md front matter …: shown as notices, never a crash."""
        return [*self.memory.problems(target), *self.skills_of(target).problems()]

    def skill_catalog(self, target: Target) -> list[tuple[str, str]]:
        """``(name, description)`` of the target's valid skills (the default skills provider)."""
        return self.skills_of(target).catalog()

    def summary(self, target: Target) -> tuple[SessionSummary, list[str]]:
        """The summary and any problems met loading it (re-read only when the file changed)."""
        path = target.summary_path
        stamp = file_stamp(path)
        cached = self._summaries.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        store = SummaryStore(path)
        summary = store.load()
        self._summaries[path] = (stamp, summary, list(store.problems))
        return summary, list(store.problems)

    def soul(self, target: Target) -> tuple[str, str | None]:
        """SOUL.md text and a problem message (missing, unreadable, bad encoding) or None."""
        path = target.soul_path
        if path is None:
            return "", None
        stamp = file_stamp(path)
        cached = self._souls.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        text, problem = read_soul(target)
        self._souls[path] = (stamp, text, problem)
        return text, problem

    def tools_for(self, target: Target) -> ToolRegistry:
        """The tools ``target`` may call, only those that can do something: ``load_skill`` only while the
        target has a skill. A squad's captain searches the squad's history and asks its members (one
        ``ask_<member>`` each). The tool notes and the tools offered both come from here."""
        if not target.is_squad:
            own = [tool for tool in self.tools if tool.name != LOAD_SKILL.name or self.skills(target)]
            return ToolRegistry([*own, *self.mcp_tools(target)]) if target.mcp_servers else ToolRegistry(own)
        from okbot.core.squad import delegation_tool, members, wire_names  # squads only

        own = [tool for tool in self.tools if tool.name not in CAPTAIN_LACKS]
        found = members(target, self.workspace)[0]
        return ToolRegistry([*own, *(delegation_tool(m) for m in found)], names=wire_names(found))

    def mcp_tools(self, target: Target) -> list[Tool]:
        """The tools of the MCP servers ``target`` may use (from the last tool lists: nothing starts here)."""
        return mcp_tools(self.mcp, target, self.context_window(target))

    def mcp_cuts(self, target: Target) -> list[str]:
        """Why ``target`` is offered fewer MCP tools than its servers list (none: all of them)."""
        return fit_mcp_tools(self.mcp, target, self.context_window(target))[1]

    def mcp_servers_of(self, target: Target) -> list[str]:
        """The MCP servers a turn of ``target`` may use: an assistant's own, a squad's members' (not the captain)."""
        if not target.is_squad:
            return list(target.mcp_servers)
        names: list[str] = []
        for member in target.members:
            try:
                names += self.workspace.resolve(member["assistant"]).mcp_servers
            except OkBotError:
                continue
        return list(dict.fromkeys(names))

    def roster(self, target: Target) -> list[RosterEntry]:
        """The assistant alone, or the squad's members with their role in the squad."""
        if not target.is_squad:
            return [RosterEntry(name=target.name, role=target.role_line)]
        entries = []
        for member in target.members:
            try:
                who = self.workspace.resolve(member["assistant"])
            except OkBotError:  # a member deleted meanwhile: the squad still works with the rest
                log.warning("squad %s lists a missing member %r", target.id, member.get("assistant"))
                continue
            entries.append(RosterEntry(name=who.name, role=member.get("role", ""), description=who.role_line))
        return entries
