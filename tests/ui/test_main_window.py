"""The main window against a real workspace in the test's OKBOT_HOME (offscreen Qt)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core import trash
from okbot.core.workspace import Workspace
from okbot.storage import paths
from okbot.ui.app import create_application, startup_problems
from okbot.ui.app_context import AppContext
from okbot.ui.main_window import DEFAULT_SIZE, MainWindow
from okbot.ui.target_list_model import STREAMING, UNREAD, TargetListModel
from okbot.ui.target_pane import NOTHING_THERE
from tests.helpers.fake_openai import FakeOpenAIServer, Reply

REPO = Path(__file__).resolve().parents[2]


def open_window(qtbot: QtBot, workspace: Workspace | AppContext, problems: list[str] | None = None) -> MainWindow:
    window = MainWindow(workspace, problems=problems or [])
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitActive(window):  # window shortcuts (Ctrl+N, Ctrl+L, Esc) need an active window
        window.activateWindow()
    return window


def click_row(qtbot: QtBot, window: MainWindow, row: int) -> None:
    rect = window.sidebar.visual_rect_of_row(row)
    assert rect.isValid(), f"row {row} is not visible"
    qtbot.mouseClick(window.sidebar.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def sidebar_names(window: MainWindow) -> list[str]:
    model = window.model
    return [model.data(model.index(row, 0)) for row in range(model.rowCount())]


@pytest.fixture
def workspace() -> Workspace:
    """A workspace in the test's OKBOT_HOME holding only the default assistant."""
    ws = Workspace()
    ws.ensure_default()
    return ws


def test_window_opens_with_title_and_default_size(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace)
    assert window.isVisible()
    assert window.windowTitle() == "OkBot"
    assert (window.width(), window.height()) == DEFAULT_SIZE


def test_sidebar_lists_the_default_assistant(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace)
    assert sidebar_names(window) == ["OkBot"]
    index = window.model.index(0, 0)
    assert window.model.data(index, TargetListModel.KindRole) == "assistant"
    assert window.model.data(index, TargetListModel.TargetRole).id == workspace.list()[0].id
    # the default assistant is selected from the start, and its chat is on show
    assert window.selected_target().name == "OkBot"
    page = window.current_page()
    assert page is not None and page.title.text() == "OkBot"
    assert "Message OkBot" in page.composer.edit.placeholderText()
    assert window.problems() == []


def test_selecting_an_assistant_updates_the_pane(qtbot: QtBot, workspace: Workspace) -> None:
    workspace.create_assistant("Researcher", role="Finds sources and checks facts.")
    window = open_window(qtbot, workspace)
    assert sidebar_names(window) == ["OkBot", "Researcher"]

    click_row(qtbot, window, 1)
    assert window.selected_target().name == "Researcher"
    assert window.current_page().title.text() == "Researcher"
    assert window.current_page().subtitle.text() == "Finds sources and checks facts."

    click_row(qtbot, window, 0)
    assert window.current_page().title.text() == "OkBot"
    assert window.current_page().target.name == "OkBot"


def test_keyboard_moves_the_selection(qtbot: QtBot, workspace: Workspace) -> None:
    workspace.create_assistant("Researcher")
    window = open_window(qtbot, workspace)
    window.sidebar.list.setFocus()
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_Down)
    assert window.current_page().title.text() == "Researcher"


def test_a_squad_is_listed_after_assistants_and_described(qtbot: QtBot, workspace: Workspace) -> None:
    workspace.create_assistant("Researcher")
    workspace.create_squad("Writing room", [("OkBot", "lead"), ("Researcher", "facts")], description="Drafts.")
    window = open_window(qtbot, workspace)
    assert sidebar_names(window) == ["OkBot", "Researcher", "Writing room"]
    click_row(qtbot, window, 2)
    assert window.current_page().title.text() == "Writing room"
    assert window.current_page().subtitle.text() == "Drafts."


def test_empty_workspace_shows_a_hint(qtbot: QtBot) -> None:
    window = open_window(qtbot, Workspace())
    assert window.model.rowCount() == 0
    assert window.selected_target() is None
    assert window.pane.subtitle.text() == NOTHING_THERE


