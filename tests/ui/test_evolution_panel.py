"""The Evolution tab of the Assistant dialog: applied changes with Undo, staged ones with Apply now, the switch.

Real files in the test's OKBOT_HOME; the changes are made by real persona and skill upkeep against
the fake server answering as a careful model (``tests/helpers/fake_evolution.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from pytestqt.qtbot import QtBot

from okbot.core.evolution.store import PENDING_FILE
from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext
from okbot.ui.assistant_dialog import AssistantDialog
from okbot.ui.evolution_panel import CHANGE, KIND, SOURCE, WHEN, EvolutionPanel
from okbot.ui.main_window import MainWindow
from tests.helpers.env import provider_for
from tests.helpers.fake_evolution import LESSONS, teach, teacher
from tests.helpers.fake_openai import FakeOpenAIServer

WAIT_MS = 10_000
SOUL = "# Ada\n\nYou help the user ship releases.\nNever push to main without asking.\n"
LINE = "- From now on, always answer in British English."


@pytest.fixture
def target(ctx: AppContext, server: FakeOpenAIServer) -> Target:
    server.set_default(teacher)
    return ctx.workspace.create_assistant("Ada", soul_text=SOUL)


@pytest.fixture
def taught(ctx: AppContext, server: FakeOpenAIServer, target: Target) -> Callable[..., list]:
    """Teach Ada :data:`LESSONS` for real: staged, and applied unless ``land=False``."""
    return lambda land=True: teach(ctx.sources, provider_for(server), target, land=land)


def settled(panel: EvolutionPanel) -> bool:
    return not panel.busy and panel.snapshot is not None


@pytest.fixture
def open_dialog(qtbot: QtBot, ctx: AppContext, target: Target) -> Iterator[Callable[[], AssistantDialog]]:
    """Opens Ada's dialog on the Evolution tab (shown, watching, first reads done); closes it afterwards."""
    opened: list[AssistantDialog] = []

    def make() -> AssistantDialog:
        dialog = AssistantDialog(ctx, target)
        opened.append(dialog)
        dialog.resize(900, 640)
        dialog.show_tab("evolution")
        qtbot.waitUntil(lambda: settled(dialog.evolution) and not dialog.memories.busy, timeout=WAIT_MS)
        return dialog

    yield make
    for dialog in opened:
        dialog.close()
        dialog.deleteLater()


def rows(panel: EvolutionPanel) -> list[tuple[str, str, str]]:
    items = [panel.tree.topLevelItem(i) for i in range(panel.tree.topLevelItemCount())]
    return [(item.text(KIND), item.text(CHANGE), item.text(SOURCE)) for item in items]


def test_the_tab_lists_applied_changes_newest_first_with_the_users_words_and_the_diff(
    open_dialog: Callable[[], AssistantDialog], taught: Callable[..., list]
) -> None:
    persona, skill = taught()
    dialog = open_dialog()
    panel = dialog.evolution
    assert dialog.current_tab() == "evolution" and dialog.tabs.tabText(3) == "Evolution"
    assert rows(panel) == [
        ("Skill", skill.summary, f"#3 “{LESSONS[1]}”"),
        ("Persona", persona.summary, f"#1 “{LESSONS[0]}”"),
    ]
    assert skill.summary.startswith("new skill ship-it") and "British English" in persona.summary
    assert panel.tree.topLevelItem(1).text(WHEN)[:4].isdigit()  # a local date and time
    assert [(b.text(), b.isEnabled()) for b in panel.undo_buttons.values()] == [("Undo", True)] * 2
    assert panel.count_label.text() == "2 changes"
    assert panel.staged_bar.isHidden() and panel.empty_label.isHidden()
    assert panel.switch.isChecked() and panel.global_bar.isHidden()

    assert panel.select(persona.id)
    assert panel.diff.toPlainText() == persona.diff and f"+{LINE}" in persona.diff
    assert panel.source_label.text() == f"From your message #1: “{LESSONS[0]}”"
    assert panel.diff.font().styleHint() == panel.diff.font().StyleHint.Monospace


