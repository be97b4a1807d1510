"""The first-run panel: local servers found (the real fake server on 127.0.0.1) or not (a closed port),
a hosted API's key kept in the system keyring or, with none, in a 0600 file; and the main window as
``run_gui`` builds it showing the panel whenever no working provider is configured."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from okbot.app.provider_setup import LocalServerCandidate, probe_server
from okbot.config.settings import Settings
from okbot.core import chat_text
from okbot.core.workspace import Workspace
from okbot.llm.keys import is_local_url
from okbot.llm.keystore import KeyStore
from okbot.logs import setup_logging
from okbot.storage import paths
from okbot.ui.app import open_main_window
from okbot.ui.app_context import AppContext
from okbot.ui.first_run import FirstRunPanel
from okbot.ui.main_window import MainWindow
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.keyrings import MemoryKeyring, system_keyring
from tests.ui.conftest import KEYLESS
from tests.ui.settings_doubles import closed_port_url

pytestmark = KEYLESS


@pytest.fixture
def ctx(serverless_ctx: AppContext) -> AppContext:
    return serverless_ctx


KEY = "first-run-key-0123456789abcdef"  # not shaped like an sk- key: only being remembered redacts it


@pytest.fixture
def log_file(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """OkBot's real log file (okbot.log in the data dir, DEBUG), as the app writes it; removed after."""
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    logger = logging.getLogger("okbot")
    before, level = list(logger.handlers), logger.level
    path = setup_logging(level=logging.DEBUG)
    assert path is not None
    yield path
    for handler in logger.handlers[:]:
        if handler not in before:
            logger.removeHandler(handler)
            handler.close()
    logger.setLevel(level)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=("llama3.1:8b", "qwen2.5:7b")) as srv:
        yield srv


def make_panel(
    qtbot: QtBot, ctx: AppContext, candidates: list[LocalServerCandidate], **kwargs: object
) -> FirstRunPanel:
    panel = FirstRunPanel(ctx, candidates=candidates, **kwargs)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show()
    return panel


def wait_for_scan(qtbot: QtBot, panel: FirstRunPanel) -> list:
    with qtbot.waitSignal(panel.probe_finished, timeout=10_000) as done:
        pass
    return done.args[0]


# ---------------------------------------------------------------------- when the panel is needed


def test_needs_first_run_only_for_a_hosted_url_without_any_key(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings.load()
    assert FirstRunPanel.needs_first_run(settings, find_key=lambda _source: None)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123")
    assert not FirstRunPanel.needs_first_run(settings, find_key=lambda _source: None)
    monkeypatch.delenv("OPENAI_API_KEY")
    settings.set("provider.keySource", "keyring")
    assert not FirstRunPanel.needs_first_run(settings, find_key=lambda s: "sk-kept" if s == "keyring" else None)
    settings.set("provider.keySource", "none")
    assert not FirstRunPanel.needs_first_run(settings, find_key=lambda _source: None)
    settings.set("provider.keySource", "env")
    settings.set("provider.baseUrl", "http://localhost:11434/v1")
    assert not FirstRunPanel.needs_first_run(settings, find_key=lambda _source: None)


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:1234/v1", True),
        ("http://127.0.0.1:8080/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:11434/v1", True),
        ("http://gpu-box.local:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
        ("not a url", False),
    ],
)
def test_local_urls(url: str, local: bool) -> None:
    assert is_local_url(url) is local


# ---------------------------------------------------------------------- probing


