"""One request at a time where the server has one slot: the scheduler, through the real ProviderPool and the
real backend, against the fake server answering as llama-cpp-python's does (``slots=1``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from okbot.config.providers import ProviderConfig
from okbot.llm import slots
from okbot.llm.events import Degraded, ErrorEvent, TextDelta
from okbot.llm.provider import ChatRequest
from okbot.llm.providers import ProviderPool
from tests.helpers.env import settings_for
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.patience import PATIENT_SECONDS

MODEL = "gpt-4o-mini"
CHAT_REPLY = "Here is the whole answer, word by word."


@pytest.fixture
def one_slot() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(slots=1) as srv:
        yield srv


def chat(text: str = "hello") -> ChatRequest:
    return ChatRequest(model=MODEL, messages=[{"role": "user", "content": text}])


def own_call(text: str = "summarize") -> ChatRequest:
    return ChatRequest(model=MODEL, messages=[{"role": "user", "content": text}], max_tokens=50, background=True)


def streamed(pool: ProviderPool, request: ChatRequest) -> tuple[str, list[Any]]:
    events = list(pool.stream(request))
    return "".join(e.text for e in events if isinstance(e, TextDelta)), events


class InThread:
    """Run ``fn`` on a thread of its own; ``result()`` waits for what it returned (or raises what it raised)."""

    def __init__(self, fn: Any) -> None:
        self._out: dict[str, Any] = {}
        self._thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self._thread.start()

    def _run(self, fn: Any) -> None:
        try:
            self._out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            self._out["error"] = exc

    def result(self) -> Any:
        self._thread.join(PATIENT_SECONDS)
        assert not self._thread.is_alive(), "the call never finished"
        if "error" in self._out:
            raise self._out["error"]
        return self._out["value"]


def arrivals(server: FakeOpenAIServer) -> list[str]:
    """Each chat completion request as ``chat`` or ``own`` (OkBot's own calls are not streamed)."""
    return ["chat" if r.body.get("stream") else "own" for r in server.requests if isinstance(r.body, dict)]


def test_a_chat_cancels_a_running_own_call_which_runs_again_after_the_turn(one_slot):
    pool = ProviderPool(settings_for(one_slot))
    one_slot.enqueue(
        Reply(text="never comes", never_end=True),  # the own call, being answered when the chat starts
        Reply(text=CHAT_REPLY, chunk_chars=3),
        Reply(text="the summary"),  # the own call, sent again
    )
    own = InThread(lambda: pool.complete(own_call()))
    one_slot.wait_for_requests(1)
    with slots.foreground():
        text, events = streamed(pool, chat())
        during_turn = arrivals(one_slot)
        ended = time.monotonic()
    assert own.result() == "the summary"  # its caller only waited longer
    assert text == CHAT_REPLY and not any(isinstance(e, ErrorEvent) for e in events)
    assert one_slot.interruptions == []  # 0 chat replies cut
    assert during_turn == ["own", "chat"] and arrivals(one_slot) == ["own", "chat", "own"]
    assert one_slot.requests[-1].time >= ended  # sent again only once the turn had ended


def test_a_queued_own_call_waits_for_every_round_of_the_turn(one_slot):
    pool = ProviderPool(settings_for(one_slot))
    one_slot.set_default(lambda body: Reply(text=CHAT_REPLY if body.get("stream") else "own answer", chunk_chars=4))
    with slots.foreground():
        assert streamed(pool, chat("round 1"))[0] == CHAT_REPLY
        own = InThread(lambda: pool.complete(own_call()))
        waits = pool.scheduler(None)
        deadline = time.monotonic() + PATIENT_SECONDS
        while waits.state().waiting < 1:  # the own call is queued (it never reached the server)
            assert time.monotonic() < deadline
            time.sleep(0.01)
        for n in (2, 3):  # the next tool rounds of the same turn
            assert streamed(pool, chat(f"round {n}"))[0] == CHAT_REPLY
        during_turn = arrivals(one_slot)
        ended = time.monotonic()
    assert own.result() == "own answer"
    assert during_turn == ["chat"] * 3 and arrivals(one_slot) == ["chat"] * 3 + ["own"]
    assert one_slot.requests[-1].time >= ended and one_slot.interruptions == []


def test_two_chats_on_one_slot_take_turns_in_order_and_the_waiting_one_is_told(one_slot):
    pool = ProviderPool(settings_for(one_slot))
    one_slot.set_default(lambda body: Reply(text="answer to " + body["messages"][-1]["content"]))
    told: dict[str, list[Any]] = {"B": [], "C": []}
    waiting = {name: threading.Event() for name in told}
    first_done, let_first_end = threading.Event(), threading.Event()

    def turn(name: str) -> str:
        def on_wait(event: Any) -> None:
            told[name].append(event)
            waiting[name].set()

        with slots.foreground(on_wait=on_wait if name != "A" else None):
            text = streamed(pool, chat(name))[0]
            if name == "A":  # A's turn goes on (a tool runs) until the test lets it end
                first_done.set()
                assert let_first_end.wait(PATIENT_SECONDS)
            return text

    a = InThread(lambda: turn("A"))
    assert first_done.wait(PATIENT_SECONDS)
    b = InThread(lambda: turn("B"))
    assert waiting["B"].wait(PATIENT_SECONDS)
    c = InThread(lambda: turn("C"))
    assert waiting["C"].wait(PATIENT_SECONDS)
    assert len(one_slot.chat_requests()) == 1  # B and C wait in OkBot, not at the server
    let_first_end.set()
    assert [a.result(), b.result(), c.result()] == ["answer to A", "answer to B", "answer to C"]
    assert [body["messages"][-1]["content"] for body in one_slot.chat_requests()] == ["A", "B", "C"]  # FIFO
    assert [e.message for e in told["B"]] == ["Waiting for the model: another chat is using it"]
    assert one_slot.interruptions == []


def test_a_server_that_cuts_a_stream_beside_another_request_is_learnt_to_have_one_slot(one_slot):
    settings = settings_for(one_slot)
    settings.set("provider.slots", 4)  # the user said four; the server answers one
    pool = ProviderPool(settings)
    one_slot.enqueue(Reply(text="the first reply", chunk_chars=4, never_end=True), Reply(text="second reply"))
    first = InThread(lambda: list(pool.stream(chat("first"))))
    one_slot.wait_for_requests(1)
    deadline = time.monotonic() + PATIENT_SECONDS
    while not one_slot.active_streams or pool.scheduler(None).state().running < 1:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    second = streamed(pool, chat("second"))[0]
    events = first.result()
    assert second == "second reply" and len(one_slot.interruptions) == 1  # what a wrong setting costs, once
    assert any(isinstance(e, ErrorEvent) and e.error.kind == "cut" for e in events)
    notes = [e for e in events if isinstance(e, Degraded) and e.feature == "slots"]
    assert len(notes) == 1 and "one request at a time" in notes[0].message
    state = pool.scheduler(None).state()
    assert state.slots == 1 and state.configured == 4 and state.learnt == 1 and state.why
    # from now on one at a time: a turn's own call waits, and nothing is cut again
    one_slot.set_default(lambda body: Reply(text="fine", chunk_chars=2))
    with slots.foreground():
        own = InThread(lambda: pool.complete(own_call()))
        assert streamed(pool, chat("third"))[0] == "fine"
    assert own.result() == "fine" and len(one_slot.interruptions) == 1


def test_slots_default_to_one_on_this_machine_four_hosted_and_follow_the_setting(one_slot):
    settings = settings_for(one_slot)
    settings.providers.add(ProviderConfig("hosted", "https://api.example.com/v1", "none"))
    settings.providers.add(ProviderConfig("pair", "https://pair.example.com/v1", "none", slots=2))
    pool = ProviderPool(settings)
    assert pool.scheduler(None).slots == 1
    assert pool.scheduler("hosted/m").slots == 4
    assert pool.scheduler("pair/m").slots == 2
    settings.set("provider.slots", 3)
    assert pool.scheduler(None).slots == 3


def test_members_a_turn_runs_in_parallel_share_its_one_slot(one_slot):
    pool = ProviderPool(settings_for(one_slot))
    one_slot.set_default(lambda body: Reply(text="member answer", chunk_chars=2))
    with slots.foreground():
        assert streamed(pool, chat("captain"))[0] == "member answer"
        members = [InThread(slots.carry(lambda: streamed(pool, chat("member"))[0])) for _ in range(3)]
        assert [m.result() for m in members] == ["member answer"] * 3
    assert one_slot.interruptions == [] and len(one_slot.chat_requests()) == 4


def test_a_turn_waiting_for_a_lock_lends_its_slot_to_the_holder(one_slot):
    """A compression running ahead holds the session and waits behind the turn; the turn then needs the
    session: the holder's call runs as the turn's, instead of both waiting for ever."""
    pool = ProviderPool(settings_for(one_slot))
    one_slot.set_default(lambda body: Reply(text="chat" if body.get("stream") else "summary"))
    lock = slots.LendingLock()
    holding = threading.Event()

    def ahead() -> str:
        with lock:
            holding.set()
            return pool.complete(own_call())

    with slots.foreground():
        assert streamed(pool, chat())[0] == "chat"  # the turn holds the server
        behind = InThread(ahead)
        assert holding.wait(PATIENT_SECONDS)
        waiter = InThread(slots.carry(lambda: lock.acquire()))  # the turn's thread waits for the session
        assert waiter.result() is True
        lock.release()
        assert behind.result() == "summary"
    assert arrivals(one_slot) == ["chat", "own"] and one_slot.interruptions == []


def test_a_cancelled_caller_stops_waiting(one_slot):
    from okbot.llm.errors import ProviderError
    from okbot.llm.provider import CancelToken

    pool = ProviderPool(settings_for(one_slot))
    one_slot.set_default(lambda body: Reply(text="chat"))
    cancel = CancelToken()
    with slots.foreground():
        streamed(pool, chat())
        own = InThread(lambda: pool.complete(own_call(), cancel))
        deadline = time.monotonic() + PATIENT_SECONDS
        while pool.scheduler(None).state().waiting < 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        cancel.cancel()
        with pytest.raises(ProviderError) as raised:
            own.result()
    assert raised.value.kind == "cancelled" and arrivals(one_slot) == ["chat"]


def test_the_key_is_never_part_of_a_servers_identity():
    identity = slots.key_identity("sk-secret-1234567890")
    assert "sk-secret" not in identity and identity == slots.key_identity("sk-secret-1234567890")
    assert identity != slots.key_identity("sk-other-1234567890")


def test_a_turn_counts_how_long_its_thread_waited_for_work_holding_the_session():
    # A compression ahead holds the session's lock; the turn that needs it waits, and its scope says how long
    # (a reply's timing trace shows it as a background wait). Another thread's waits are not the turn's.
    lock = slots.LendingLock()
    held, release = threading.Event(), threading.Event()

    def ahead() -> None:
        with lock:
            held.set()
            release.wait(PATIENT_SECONDS)

    worker = threading.Thread(target=ahead)
    worker.start()
    assert held.wait(PATIENT_SECONDS)
    with slots.foreground() as scope:
        threading.Timer(0.2, release.set).start()
        with lock:
            pass
        assert scope.waited().get(slots.WAIT_BACKGROUND, 0.0) >= 0.15
        assert slots.WAIT_SERVER not in scope.waited()
        elsewhere = threading.Thread(target=lambda: scope._add_wait(slots.WAIT_SERVER, 5.0))  # noqa: SLF001
        elsewhere.start()
        elsewhere.join()
        assert slots.WAIT_SERVER not in scope.waited()
    worker.join(PATIENT_SECONDS)