def test_undo_restores_soul_md_byte_for_byte_and_the_change_shows_undone(
    qtbot: QtBot, open_dialog: Callable[[], AssistantDialog], taught: Callable[..., list], target: Target
) -> None:
    original = target.soul_path.read_bytes()
    persona, skill = taught()
    assert LINE in target.soul_path.read_text(encoding="utf-8")
    dialog = open_dialog()
    panel = dialog.evolution
    with qtbot.waitSignal(panel.undone, timeout=WAIT_MS) as undone:
        panel.undo_buttons[persona.id].click()
    assert undone.args[0].id == persona.id
    assert target.soul_path.read_bytes() == original
    qtbot.waitUntil(lambda: settled(panel) and panel.undo_buttons[persona.id].text().startswith("undone "))
    assert not panel.undo_buttons[persona.id].isEnabled()
    assert panel.undo_buttons[skill.id].text() == "Undo" and panel.undo_buttons[skill.id].isEnabled()
    qtbot.waitUntil(lambda: dialog.soul.text == original.decode("utf-8"), timeout=WAIT_MS)  # the SOUL.md tab follows
    assert panel.message_bar.isHidden()


def test_an_undo_that_cannot_be_done_says_why_in_the_tab(
    qtbot: QtBot, open_dialog: Callable[[], AssistantDialog], taught: Callable[..., list], target: Target
) -> None:
    persona, _skill = taught()
    edited = SOUL + "Sign off with 'Cheers'.\n"  # the learnt line edited away by hand
    target.soul_path.write_text(edited, encoding="utf-8")
    dialog = open_dialog()
    panel = dialog.evolution
    with qtbot.waitSignal(panel.failed, timeout=WAIT_MS) as failed:
        panel.undo_buttons[persona.id].click()
    assert "cannot be undone: SOUL.md no longer has the line it wrote" in failed.args[0]
    assert panel.message_bar.isVisible() and panel.message_bar.text() == failed.args[0]
    assert target.soul_path.read_text(encoding="utf-8") == edited
    qtbot.waitUntil(lambda: settled(panel), timeout=WAIT_MS)
    assert panel.undo_buttons[persona.id].isEnabled() and dialog.isVisible()
    panel.message_bar.buttons["dismiss"].click()
    assert panel.message_bar.isHidden()


def test_apply_now_lands_the_staged_changes(
    qtbot: QtBot, open_dialog: Callable[[], AssistantDialog], taught: Callable[..., list], target: Target
) -> None:
    taught(land=False)
    dialog = open_dialog()
    panel = dialog.evolution
    assert panel.staged_bar.isVisible() and panel.empty_label.isVisible() and rows(panel) == []
    lines = panel.staged_bar.text().splitlines()
    assert lines[0] == "2 changes waiting for the next summary update:"
    assert "British English" in lines[1] and lines[2].startswith("• new skill ship-it")
    assert target.soul_path.read_text(encoding="utf-8") == SOUL
    with qtbot.waitSignal(panel.landed, timeout=WAIT_MS) as landed:
        panel.apply_button.click()
    assert [e.kind for e in landed.args[0]] == ["persona", "skill"]
    assert LINE in target.soul_path.read_text(encoding="utf-8")
    assert (target.skills_dir / "ship-it" / "SKILL.md").is_file()
    assert not (target.dir / PENDING_FILE).exists()
    qtbot.waitUntil(lambda: settled(panel) and len(rows(panel)) == 2, timeout=WAIT_MS)
    assert panel.staged_bar.isHidden() and panel.empty_label.isHidden()


