"""The application: the long-lived objects every front-end shares, and the use cases they call.

One :class:`OkBotApp` per process (the desktop app's, or one ``okbot`` command's) owns the context sources,
one provider pool, one compressor wired with the memory keeper, one turn runner and the search index. They
are built on first use and kept: a settings change reaches them through the live settings object (the pool
rebuilds a backend whose settings changed), so nothing is rebuilt per turn, and state that must outlive a
turn (what a server refused, the summary locks, the keeper's queue) lives in its owner.

The methods below the objects are the use cases: every front-end runs turns, switches versions, compresses
and shows context through them, so a feature reaches the desktop and the CLI together.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from okbot.app.context_view import ViewerSnapshot, load_snapshot
from okbot.app.turn_gate import TurnGate
from okbot.app.wiring import make_compressor, make_turn_runner
from okbot.config.settings import Settings
from okbot.core.compression.compressor import CompressionReport, Compressor
from okbot.core.evolution.upkeep import Upkeep
from okbot.core.memory.keeper import MemoryKeeper
from okbot.core.search import SearchIndex
from okbot.core.session.branches import Versions
from okbot.core.sources import ContextSources
from okbot.core.turn.outcome import TurnCallbacks, TurnResult
from okbot.core.turn.pending import PendingCall
from okbot.core.turn.request import TurnRequest, is_job
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Target, Workspace
from okbot.llm import slots
from okbot.llm.provider import CancelToken, Provider
from okbot.llm.providers import ProviderPool

log = logging.getLogger("okbot.app")

_T = TypeVar("_T")


def _part(build: Callable[[OkBotApp], _T]) -> property:
    """One of the app's long-lived objects: built on first use, once, whichever threads ask at the same time."""
    name = build.__name__

    @functools.wraps(build)
    def get(self: OkBotApp) -> _T:
        with self._build_lock:
            if name not in self._parts:
                self._parts[name] = build(self)
            return self._parts[name]

    return property(get)


