"""The squad dialog (create and edit) and its wiring into the main window, on a real workspace (offscreen Qt)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from okbot.core import trash
from okbot.core.record_fields import DEFAULT_CAPTAIN
from okbot.core.workspace import Target, Workspace
from okbot.ui.main_window import MainWindow
from okbot.ui.squad_dialog import NAME_MISSING, SquadDialog


@pytest.fixture
def workspace() -> Workspace:
    """OkBot plus a writer and a critic, in the test's OKBOT_HOME."""
    ws = Workspace()
    ws.ensure_default()
    ws.create_assistant("Writer", role="Drafts text")
    ws.create_assistant("Critic")
    return ws


@pytest.fixture
def desk(workspace: Workspace) -> Target:
    return workspace.create_squad(
        "Review desk",
        [("critic", "reviews"), ("writer", "drafts")],
        description="Drafts, then reviews",
        captain={"persona": "Calm", "playbook": "1. draft\n2. review"},
    )


def open_dialog(qtbot: QtBot, workspace: Workspace, squad: Target | None = None) -> SquadDialog:
    dialog = SquadDialog(workspace, squad)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    with qtbot.waitActive(dialog):  # focus checks need an active window
        dialog.activateWindow()
    return dialog


def open_window(qtbot: QtBot, workspace: Workspace) -> MainWindow:
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitActive(window):
        window.activateWindow()
    return window


def squad_dialogs() -> list[SquadDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, SquadDialog) and w.isVisible()]