def test_a_running_local_server_is_found_and_offered(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    candidates = [LocalServerCandidate("Ollama", server.base_url), LocalServerCandidate("vLLM", closed_port_url())]
    panel = make_panel(qtbot, ctx, candidates)
    assert panel.scan_status.text() == "Looking for Ollama, vLLM…"  # the GUI did not wait for the probes
    results = wait_for_scan(qtbot, panel)
    assert len(results) == 2
    found = panel.found_servers()
    assert [r.candidate.name for r in found] == ["Ollama"]
    assert found[0].models == ("llama3.1:8b", "qwen2.5:7b")
    assert panel.scan_status.text() == "Found 1 server running here."
    assert len(panel.server_rows()) == 1
    assert [(r.method, r.path) for r in server.requests] == [("GET", "/v1/models")]


def test_no_local_server_says_so_and_keeps_the_hosted_form(qtbot: QtBot, ctx: AppContext) -> None:
    panel = make_panel(qtbot, ctx, [LocalServerCandidate("LM Studio", closed_port_url())])
    results = wait_for_scan(qtbot, panel)
    assert [r.found for r in results] == [False]
    assert results[0].problem == "nothing is listening"
    assert panel.found_servers() == [] and panel.server_rows() == []
    assert panel.scan_status.text().startswith("No local server is running (LM Studio checked)")
    assert panel.connect_button.isEnabled() and panel.url_edit.text() == "https://api.openai.com/v1"


def test_something_that_is_not_an_openai_server_is_not_offered(server: FakeOpenAIServer) -> None:
    not_openai = LocalServerCandidate("llama.cpp", server.base_url.replace("/v1", "/elsewhere"))
    result = probe_server(not_openai, timeout=30)
    assert not result.found and result.problem == "answered HTTP 404"


def test_look_again_finds_a_server_started_later(qtbot: QtBot, ctx: AppContext) -> None:
    srv = FakeOpenAIServer(models=("phi4",))
    srv.start()
    url = srv.base_url
    srv.stop()  # the port is closed now
    panel = make_panel(qtbot, ctx, [LocalServerCandidate("llama.cpp", url)])
    wait_for_scan(qtbot, panel)
    assert panel.found_servers() == []
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with FakeOpenAIServer(port=port, models=("phi4",)):
        qtbot.mouseClick(panel.scan_button, Qt.MouseButton.LeftButton)
        wait_for_scan(qtbot, panel)
    assert [r.models for r in panel.found_servers()] == [("phi4",)]


# ---------------------------------------------------------------------- choosing


def test_using_a_found_server_saves_it_and_reports_configured(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    panel = make_panel(qtbot, ctx, [LocalServerCandidate("Ollama", server.base_url)])
    wait_for_scan(qtbot, panel)
    row = panel.server_rows()[0]
    with qtbot.waitSignal(panel.configured):
        qtbot.mouseClick(row.use_button, Qt.MouseButton.LeftButton)
    saved = json.loads(paths.settings_file().read_text(encoding="utf-8"))
    assert saved["providers"][0] == {"name": "default", "baseUrl": server.base_url, "keySource": "none"}
    assert saved["provider.model"] == "llama3.1:8b", "the first listed model replaces one the server lacks"
    assert not FirstRunPanel.needs_first_run(Settings.load())


def test_hosted_api_with_a_key_is_checked_then_saved_in_the_keyring(qtbot: QtBot, ctx: AppContext) -> None:
    with (
        system_keyring(MemoryKeyring()) as keyring,
        FakeOpenAIServer(host="127.0.0.1", models=("gpt-4o-mini",), require_key="sk-right-key-42") as srv,
    ):
        panel = make_panel(qtbot, ctx, [])
        qtbot.waitUntil(panel.key_edit.isEnabled)
        assert panel.key_note.text() == "Saved in the system keyring, never in settings.json."
        panel.url_edit.setText(srv.base_url)
        qtbot.keyClicks(panel.key_edit, "sk-wrong-key-00")
        panel.connect_hosted()
        assert not panel.connect_button.isEnabled()  # checking in the background
        qtbot.waitUntil(lambda: panel.connect_button.isEnabled(), timeout=10_000)
        assert "Could not connect" in panel.banner.label.text()
        assert keyring.saved == {} and not paths.settings_file().exists(), "a refused key changes nothing"

        panel.key_edit.clear()
        qtbot.keyClicks(panel.key_edit, "sk-right-key-42")
        with qtbot.waitSignal(panel.configured, timeout=10_000):
            qtbot.mouseClick(panel.connect_button, Qt.MouseButton.LeftButton)
        assert keyring.saved == {("okbot", "api-key"): "sk-right-key-42"}
    assert panel.connect_status.text() == "✓ Connected. Key saved in the system keyring."
    assert not KeyStore().key_file.exists()
    settings = Settings.load()
    assert settings.get("provider.baseUrl") == srv.base_url
    assert settings.get("provider.keySource") == "keyring"
    assert "sk-right" not in paths.settings_file().read_text(encoding="utf-8")


def test_a_failed_connect_keeps_the_button_its_size_and_a_new_url_clears_the_old_error(
    qtbot: QtBot, ctx: AppContext
) -> None:
    """Issue 34, item 9: after a failed connect the button stretched from 80 to 505 px, and the old error
    stayed while a new URL was typed."""
    panel = make_panel(qtbot, ctx, [])
    panel.resize(900, 700)
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0)  # the keyring check
    before = panel.connect_button.width()
    panel.url_edit.setText(closed_port_url())
    panel.connect_hosted()
    qtbot.waitUntil(lambda: panel.connect_button.isEnabled(), timeout=10_000)
    assert "Could not connect" in panel.banner.label.text() and panel.banner.is_error
    qtbot.wait(10)  # the layout after the status line hid
    assert panel.connect_button.width() <= max(before, panel.connect_button.sizeHint().width()) + 4
    qtbot.keyClicks(panel.url_edit, "x")  # the user edits the URL: the error was about the old one
    assert not panel.banner.is_error and not panel.banner.label.text()


def test_a_small_window_scrolls_the_panel_instead_of_squeezing_its_fields(qtbot: QtBot, ctx: AppContext) -> None:
    panel = make_panel(qtbot, ctx, [])
    panel.resize(400, 420)  # the chat area of a 640×460 window
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0)
    panel.url_edit.setText(closed_port_url())
    panel.connect_hosted()
    qtbot.waitUntil(lambda: panel.connect_button.isEnabled(), timeout=10_000)  # the error banner takes room too
    qtbot.wait(10)
    for field in (panel.url_edit, panel.key_edit, panel.model_combo, panel.connect_button):
        assert field.height() >= field.sizeHint().height(), field


