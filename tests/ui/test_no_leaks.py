"""The API key never reaches disk, and what OkBot writes is private: a canary key through a whole
session of the app — chat, remembered memory, compression, a squad, a tool run, View context, a crash
report — then every file in the data dir is searched for it and its mode checked."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.logs import write_crash_report
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.main_window import MainWindow
from okbot.ui.window_extras import open_context_viewer
from tests.helpers.fake_memory import is_extraction_request, with_summaries
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.helpers.patience import PATIENT_MS

CANARY = "sk-canary-leak-0123456789abcdefXYZ"


def test_a_canary_key_is_nowhere_on_disk_and_every_file_is_private(
    qtbot: QtBot, qapp: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OKBOT_API_KEY", CANARY)
    with FakeOpenAIServer(require_key=CANARY) as server:
        settings = Settings.load()
        for key, value in (
            ("provider.baseUrl", server.base_url),
            ("provider.keySource", "env"),
            ("model.contextWindow", 3000),
            ("tools.run_shell.approval", "allow"),
        ):
            settings.set(key, value)
        ws = Workspace()
        target = ws.ensure_default()
        ws.create_assistant("Rex")
        squad = ws.create_squad("Pair", [("okbot", "lead"), ("rex", "review")])
        ctx = AppContext.create(ws, settings)
        window = MainWindow(ctx)
        qtbot.addWidget(window)
        window.show()
        page = window.current_page()

        def turn(text: str) -> None:
            page.send(text)
            qtbot.waitUntil(lambda: not page.streaming, timeout=20_000)

        server.set_default(with_summaries)
        turn("Please remember that I deploy to port 8443.")
        assert ctx.app.keeper.drain(20)  # the memory wrap-up asks the server too: let it finish first
        server.enqueue(Reply(tool_calls=[tool_call("run_shell", {"command": "env; echo done"})]), Reply(text="ok"))
        turn("show me your environment")
        for i in range(14):
            turn(f"step {i}: " + "details of the plan " * 20)
        assert ctx.sources.summary(target)[0].covered_through_id > 0  # compressed along the way
        assert ctx.app.keeper.drain(20)
        shell = next(
            it
            for it in ctx.sources.session(target).iter_items()
            if it.get("name") == "run_shell" and it["type"] == "tool_result"
        )
        assert "done" in shell["content"] and CANARY not in shell["content"]  # the command never saw the key

        window.select_target(squad.kind, squad.id)
        page = window.current_page()
        turn("@rex have a look")
        user_id = max(it["id"] for it in ctx.sources.session(target).iter_items() if it["type"] == "user")
        viewer = open_context_viewer(ctx, target, user_id, window)
        qtbot.waitUntil(lambda: bool(viewer.text()), timeout=10_000)
        assert CANARY not in viewer.text() and CANARY not in viewer.copy_all()  # the Markdown export
        viewer.close()
        try:
            raise RuntimeError(f"simulated crash while holding {CANARY}")
        except RuntimeError as exc:
            assert write_crash_report(type(exc), exc, exc.__traceback__) is not None
        assert any(is_extraction_request(b) for b in server.chat_requests())
        window.close()
        ctx.tasks.wait_for_done(PATIENT_MS)

    home = paths.data_dir()
    files = [p for p in home.rglob("*") if p.is_file()]
    assert len(files) > 15
    leaks = [str(p) for p in files if CANARY.encode() in p.read_bytes()]
    assert leaks == []
    settings_text = json.loads(paths.settings_file().read_text(encoding="utf-8"))
    assert "sk-" not in json.dumps(settings_text)
    if sys.platform != "win32":
        _assert_private(home)


def _assert_private(home: Path) -> None:
    loose = []
    for path in [home, *home.rglob("*")]:
        if "workspace" in path.relative_to(home).parts[:3]:
            continue  # the assistant's workspace holds the user's own files
        mode = stat.S_IMODE(path.lstat().st_mode)
        want = 0o700 if path.is_dir() else 0o600
        if mode & 0o077:
            loose.append(f"{path.relative_to(home)} {oct(mode)} (want {oct(want)})")
    assert loose == []
