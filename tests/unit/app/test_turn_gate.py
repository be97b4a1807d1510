"""At most three turns at once across chats, one per chat, the user's before a scheduled job's: the gate alone
(threads and events), then four chats through the application against the fake server."""

from __future__ import annotations

import threading
from collections.abc import Callable

from okbot.app import OkBotApp
from okbot.app.turn_gate import TurnGate, TurnWaiting
from okbot.config.settings import Settings
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.core.workspace import Workspace
from okbot.llm import slots
from okbot.llm.provider import CancelToken
from okbot.storage.errors import OkBotError
from tests.helpers.fake_openai import Reply
from tests.helpers.patience import PATIENT_SECONDS


class Held:
    """A turn that holds the gate until released, on its own thread."""

    def __init__(self, gate: TurnGate, key: str, priority: slots.Priority = slots.Priority.CHAT) -> None:
        self.started, self.release, self.waits = threading.Event(), threading.Event(), []
        self.cancel, self.error = CancelToken(), None
        self.thread = threading.Thread(target=self._run, args=(gate, key, priority))
        self.thread.start()

    def _run(self, gate: TurnGate, key: str, priority: slots.Priority) -> None:
        try:
            with gate.turn(key, priority, self.cancel, self.waits.append):
                self.started.set()
                self.release.wait(PATIENT_SECONDS)
        except OkBotError as exc:
            self.error = exc

    def end(self) -> None:
        self.release.set()
        self.thread.join(PATIENT_SECONDS)


def until(check: Callable[[], bool]) -> None:
    done = threading.Event()
    for _ in range(int(PATIENT_SECONDS * 100)):
        if check():
            return
        done.wait(0.01)
    raise AssertionError("never happened")


def test_three_chats_run_at_once_and_a_fourth_waits_until_one_is_done() -> None:
    gate = TurnGate()
    first = [Held(gate, key) for key in ("a", "b", "c")]
    for held in first:
        assert held.started.wait(PATIENT_SECONDS)
    fourth = Held(gate, "d")
    until(lambda: fourth.waits == [TurnWaiting(running=3, limit=3, busy_chat=False)])
    assert not fourth.started.is_set()
    first[1].end()
    assert fourth.started.wait(PATIENT_SECONDS)
    for held in (first[0], first[2], fourth):
        held.end()
    assert gate.running == 0


def test_one_chat_runs_one_turn_at_a_time() -> None:
    gate = TurnGate()
    first = Held(gate, "a")
    assert first.started.wait(PATIENT_SECONDS)
    second = Held(gate, "a")
    until(lambda: second.waits == [TurnWaiting(running=1, limit=3, busy_chat=True)])
    other = Held(gate, "b")  # another chat is not held up behind it
    assert other.started.wait(PATIENT_SECONDS)
    first.end()
    assert second.started.wait(PATIENT_SECONDS)
    second.end()
    other.end()


def test_the_users_chat_goes_before_a_scheduled_job_that_waited_longer() -> None:
    gate = TurnGate(limit=1)
    running = Held(gate, "a")
    assert running.started.wait(PATIENT_SECONDS)
    job = Held(gate, "job-chat", slots.Priority.JOB)
    until(lambda: bool(job.waits))
    chat = Held(gate, "b")
    until(lambda: bool(chat.waits))
    running.end()
    assert chat.started.wait(PATIENT_SECONDS)
    assert not job.started.is_set()
    chat.end()
    assert job.started.wait(PATIENT_SECONDS)
    job.end()


def test_stop_while_waiting_starts_nothing_and_frees_the_line() -> None:
    gate = TurnGate(limit=1)
    running = Held(gate, "a")
    assert running.started.wait(PATIENT_SECONDS)
    stopped = Held(gate, "b")
    until(lambda: bool(stopped.waits))
    after = Held(gate, "c")
    until(lambda: bool(after.waits))
    stopped.cancel.cancel()
    stopped.thread.join(PATIENT_SECONDS)
    assert not stopped.started.is_set() and "nothing was sent" in str(stopped.error)
    running.end()
    assert after.started.wait(PATIENT_SECONDS)
    after.end()


def test_four_chats_through_the_app_three_stream_side_by_side_and_the_fourth_follows(okbot_home, server) -> None:
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.slots", 4)  # a hosted server: slots enough for every turn
    app = OkBotApp(Workspace(), settings, background=False)
    targets = [app.workspace.ensure_default(), *(app.workspace.create_assistant(f"A{i}") for i in range(3))]
    release = threading.Event()
    streaming = []

    def reply(body: dict) -> Reply:
        streaming.append(body)
        release.wait(PATIENT_SECONDS)  # every reply holds its turn until the test lets them go
        return Reply(text="done")

    server.set_default(reply)
    waits: dict[int, list] = {i: [] for i in range(4)}
    results: dict[int, str] = {}

    def run(i: int) -> None:
        events = TurnCallbacks(on_event=lambda e, i=i: waits[i].append(e) if isinstance(e, TurnWaiting) else None)
        results[i] = app.run_turn(targets[i], Send(f"hello {i}"), callbacks=events).status

    threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    until(lambda: len(streaming) == 3)
    fourth = threading.Thread(target=run, args=(3,))
    fourth.start()
    until(lambda: bool(waits[3]))
    assert len(streaming) == 3 and waits[3][0].running == 3  # the fourth did not reach the server
    release.set()
    for thread in [*threads, fourth]:
        thread.join(PATIENT_SECONDS)
    assert results == {0: "complete", 1: "complete", 2: "complete", 3: "complete"}
    assert not any(waits[i] for i in range(3))
    app.close()