def test_hosted_form_refuses_a_bad_url_and_a_missing_key(qtbot: QtBot, ctx: AppContext) -> None:
    panel = make_panel(qtbot, ctx, [])
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0)  # the keyring check
    panel.url_edit.setText("ftp://example.com")
    panel.connect_hosted()
    assert "must be an http:// or https:// URL" in panel.banner.label.text()
    panel.url_edit.setText("https://api.example.com/v1")
    panel.connect_hosted()
    assert "a hosted API needs one" in panel.banner.label.text()
    assert ctx.tasks.pending == 0, "nothing was sent anywhere"
    assert not paths.settings_file().exists()


def test_not_now_lets_the_user_browse(qtbot: QtBot, ctx: AppContext) -> None:
    panel = make_panel(qtbot, ctx, [])
    with qtbot.waitSignal(panel.skipped):
        qtbot.mouseClick(panel.skip_button, Qt.MouseButton.LeftButton)
    assert not paths.settings_file().exists()


# ---------------------------------------------------------------------- no keyring: the key file


def test_without_a_keyring_the_panel_says_where_the_key_will_be_kept_before_saving(
    qtbot: QtBot, ctx: AppContext
) -> None:
    panel = make_panel(qtbot, ctx, [])
    assert not panel.key_edit.isEnabled()  # until the background check answered
    qtbot.waitUntil(panel.key_edit.isEnabled)
    note = panel.key_note.text()
    assert "no system keyring" in note and "only your user account can read" in note
    assert str(Path(paths.data_dir(), "keys.json")) in note
    assert not KeyStore().key_file.exists(), "nothing saved by saying so"


# ---------------------------------------------------------------------- the main window run_gui opens


def open_window(qtbot: QtBot) -> MainWindow:
    """The main window exactly as run_gui builds it, over this test's fresh data dir."""
    window = open_main_window(Settings.load(), Workspace())
    qtbot.addWidget(window)
    window.show()
    return window


def settle(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: window.ctx.tasks.pending == 0, timeout=10_000)


def test_a_fresh_data_dir_without_a_key_opens_on_the_first_run_panel(qtbot: QtBot) -> None:
    window = open_window(qtbot)
    qtbot.waitUntil(lambda: window.first_run_panel is not None, timeout=10_000)
    assert window.stack.currentWidget() is window.first_run_panel
    settle(qtbot, window)


