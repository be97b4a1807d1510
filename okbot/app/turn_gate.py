"""How many turns run at once: at most :data:`MAX_TURNS` across chats (the original OkBot's limit), one per chat.

Every turn of the process passes the gate (:meth:`TurnGate.turn`), the desktop's chats and the scheduler's jobs
alike. A turn beyond the limit, or one for a chat that is already replying (the CLI beside a scheduled job),
waits in line and is told so (:class:`TurnWaiting`); the user's chats go before scheduled jobs, then first come
first served. Which request reaches a server first once the turns run is the provider scheduler's business
(:mod:`okbot.llm.slots`); this only bounds the turns themselves, so three chats can stream side by side from a
hosted model while a fourth waits its turn.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from okbot.i18n import translate
from okbot.llm import slots
from okbot.llm.provider import CancelToken
from okbot.storage.errors import OkBotError

MAX_TURNS = 3


@dataclass(frozen=True)
class TurnWaiting:
    """A turn waits before it starts: ``busy_chat`` (its chat is replying already) or ``running`` turns at the limit."""

    running: int
    limit: int
    busy_chat: bool

    def text(self) -> str:
        if self.busy_chat:
            return translate("turns", "Waiting: this chat is already replying (another window or a scheduled job)")
        return translate("turns", "Waiting: {n} other chats are replying; this one starts when one is done").format(
            n=self.running
        )


class TurnGate:
    """Lets at most ``limit`` turns run at once, one per chat key."""

    def __init__(self, limit: int = MAX_TURNS) -> None:
        self.limit = limit
        self._cond = threading.Condition()
        self._running: set[Hashable] = set()
        self._waiting: list[tuple[int, int, Hashable]] = []  # (priority, arrival, key)
        self._arrivals = itertools.count()

    @property
    def running(self) -> int:
        with self._cond:
            return len(self._running)

    def busy(self, key: Hashable) -> bool:
        """Whether a turn of chat ``key`` runs now (the scheduler puts off a job rather than wait behind it)."""
        with self._cond:
            return key in self._running

    @contextlib.contextmanager
    def turn(
        self,
        key: Hashable,
        priority: slots.Priority,
        cancel: CancelToken,
        on_wait: Callable[[Any], None] | None = None,
    ) -> Iterator[None]:
        """Hold one of the turns for chat ``key`` while the block runs; wait (told through ``on_wait``) until one
        is free. A cancel while waiting raises :class:`OkBotError` and nothing has run."""
        entry = (int(priority), next(self._arrivals), key)
        wake = cancel.on_cancel(self._wake)
        try:
            with self._cond:
                self._waiting.append(entry)
                self._waiting.sort()
                told = None
                while not self._may_start(entry):
                    if cancel.cancelled:
                        self._waiting.remove(entry)
                        self._cond.notify_all()
                        raise OkBotError(translate("turns", "stopped before it started; nothing was sent"))
                    news = TurnWaiting(len(self._running), self.limit, key in self._running)
                    if news != told and on_wait is not None:
                        told = news
                        on_wait(news)
                    self._cond.wait()
                self._waiting.remove(entry)
                self._running.add(key)
                self._cond.notify_all()  # the next in line may be for another chat and fit too
        finally:
            wake()
        try:
            yield
        finally:
            with self._cond:
                self._running.discard(key)
                self._cond.notify_all()

    def _may_start(self, entry: tuple[int, int, Hashable]) -> bool:
        """Room, the chat free, and no one before it in line who could start instead."""
        if len(self._running) >= self.limit or entry[2] in self._running:
            return False
        for ahead in self._waiting:
            if ahead == entry:
                return True
            if ahead[2] not in self._running:
                return False  # an earlier (or more urgent) turn of a free chat goes first
        return True

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()
