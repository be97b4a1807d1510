"""Settings → Tools → Web search against real settings files and a real key store: the service combo, the
key (saved in the keyring or the key file, never in settings.json), the SearXNG URL and results per search."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.local_tools.web.search_setup import key_name, ready, save_key
from okbot.llm.keystore import KeyStore
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.settings import SettingsDialog
from okbot.ui.settings.tools_page import ToolsPage
from tests.helpers.keyrings import MemoryKeyring, system_keyring
from tests.ui.conftest import KEYLESS

pytestmark = KEYLESS
KEY = "tvly-dev-0123456789abcdefABCDEF"


@pytest.fixture
def ctx(serverless_ctx: AppContext) -> AppContext:
    return serverless_ctx


def settle(qtbot: QtBot, ctx: AppContext) -> None:
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)


@pytest.fixture
def tools_page(qtbot: QtBot, ctx: AppContext) -> Iterator[Callable[[], ToolsPage]]:
    """Opens the Settings dialog on its Tools page (the dialog is kept until the test ends)."""
    dialogs: list[SettingsDialog] = []

    def open_page() -> ToolsPage:
        dialog = SettingsDialog(ctx)  # type: ignore[arg-type]
        qtbot.addWidget(dialog)
        dialogs.append(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        page = dialog.open_page("tools")
        assert isinstance(page, ToolsPage)
        settle(qtbot, ctx)
        return page

    yield open_page


def choose(qtbot: QtBot, ctx: AppContext, page: ToolsPage, service: str) -> None:
    combo = page.field("webSearch.provider").editor()
    combo.setCurrentIndex(combo.findData(service))
    combo.activated.emit(combo.currentIndex())
    settle(qtbot, ctx)


def settings_text() -> str:
    return paths.settings_file().read_text(encoding="utf-8")


def test_the_section_starts_off_with_no_key_or_url_row(
    qtbot: QtBot, ctx: AppContext, tools_page: Callable[[], ToolsPage]
) -> None:
    page = tools_page()
    combo = page.field("webSearch.provider").editor()
    assert combo.currentText() == "Off"
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "Off",
        "Tavily",
        "Brave Search",
        "Serper (Google results)",
        "SearXNG (self-hosted)",
    ]
    assert not page.key_edit.isVisible() and not page.field("webSearch.searxngUrl").editor().isVisible()
    assert page.field("webSearch.maxResults").editor().isVisible()


def test_a_key_saved_for_tavily_goes_to_the_key_file_and_turns_search_on(
    qtbot: QtBot, ctx: AppContext, tools_page: Callable[[], ToolsPage]
) -> None:
    page = tools_page()
    choose(qtbot, ctx, page, "tavily")
    assert ctx.settings.get("webSearch.provider") == "tavily" and Settings.load().get("webSearch.provider") == "tavily"
    assert page.key_edit.isVisible() and page.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert not page.field("webSearch.searxngUrl").editor().isVisible()
    assert page.key_status.text() == "No key for Tavily yet: web search stays off until you save one."
    assert not ready(ctx.settings, KeyStore())
    qtbot.keyClicks(page.key_edit, KEY)
    qtbot.mouseClick(page.save_key_button, Qt.MouseButton.LeftButton)
    settle(qtbot, ctx)
    key_file = KeyStore().key_file
    assert page.message_text() == f"Key saved in {key_file} (readable by your user only)."
    assert page.key_status.text() == "A key for Tavily is saved; assistants can search."
    assert page.key_edit.text() == "" and page.remove_key_button.isEnabled()
    assert KeyStore().get(key_name("tavily")).key == KEY
    assert ready(ctx.settings, KeyStore())
    assert KEY not in settings_text()
    qtbot.mouseClick(page.remove_key_button, Qt.MouseButton.LeftButton)
    settle(qtbot, ctx)
    assert KeyStore().get(key_name("tavily")) is None and not ready(ctx.settings, KeyStore())
    assert page.key_status.text() == "No key for Tavily yet: web search stays off until you save one."


def test_each_service_shows_its_own_key(qtbot: QtBot, ctx: AppContext, tools_page: Callable[[], ToolsPage]) -> None:
    save_key(KeyStore(), "brave", KEY)
    page = tools_page()
    choose(qtbot, ctx, page, "brave")
    assert page.key_status.text() == "A key for Brave Search is saved; assistants can search."
    choose(qtbot, ctx, page, "serper")
    assert page.key_status.text() == "No key for Serper yet: web search stays off until you save one."
    assert page.key_edit.placeholderText() == "Paste the Serper API key to save it"


def test_a_key_goes_to_the_system_keyring_when_there_is_one(
    qtbot: QtBot, ctx: AppContext, tools_page: Callable[[], ToolsPage]
) -> None:
    with system_keyring(MemoryKeyring()) as keyring:
        page = tools_page()
        choose(qtbot, ctx, page, "serper")
        assert page.key_help.text() == "Saved in the system keyring, never in settings.json."
        qtbot.keyClicks(page.key_edit, KEY)
        qtbot.keyClick(page.key_edit, Qt.Key.Key_Return)
        settle(qtbot, ctx)
        assert keyring.saved == {("okbot", "api-key:websearch:serper"): KEY}
        assert page.message_text() == "Key saved in the system keyring."
    assert KEY not in settings_text() and not KeyStore().key_file.exists()


def test_a_key_that_cannot_travel_in_a_header_is_refused_without_quoting_it(
    qtbot: QtBot, ctx: AppContext, tools_page: Callable[[], ToolsPage]
) -> None:
    page = tools_page()
    choose(qtbot, ctx, page, "tavily")
    page.key_edit.setText("tvly with-a-space-0123456789")
    qtbot.mouseClick(page.save_key_button, Qt.MouseButton.LeftButton)
    settle(qtbot, ctx)
    assert page.key_problem.text() == "The key was not saved: The Tavily key was not saved: it holds a space."
    assert KeyStore().get(key_name("tavily")) is None


def test_searxng_shows_its_url_which_is_persisted_and_checked(
    qtbot: QtBot, ctx: AppContext, tools_page: Callable[[], ToolsPage]
) -> None:
    page = tools_page()
    choose(qtbot, ctx, page, "searxng")
    url = page.field("webSearch.searxngUrl")
    assert url.editor().isVisible() and not page.key_edit.isVisible()
    assert not ready(ctx.settings, KeyStore())
    url.editor().setText("ftp://searx.lan")
    url.editor().editingFinished.emit()
    assert "must be an http:// or https:// URL" in page.field_message("webSearch.searxngUrl")
    url.editor().setText("http://localhost:8888")
    url.editor().editingFinished.emit()
    assert Settings.load().get("webSearch.searxngUrl") == "http://localhost:8888"
    assert ready(ctx.settings, KeyStore())
    results = page.field("webSearch.maxResults").editor()
    results.setValue(8)
    results.editingFinished.emit()
    assert Settings.load().get("webSearch.maxResults") == 8