def test_reload_keeps_the_selection(qtbot: QtBot, workspace: Workspace) -> None:
    workspace.create_assistant("Researcher")
    window = open_window(qtbot, workspace)
    click_row(qtbot, window, 1)
    workspace.create_assistant("Aaron")  # sorts first, so Researcher moves down a row
    window.reload()
    assert sidebar_names(window) == ["Aaron", "OkBot", "Researcher"]
    assert window.selected_target().name == "Researcher"
    assert window.current_page().title.text() == "Researcher"


def test_problems_show_in_the_status_bar(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace, problems=["settings.json was not valid JSON"])
    assert "settings.json was not valid JSON" in window.problems_label.text()
    assert window.problems() == ["settings.json was not valid JSON"]


def test_unreadable_assistant_is_listed_with_its_problem(qtbot: QtBot, workspace: Workspace, okbot_home: Path) -> None:
    broken = paths.assistants_dir() / "broken"
    broken.mkdir()
    (broken / "assistant.json").write_text("{not json", encoding="utf-8")
    window = open_window(qtbot, workspace)

    assert sidebar_names(window) == ["broken", "OkBot"]
    assert window.selected_target().name == "OkBot"  # a readable one is selected first
    assert any("broken" in p for p in window.problems())
    assert "broken" in window.problems_label.text()
    click_row(qtbot, window, 0)
    assert window.current_page() is None  # nothing to chat with: the pane explains
    assert window.pane.problem.isVisible()
    assert "not valid JSON" in window.pane.problem.text()
    assert (broken / "assistant.json").read_text(encoding="utf-8") == "{not json"  # left as is


def test_startup_creates_the_default_assistant_and_reports_settings_problems(qapp: QApplication) -> None:
    paths.settings_file().write_bytes(b"{broken")
    workspace = Workspace()
    problems = startup_problems(Settings.load(), workspace)
    assert [t.name for t in workspace.list()] == ["OkBot"]
    assert any("settings.json" in p for p in problems)
    assert create_application([]) is qapp
    assert qapp.applicationName() == "OkBot"
    assert qapp.organizationName() == "OkBot"


_RUN_GUI_SCRIPT = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit
from okbot.ui.app import create_application, run_gui
from okbot.ui.main_window import MainWindow

app = create_application(["okbot"])
seen = []

def close_main_window():
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    for w in windows:
        seen.append([w.windowTitle(), [w.model.data(w.model.index(r, 0)) for r in range(w.model.rowCount())]])
        w.close()

