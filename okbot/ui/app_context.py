"""What every window of the desktop app shares: the workspace, the context sources and the task runner."""

from __future__ import annotations

import gc
import logging
from functools import cached_property
from typing import TYPE_CHECKING, Any

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.storage.errors import OkBotError
from okbot.ui.evolution_lines import UpkeepPhases, upkeep_phases
from okbot.ui.tasks import TaskRunner

if TYPE_CHECKING:
    from okbot.core.compression.compressor import Compressor
    from okbot.core.memory.keeper import MemoryKeeper
    from okbot.core.runner import TurnRunner
    from okbot.core.sources import ContextSources

log = logging.getLogger("okbot.ui")


class AppContext:
    """The app's shared objects, handed to each window and page (never looked up globally).

    ``settings`` is always the live object (``sources.settings``), so a change made in the
    Settings dialog is seen by the next turn, gauge refresh or compression. ``upkeep_phases`` tells
    chat pages, on the GUI thread, when persona and skill upkeep runs for their assistant.
    """

    def __init__(self, workspace: Workspace, settings: Settings, tasks: TaskRunner) -> None:
        self.workspace = workspace
        self.tasks = tasks
        self._settings = settings
        self.upkeep_phases: UpkeepPhases = upkeep_phases()  # made here, on the GUI thread

    @classmethod
    def create(
        cls, workspace: Workspace | None = None, settings: Settings | None = None, *, tasks: TaskRunner | None = None
    ) -> AppContext:
        """Build one from a workspace and settings (both loaded from the data dir when omitted)."""
        return cls(workspace or Workspace(), settings or Settings.load(), tasks or TaskRunner())

    @cached_property
    def sources(self) -> ContextSources:
        """Everything ``build_context`` reads; imported and built on first use, after the window is up."""
        from okbot.core.sources import ContextSources

        return ContextSources(self.workspace, self._settings)

    @cached_property
    def search_index(self) -> Any:
        """The full-text index of every chat (opened on first use; its methods block: workers only)."""
        from okbot.core.search import SearchIndex

        return SearchIndex(workspace=self.workspace)

    def close(self) -> None:
        """Stop what the app started beside its windows (MCP servers, the index's connections); OkBot quits."""
        if "sources" in self.__dict__:  # built: a cached_property keeps it here
            self.sources.close()
        if "search_index" in self.__dict__:
            self.search_index.close()

    @property
    def settings(self) -> Settings:
        """The live settings (reloaded by ``sources`` when another process changed the file)."""
        return self.sources.settings

    def warm_up(self) -> None:
        """Import in the background what the first chat page, its file watcher and the first Send need,
        so the GUI thread finds them loaded instead of importing them itself; then freeze the heap.

        Freezing (``gc.freeze``) moves every object alive by then (Qt wrappers, the modules, the openai SDK,
        the token encodings: ~115k objects) out of the collector's reach. A full collection walked them all,
        holding the GIL for 60-80 ms whichever thread it ran in, and so stalled the GUI mid-reply in about
        half of the streaming benchmarks; what is made later is still collected as usual."""

        def load() -> None:
            import okbot.core.runner  # noqa: F401
            import okbot.core.sources  # noqa: F401
            import okbot.llm.openai_backend  # noqa: F401
            import okbot.ui.file_watch  # noqa: F401  (watchdog)

        self.tasks.run(load, lambda _none: gc.freeze())

    def make_provider(self) -> Any:
        """A provider pool over the current settings: each request goes to the provider its model reference
        names (an assistant's own ``[PROVIDER/]MODEL``), backends built on first use."""
        from okbot.llm.providers import ProviderPool

        return ProviderPool(self.settings)

    @cached_property
    def keeper(self) -> MemoryKeeper:
        """The app's one memory keeper: wrap-ups (and persona and skill upkeep) run in its background thread,
        one at a time; upkeep reports its phases to ``upkeep_phases``."""
        from okbot.core.evolution.upkeep import Upkeep
        from okbot.core.memory.keeper import MemoryKeeper

        upkeep = Upkeep(self.sources, self.make_provider, on_phase=self.upkeep_phases.report)
        return MemoryKeeper(self.sources, self.make_provider, upkeep=upkeep)

    def make_runner(self) -> TurnRunner:
        """A TurnRunner over a provider built from the current settings: compress before, wrap up after."""
        from okbot.core.turns import make_turn_runner  # loaded with the first turn, not at start-up

        return make_turn_runner(self.sources, self.make_provider(), self.keeper)

    def compressor(self) -> Compressor | None:
        """A ``Compressor`` for the current settings, or ``None`` when no provider can be built from them."""
        from okbot.core.turns import make_compressor

        try:
            provider = self.make_provider()
        except OkBotError as exc:  # a broken provider setting must not break the caller
            log.warning("no provider for compression: %s", exc)
            return None
        return make_compressor(self.sources, provider, self.keeper)
