"""Watch files and directories on disk (watchdog) and report changes on the GUI thread, debounced.

The View-context window uses it to follow edits of SOUL.md, skills/ and memory/ made in an
editor. watchdog calls back on its observer thread; :class:`FileWatcher` only checks there
whether an event concerns a watched path and emits a queued signal, so the debounce timer and the
``changed`` signal live on the GUI thread. (Un)scheduling watches — inotify setup takes a few ms per
folder — runs on the watcher's own arming thread, one request after another.

A watched path that does not exist yet (no ``skills/`` folder so far) is watched through its
nearest existing parent; once it appears, the watches are re-armed so edits inside it are seen.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

log = logging.getLogger("okbot.ui.file_watch")

DEFAULT_DEBOUNCE_MS = 300
# A file rewritten again and again still gets reported at least this often (in debounce periods).
MAX_WAIT_PERIODS = 4
# Reading a file (build_context reads SOUL.md) must not look like a change, or a viewer would loop.
_IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})


def _as_text(path: Any) -> str:
    return os.fsdecode(path) if isinstance(path, bytes) else str(path)


def _concerns(path: str, watched: tuple[str, ...]) -> str | None:
    """The watched path that ``path`` is, or lies under; ``None`` when it concerns none of them."""
    for w in watched:
        if path == w or path.startswith(w + os.sep):
            return w
    return None


def _watch_plan(paths: Iterable[str]) -> dict[str, bool]:
    """Directory to schedule -> recursive, for each watched path (existing or not)."""
    plan: dict[str, bool] = {}
    for text in paths:
        path = Path(text)
        if path.is_dir():
            plan[text] = True
            continue
        parent = path.parent
        while not parent.is_dir() and parent != parent.parent:
            parent = parent.parent
        if parent.is_dir():
            key = str(parent)
            plan[key] = plan.get(key, False)
    return plan


class _Handler(FileSystemEventHandler):
    """Runs on watchdog's thread: filters events and hands the relevant ones to the GUI thread."""

    def __init__(self, watcher: FileWatcher) -> None:
        super().__init__()
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED_EVENTS:
            return
        watched = self._watcher._watched  # an immutable tuple, replaced whole on the GUI thread
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = _as_text(raw)
            hit = _concerns(path, watched) if path else None
            if hit is not None:
                try:
                    self._watcher._observed.emit(hit)
                except RuntimeError:  # the watcher was deleted while this event was in flight
                    return


class FileWatcher(QObject):
    """Watches files and directories; ``changed`` lists the watched paths that changed.

    Bursts of events (an editor's save is several) within ``debounce_ms`` become one ``changed``
    emission, delivered on the GUI thread. Watching starts with :meth:`set_paths` and ends with
    :meth:`stop` (call it when the owning window closes; it joins watchdog's thread).
    """

    changed = Signal(list)  # list[str]: the watched paths (as given) with changes, sorted
    _observed = Signal(str)  # emitted on watchdog's thread, delivered queued on the GUI thread

    def __init__(self, *, debounce_ms: int = DEFAULT_DEBOUNCE_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watched: tuple[str, ...] = ()
        self._observer: Any = None
        self._scheduled: dict[str, tuple[Any, bool]] = {}  # dir -> (watch handle, recursive); arming thread only
        self._arming: ThreadPoolExecutor | None = None  # one thread: (un)scheduling inotify watches takes ms
        self._pending: set[str] = set()
        self._first_pending = 0.0
        self._debounce_ms = max(1, int(debounce_ms))
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self._debounce_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._observed.connect(self._on_observer_event, Qt.ConnectionType.QueuedConnection)

    @property
    def paths(self) -> list[str]:
        """The watched paths."""
        return list(self._watched)

    @property
    def running(self) -> bool:
        """True while watchdog's observer thread is alive."""
        return self._observer is not None and self._observer.is_alive()

    def watched_dirs(self) -> dict[str, bool]:
        """Directories currently scheduled with watchdog -> recursive (for diagnostics and tests)."""
        if self._arming is not None:
            self._arming.submit(lambda: None).result()  # after the arming asked for so far
        return {d: rec for d, (_w, rec) in self._scheduled.items()}

    def set_paths(self, paths: Iterable[Path | str], *, wait: bool = True) -> None:
        """Watch exactly ``paths`` (files or directories, existing or not); starts the observer.

        ``wait=False`` arms the watches on the watcher's own thread and returns at once (the main
        window switching chats must not wait for inotify); events in those few ms may be missed.
        """
        self._watched = tuple(dict.fromkeys(os.path.abspath(os.fspath(p)) for p in paths))
        if self._observer is None:
            self._observer = Observer()
            self._observer.daemon = True
            self._handler = _Handler(self)
            self._observer.start()
            self._arming = ThreadPoolExecutor(max_workers=1, thread_name_prefix="okbot-watch-arm")
        self._rearm(wait=wait)

    def stop(self) -> None:
        """Stop watching and join watchdog's thread; pending changes are dropped."""
        self._timer.stop()
        self._pending.clear()
        self._watched = ()
        arming, self._arming = self._arming, None
        if arming is not None:
            arming.shutdown(wait=True)
        observer, self._observer = self._observer, None
        self._scheduled.clear()
        if observer is not None:
            observer.stop()
            observer.join(timeout=2.0)

    # -- GUI thread ---------------------------------------------------------------------------
    def _on_observer_event(self, path: str) -> None:
        if path not in self._watched:
            return  # a late event for a path no longer watched
        if not self._pending:
            self._first_pending = time.monotonic()
        self._pending.add(path)
        waited_ms = (time.monotonic() - self._first_pending) * 1000
        if not self._timer.isActive() or waited_ms < self._debounce_ms * MAX_WAIT_PERIODS:
            self._timer.start()  # (re)start: wait for the burst to settle, but never forever

    def _on_timer_timeout(self) -> None:
        changed, self._pending = sorted(self._pending), set()
        if not changed:
            return
        self._rearm(wait=True)  # a folder may have appeared: watch inside it before anyone writes there
        self.changed.emit(changed)

    def _rearm(self, *, wait: bool) -> None:
        if self._arming is None:
            return
        future = self._arming.submit(self._arm, self._watched, self._observer)
        if wait:
            future.result()

    def _arm(self, watched: tuple[str, ...], observer: Any) -> None:
        """On the arming thread: make the scheduled watches match ``watched``."""
        if observer is None or observer is not self._observer:
            return  # stopped meanwhile
        plan = _watch_plan(watched)
        for directory, (watch, recursive) in list(self._scheduled.items()):
            if plan.get(directory) != recursive or not os.path.isdir(directory):
                try:
                    observer.unschedule(watch)
                except (KeyError, OSError):  # the directory vanished and watchdog already dropped it
                    pass
                del self._scheduled[directory]
        for directory, recursive in plan.items():
            if directory in self._scheduled:
                continue
            try:
                watch = observer.schedule(self._handler, directory, recursive=recursive)
            except OSError as exc:  # e.g. out of inotify watches: the viewer still works, just not live
                log.warning("cannot watch %s: %s", directory, exc)
                continue
            self._scheduled[directory] = (watch, recursive)