QTimer.singleShot(300, close_main_window)
code = run_gui(["okbot"])
print(json.dumps({"code": code, "seen": seen}))
"""


def test_run_gui_shows_the_window_and_returns_the_exit_code(okbot_home: Path) -> None:
    # In a child process: QApplication.exit() leaves this process's event loops unable to run
    # again (Qt's quitNow flag), which would break every later test that waits for a signal.
    env = {**os.environ, "OKBOT_HOME": str(okbot_home), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_GUI_SCRIPT], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"code": 0, "seen": [["OkBot", ["OkBot"]]]}


def test_the_first_frame_comes_before_the_chat_page_which_follows_by_itself(qtbot: QtBot, workspace: Workspace) -> None:
    window = MainWindow(AppContext.create(workspace))
    qtbot.addWidget(window)
    assert window.stack.count() == 1  # only the placeholder pane: nothing of the chat is built yet
    window.show()
    qtbot.waitUntil(lambda: window.stack.count() == 2)  # built right after the first paint, unasked
    page = window.current_page()
    assert page is not None and page.target.name == "OkBot"


def test_asking_for_the_page_before_the_first_frame_builds_it_at_once(workspace: Workspace, qtbot: QtBot) -> None:
    window = MainWindow(AppContext.create(workspace))
    qtbot.addWidget(window)
    page = window.current_page()
    assert page is not None and page.target.name == "OkBot"
    window.show()
    qtbot.wait(50)
    assert window.stack.count() == 2 and window.current_page() is page  # no second page after the frame


def test_an_on_disk_soul_edit_recounts_the_open_chats_gauge(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace)
    page = window.current_page()
    qtbot.waitUntil(lambda: page.gauge.reading is not None, timeout=10_000)
    before = page.gauge.reading.tokens
    target = window.selected_target()
    target.soul_path.write_text("You are thorough. " * 400, encoding="utf-8")  # edited in another program
    qtbot.waitUntil(lambda: page.gauge.reading.tokens > before + 500, timeout=10_000)
    window.close()
    assert window._context_watcher is not None and not window._context_watcher.running


def test_the_assistant_dialog_opens_from_the_chat_header_and_the_sidebar_once_per_assistant(
    qtbot: QtBot, workspace: Workspace
) -> None:
    window = open_window(qtbot, workspace)
    page = window.current_page()
    qtbot.mouseClick(page.settings_button, Qt.MouseButton.LeftButton)
    dialog = window._assistant_dialogs[page.target.dir]
    assert dialog.isVisible() and dialog.current_tab() == "soul"
    window.sidebar.assistant_actions[1].trigger()  # "Memories…" from the row's context menu
    assert window.open_assistant_dialog(page.target, "memories") is dialog and dialog.current_tab() == "memories"
    window.sidebar.assistant_actions[3].trigger()  # "Evolution…"
    assert dialog.current_tab() == "evolution"
    dialog.close()
    qtbot.waitUntil(lambda: page.target.dir not in window._assistant_dialogs)


_STARTUP_IMPORTS = """
import sys
import okbot.ui.app
heavy = ["openai", "tiktoken", "okbot.core.sources", "okbot.ui.chat_page", "okbot.ui.chat", "okbot.ui.settings",
         "okbot.core.compression", "okbot.core.turn.runner", "okbot.app"]