def test_the_switch_writes_assistant_json_and_keeps_the_rest(
    qtbot: QtBot, ctx: AppContext, open_dialog: Callable[[], AssistantDialog], target: Target
) -> None:
    before = json.loads(target.meta_path.read_text(encoding="utf-8"))
    dialog = open_dialog()
    panel = dialog.evolution
    assert panel.switch.isChecked() and panel.switch.isEnabled()
    with qtbot.waitSignal(dialog.target_changed, timeout=WAIT_MS) as changed:
        panel.switch.click()
    assert json.loads(target.meta_path.read_text(encoding="utf-8")) == {**before, "evolution": False}
    assert changed.args[0].meta["evolution"] is False and not ctx.sources.evolution.enabled(changed.args[0])
    assert dialog.target.meta["evolution"] is False
    qtbot.waitUntil(lambda: settled(panel), timeout=WAIT_MS)
    assert not panel.switch.isChecked()
    with qtbot.waitSignal(dialog.target_changed, timeout=WAIT_MS):
        panel.switch.click()
    assert json.loads(target.meta_path.read_text(encoding="utf-8")) == {**before, "evolution": True}


def test_the_open_chat_takes_the_switch(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    window.select_target(target.kind, target.id)
    page = window.current_page()
    dialog = window.open_assistant_dialog(page.target, "evolution")
    qtbot.waitUntil(lambda: settled(dialog.evolution), timeout=WAIT_MS)
    with qtbot.waitSignal(dialog.target_changed, timeout=WAIT_MS):
        dialog.evolution.switch.click()
    assert page.target.meta["evolution"] is False  # the next turn's upkeep sees the switch off
    assert not ctx.sources.evolution.enabled(page.target)
    dialog.close()


def test_a_note_says_when_learning_is_off_for_every_assistant(
    ctx: AppContext, open_dialog: Callable[[], AssistantDialog]
) -> None:
    ctx.settings.set("evolution.enabled", False)
    panel = open_dialog().evolution
    assert panel.global_bar.isVisible() and "off for every assistant" in panel.global_bar.text()
    assert panel.switch.isChecked() and panel.switch.isEnabled()  # the assistant's own switch is still its own


def test_the_tab_follows_changes_made_elsewhere(
    qtbot: QtBot,
    ctx: AppContext,
    open_dialog: Callable[[], AssistantDialog],
    taught: Callable[..., list],
    target: Target,
) -> None:
    dialog = open_dialog()
    panel = dialog.evolution
    assert panel.empty_label.isVisible() and panel.staged_bar.isHidden()
    assert {str(p) for p in panel.watched_paths()} <= set(dialog.watcher.paths)
    taught(land=False)  # upkeep in the background of a chat (or `okbot evolve`)
    qtbot.waitUntil(lambda: panel.staged_bar.isVisible(), timeout=WAIT_MS)
    ctx.sources.evolution.land(target)  # landed before a turn
    qtbot.waitUntil(lambda: len(rows(panel)) == 2 and panel.staged_bar.isHidden(), timeout=WAIT_MS)
    ctx.workspace.set_meta(target, "evolution", False)  # e.g. edited by hand
    qtbot.waitUntil(lambda: not panel.switch.isChecked(), timeout=WAIT_MS)


def test_waiting_changes_are_not_called_nothing_learnt_and_refused_proposals_say_why(
    open_dialog: Callable[[], AssistantDialog], ctx: AppContext, server: FakeOpenAIServer, target: Target
) -> None:
    """Issue 34, item 13: right after a "from now on…" rule the tab said "Nothing learnt yet", and the
    proposals OkBot's checks refused (the log keeps them, with the reason) were never shown."""
    from tests.helpers.fake_evolution import reckless

    server.set_default(reckless)
    teach(ctx.sources, provider_for(server), target, land=False)  # staged, some refused
    refused = ctx.sources.evolution.refusals(target)
    assert refused, "the reckless model proposed what the checks refuse"
    dialog = open_dialog()
    panel = dialog.evolution
    assert panel.staged_bar.isVisible()
    assert "Nothing learnt yet" not in panel.empty_label.text()
    assert panel.empty_label.text().startswith("Nothing has changed yet")
    assert panel.refused_bar.isVisible()
    text = panel.refused_bar.label.text()
    assert text.startswith(f"OkBot's checks refused {len(refused)} proposed change")
    newest = refused[-1]
    assert newest["reason"][:40] in text
