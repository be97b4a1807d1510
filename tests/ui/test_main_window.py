"""The main window against a real workspace in the test's OKBOT_HOME (offscreen Qt)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot.config import paths
from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.ui.app import create_application, run_gui, startup_problems
from okbot.ui.main_window import DEFAULT_SIZE, MainWindow
from okbot.ui.target_list_model import TargetListModel
from okbot.ui.target_pane import CHAT_LATER, NOTHING_THERE


def open_window(qtbot: QtBot, workspace: Workspace, problems: list[str] | None = None) -> MainWindow:
    window = MainWindow(workspace, problems=problems or [])
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def click_row(qtbot: QtBot, window: MainWindow, row: int) -> None:
    rect = window.sidebar.visualRect(window.model.index(row, 0))
    assert rect.isValid(), f"row {row} is not visible"
    qtbot.mouseClick(window.sidebar.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


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
    # the default assistant is selected from the start, and the pane says so
    assert window.selected_target().name == "OkBot"
    assert "OkBot" in window.pane.subtitle.text()
    assert window.pane.body.text() == CHAT_LATER
    assert window.problems() == []


def test_selecting_an_assistant_updates_the_pane(qtbot: QtBot, workspace: Workspace) -> None:
    workspace.create_assistant("Researcher", role="Finds sources and checks facts.")
    window = open_window(qtbot, workspace)
    assert sidebar_names(window) == ["OkBot", "Researcher"]

    click_row(qtbot, window, 1)
    assert window.selected_target().name == "Researcher"
    assert window.pane.title.text() == "Researcher"
    assert "Assistant “Researcher” is selected" in window.pane.subtitle.text()
    assert "Finds sources and checks facts." in window.pane.subtitle.text()

    click_row(qtbot, window, 0)
    assert window.pane.title.text() == "OkBot"
    assert window.pane.target is not None and window.pane.target.name == "OkBot"


def test_keyboard_moves_the_selection(qtbot: QtBot, workspace: Workspace) -> None:
    workspace.create_assistant("Researcher")
    window = open_window(qtbot, workspace)
    window.sidebar.setFocus()
    qtbot.keyClick(window.sidebar, Qt.Key.Key_Down)
    assert window.pane.title.text() == "Researcher"


def test_a_squad_is_listed_after_assistants_and_described(qtbot: QtBot, workspace: Workspace) -> None:
    workspace.create_assistant("Researcher")
    workspace.create_squad(
        "Writing room", [("OkBot", "lead"), ("Researcher", "facts")], description="Drafts."
    )
    window = open_window(qtbot, workspace)
    assert sidebar_names(window) == ["OkBot", "Researcher", "Writing room"]
    click_row(qtbot, window, 2)
    assert "Squad “Writing room” is selected" in window.pane.subtitle.text()
    assert "Drafts." in window.pane.subtitle.text()


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
    assert window.pane.title.text() == "Researcher"


def test_problems_show_in_the_status_bar(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace, problems=["settings.json was not valid JSON"])
    assert "settings.json was not valid JSON" in window.problems_label.text()
    assert window.problems() == ["settings.json was not valid JSON"]


def test_unreadable_assistant_is_listed_with_its_problem(
    qtbot: QtBot, workspace: Workspace, okbot_home: Path
) -> None:
    broken = paths.assistants_dir() / "broken"
    broken.mkdir()
    (broken / "assistant.json").write_text("{not json", encoding="utf-8")
    window = open_window(qtbot, workspace)

    assert sidebar_names(window) == ["broken", "OkBot"]
    assert window.selected_target().name == "OkBot"  # a readable one is selected first
    assert any("broken" in p for p in window.problems())
    assert "broken" in window.problems_label.text()
    click_row(qtbot, window, 0)
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


def test_run_gui_shows_the_window_and_returns_the_exit_code(qapp: QApplication) -> None:
    seen: list[tuple[str, list[str]]] = []

    def close_main_window() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        seen.extend((w.windowTitle(), sidebar_names(w)) for w in windows)
        for window in windows:
            window.close()
        # quit explicitly: a window left open by another test must not keep the loop running
        qapp.exit(0 if windows else 3)

    QTimer.singleShot(0, close_main_window)
    assert run_gui(["okbot"]) == 0
    assert seen == [("OkBot", ["OkBot"])]
