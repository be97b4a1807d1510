"""One request at a time where the server has one slot: a scheduler per server, shared by the process.

A local server such as llama-cpp-python's answers one request at a time and, by default, cuts the stream it
is answering the moment another request arrives (a bare ``data: [DONE]``): OkBot's own calls (summaries,
topic check, memory, upkeep, cache warm-up) sent beside a chat cost the user the reply. So every request to a
server passes its :class:`Scheduler` (:func:`scheduler_for`; :class:`~okbot.llm.providers.ProviderPool` does
this for every request it routes):

- Priorities (:class:`Priority`): the user's chat first, a scheduled job next, OkBot's own calls last.
- A turn holds its server for its duration: code that runs a turn enters :func:`foreground` on its thread
  (the runner does), and the first request the turn sends to a server takes one of that server's slots
  until the turn ends, between its tool rounds too. Every call made on that thread (the compression before
  the request, the in-turn summarizer, the topic check) runs as the turn's, in its slot, whatever its
  ``background`` flag; threads the turn starts carry the scope with :func:`carry`, and a thread the turn
  waits for (a compression running ahead that holds the session) is lent it with :func:`lend_to`.
- OkBot's own calls (``ChatRequest.background``, outside a turn) never start while a turn holds the
  server or a chat request runs or waits there. One already running when a chat needs its slot is cancelled
  and sent again once the server is free: the caller of ``complete()`` only waits longer.
- Chats beyond the slots wait in order (first come, first served) and are told so (:class:`Waiting`,
  through the scope's ``on_wait``).
- Slots: the provider's setting, else 1 for a server on this machine and 4 for a hosted one. A server that
  cuts a stream while another of our requests ran beside it has one slot: learnt for the process (logged,
  and said once as a ``Degraded`` note on the stream it cut).

A server is known by its base URL and an identity of its key (a keyed hash, never the key): two providers
that reach the same server with the same key share its slots.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import hmac
import itertools
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.llm.errors import ProviderError
from okbot.llm.events import Degraded, Done, ErrorEvent, Event, Retrying, Waiting
from okbot.llm.provider import CancelToken, ChatRequest

log = logging.getLogger("okbot.llm.slots")

LOCAL_SLOTS = 1  # a server on this machine (llama.cpp, Ollama, LM Studio) answers one request at a time
HOSTED_SLOTS = 4
MAX_SLOTS = 64
LEND_RECHECK_SECONDS = 0.5  # a lent scope follows the session lock to its next holder this often

# The kinds of wait a scope counts (Scope.waited): for a slot of a server, for OkBot's own work holding what the
# turn needs (a compression running ahead that holds the session).
WAIT_SERVER = "server"
WAIT_BACKGROUND = "background"

WAITING_FOR_CHAT = QT_TRANSLATE_NOOP("slots", "Waiting for the model: another chat is using it")
LEARNT_ONE_SLOT = QT_TRANSLATE_NOOP(
    "slots",
    "this server answers one request at a time (it cut a reply while another ran beside it); "
    "OkBot now sends it one at a time",
)
LEARNT_WHY = QT_TRANSLATE_NOOP("slots", "learnt: the server cut a reply while another request ran beside it")

T = TypeVar("T")


class Priority(enum.IntEnum):
    """Who a request is for; lower goes first."""

    CHAT = 0  # the user's turn: its requests and every call made on its path
    JOB = 1  # a scheduled turn (no user waiting at the screen)
    BACKGROUND = 2  # OkBot's own calls: summaries ahead, topic check, memory, upkeep, cache warm-up


def default_slots(local: bool) -> int:
    """The slots of a server no setting speaks for."""
    return LOCAL_SLOTS if local else HOSTED_SLOTS


# ---------------------------------------------------------------- scopes (which turn a thread works for)


class Scope:
    """A turn at work: the slots it holds, its priority, how to tell it it waits, and how long its own thread
    waited so far (:meth:`waited`, for the reply's timing trace).

    Entered with :func:`foreground`; held slots are given back when it exits.
    """

    def __init__(self, priority: Priority, on_wait: Callable[[Any], None] | None) -> None:
        self.priority = priority
        self.on_wait = on_wait
        self.thread = threading.get_ident()  # the turn's own thread: only its waits are counted
        self._lock = threading.Lock()
        self._held: set[Scheduler] = set()
        self._waited: dict[str, float] = {}

    def waited(self) -> dict[str, float]:
        """Seconds the turn's thread has waited so far, by kind (``WAIT_SERVER``, ``WAIT_BACKGROUND``)."""
        with self._lock:
            return dict(self._waited)

    def _add_wait(self, kind: str, seconds: float) -> None:
        if threading.get_ident() != self.thread or seconds <= 0:
            return
        with self._lock:
            self._waited[kind] = self._waited.get(kind, 0.0) + seconds

    def _remember(self, scheduler: Scheduler) -> None:
        with self._lock:
            self._held.add(scheduler)

    def _release_all(self) -> None:
        with self._lock:
            held, self._held = self._held, set()
        for scheduler in held:
            scheduler._end_hold(self)


_local = threading.local()
_lent: dict[int, Scope] = {}  # thread ident -> the scope it works for meanwhile
_lent_guard = threading.Lock()


def current_scope() -> Scope | None:
    """The scope the calling thread works for (its own, or one lent to it), if any."""
    own = getattr(_local, "scope", None)
    if own is not None:
        return own
    with _lent_guard:
        return _lent.get(threading.get_ident())


def _scope_of(ident: int, own: Scope | None) -> Scope | None:
    if own is not None:
        return own
    with _lent_guard:
        return _lent.get(ident)


@contextlib.contextmanager
def foreground(priority: Priority = Priority.CHAT, on_wait: Callable[[Any], None] | None = None) -> Iterator[Scope]:
    """Run a turn on this thread: its requests (and every call made meanwhile on this thread) go as ``priority``
    and hold each server they reach until the block ends. Nested use keeps the outer scope.

    ``on_wait`` is called with a :class:`Waiting` when a request of the turn waits for another chat.
    """
    outer = getattr(_local, "scope", None)
    if outer is not None:
        yield outer
        return
    scope = Scope(priority, on_wait)
    _local.scope = scope
    try:
        yield scope
    finally:
        _local.scope = None
        scope._release_all()


def carry(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` to run on another thread (a pool the turn waits on) as part of the calling thread's turn."""
    scope = current_scope()
    if scope is None:
        return fn

    def run(*args: Any, **kwargs: Any) -> T:
        previous = getattr(_local, "scope", None)
        _local.scope = scope
        try:
            return fn(*args, **kwargs)
        finally:
            _local.scope = previous

    return run


@contextlib.contextmanager
def lend_to(ident: int | None) -> Iterator[None]:
    """While the calling turn waits for thread ``ident`` (it holds what the turn needs), that thread's calls
    go as the turn's: in its slot, at its priority. No-op outside a turn."""
    scope = current_scope()
    if scope is None or ident is None or ident == threading.get_ident():
        yield
        return
    with _lent_guard:
        before = _lent.get(ident)
        _lent[ident] = scope
    _wake_all()
    try:
        yield
    finally:
        with _lent_guard:
            if before is None:
                _lent.pop(ident, None)
            else:
                _lent[ident] = before
        _wake_all()


class LendingLock:
    """A lock whose holder works for the turn that waits for it: a turn blocked on :meth:`acquire` lends its
    scope to the holding thread (:func:`lend_to`), so a compression running ahead that holds the session is
    not left waiting behind the very turn that waits for it. Otherwise a plain non-reentrant lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None

    def acquire(self, blocking: bool = True) -> bool:
        if self._lock.acquire(blocking=False):
            self._owner = threading.get_ident()
            return True
        if not blocking:
            return False
        since = time.monotonic()
        while True:
            with lend_to(self._owner):  # the lock may change hands meanwhile: follow it
                got = self._lock.acquire(timeout=LEND_RECHECK_SECONDS)
            if got:
                self._owner = threading.get_ident()
                if (scope := current_scope()) is not None:
                    scope._add_wait(WAIT_BACKGROUND, time.monotonic() - since)
                return True

    def release(self) -> None:
        self._owner = None
        self._lock.release()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> LendingLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


# ---------------------------------------------------------------- the scheduler of one server


@dataclass(eq=False)
class _Ticket:
    """One request, waiting or running."""

    seq: int
    priority: Priority  # as asked (the scope's, when the thread works for one, wins)
    ident: int
    own_scope: Scope | None
    cancel: CancelToken | None
    preempt: Callable[[], None] | None = None  # cancels a running call that may be sent again
    preempted: bool = False
    told: bool = False
    scope: Scope | None = None  # the scope whose slot it runs in, once running
    overlapped: bool = False  # another of our requests ran at this server meanwhile

    def effective(self) -> tuple[Priority, Scope | None]:
        scope = _scope_of(self.ident, self.own_scope)
        return (scope.priority if scope is not None else self.priority), scope


@dataclass
class _Hold:
    held: int = 0
    in_use: int = 0


@dataclass
class SlotState:
    """What the scheduler of a server knows, for Settings and logs."""

    slots: int
    configured: int | None
    learnt: int | None
    why: str = ""
    running: int = 0
    waiting: int = 0
    holds: int = 0


class Scheduler:
    """The slots of one server and the requests waiting for them (thread-safe)."""

    def __init__(self, label: str, slots: int) -> None:
        self.label = label  # the server as logs show it (no key)
        self._cond = threading.Condition()
        self._configured = _checked(slots)
        self._learnt: int | None = None
        self._why = ""
        self._seq = itertools.count()
        self._occupied = 0
        self._holds: dict[Scope, _Hold] = {}
        self._loose: list[_Ticket] = []  # running outside a turn's hold
        self._waiting: list[_Ticket] = []
        self._in_flight: list[_Ticket] = []

    # -- settings -----------------------------------------------------------------------
    @property
    def slots(self) -> int:
        """How many requests may run at once: the setting, or less once learnt."""
        with self._cond:
            return self._capacity()

    def configure(self, slots: int) -> None:
        """The provider's setting (or its default) for this server."""
        with self._cond:
            if _checked(slots) != self._configured:
                self._configured = _checked(slots)
                self._cond.notify_all()

    def learn_one_slot(self, why: str) -> bool:
        """The server showed it has one slot: send one request at a time from now on (this process).
        Returns whether this was news."""
        with self._cond:
            if self._learnt == 1:
                return False
            self._learnt, self._why = 1, why
        log.warning("%s answers one request at a time (%s); sending one at a time from now on", self.label, why)
        return True

    def state(self) -> SlotState:
        with self._cond:
            return SlotState(
                self._capacity(),
                self._configured,
                self._learnt,
                self._why,
                len(self._in_flight),
                len(self._waiting),
                len(self._holds),
            )

    def _capacity(self) -> int:
        return min(self._configured, self._learnt or self._configured)

    # -- requests -----------------------------------------------------------------------
    def stream(self, backend: Any, request: ChatRequest, cancel: CancelToken | None = None) -> Iterator[Event]:
        """``backend.stream`` once a slot is free; a stream is never cut by the scheduler."""
        ticket = self._enter(_priority(request), cancel)
        if ticket is None:
            yield Done("cancelled")
            return
        try:
            for event in backend.stream(request, cancel):
                if _is_cut(event) and ticket.overlapped and self.learn_one_slot("stream cut"):
                    yield Degraded("slots", translate("slots", LEARNT_ONE_SLOT))
                yield event
        finally:
            self._leave(ticket)

    def complete(self, backend: Any, request: ChatRequest, cancel: CancelToken | None = None) -> str:
        """``backend.complete`` once a slot is free; one of OkBot's own calls cut for a chat is sent again."""
        return self.call(lambda token: backend.complete(request, token), _priority(request), cancel)

    def call(self, fn: Callable[[CancelToken], T], priority: Priority, cancel: CancelToken | None = None) -> T:
        """``fn(token)`` in a slot. A background call cancelled to free its slot for a chat (``token`` set,
        ``ProviderError`` raised) runs again when the server is free."""
        while True:
            token = CancelToken()
            ticket = self._enter(priority, cancel, preempt=token.cancel)
            if ticket is None:
                raise ProviderError(translate("slots", "The request was cancelled."), kind="cancelled")
            unlink = cancel.on_cancel(token.cancel) if cancel is not None else (lambda: None)
            try:
                return fn(token)
            except ProviderError:
                if not ticket.preempted or (cancel is not None and cancel.cancelled):
                    raise
                log.info("%s: one of OkBot's own calls gave its slot to a chat; it runs again later", self.label)
            finally:
                unlink()
                self._leave(ticket)

    # -- admission ----------------------------------------------------------------------
    def _enter(
        self, priority: Priority, cancel: CancelToken | None, preempt: Callable[[], None] | None = None
    ) -> _Ticket | None:
        own = getattr(_local, "scope", None)
        ticket = _Ticket(next(self._seq), priority, threading.get_ident(), own, cancel, preempt)
        unlink = cancel.on_cancel(self._wake) if cancel is not None else (lambda: None)
        with self._cond:
            self._waiting.append(ticket)
        since: float | None = None  # when it first had to wait
        try:
            while True:
                tell = None
                with self._cond:
                    if cancel is not None and cancel.cancelled:
                        self._waiting.remove(ticket)
                        self._cond.notify_all()
                        return None
                    if self._try_start(ticket):
                        if since is not None and ticket.scope is not None:
                            ticket.scope._add_wait(WAIT_SERVER, time.monotonic() - since)
                        return ticket
                    since = time.monotonic() if since is None else since
                    tell = self._why_waiting(ticket)
                    if tell is None:
                        self._cond.wait()
                if tell is not None:
                    _say(tell, Waiting(translate("slots", WAITING_FOR_CHAT)))
        except BaseException:  # interrupted while it waited: it waits no more
            with self._cond:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)
                    self._cond.notify_all()
            raise
        finally:
            unlink()

    def _try_start(self, ticket: _Ticket) -> bool:
        """Start ``ticket`` if its turn's slot or a free one allows (lock held)."""
        priority, scope = ticket.effective()
        hold = self._holds.get(scope) if scope is not None else None
        if hold is not None and hold.in_use < hold.held:
            hold.in_use += 1
            return self._started(ticket, scope)
        if not self._may_take_slot(ticket, priority):
            self._preempt_for(priority)
            return False
        self._occupied += 1
        if scope is not None:
            hold = self._holds.setdefault(scope, _Hold())
            hold.held += 1
            hold.in_use += 1
            scope._remember(self)
        else:
            self._loose.append(ticket)
        return self._started(ticket, scope)

    def _started(self, ticket: _Ticket, scope: Scope | None) -> bool:
        self._waiting.remove(ticket)
        ticket.scope = scope
        if self._in_flight:
            ticket.overlapped = True
            for other in self._in_flight:
                other.overlapped = True
        self._in_flight.append(ticket)
        self._cond.notify_all()
        return True

    def _may_take_slot(self, ticket: _Ticket, priority: Priority) -> bool:
        if self._occupied >= self._capacity():
            return False
        for other in self._waiting:  # first come, first served within a priority
            if other is ticket:
                continue
            other_priority, other_scope = other.effective()
            hold = self._holds.get(other_scope) if other_scope is not None else None
            if hold is not None and hold.in_use < hold.held:
                continue  # it takes its turn's own slot, not a new one
            if (other_priority, other.seq) < (priority, ticket.seq):
                return False
        if priority == Priority.BACKGROUND:  # never beside a turn or a chat request
            if self._holds:
                return False
            if any(t.effective()[0] < Priority.BACKGROUND for t in self._loose):
                return False
        return True

    def _preempt_for(self, priority: Priority) -> None:
        """A chat or job waits for a slot: cut OkBot's own calls that hold one (they run again later)."""
        if priority == Priority.BACKGROUND or self._occupied < self._capacity():
            return
        for running in self._loose:
            if running.preempt is not None and not running.preempted and running.effective()[0] == Priority.BACKGROUND:
                running.preempted = True
                log.info("%s: cancelling one of OkBot's own calls for a chat (it runs again later)", self.label)
                running.preempt()  # shuts its socket; the call raises "cancelled" and is sent again
                return

    def _why_waiting(self, ticket: _Ticket) -> Scope | None:
        """The scope to tell, once, that its chat waits for another chat (lock held); None otherwise."""
        priority, scope = ticket.effective()
        if ticket.told or scope is None or scope.on_wait is None or priority != Priority.CHAT:
            return None
        others = [s for s in self._holds if s is not scope]
        if not others and not any(t.effective()[0] < Priority.BACKGROUND for t in self._loose):
            return None
        ticket.told = True
        return scope

    def _leave(self, ticket: _Ticket) -> None:
        with self._cond:
            self._in_flight.remove(ticket)
            scope = ticket.scope
            hold = self._holds.get(scope) if scope is not None else None
            if hold is not None:
                hold.in_use -= 1
                if hold.held > 1 and hold.in_use < hold.held:  # an extra slot a parallel call took
                    hold.held -= 1
                    self._occupied -= 1
            elif ticket in self._loose:
                self._loose.remove(ticket)
                self._occupied -= 1
            self._cond.notify_all()

    def _end_hold(self, scope: Scope) -> None:
        with self._cond:
            hold = self._holds.pop(scope, None)
            if hold is not None:
                self._occupied -= hold.held - hold.in_use  # a call still running gives its slot back on leaving
                if hold.in_use:
                    self._orphans(scope, hold)
            self._cond.notify_all()

    def _orphans(self, scope: Scope, hold: _Hold) -> None:
        """Calls of a turn that ended still run (a thread it lent to): they count as loose from now on."""
        for running in self._in_flight:
            if running.scope is scope:
                running.scope = None
                self._loose.append(running)

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()


def _say(scope: Scope, event: Waiting) -> None:
    try:
        if scope.on_wait is not None:
            scope.on_wait(event)
    except Exception:  # a broken listener must not cost the request
        log.exception("telling a turn that it waits failed")


def _priority(request: ChatRequest) -> Priority:
    return Priority.BACKGROUND if request.background else Priority.CHAT


def _is_cut(event: Any) -> bool:
    if isinstance(event, ErrorEvent):
        return event.error.kind == "cut"
    return isinstance(event, Retrying) and getattr(event, "kind", "") == "cut"


def _checked(slots: int) -> int:
    return max(1, min(MAX_SLOTS, int(slots)))


# ---------------------------------------------------------------- the process's schedulers


@dataclass
class _Registry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    schedulers: dict[tuple[str, str], Scheduler] = field(default_factory=dict)


_REGISTRY = _Registry()
_SALT = secrets.token_bytes(16)  # key identities are comparable within this process only


def key_identity(key: str | None) -> str:
    """Which key reaches a server, without the key: a keyed hash with a salt of this process."""
    if not key:
        return "no key"
    return hmac.new(_SALT, key.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:16]


def server_of(backend: Any) -> tuple[str, str]:
    """``(base URL, key identity)`` of a backend (an object of its own when it names no server)."""
    identity = getattr(backend, "server_identity", None)
    if identity is not None:
        return identity
    return (f"backend:{id(backend)}", "")


def scheduler_for(backend: Any, slots: int | None = None) -> Scheduler:
    """The scheduler of ``backend``'s server, made on first use; ``slots`` is the provider's setting (None:
    the default for where the server runs, or what it was set to before)."""
    key = server_of(backend)
    with _REGISTRY.lock:
        found = _REGISTRY.schedulers.get(key)
        if found is None:
            wanted = slots if slots is not None else default_slots(bool(getattr(backend, "local", False)))
            found = _REGISTRY.schedulers[key] = Scheduler(getattr(backend, "shown_url", key[0]), wanted)
            return found
    if slots is not None:
        found.configure(slots)
    return found


def listed_models(backend: Any) -> list[str]:
    """``backend.list_models()`` in a slot of its server: a one-slot server's model list waits for the model
    too (llama-cpp-python's does), so asking beside a streaming reply would cut it."""
    return scheduler_for(backend).call(lambda _token: backend.list_models(), Priority.CHAT)


def state_of(base_url: str) -> SlotState | None:
    """What the schedulers of the server at ``base_url`` know (any key), for Settings; None if none was used."""
    with _REGISTRY.lock:
        found = [s for (url, _key), s in _REGISTRY.schedulers.items() if url == base_url]
    if not found:
        return None
    return min((s.state() for s in found), key=lambda state: state.slots)


def forget_all() -> None:
    """Drop every scheduler (tests: fake servers reuse ports, and what one taught must not reach the next)."""
    with _REGISTRY.lock:
        _REGISTRY.schedulers.clear()


def _wake_all() -> None:
    with _REGISTRY.lock:
        schedulers = list(_REGISTRY.schedulers.values())
    for scheduler in schedulers:
        scheduler._wake()