# ----------------------------------------------------------------------------- the dialog
def test_create_a_squad_with_roles_and_captain(qtbot: QtBot, workspace: Workspace) -> None:
    dialog = open_dialog(qtbot, workspace)
    assert dialog.windowTitle() == "New squad" and dialog.save_button.text() == "Create squad"
    assert [r.assistant.name for r in dialog.member_rows] == ["Critic", "OkBot", "Writer"]
    assert not any(r.picked for r in dialog.member_rows)
    assert dialog.row_for("writer").check.toolTip() == "Drafts text"

    qtbot.keyClicks(dialog.name_edit, "Review desk")
    qtbot.keyClicks(dialog.description_edit, "Drafts, then reviews")
    qtbot.keyClicks(dialog.row_for("Writer").role_edit, "drafts")  # typing a role ticks the row
    assert dialog.row_for("Writer").picked
    qtbot.mouseClick(dialog.row_for("Critic").check, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(dialog.row_for("Critic").role_edit, "reviews")
    dialog.persona_edit.setPlainText("Calm and brief")
    dialog.playbook_edit.setPlainText("1. Writer drafts\n2. Critic reviews")

    with qtbot.waitSignal(dialog.saved) as saved:
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    squad: Target = saved.args[0]
    assert not dialog.isVisible() and dialog.result() == SquadDialog.DialogCode.Accepted
    stored = json.loads(squad.meta_path.read_text("utf-8"))
    assert stored["name"] == "Review desk" and stored["description"] == "Drafts, then reviews"
    assert stored["members"] == [{"assistant": "critic", "role": "reviews"}, {"assistant": "writer", "role": "drafts"}]
    assert stored["captain"] == {
        **DEFAULT_CAPTAIN,
        "persona": "Calm and brief",
        "playbook": "1. Writer drafts\n2. Critic reviews",
    }
    assert [t.name for t in workspace.squads()] == ["Review desk"]


def test_missing_name_and_too_few_members_are_shown_inline(qtbot: QtBot, workspace: Workspace) -> None:
    dialog = open_dialog(qtbot, workspace)
    dialog.row_for("Writer").check.setChecked(True)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible()
    assert dialog.errors() == {"name": f"⚠ {NAME_MISSING}", "members": "⚠ Pick at least 2 assistants (1 picked)."}
    assert dialog.name_edit.hasFocus()
    assert workspace.squads() == [] and not workspace.squads_root.exists()

    qtbot.keyClicks(dialog.name_edit, "Pair")  # typing a name clears its message
    assert "name" not in dialog.errors()
    dialog.row_for("Critic").check.setChecked(True)  # the members message follows the ticks
    assert "members" not in dialog.errors()
    dialog.row_for("Critic").check.setChecked(False)
    assert dialog.errors()["members"] == "⚠ Pick at least 2 assistants (1 picked)."

    dialog.name_edit.setText("   ")  # blank counts as empty
    dialog.row_for("Critic").check.setChecked(True)
    assert dialog.save() is None and dialog.errors() == {"name": f"⚠ {NAME_MISSING}"}
    assert workspace.squads() == []


def test_a_refusal_from_the_workspace_keeps_the_dialog_and_the_input(qtbot: QtBot, workspace: Workspace) -> None:
    dialog = open_dialog(qtbot, workspace)
    dialog.name_edit.setText("Pair")
    dialog.row_for("Writer").check.setChecked(True)
    dialog.row_for("Critic").role_edit.setText("reviews")
    dialog.row_for("Critic").check.setChecked(True)
    trash.delete(workspace, "critic")  # gone meanwhile (another window, the CLI)
    assert dialog.save() is None
    assert dialog.isVisible() and dialog.errors()["form"].startswith("⚠ Not saved: No assistant or squad named")
    assert dialog.name_edit.text() == "Pair" and dialog.row_for("Critic").role_edit.text() == "reviews"
    assert workspace.squads() == []

    dialog.name_edit.setText("x" * 300)  # the workspace's own checks are shown the same way
    dialog.row_for("Critic").check.setChecked(False)
    dialog.row_for("OkBot").check.setChecked(True)
    assert dialog.save() is None and "at most 200 characters" in dialog.errors()["form"]
    assert workspace.squads() == []


def test_edit_a_squad_prefilled_and_saved_in_place(qtbot: QtBot, workspace: Workspace, desk: Target) -> None:
    desk.session_path.write_bytes(b'{"id":1,"type":"user","content":"hi"}\n')
    dialog = open_dialog(qtbot, workspace, desk)
    assert dialog.windowTitle() == "Edit squad – Review desk" and dialog.save_button.text() == "Save"
    assert dialog.name_edit.text() == "Review desk" and dialog.description_edit.text() == "Drafts, then reviews"
    assert [r.assistant.name for r in dialog.member_rows] == ["Critic", "Writer", "OkBot"]  # squad order first
    assert dialog.picked_members() == [("critic", "reviews"), ("writer", "drafts")]
    assert dialog.persona_edit.toPlainText() == "Calm"
    assert dialog.playbook_edit.toPlainText() == "1. draft\n2. review"
    assert (dialog.captain_rounds.value(), dialog.member_rounds.value()) == (20, 10)  # the defaults

    dialog.name_edit.setText("Desk")
    dialog.captain_rounds.setValue(6)
    dialog.member_rounds.setValue(3)
    dialog.row_for("Writer").check.setChecked(False)
    qtbot.keyClicks(dialog.row_for("OkBot").role_edit, "answers")
    dialog.playbook_edit.setPlainText("1. ask OkBot")
    saved = dialog.save()
    assert saved is not None and (saved.id, saved.dir, saved.name) == (desk.id, desk.dir, "Desk")
    stored = json.loads(desk.meta_path.read_text("utf-8"))
    assert stored["members"] == [{"assistant": "critic", "role": "reviews"}, {"assistant": "okbot", "role": "answers"}]
    assert stored["captain"]["persona"] == "Calm" and stored["captain"]["playbook"] == "1. ask OkBot"
    assert (stored["captain"]["maxCaptainRounds"], stored["captain"]["maxMemberRounds"]) == (6, 3)
    assert stored["createdAt"] == desk.meta["createdAt"]
    assert desk.session_path.read_bytes() == b'{"id":1,"type":"user","content":"hi"}\n'


def test_edit_names_members_that_no_longer_exist(qtbot: QtBot, workspace: Workspace, desk: Target) -> None:
    meta = {**desk.meta, "members": [*desk.meta["members"], {"assistant": "ghost", "role": "haunts"}]}
    desk.meta_path.write_text(json.dumps(meta), "utf-8")
    dialog = open_dialog(qtbot, workspace, workspace.resolve(desk.id))
    assert dialog.missing_note.isVisible() and "ghost" in dialog.missing_note.text()
    assert dialog.picked_members() == [("critic", "reviews"), ("writer", "drafts")]


def test_too_few_assistants_says_so_up_front(qtbot: QtBot) -> None:
    ws = Workspace()
    ws.ensure_default()
    dialog = open_dialog(qtbot, ws)
    hints = [label.text() for label in dialog.findChildren(type(dialog.name_error)) if label.isVisible()]
    assert any("there are 1. Create another assistant first." in text for text in hints)


def test_error_text_follows_the_palette(qtbot: QtBot, workspace: Workspace) -> None:
    dialog = open_dialog(qtbot, workspace)
    dialog.save()
    dark = QPalette(dialog.palette())
    for role, colour in ((QPalette.ColorRole.Window, "#202124"), (QPalette.ColorRole.WindowText, "#e8eaed")):
        dark.setColor(role, QColor(colour))
    dialog.setPalette(dark)
    error = dialog.name_error.palette().color(QPalette.ColorRole.WindowText)
    assert error.lightness() > 120 and error.red() > error.blue()  # light, reddish text on a dark window


# ------------------------------------------------------------------------ main window wiring
def test_plus_offers_assistant_or_squad_and_the_new_squad_is_selected(qtbot: QtBot, workspace: Workspace) -> None:
    window = open_window(qtbot, workspace)
    assert window.sidebar.new_button.toolTip() == "New assistant or squad (Ctrl+N)"
    qtbot.keyClick(window.sidebar.list, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    menu = window.sidebar.new_menu
    qtbot.waitUntil(menu.isVisible)
    assert [a.text() for a in menu.actions()] == ["New assistant", "New squad…"]
    assert menu.activeAction() is window.sidebar.new_assistant_action  # Enter makes an assistant
    window.sidebar.new_squad_action.trigger()
    menu.close()
    [dialog] = squad_dialogs()
    assert dialog.isModal() and dialog.parent() is window
    dialog.name_edit.setText("Pair")
    dialog.row_for("Writer").check.setChecked(True)
    dialog.row_for("Critic").check.setChecked(True)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert window.selected_target().name == "Pair" and window.selected_target().kind == "squad"
    assert window.current_page().title.text() == "Pair"

    window.sidebar.new_assistant_action.trigger()  # the other entry creates an assistant and renames it
    assert window.selected_target().name == "New assistant"


def test_one_assistant_means_plus_creates_it_directly(qtbot: QtBot) -> None:
    ws = Workspace()
    ws.ensure_default()
    window = open_window(qtbot, ws)
    assert window.sidebar.new_button.toolTip() == "New assistant (Ctrl+N)"
    qtbot.mouseClick(window.sidebar.new_button, Qt.MouseButton.LeftButton)
    assert not window.sidebar.new_menu.isVisible()
    assert [t.name for t in ws.list()] == ["New assistant", "OkBot"]
    assert window.sidebar.new_button.toolTip() == "New assistant or squad (Ctrl+N)"  # now a squad is possible


def context_menu_texts(qtbot: QtBot, window: MainWindow, row: int) -> list[str]:
    """Open the sidebar's context menu on ``row``, note its entries and close it."""
    seen: list[str] = []

    def note_and_close() -> None:
        menu = QApplication.activePopupWidget()
        if isinstance(menu, QMenu):
            seen.extend(a.text() for a in menu.actions() if a.isVisible() and not a.isSeparator())
            menu.close()

    QTimer.singleShot(50, note_and_close)
    pos: QPoint = window.sidebar.visual_rect_of_row(row).center()
    window.sidebar.list.customContextMenuRequested.emit(pos)
    return seen


def test_edit_squad_from_the_context_menu_updates_sidebar_and_chat(
    qtbot: QtBot, workspace: Workspace, desk: Target
) -> None:
    window = open_window(qtbot, workspace)
    squad_row = window.model.row_of("squad", desk.id)
    assert context_menu_texts(qtbot, window, 0) == [  # an assistant
        "Rename",
        "Persona (SOUL.md)…",
        "Memories…",
        "Skills…",
        "Evolution…",
        "Delete…",
    ]
    assert context_menu_texts(qtbot, window, squad_row) == ["Rename", "Edit squad…", "Delete…"]
    assert window.selected_target().id == desk.id
    assert window.current_page().subtitle.text() == "Drafts, then reviews"

    window.sidebar.edit_squad_action.trigger()
    [dialog] = squad_dialogs()
    assert dialog.squad.id == desk.id and dialog.name_edit.text() == "Review desk"
    dialog.name_edit.setText("Desk")
    dialog.description_edit.setText("Two pairs of eyes")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert window.selected_target().name == "Desk" and window.selected_target().id == desk.id
    assert window.current_page().title.text() == "Desk"
    assert window.current_page().subtitle.text() == "Two pairs of eyes"
    assert squad_dialogs() == []
