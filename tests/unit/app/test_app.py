"""The application layer: one set of long-lived objects per process, and use cases both front-ends call."""

from __future__ import annotations

import os
import subprocess
import sys

from okbot.app import OkBotApp
from okbot.config.settings import Settings
from okbot.core.items import new_item, user_message
from okbot.core.memory.store import MemoryStore
from okbot.core.session import SessionStore
from okbot.core.summary import SummaryStore
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Edit, Regenerate, Retry, Send
from okbot.core.workspace import Workspace
from tests.helpers.fake_memory import is_extraction_request, with_summaries
from tests.helpers.fake_openai import Reply
from tests.helpers.patience import PATIENT_SECONDS


def _app(server) -> tuple[OkBotApp, object]:
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    app = OkBotApp(Workspace(), settings)
    return app, app.workspace.ensure_default()


def test_every_turn_request_runs_through_one_runner_over_one_provider(okbot_home, server):
    app, target = _app(server)
    server.set_default(lambda _body: Reply(text="an answer"))
    try:
        first = app.run_turn(target, Send("hello"))
        runner, provider, compressor = app.runner, app.provider, app.compressor
        retried_error = None
        try:
            app.run_turn(target, Retry())
        except Exception as exc:  # noqa: BLE001 - a finished reply is refused as a retry
            retried_error = exc
        assert retried_error is not None and "already finished" in str(retried_error)
        again = app.run_turn(target, Regenerate())  # the last reply, as a new version
        edited = app.run_turn(target, Edit(first.user_id, "hello again"))
        assert [r.status for r in (first, again, edited)] == ["complete"] * 3
        assert (app.runner, app.provider, app.compressor) == (runner, provider, compressor)  # built once
        assert app.runner.env.compression is app.compressor  # the one compressor folds inside turns too
        versions = app.chat_versions(target)
        assert versions  # the edit made a second version of the first message
        item_id, version = next(iter(versions.items()))
        other = (version.index + 1) % version.count
        assert app.switch_version(target, item_id, other) is not None
        assert [v.index for v in app.chat_versions(target).values() if v.ids == version.ids] == [other]
    finally:
        app.close()


def test_a_turn_tells_every_item_it_writes(okbot_home, server):
    app, target = _app(server)
    server.set_default(lambda _body: Reply(text="fine"))
    seen: list[dict] = []
    try:
        result = app.run_turn(target, Send("hi"), callbacks=TurnCallbacks(on_item=seen.append))
        assert [it["type"] for it in seen] == ["user", "assistant"]
        assert seen[-1]["content"] == result.reply_text == "fine"
    finally:
        app.close()


def test_okbot_compress_extracts_memories_as_the_desktop_does(okbot_home, server):
    # The same compression from the command line: what it folds away is read for memories before it exits.
    server.set_default(with_summaries)
    target = Workspace().ensure_default()
    store = SessionStore(target.session_path)
    store.append(user_message("Please remember: I prefer answers in metric units. " + "detail " * 80))
    for i in range(11):
        store.append(new_item("assistant", author="okbot", source="app", content="done. " + "note " * 80))
        store.append(user_message(f"step {i}: handle table {i}. " + "detail " * 80))
    env = {**os.environ, "OKBOT_HOME": str(okbot_home), "OKBOT_BASE_URL": server.base_url}
    done = subprocess.run(
        [sys.executable, "-m", "okbot", "compress", "okbot"],
        capture_output=True,
        text=True,
        env=env,
        timeout=PATIENT_SECONDS * 4,
    )
    assert done.returncode == 0, done.stderr
    assert SummaryStore(target.summary_path).load().covered_through_id > 1
    assert any(is_extraction_request(body) for body in server.chat_requests())
    texts = [e.text for e in MemoryStore(target.memory_dir, target.id).entries()]
    assert any("metric units" in text for text in texts), texts
