"""What every window of the desktop app shares: the application (:class:`okbot.app.OkBotApp`), the workspace and
the task runner."""

from __future__ import annotations

import gc
import logging
import threading
from typing import TYPE_CHECKING, Any

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.ui.evolution_lines import UpkeepPhases, upkeep_phases
from okbot.ui.tasks import TaskRunner

if TYPE_CHECKING:
    from okbot.app import OkBotApp
    from okbot.core.sources import ContextSources

log = logging.getLogger("okbot.ui")


class AppContext:
    """The app's shared objects, handed to each window and page (never looked up globally).

    ``app`` is the application every turn, compression and context view goes through; it is imported and
    built on first use, after the window is up. ``settings`` is always the live object
    (``sources.settings``), so a change made in the Settings dialog is seen by the next turn, gauge refresh
    or compression. ``upkeep_phases`` tells chat pages, on the GUI thread, when persona and skill upkeep runs
    for their assistant.
    """

    def __init__(self, workspace: Workspace, settings: Settings, tasks: TaskRunner) -> None:
        self.workspace = workspace
        self.tasks = tasks
        self._settings = settings
        self._app: OkBotApp | None = None
        self._app_lock = threading.Lock()
        self.upkeep_phases: UpkeepPhases = upkeep_phases()  # made here, on the GUI thread

    @classmethod
    def create(
        cls, workspace: Workspace | None = None, settings: Settings | None = None, *, tasks: TaskRunner | None = None
    ) -> AppContext:
        """Build one from a workspace and settings (both loaded from the data dir when omitted)."""
        return cls(workspace or Workspace(), settings or Settings.load(), tasks or TaskRunner())

    @property
    def app(self) -> OkBotApp:
        """The application: its sources, provider pool, compressor, memory keeper, runner and search index
        (one, whichever threads ask first)."""
        with self._app_lock:
            if self._app is None:
                from okbot.app import OkBotApp

                self._app = OkBotApp(self.workspace, self._settings, on_upkeep_phase=self.upkeep_phases.report)
            return self._app

    @property
    def sources(self) -> ContextSources:
        """Everything ``build_context`` reads."""
        return self.app.sources

    @property
    def search_index(self) -> Any:
        """The full-text index of every chat (opened on first use; its methods block: workers only)."""
        return self.app.search_index

    @property
    def settings(self) -> Settings:
        """The live settings (reloaded by ``sources`` when another process changed the file)."""
        return self.sources.settings

    def key_changed(self, provider: str | None = None) -> None:
        """A key was saved or removed: the next request to ``provider`` (every one, when None) reads it afresh."""
        if self._app is not None:
            self._app.key_changed(provider)

    def close(self) -> None:
        """Stop what the app started beside its windows (MCP servers, the index's connections); OkBot quits."""
        if self._app is not None:
            self._app.close()

    def warm_up(self) -> None:
        """Import in the background what the first chat page, its file watcher and the first Send need,
        so the GUI thread finds them loaded instead of importing them itself; then freeze the heap.

        Freezing (``gc.freeze``) moves every object alive by then (Qt wrappers, the modules, the openai SDK,
        the token encodings: ~115k objects) out of the collector's reach. A full collection walked them all,
        holding the GIL for 60-80 ms whichever thread it ran in, and so stalled the GUI mid-reply in about
        half of the streaming benchmarks; what is made later is still collected as usual."""

        def load() -> None:
            import okbot.app  # noqa: F401  (the runner, the compressor, the sources)
            import okbot.llm.openai_backend  # noqa: F401
            import okbot.ui.file_watch  # noqa: F401  (watchdog)

        self.tasks.run(load, lambda _none: gc.freeze())