print([name for name in heavy if name in sys.modules])
"""


def test_start_up_imports_leave_the_heavy_parts_for_later() -> None:
    # What the window needs before its first frame; the rest loads after it (cold-start budget).
    done = subprocess.run(
        [sys.executable, "-c", _STARTUP_IMPORTS],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# ----------------------------------------------------------------------------- sidebar features
def test_new_assistant_is_created_and_renamed_in_place(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace)
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert sidebar_names(window) == ["New assistant", "OkBot"]
    assert window.selected_target().name == "New assistant"
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit) and editor.text() == "New assistant"  # the name editor is open
    editor.selectAll()
    qtbot.keyClicks(editor, "Travel planner")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: sidebar_names(window) == ["OkBot", "Travel planner"])  # Qt commits on the next turn
    assert window.selected_target().name == "Travel planner"
    assert window.current_page().title.text() == "Travel planner"
    assert window.current_page().view.placeholder().startswith("Say hello to Travel planner.")  # not the old name
    assert [t.name for t in Workspace().list()] == ["OkBot", "Travel planner"]

    window.create_assistant()  # a second one gets a number
    assert "New assistant" in sidebar_names(window)
    window.create_assistant()
    assert "New assistant 2" in sidebar_names(window)


def test_rename_keeps_the_id_and_refuses_a_bad_name(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace)
    original = window.selected_target()
    index = window.sidebar.list.currentIndex()
    window.sidebar.proxy.setData(index, "Helper")
    assert sidebar_names(window) == ["Helper"]
    assert workspace.resolve(original.id).name == "Helper"
    assert window.current_page().title.text() == "Helper"

    window.sidebar.proxy.setData(window.sidebar.list.currentIndex(), "   ")
    assert window.sidebar.banner_kind == "message"
    assert "Not renamed" in window.sidebar.banner_text
    assert sidebar_names(window) == ["Helper"]


def test_delete_asks_first_then_offers_undo(qtbot: QtBot, workspace: Workspace) -> None:
    researcher = workspace.create_assistant("Researcher")
    window = open_window(qtbot, workspace)
    click_row(qtbot, window, 1)
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_Delete)
    assert window.sidebar.banner_kind == "confirm"
    assert "Researcher" in window.sidebar.banner_text
    qtbot.mouseClick(window.sidebar.banner.secondary, Qt.MouseButton.LeftButton)  # Cancel
    assert sidebar_names(window) == ["OkBot", "Researcher"]

    window.sidebar.ask_delete_current()
    qtbot.mouseClick(window.sidebar.banner.primary, Qt.MouseButton.LeftButton)  # Delete
    assert sidebar_names(window) == ["OkBot"]
    assert [e["name"] for e in trash.entries(workspace)] == ["Researcher"]
    assert window.sidebar.banner_kind == "undo"
    assert window.selected_target().name == "OkBot"

    qtbot.mouseClick(window.sidebar.banner.primary, Qt.MouseButton.LeftButton)  # Undo
    assert sidebar_names(window) == ["OkBot", "Researcher"]
    assert window.selected_target().id == researcher.id
    assert trash.entries(workspace) == []
    assert window.sidebar.banner_kind == ""


def test_search_filters_by_name(qtbot: QtBot, workspace: Workspace) -> None:
    for name in ("Researcher", "Travel planner", "Recipe box"):
        workspace.create_assistant(name)
    window = open_window(qtbot, workspace)
    qtbot.keyClicks(window.sidebar.search, "re")
    shown = [window.sidebar.proxy.index(r, 0).data() for r in range(window.sidebar.proxy.rowCount())]
    assert shown == ["Recipe box", "Researcher"]
    window.sidebar.search.setText("zzz")
    assert window.sidebar.proxy.rowCount() == 0 and window.sidebar.empty_label.isVisible()
    window.sidebar.search.clear()
    assert window.sidebar.proxy.rowCount() == 4
    # selecting a row hidden by the search clears the search
    window.sidebar.search.setText("travel")
    window.select_row(window.model.row_of("assistant", workspace.resolve("OkBot").id))
    assert window.sidebar.search.text() == "" and window.selected_target().name == "OkBot"


def test_shortcuts_focus_the_composer(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace)
    window.activateWindow()
    window.sidebar.list.setFocus()
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.current_page().composer.edit.hasFocus()
    actions = {a.objectName(): a.shortcut().toString() for a in window.actions()}
    assert actions == {
        "newChatAction": "Ctrl+N",
        "settingsAction": "Ctrl+,",
        "focusAction": "Ctrl+L",
        "searchAction": "Ctrl+Shift+F",
        "stopAction": "Esc",
    }


def test_streaming_and_unread_dots_and_esc_stops(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    ctx.workspace.create_assistant("Researcher")
    window = open_window(qtbot, ctx)
    okbot = window.selected_target()
    server.enqueue(
        Reply(text="slow words " * 60, chunk_chars=4, chunk_delay=0.01), Reply(text="x " * 2000, chunk_delay=0.01)
    )
    page = window.current_page()
    page.composer.set_text("hello")
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)
    row = window.model.row_of("assistant", okbot.id)
    assert window.model.data(window.model.index(row, 0), TargetListModel.StatusRole) == STREAMING
    click_row(qtbot, window, 1)  # look at another chat while OkBot replies
    assert window.current_page() is not page and page.streaming
    qtbot.waitUntil(lambda: not page.streaming, timeout=15_000)
    assert window.model.status("assistant", okbot.id) == UNREAD
    assert page.last_result.status == "complete"
    click_row(qtbot, window, 0)
    assert window.current_page() is page  # the same page, kept while it streamed
    assert window.model.status("assistant", okbot.id) == ""

    page.composer.set_text("more please")
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(server.chat_requests()[1:]))
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not page.streaming, timeout=15_000)
    assert page.last_result.status == "interrupted"


def test_deleting_a_streaming_chat_is_refused(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    window = open_window(qtbot, ctx)
    server.enqueue(Reply(text="z " * 3000, chunk_chars=2, chunk_delay=0.01))
    page = window.current_page()
    page.send("go")
    window.sidebar.ask_delete_current()
    qtbot.mouseClick(window.sidebar.banner.primary, Qt.MouseButton.LeftButton)
    assert "Stop the reply first" in window.sidebar.banner_text
    assert sidebar_names(window) == ["OkBot"]
    page.stop()
    qtbot.waitUntil(lambda: not page.streaming, timeout=15_000)


def test_view_context_opens_the_viewer_for_that_message(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    from okbot.ui.context_viewer import ContextViewer

    ctx.settings.set("developerMode", True)
    window = open_window(qtbot, ctx)
    page = window.current_page()
    page.send("what is in my context?")
    qtbot.waitUntil(lambda: not page.streaming, timeout=15_000)
    user_id = ctx.sources.session(page.target).tail(2)[0]["id"]
    page.view.view_context_requested.emit(user_id)
    viewers = [w for w in QApplication.topLevelWidgets() if isinstance(w, ContextViewer) and w.isVisible()]
    assert len(viewers) == 1 and viewers[0].item_id == user_id and viewers[0].target.id == page.target.id
    viewers[0].close()


def test_settings_open_with_ctrl_comma_and_developer_mode_applies_at_once(qtbot: QtBot, ctx: AppContext) -> None:
    window = open_window(qtbot, ctx)
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = window.settings_dialog
    assert dialog is not None and dialog.isVisible()
    view = window.current_page().view
    assert not view.developer_mode()
    ctx.settings.set("developerMode", True)
    dialog.setting_changed.emit("developerMode")
    assert view.developer_mode()
    dialog.close()


def test_first_run_panel_shows_without_a_provider_and_browsing_still_works(qtbot: QtBot, workspace: Workspace) -> None:
    from okbot.ui.first_run import FirstRunPanel

    workspace.create_assistant("Researcher")
    window = MainWindow(AppContext.create(workspace), first_run=True)  # default settings: hosted API, no key
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: isinstance(window.stack.currentWidget(), FirstRunPanel), timeout=10_000)
    click_row(qtbot, window, 1)  # picking a chat means browsing without a provider
    assert window.first_run_panel is None
    assert window.current_page() is not None and window.current_page().title.text() == "Researcher"


def test_at_the_minimum_size_the_composer_placeholder_is_not_clipped(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace)
    window.resize(window.minimumSize())
    assert (window.width(), window.height()) == (640, 420)
    qtbot.waitUntil(lambda: window.current_page() is not None)
    QApplication.processEvents()
    edit = window.current_page().composer.edit
    shown = edit.placeholderText()
    assert shown.startswith("Message OkBot")
    assert edit.fontMetrics().horizontalAdvance(shown) <= edit.viewport().width() - 2 * edit.document().documentMargin()
    assert edit.height() >= edit.fontMetrics().lineSpacing()  # one whole line of it shows
    page = window.current_page()  # the header's controls keep their size; the names are elided instead
    for widget in (page.model_picker, page.settings_button, page.gauge):
        assert widget.width() >= widget.sizeHint().width(), widget.objectName()
    assert QLabel.text(page.title) == "OkBot"  # as painted: a short name has room


def test_a_model_picked_in_the_header_stays_when_switching_chats(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    ctx.workspace.create_assistant("Researcher")
    window = open_window(qtbot, ctx)
    page = window.current_page()
    page.model_picker.open_popup()
    popup = page.model_picker.popup
    qtbot.waitUntil(lambda: popup.list.count() == 2, timeout=10_000)
    qtbot.keyClicks(popup.name_edit, "fake-small")
    qtbot.keyClick(popup.name_edit, Qt.Key.Key_Return)
    click_row(qtbot, window, 1)  # another chat, then back: the sidebar's copy of OkBot is the new one
    assert window.current_page().model_picker.model == "gpt-4o-mini"
    click_row(qtbot, window, 0)
    assert window.current_page() is page and page.model_picker.model == "fake-small"
    server.enqueue(Reply(text="hi"))
    with qtbot.waitSignal(page.reply_finished, timeout=10_000):
        page.send("hello")
    assert server.chat_requests()[-1]["model"] == "fake-small"

    ctx.settings.set("provider.model", "fake-small")  # a new default shows in chats that use the default
    window._on_settings_setting_changed("provider.model")  # noqa: SLF001 - as the settings dialog reports it
    click_row(qtbot, window, 1)
    assert window.current_page().model_picker.model == "fake-small"