class OkBotApp:
    """OkBot's long-lived objects over one workspace, and the use cases every front-end calls.

    ``settings`` None loads them from the data dir. ``provider`` replaces the provider pool (benchmarks and
    tests give a recording or scripted one); ``background`` False runs memory extraction and upkeep on the
    calling thread (a test's, or a command that waits for it anyway); ``on_upkeep_phase`` is told when
    persona and skill upkeep starts and ends for an assistant (the desktop shows it on the chat page).
    Building one reads nothing and imports no provider SDK; each part is built on first use.
    """

    def __init__(
        self,
        workspace: Workspace,
        settings: Settings | None = None,
        *,
        provider: Provider | None = None,
        background: bool = True,
        on_upkeep_phase: Callable[..., None] | None = None,
    ) -> None:
        self.workspace = workspace
        self._settings = settings
        self._provider = provider
        self._background = background
        self._on_upkeep_phase = on_upkeep_phase
        self._build_lock = threading.RLock()  # the first turn and the first gauge refresh may meet here
        self._parts: dict[str, Any] = {}

    # -- the long-lived objects ------------------------------------------------------------
    @_part
    def sources(self) -> ContextSources:
        """Everything ``build_context`` reads."""
        return ContextSources(self.workspace, self._settings)

    @property
    def settings(self) -> Settings:
        """The live settings (reloaded in place when another process changed the file)."""
        return self.sources.settings

    @_part
    def provider(self) -> Provider:
        """The one provider every request goes through: each to the provider its model reference names."""
        return self._provider if self._provider is not None else ProviderPool(self.sources.settings)

    @_part
    def keeper(self) -> MemoryKeeper:
        """Memory extraction after turns and compressions, and persona and skill upkeep: one at a time, in its
        own thread (or the caller's, when the app runs without background work)."""
        upkeep = Upkeep(self.sources, self.provider, on_phase=self._on_upkeep_phase)
        return MemoryKeeper(self.sources, self.provider, background=self._background, upkeep=upkeep)

    @_part
    def compressor(self) -> Compressor:
        """The one compressor: what it folds away feeds the keeper's memory extraction, from any front-end."""
        return make_compressor(self.sources, self.provider, self.keeper)

    @_part
    def runner(self) -> TurnRunner:
        """read disk (maybe compress; recall) -> chat, each later round made to fit -> offer what the user
        taught -> wrap up (the keeper, in the background)."""
        return make_turn_runner(self.sources, self.provider, self.keeper, self.compressor)

    @_part
    def turns(self) -> TurnGate:
        """How many turns run at once (three across chats, one per chat)."""
        return TurnGate()

    @_part
    def search_index(self) -> SearchIndex:
        """The full-text index of every chat (its methods block: call them off the GUI thread)."""
        return SearchIndex(workspace=self.workspace)

    def _built(self, name: str) -> bool:
        with self._build_lock:
            return name in self._parts

    # -- use cases -------------------------------------------------------------------------
    def run_turn(
        self,
        target: Target,
        request: TurnRequest,
        *,
        callbacks: TurnCallbacks | None = None,
        cancel: CancelToken | None = None,
    ) -> TurnResult:
        """Send a message, retry, edit or regenerate (:mod:`okbot.core.turn.request`); blocks until the turn
        ends (call it off the GUI thread). Refusals raise :class:`~okbot.storage.errors.OkBotError`.

        At most :data:`~okbot.app.turn_gate.MAX_TURNS` turns run at once, one per chat: beyond that the turn
        waits, told as a :class:`~okbot.app.turn_gate.TurnWaiting` event (a Stop meanwhile: OkBotError, nothing
        sent); a scheduled job's turn waits behind the user's."""
        callbacks = callbacks or TurnCallbacks()
        cancel = cancel or CancelToken()
        priority = slots.Priority.JOB if is_job(request) else slots.Priority.CHAT
        asked = time.monotonic()
        with self.turns.turn((target.kind, target.id), priority, cancel, callbacks.on_event):
            waited = time.monotonic() - asked  # shown in the reply's timing
            return self.runner.run(target, request, callbacks=callbacks, cancel=cancel, waited=waited)

    def switch_version(self, target: Target, item_id: int, index: int) -> dict[str, Any] | None:
        """Follow version ``index`` of the message or reply at ``item_id``; the marker appended, or None."""
        return self.runner.switch_version(target, item_id, index)

    def chat_versions(self, target: Target) -> dict[int, Versions]:
        """The items of the uncompressed tail that have more than one version."""
        return self.runner.chat_versions(target)

    def close_dangling_calls(self, target: Target) -> list[dict[str, Any]]:
        """Close the tool calls an earlier run left open (the chat does it when it opens), except those that
        wait for approval across a restart (:meth:`waiting_calls`)."""
        return self.runner.close_dangling_calls(target, keep_waiting=True)

    def waiting_calls(self, target: Target) -> list[PendingCall]:
        """The tool calls that waited for approval when OkBot closed: the chat asks about each again, and once
        each is answered (:meth:`answer_waiting`) ``run_turn(target, Resume())`` goes on with the turn."""
        return self.runner.waiting_calls(target)

    def answer_waiting(self, target: Target, call_id: str, approved: bool) -> bool:
        """Keep the user's answer to a call that waited across a restart (False: it no longer waits)."""
        return self.runner.answer_waiting(target, call_id, approved)

    def view_context(
        self, target: Target, item_id: int, *, member: str | None = None, request_id: int | None = None
    ) -> ViewerSnapshot:
        """What the model saw for user message ``item_id``: the context rebuilt at it and the request its turn
        sent (``request_id``: another attempt or round of it; ``member``: what that squad member saw)."""
        return load_snapshot(self.sources, target, item_id, member, request_id)

    def compress_now(self, target: Target) -> CompressionReport:
        """Fold the chat's older turns into its summary now; memory extraction follows, as after any
        compression (wait for it with :meth:`drain` before a command exits)."""
        return self.compressor.compress_now(target)

    def key_changed(self, provider: str | None = None) -> None:
        """A key was saved or removed: the next request to that provider (every one, when None) reads it."""
        if self._built("provider") and isinstance(self.provider, ProviderPool):
            self.provider.forget(provider)

    def drain(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the keeper's background work; False when some is still running."""
        return self.keeper.drain(timeout) if self._built("keeper") else True

    def close(self) -> None:
        """Stop what the app started (MCP servers, the index's connections, the provider's HTTP clients)."""
        if self._built("sources"):
            self.sources.close()
        if self._built("search_index"):
            self.search_index.close()
        if self._built("provider"):
            close = getattr(self.provider, "close", None)
            if callable(close):
                close()
