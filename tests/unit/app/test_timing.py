"""A reply's timing trace from a real turn (issue 36): the fake OpenAI server answers late and asks for a tool;
the stored reply says where the time went, and ``okbot context --json`` shows it."""

from __future__ import annotations

import json
import threading

from okbot.__main__ import main
from okbot.app import OkBotApp
from okbot.app.turn_gate import TurnWaiting
from okbot.config.settings import Settings
from okbot.core.session import SessionStore
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.core.turn.timing import timing_of
from okbot.core.workspace import Workspace
from okbot.llm import slots
from okbot.llm.events import Waiting
from okbot.llm.provider import CancelToken
from tests.helpers.fake_openai import Reply, tool_call

FIRST_BYTE = 0.3  # seconds the server waits before it answers the first request


def _app(server) -> tuple[OkBotApp, object]:
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    app = OkBotApp(Workspace(), settings)
    return app, app.workspace.ensure_default()


def _ms(trace, phase, name=None) -> int:
    return sum(p.ms for p in trace.phases if p.phase == phase and (name is None or p.name == name))


def test_a_late_first_token_and_a_tool_call_show_in_the_stored_reply(okbot_home, server):
    app, target = _app(server)
    server.enqueue(
        Reply(tool_calls=[tool_call("search_history", {"query": "plan"})], first_byte_delay=FIRST_BYTE),
        Reply(text="The plan is to ship on Friday.", chunk_chars=4, chunk_delay=0.02),
    )
    try:
        result = app.run_turn(target, Send("What was the plan?"))
    finally:
        app.close()
    assert result.status == "complete"
    replies = [it for it in SessionStore(target.session_path).tail(20) if it["type"] == "assistant"]
    assert len(replies) == 1  # the first round only asked for the tool: one reply keeps the whole turn
    trace = timing_of(replies[0])
    assert trace is not None
    names = [(p.phase, p.name) for p in trace.phases]
    assert ("tool", "search_history") in names
    assert _ms(trace, "first_token") >= FIRST_BYTE * 1000 * 0.9  # the server's delay, give or take the clock
    assert _ms(trace, "streaming") > 0
    assert names[0] == ("preparing", None)  # building the first request, before anything went out
    assert names.index(("tool", "search_history")) < len(names) - 1  # the second round came after it
    assert sum(p.ms for p in trace.phases) <= trace.total_ms


def test_a_wait_for_a_slot_the_server_has_not_free_is_the_servers(okbot_home, server):
    # One slot, held by another chat for a while: this turn's reply says it waited for the server.
    app, target = _app(server)
    server.set_default(lambda _body: Reply(text="fine"))
    held, release = threading.Event(), threading.Event()
    scheduler = app.provider.scheduler(None)  # a server on this machine: one slot

    def other_chat() -> None:
        with slots.foreground():
            scheduler.call(lambda _token: (held.set(), release.wait(10)), slots.Priority.CHAT)

    other = threading.Thread(target=other_chat)
    try:
        other.start()
        assert held.wait(10)

        def on_event(event: object) -> None:  # the turn is told it waits: the other chat ends 0.3 s later
            if isinstance(event, Waiting):
                threading.Timer(0.3, release.set).start()

        result = app.run_turn(target, Send("hello"), callbacks=TurnCallbacks(on_event=on_event))
    finally:
        release.set()
        other.join(10)
        app.close()
    assert result.status == "complete"
    reply = next(it for it in reversed(result.items) if it["type"] == "assistant")
    trace = timing_of(reply)
    assert trace is not None
    assert _ms(trace, "server_wait") >= 200
    assert sum(p.ms for p in trace.phases) <= trace.total_ms


def test_a_turn_that_waited_for_its_chats_other_reply_counts_the_wait(okbot_home, server):
    # The chat is already replying (a scheduled job, the CLI beside the desktop): the user's turn waits at the
    # gate, and its reply's timing begins when the user asked, not when the turn could start.
    app, target = _app(server)
    server.set_default(lambda _body: Reply(text="fine"))
    held, release = threading.Event(), threading.Event()

    def other_turn() -> None:
        with app.turns.turn((target.kind, target.id), slots.Priority.JOB, CancelToken()):
            held.set()
            release.wait(10)

    other = threading.Thread(target=other_turn)
    try:
        other.start()
        assert held.wait(10)

        def on_event(event: object) -> None:  # told it waits: the other turn ends 0.3 s later
            if isinstance(event, TurnWaiting):
                threading.Timer(0.3, release.set).start()

        result = app.run_turn(target, Send("hello"), callbacks=TurnCallbacks(on_event=on_event))
    finally:
        release.set()
        other.join(10)
        app.close()
    trace = timing_of(result.items[-1])
    assert trace is not None and trace.phases[0].phase == "turn_wait"
    assert _ms(trace, "turn_wait") >= 200
    assert sum(p.ms for p in trace.phases) <= trace.total_ms


def test_okbot_context_json_has_the_turns_timing(okbot_home, server, capsys):
    app, target = _app(server)
    server.enqueue(Reply(text="an answer", first_byte_delay=0.1))
    try:
        result = app.run_turn(target, Send("hello"))
    finally:
        app.close()
    assert main(["config", "set", "provider.baseUrl", server.base_url]) == 0
    capsys.readouterr()
    assert main(["context", target.id, "--at", str(result.user_id), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    timing = data["timing"]
    assert [r["id"] for r in timing["replies"]] == [result.items[-1]["id"]]
    assert timing["total_ms"] >= 100
    assert any(p["phase"] == "first_token" and p["ms"] >= 90 for p in timing["phases"])
    assert main(["context", target.id, "--json"]) == 0  # no --at: the last message's turn
    assert json.loads(capsys.readouterr().out)["timing"]["total_ms"] == timing["total_ms"]


def test_okbot_context_json_says_null_for_a_turn_kept_before_timing(okbot_home, capsys):
    from okbot.core.items import new_item, user_message

    target = Workspace().ensure_default()
    store = SessionStore(target.session_path)
    user = store.append(user_message("old question"))
    store.append(new_item("assistant", author=target.id, source="app", content="old answer"))
    assert main(["context", target.id, "--at", str(user["id"]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["timing"] is None
