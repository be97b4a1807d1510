"""The Assistant dialog and its SOUL.md tab, against real files under OKBOT_HOME (offscreen Qt)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QPlainTextEdit
from pytestqt.qtbot import QtBot

from okbot.core.workspace import Target, Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.assistant_dialog import AssistantDialog

WAIT_MS = 10_000


def replace_text(editor: QPlainTextEdit, text: str) -> None:
    """Replace the whole text as typing would (setPlainText would count as a fresh load, not an edit)."""
    editor.selectAll()
    editor.insertPlainText(text)


@pytest.fixture
def ctx() -> Iterator[AppContext]:
    ctx = AppContext.create(Workspace())
    yield ctx
    ctx.tasks.wait_for_done(WAIT_MS)


@pytest.fixture
def target(ctx: AppContext) -> Target:
    return ctx.workspace.create_assistant("Ada", role="Research assistant")


@pytest.fixture
def open_dialog(qtbot: QtBot, ctx: AppContext, target: Target) -> Iterator[Callable[[], AssistantDialog]]:
    """Opens the dialog (shown, watching, first loads done); closes it without the unsaved-edits question."""
    opened: list[AssistantDialog] = []

    def make() -> AssistantDialog:
        dialog = AssistantDialog(ctx, target)
        opened.append(dialog)  # closed below, not by qtbot: that would run before this fixture's cleanup
        dialog.show()
        qtbot.waitUntil(
            lambda: not dialog.memories.busy and not dialog.skills._loading and not dialog.evolution.busy,
            timeout=WAIT_MS,
        )
        return dialog

    yield make
    for dialog in opened:
        dialog.soul.editor.document().setModified(False)  # else closing asks about unsaved edits
        dialog.close()
        dialog.deleteLater()


def test_dialog_is_non_modal_with_four_tabs(open_dialog: Callable[[], AssistantDialog], target: Target) -> None:
    dialog = open_dialog()
    assert dialog.windowTitle() == "Ada — Assistant"
    assert not dialog.isModal()
    assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())] == [
        "SOUL.md",
        "Memories",
        "Skills",
        "Evolution",
    ]
    dialog.show_tab("evolution")
    assert dialog.current_tab() == "evolution"
    dialog.show_tab("skills")
    assert dialog.current_tab() == "skills" and dialog.isVisible()
    dialog.show_tab("Memories")
    assert dialog.current_tab() == "memories"
    dialog.show_tab("SOUL.md")
    assert dialog.current_tab() == "soul"
    with pytest.raises(ValueError):
        dialog.show_tab("settings")
    assert dialog.watcher.running
    assert str(target.soul_path) in dialog.watcher.paths


def test_hiding_stops_the_watcher_and_showing_rereads(
    qtbot: QtBot, open_dialog: Callable[[], AssistantDialog], target: Target
) -> None:
    dialog = open_dialog()
    dialog.hide()
    assert not dialog.watcher.running
    target.soul_path.write_text("# Edited while hidden\n", encoding="utf-8")
    dialog.show_tab("soul")
    assert dialog.watcher.running
    assert dialog.soul.text == "# Edited while hidden\n"


def test_soul_save_with_ctrl_s_writes_atomically_with_backup(
    qtbot: QtBot, open_dialog: Callable[[], AssistantDialog], target: Target
) -> None:
    original = target.soul_path.read_bytes()
    dialog = open_dialog()
    editor = dialog.soul
    assert editor.text == original.decode("utf-8")
    assert not editor.save_button.isEnabled()
    replace_text(editor.editor, "# Ada\n\nAlways answer in English.\n")
    assert editor.modified and editor.save_button.isEnabled()
    assert dialog.tabs.tabText(0) == "SOUL.md •"
    editor.editor.setFocus()
    qtbot.keyClick(editor.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert target.soul_path.read_text(encoding="utf-8") == "# Ada\n\nAlways answer in English.\n"
    assert target.soul_path.with_name("SOUL.md.bak").read_bytes() == original
    assert not editor.modified and dialog.tabs.tabText(0) == "SOUL.md"
    assert not list(target.dir.glob(".SOUL.md.*.tmp"))


def test_soul_revert_discards_edits(open_dialog: Callable[[], AssistantDialog], target: Target) -> None:
    dialog = open_dialog()
    on_disk = target.soul_path.read_text(encoding="utf-8")
    replace_text(dialog.soul.editor, "scratch")
    assert dialog.soul.revert_button.isEnabled()
    dialog.soul.revert_button.click()
    assert dialog.soul.text == on_disk and not dialog.soul.modified
    assert target.soul_path.read_text(encoding="utf-8") == on_disk


def test_outside_edit_reloads_a_clean_editor(
    qtbot: QtBot, open_dialog: Callable[[], AssistantDialog], target: Target
) -> None:
    dialog = open_dialog()
    target.soul_path.write_text("# Changed in vim\n", encoding="utf-8")
    qtbot.waitUntil(lambda: dialog.soul.text == "# Changed in vim\n", timeout=WAIT_MS)
    assert dialog.soul.changed_bar.isHidden()


def test_outside_edit_with_unsaved_edits_shows_the_bar_and_keeps_both(
    qtbot: QtBot, open_dialog: Callable[[], AssistantDialog], target: Target
) -> None:
    dialog = open_dialog()
    soul = dialog.soul
    replace_text(soul.editor, "# Mine\n")
    target.soul_path.write_text("# Theirs\n", encoding="utf-8")
    qtbot.waitUntil(lambda: soul.changed_bar.isVisible(), timeout=WAIT_MS)
    assert "changed on disk" in soul.changed_bar.text()
    assert soul.text == "# Mine\n"  # never replaced under the user's hands
    assert target.soul_path.read_text(encoding="utf-8") == "# Theirs\n"

    # Save does not overwrite the outside edit until the user decides
    assert soul.save() is False
    assert target.soul_path.read_text(encoding="utf-8") == "# Theirs\n"

    soul.changed_bar.buttons["keep"].click()
    assert soul.changed_bar.isHidden() and soul.text == "# Mine\n" and soul.modified
    soul.save_button.click()
    assert target.soul_path.read_text(encoding="utf-8") == "# Mine\n"


def test_reload_takes_the_outside_version(
    qtbot: QtBot, open_dialog: Callable[[], AssistantDialog], target: Target
) -> None:
    dialog = open_dialog()
    soul = dialog.soul
    replace_text(soul.editor, "# Mine\n")
    target.soul_path.write_text("# Theirs\n", encoding="utf-8")
    qtbot.waitUntil(lambda: soul.changed_bar.isVisible(), timeout=WAIT_MS)
    soul.changed_bar.buttons["reload"].click()
    assert soul.text == "# Theirs\n" and not soul.modified and soul.changed_bar.isHidden()


def test_save_notices_an_outside_edit_the_watcher_has_not_reported_yet(
    open_dialog: Callable[[], AssistantDialog], target: Target
) -> None:
    dialog = open_dialog()
    replace_text(dialog.soul.editor, "# Mine\n")
    target.soul_path.write_text("# Theirs\n", encoding="utf-8")
    assert dialog.soul.save() is False  # checked at save time, not only on watcher events
    assert dialog.soul.changed_bar.isVisible()
    assert target.soul_path.read_text(encoding="utf-8") == "# Theirs\n"


def test_invalid_utf8_soul_is_shown_as_a_problem_and_kept_when_starting_over(
    open_dialog: Callable[[], AssistantDialog], target: Target
) -> None:
    broken = b"# Persona\n\xff\xfe caf\xe9 latin-1 text\n"
    target.soul_path.write_bytes(broken)
    dialog = open_dialog()
    soul = dialog.soul
    assert soul.broken
    assert soul.problem_bar.isVisible() and "not valid UTF-8" in soul.problem_bar.text()
    assert not soul.editor.isEnabled() and not soul.save_button.isEnabled()
    assert soul.save() is False
    assert target.soul_path.read_bytes() == broken

    copy = soul.start_over()
    assert copy is not None and copy.read_bytes() == broken
    assert soul.editor.isEnabled() and soul.modified and soul.problem_bar.isHidden()
    assert soul.text.startswith("# Persona\n")
    replace_text(soul.editor, "# Persona\nFixed.\n")
    assert soul.save()
    assert target.soul_path.read_text(encoding="utf-8") == "# Persona\nFixed.\n"
    assert copy.read_bytes() == broken  # the old file is still there after the save


def test_unreadable_soul_disables_the_editor(open_dialog: Callable[[], AssistantDialog], target: Target) -> None:
    target.soul_path.unlink()
    target.soul_path.mkdir()  # reading a directory fails (IsADirectoryError) without needing root tricks
    dialog = open_dialog()
    assert dialog.soul.broken and not dialog.soul.editor.isEnabled()
    assert "cannot be read" in dialog.soul.problem_bar.text()


def test_missing_soul_can_be_created(open_dialog: Callable[[], AssistantDialog], target: Target) -> None:
    target.soul_path.unlink()
    dialog = open_dialog()
    assert not dialog.soul.broken and dialog.soul.editor.isEnabled() and dialog.soul.text == ""
    replace_text(dialog.soul.editor, "# New persona\n")
    assert dialog.soul.save()
    assert target.soul_path.read_text(encoding="utf-8") == "# New persona\n"


def test_squad_dialog_has_no_soul_to_edit(qtbot: QtBot, ctx: AppContext) -> None:
    ws = ctx.workspace
    ws.create_assistant("Bea")
    ws.create_assistant("Cy")
    squad = ws.create_squad("Team", [("Bea", "writes"), ("Cy", "checks")])
    dialog = AssistantDialog(ctx, squad)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: not dialog.memories.busy and not dialog.skills._loading, timeout=WAIT_MS)
    assert not dialog.soul.editor.isEnabled() and not dialog.soul.save_button.isEnabled()
    assert not dialog.skills.empty_label.isHidden() and "Squads have no skills" in dialog.skills.empty_label.text()
    dialog.close()
    assert dialog.result() == QDialog.DialogCode.Rejected
