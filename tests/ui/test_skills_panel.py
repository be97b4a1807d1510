"""The Skills tab: real skills/<name>/SKILL.md folders under OKBOT_HOME (offscreen Qt)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator

import pytest
import shiboken6
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from pytestqt.qtbot import QtBot

from okbot.core.skills import create_skill
from okbot.core.workspace import Target, Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.assistant_dialog import AssistantDialog
from okbot.ui.chat.colors import ChatColors
from okbot.ui.skills_panel import DESCRIPTION_COLUMN, NAME_COLUMN, SkillsPanel

WAIT_MS = 10_000


class UrlRecorder(QObject):
    """Receives the URLs QDesktopServices would hand to the system (Qt's own handler hook)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def opened_urls() -> Iterator[UrlRecorder]:
    recorder = UrlRecorder()
    QDesktopServices.setUrlHandler("file", recorder, "open")
    yield recorder
    QDesktopServices.unsetUrlHandler("file")


@pytest.fixture
def ctx() -> Iterator[AppContext]:
    ctx = AppContext.create(Workspace())
    yield ctx
    ctx.tasks.wait_for_done(WAIT_MS)


@pytest.fixture
def target(ctx: AppContext) -> Target:
    target = ctx.workspace.create_assistant("Ada")
    create_skill(target.skills_dir, "release-notes", "Write release notes from merged changes")
    create_skill(target.skills_dir, "pdf-forms", "Fill in PDF forms")
    bad = target.skills_dir / "broken"
    bad.mkdir()
    (bad / "SKILL.md").write_text("just text, no front matter\n", encoding="utf-8")
    return target


@pytest.fixture
def open_panel(qtbot: QtBot, ctx: AppContext, target: Target) -> Iterator[Callable[[], SkillsPanel]]:
    opened: list[AssistantDialog] = []

    def make() -> SkillsPanel:
        dialog = AssistantDialog(ctx, target)
        opened.append(dialog)
        dialog.show_tab("skills")
        qtbot.waitUntil(lambda: not dialog.skills._loading, timeout=WAIT_MS)
        return dialog.skills

    yield make
    for dialog in opened:
        dialog.close()
        dialog.deleteLater()


def names(panel: SkillsPanel) -> list[str]:
    return [panel.tree.topLevelItem(i).text(NAME_COLUMN) for i in range(panel.tree.topLevelItemCount())]


def item(panel: SkillsPanel, name: str):  # noqa: ANN201 - a QTreeWidgetItem
    return panel.tree.topLevelItem(names(panel).index(name))


def test_lists_skills_with_descriptions_and_the_bad_one_with_its_problem(
    open_panel: Callable[[], SkillsPanel],
) -> None:
    panel = open_panel()
    assert names(panel) == ["broken", "pdf-forms", "release-notes"]
    assert item(panel, "pdf-forms").text(DESCRIPTION_COLUMN) == "Fill in PDF forms"
    broken = item(panel, "broken")
    assert "front matter" in broken.text(DESCRIPTION_COLUMN)
    error = ChatColors.from_palette(panel.palette()).error
    assert broken.foreground(DESCRIPTION_COLUMN).color() == error
    assert item(panel, "pdf-forms").foreground(DESCRIPTION_COLUMN).color() != error
    assert panel.problems_bar.isVisible() and "1 skill" in panel.problems_bar.text()
    assert panel.count_label.text() == "3 skills"


def test_open_hands_skill_md_and_the_folder_to_the_system(
    open_panel: Callable[[], SkillsPanel], target: Target, opened_urls: UrlRecorder
) -> None:
    panel = open_panel()
    assert not panel.open_button.isEnabled()
    panel.select("pdf-forms")
    assert panel.open_button.isEnabled()
    panel.open_button.click()
    panel.folder_button.click()
    assert [u.toLocalFile() for u in opened_urls.urls] == [
        str(target.skills_dir / "pdf-forms" / "SKILL.md"),
        str(target.skills_dir),
    ]


def test_create_from_template_through_the_dialog(
    qtbot: QtBot, open_panel: Callable[[], SkillsPanel], target: Target
) -> None:
    panel = open_panel()
    panel.create_button.click()
    dialog = panel.create_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.name_edit.setText("trip-planner")
    dialog.description_edit.setText("Plan a trip; use when the user mentions travel dates")
    with qtbot.waitSignal(panel.created, timeout=WAIT_MS) as created:
        dialog.buttons.accepted.emit()
    path = created.args[0]
    assert path == target.skills_dir / "trip-planner" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    assert "name: trip-planner" in text and "Plan a trip" in text and "## Steps" in text  # the shipped template
    qtbot.waitUntil(lambda: "trip-planner" in names(panel), timeout=WAIT_MS)
    assert panel.selected_skill() is not None and panel.selected_skill().name == "trip-planner"
    assert not shiboken6.isValid(dialog)  # accepted and closed (it deletes itself on close)


def test_create_with_a_taken_name_keeps_the_dialog_open_with_the_error(
    qtbot: QtBot, open_panel: Callable[[], SkillsPanel], target: Target
) -> None:
    panel = open_panel()
    before = (target.skills_dir / "pdf-forms" / "SKILL.md").read_bytes()
    panel.create_button.click()
    dialog = panel.create_dialog
    dialog.name_edit.setText("pdf-forms")
    with qtbot.waitSignal(panel.failed, timeout=WAIT_MS):
        dialog.buttons.accepted.emit()
    assert dialog.isVisible() and dialog.error.text() and dialog.buttons.isEnabled()
    assert (target.skills_dir / "pdf-forms" / "SKILL.md").read_bytes() == before
    dialog.name_edit.clear()
    dialog.buttons.accepted.emit()
    assert "name" in dialog.error.text()
    dialog.reject()


def test_a_skill_folder_deleted_while_open_disappears(
    qtbot: QtBot, open_panel: Callable[[], SkillsPanel], target: Target, opened_urls: UrlRecorder
) -> None:
    panel = open_panel()
    panel.select("release-notes")
    shutil.rmtree(target.skills_dir / "release-notes")
    qtbot.waitUntil(lambda: "release-notes" not in names(panel), timeout=WAIT_MS)
    assert names(panel) == ["broken", "pdf-forms"]


def test_opening_a_skill_deleted_meanwhile_says_so(
    qtbot: QtBot, open_panel: Callable[[], SkillsPanel], target: Target, opened_urls: UrlRecorder
) -> None:
    panel = open_panel()
    panel.select("pdf-forms")
    skill = panel.selected_skill()
    shutil.rmtree(target.skills_dir / "pdf-forms")
    assert panel.open_skill(skill) is False
    assert panel.error_bar.isVisible() and "no longer exists" in panel.error_bar.text()
    assert opened_urls.urls == []


def test_a_skill_added_on_disk_appears(qtbot: QtBot, open_panel: Callable[[], SkillsPanel], target: Target) -> None:
    panel = open_panel()
    create_skill(target.skills_dir, "added-elsewhere", "Made in a file manager")
    qtbot.waitUntil(lambda: "added-elsewhere" in names(panel), timeout=WAIT_MS)


def test_no_skills_yet_shows_a_hint(qtbot: QtBot, ctx: AppContext) -> None:
    target = ctx.workspace.create_assistant("Bea")
    panel = SkillsPanel(ctx, target)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: not panel._loading, timeout=WAIT_MS)
    assert panel.tree.isHidden() and "No skills yet" in panel.empty_label.text()