@pytest.mark.parametrize("how", ["OPENAI_API_KEY", "OKBOT_API_KEY", "saved key", "local server"])
def test_with_a_working_provider_the_chat_opens_directly(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, server: FakeOpenAIServer, how: str
) -> None:
    if how == "saved key":
        KeyStore().save(KEY)
        Settings.load().set("provider.keySource", "keyring")
    elif how == "local server":
        Settings.load().set("provider.baseUrl", server.base_url)
    else:
        monkeypatch.setenv(how, KEY)
    window = open_window(qtbot)
    settle(qtbot, window)
    assert window.first_run_panel is None
    assert window.current_page() is not None


def test_a_key_entered_without_a_keyring_is_kept_0600_and_sends_the_next_message(
    qtbot: QtBot, okbot_home: Path, log_file: Path
) -> None:
    with FakeOpenAIServer(models=("gpt-4o-mini",), require_key=KEY) as srv:
        window = open_window(qtbot)
        qtbot.waitUntil(lambda: window.first_run_panel is not None, timeout=10_000)
        panel = window.first_run_panel
        assert isinstance(panel, FirstRunPanel)
        qtbot.waitUntil(panel.key_edit.isEnabled)
        panel.url_edit.setText(srv.base_url)
        qtbot.keyClicks(panel.key_edit, KEY)
        with qtbot.waitSignal(panel.configured, timeout=10_000):
            qtbot.mouseClick(panel.connect_button, Qt.MouseButton.LeftButton)
        key_file = okbot_home / "keys.json"
        assert panel.connect_status.text() == f"✓ Connected. Key saved in {key_file} (readable by your user only)."
        assert window.first_run_panel is None

        page = window.current_page()
        assert page is not None
        srv.enqueue(Reply(text="Hello from the key's server."))
        with qtbot.waitSignal(page.reply_finished, timeout=15_000):
            page.send("hi")
        assert page.last_result is not None and page.last_result.status == "complete"
        chat = [r for r in srv.requests if r.path == "/v1/chat/completions"]
        assert chat and {r.headers["authorization"] for r in chat} == {f"Bearer {KEY}"}
        settle(qtbot, window)
    if os.name == "posix":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert json.loads(key_file.read_text(encoding="utf-8"))["keys"] == {"default": KEY}
    assert Settings.load().get("provider.keySource") == "keyring"
    logging.getLogger("okbot.test").error("a crash report would say: %s", KEY)
    assert "a crash report would say: [redacted]" in log_file.read_text(encoding="utf-8")
    for path in okbot_home.rglob("*"):  # settings.json, session.jsonl, okbot.log …
        if path.is_file() and path != key_file:
            assert KEY.encode() not in path.read_bytes(), path


def test_a_message_without_a_key_says_no_key_in_the_chat(qtbot: QtBot, server: FakeOpenAIServer) -> None:
    window = open_window(qtbot)
    qtbot.waitUntil(lambda: window.first_run_panel is not None, timeout=10_000)
    qtbot.mouseClick(window.first_run_panel.skip_button, Qt.MouseButton.LeftButton)  # browse without a provider
    page = window.current_page()
    assert page is not None
    with qtbot.waitSignal(page.reply_finished, timeout=15_000):
        page.send("hello?")
    assert page.last_result is not None and page.last_result.status == "error"
    model = page.view.chat_model()
    bubble = chat_text.status_line(model.item(model.rowCount() - 1) or {})  # told once: in the failed bubble
    assert "No API key for api.openai.com. Add one in Settings → Models, or set OKBOT_API_KEY." in bubble
    assert "Could not reach" not in bubble
    settle(qtbot, window)


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_a_key_file_others_can_read_is_not_used_and_the_panel_says_why(qtbot: QtBot) -> None:
    KeyStore().save(KEY)
    Settings.load().set("provider.keySource", "keyring")
    (KeyStore().key_file).chmod(0o644)
    window = open_window(qtbot)
    qtbot.waitUntil(lambda: window.first_run_panel is not None, timeout=10_000)
    panel = window.first_run_panel
    assert isinstance(panel, FirstRunPanel)
    qtbot.waitUntil(panel.key_edit.isEnabled)
    assert "other users can read that file" in panel.banner.label.text()
    assert "chmod 600" in panel.banner.label.text()
    settle(qtbot, window)
