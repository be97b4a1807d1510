"""The Memories tab: real memory stores under OKBOT_HOME, edits round-trip to disk (offscreen Qt)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.qtbot import QtBot

from okbot.core.memory.store import MemoryEntry, MemoryStore
from okbot.core.workspace import Target, Workspace
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.assistant_dialog import AssistantDialog
from okbot.ui.memory_model import COLUMNS, STATUS, TEXT, MemoryRow
from okbot.ui.memory_panel import MemoryPanel

WAIT_MS = 10_000


@pytest.fixture
def ctx() -> Iterator[AppContext]:
    ctx = AppContext.create(Workspace())
    yield ctx
    ctx.tasks.wait_for_done(WAIT_MS)


@pytest.fixture
def target(ctx: AppContext) -> Target:
    return ctx.workspace.create_assistant("Ada")


@pytest.fixture
def stores(target: Target) -> tuple[MemoryStore, MemoryStore]:
    """(global, own) stores with a few entries, written before the panel opens."""
    global_store = MemoryStore(paths.global_memory_dir(), "global")
    own = MemoryStore(target.memory_dir, target.id)
    global_store.add("The user's name is Sam.", status="durable", pinned=True)
    global_store.add("Prefers metric units.", status="durable")
    own.add("Working on a PySide6 chat app.", status="durable")
    own.add("Might move to Berlin.", status="candidate")
    own.add("Deadline is Friday.", status="durable")
    return global_store, own


@pytest.fixture
def open_panel(qtbot: QtBot, ctx: AppContext, target: Target) -> Iterator[Callable[[], AssistantDialog]]:
    opened: list[AssistantDialog] = []

    def make() -> AssistantDialog:
        dialog = AssistantDialog(ctx, target)
        opened.append(dialog)
        dialog.show_tab("memories")
        settle(qtbot, dialog.memories)
        return dialog

    yield make
    for dialog in opened:
        dialog.close()
        dialog.deleteLater()


def settle(qtbot: QtBot, panel: MemoryPanel) -> None:
    """Wait until no read or write of the panel is running."""
    qtbot.waitUntil(lambda: not panel.busy, timeout=WAIT_MS)


def shown_texts(panel: MemoryPanel) -> list[str]:
    return [panel.proxy.index(r, TEXT).data() for r in range(panel.proxy.rowCount())]


def row(panel: MemoryPanel, text: str) -> MemoryRow:
    found = panel.find_row(text)
    assert found is not None, f"{text!r} not listed"
    return found


def on_disk(store_dir, scope: str, text: str) -> MemoryEntry | None:
    """The entry with ``text`` as a fresh store reads it from disk."""
    return next((e for e in MemoryStore(store_dir, scope).entries(include_retired=True) if e.text == text), None)


def test_lists_global_and_own_entries(
    open_panel: Callable[[], AssistantDialog], stores: tuple[MemoryStore, MemoryStore]
) -> None:
    panel = open_panel().memories
    assert panel.model.columnCount() == len(COLUMNS) == 6
    assert sorted(shown_texts(panel)) == sorted(
        [
            "The user's name is Sam.",
            "Prefers metric units.",
            "Working on a PySide6 chat app.",
            "Might move to Berlin.",
            "Deadline is Friday.",
        ]
    )
    sam = panel.model.row_of(row(panel, "The user's name is Sam.").key)
    assert panel.model.index(sam, 1).data() == "Global"
    assert panel.model.index(sam, 3).data() == "Pinned"
    berlin = panel.model.row_of(row(panel, "Might move to Berlin.").key)
    assert panel.model.index(berlin, 1).data() == "Ada"
    assert panel.model.index(berlin, STATUS).data() == "Candidate"
    assert panel.count_label.text() == "5 memories"
    assert panel.problems_bar.isHidden()


def test_pin_promote_retire_round_trip_to_disk(
    qtbot: QtBot,
    open_panel: Callable[[], AssistantDialog],
    target: Target,
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    panel = open_panel().memories
    panel.select_rows([row(panel, "Prefers metric units.")])
    assert panel.buttons["pin"].text() == "Pin"
    panel.buttons["pin"].click()
    settle(qtbot, panel)
    assert on_disk(paths.global_memory_dir(), "global", "Prefers metric units.").pinned
    assert panel.buttons["pin"].text() == "Unpin"  # the selection survived the reload
    panel.buttons["pin"].click()
    settle(qtbot, panel)
    assert not on_disk(paths.global_memory_dir(), "global", "Prefers metric units.").pinned

    panel.select_rows([row(panel, "Might move to Berlin.")])
    assert panel.buttons["promote"].isEnabled()
    panel.buttons["promote"].click()
    settle(qtbot, panel)
    assert on_disk(target.memory_dir, target.id, "Might move to Berlin.").status == "durable"
    assert not panel.buttons["promote"].isEnabled()

    panel.select_rows([row(panel, "Deadline is Friday.")])
    panel.buttons["retire"].click()
    settle(qtbot, panel)
    retired = on_disk(target.memory_dir, target.id, "Deadline is Friday.")
    assert retired.status == "retired" and retired.note
    assert "Deadline is Friday." not in shown_texts(panel)  # hidden unless "Show retired"
    panel.show_retired.setChecked(True)
    assert "Deadline is Friday." in shown_texts(panel)
    panel.select_rows([row(panel, "Deadline is Friday.")])
    assert panel.buttons["retire"].text() == "Reinstate"
    panel.buttons["retire"].click()
    settle(qtbot, panel)
    assert on_disk(target.memory_dir, target.id, "Deadline is Friday.").status == "durable"


def test_retired_rows_are_greyed(
    qtbot: QtBot, open_panel: Callable[[], AssistantDialog], target: Target, stores: tuple[MemoryStore, MemoryStore]
) -> None:
    own = stores[1]
    entry = own.add("Old fact.", status="durable")
    own.update(entry.id, status="retired")
    panel = open_panel().memories
    panel.show_retired.setChecked(True)
    at = panel.model.row_of(row(panel, "Old fact.").key)
    live = panel.model.row_of(row(panel, "Deadline is Friday.").key)
    grey = panel.model.index(at, TEXT).data(Qt.ItemDataRole.ForegroundRole)
    assert grey is not None and panel.model.index(live, TEXT).data(Qt.ItemDataRole.ForegroundRole) is None
    assert panel.model.index(at, TEXT).data(Qt.ItemDataRole.FontRole).strikeOut()


def test_delete_and_undo_restore_the_same_entries(
    qtbot: QtBot,
    open_panel: Callable[[], AssistantDialog],
    target: Target,
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    panel = open_panel().memories
    gone = [row(panel, "Working on a PySide6 chat app."), row(panel, "The user's name is Sam.")]
    ids = {r.entry.id for r in gone}
    panel.select_rows(gone)
    panel.buttons["delete"].click()
    settle(qtbot, panel)
    assert on_disk(target.memory_dir, target.id, "Working on a PySide6 chat app.") is None
    assert on_disk(paths.global_memory_dir(), "global", "The user's name is Sam.") is None
    assert panel.undo_bar.isVisible() and "2 memories" in panel.undo_bar.text()
    assert len(shown_texts(panel)) == 3

    panel.undo_bar.buttons["undo"].click()
    settle(qtbot, panel)
    back = on_disk(target.memory_dir, target.id, "Working on a PySide6 chat app.")
    sam = on_disk(paths.global_memory_dir(), "global", "The user's name is Sam.")
    assert back is not None and sam is not None and {back.id, sam.id} == ids and sam.pinned
    assert panel.undo_bar.isHidden()
    assert len(shown_texts(panel)) == 5


def test_add_and_edit_through_the_dialogs(
    qtbot: QtBot,
    open_panel: Callable[[], AssistantDialog],
    target: Target,
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    panel = open_panel().memories
    panel.buttons["add"].click()
    dialog = panel.text_dialog
    dialog.text_edit.setPlainText("Likes short answers.")
    dialog.scope_combo.setCurrentIndex(dialog.scope_combo.findData("global"))
    dialog.pinned_check.setChecked(True)
    dialog.expiry_combo.setCurrentIndex(dialog.expiry_combo.findData(7))
    with qtbot.waitSignal(panel.written, timeout=WAIT_MS):
        dialog._on_buttons_accepted()
    settle(qtbot, panel)
    added = on_disk(paths.global_memory_dir(), "global", "Likes short answers.")
    assert added is not None and added.pinned and added.status == "durable" and added.expires
    assert [r.entry.text for r in panel.selected_rows()] == ["Likes short answers."]

    panel.buttons["edit"].click()
    dialog = panel.text_dialog
    dialog.text_edit.setPlainText("Likes short, direct answers.")
    with qtbot.waitSignal(panel.written, timeout=WAIT_MS):
        dialog._on_buttons_accepted()
    settle(qtbot, panel)
    edited = on_disk(paths.global_memory_dir(), "global", "Likes short, direct answers.")
    assert edited is not None and edited.id == added.id


def test_empty_and_oversized_text_are_refused_with_a_message(
    qtbot: QtBot,
    open_panel: Callable[[], AssistantDialog],
    target: Target,
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    panel = open_panel().memories
    panel.buttons["add"].click()
    dialog = panel.text_dialog
    dialog._on_buttons_accepted()
    assert dialog.isVisible() and "Write the memory" in dialog.error.text()
    dialog.text_edit.setPlainText("x" * 2001)
    dialog._on_buttons_accepted()
    assert dialog.isVisible() and "2,000" in dialog.error.text()
    dialog.reject()

    before = (target.memory_dir / "memories.jsonl").read_bytes()
    with qtbot.waitSignal(panel.failed, timeout=WAIT_MS) as failed:
        panel.edit_text(row(panel, "Deadline is Friday."), "y" * 5000)  # the store refuses it
    settle(qtbot, panel)
    assert failed.args[0] and panel.error_bar.isVisible()
    assert (target.memory_dir / "memories.jsonl").read_bytes() == before


def test_search_filters_rows(
    qtbot: QtBot, open_panel: Callable[[], AssistantDialog], stores: tuple[MemoryStore, MemoryStore]
) -> None:
    panel = open_panel().memories
    qtbot.keyClicks(panel.search, "berlin")
    qtbot.waitUntil(lambda: shown_texts(panel) == ["Might move to Berlin."], timeout=WAIT_MS)
    assert panel.count_label.text() == "1 of 5 memories shown"
    panel.search.setText("global metric")  # every word must match: text, scope or status
    panel.apply_search()
    assert shown_texts(panel) == ["Prefers metric units."]
    panel.search.setText("candidate")
    panel.apply_search()
    assert shown_texts(panel) == ["Might move to Berlin."]
    panel.search.clear()
    panel.apply_search()
    assert len(shown_texts(panel)) == 5


def test_torn_line_shows_a_problem_and_the_rest_loads(
    open_panel: Callable[[], AssistantDialog], target: Target, stores: tuple[MemoryStore, MemoryStore]
) -> None:
    path = target.memory_dir / "memories.jsonl"
    with path.open("ab") as fh:
        fh.write(b'{"id": "m-0badf00d", "text": "half a li')
    panel = open_panel().memories
    assert panel.problems_bar.isVisible()
    assert "Ada's memories" in panel.problems_bar.text() and "line" in panel.problems_bar.text()
    assert len(shown_texts(panel)) == 5


def test_outside_change_to_either_memory_dir_refreshes(
    qtbot: QtBot,
    open_panel: Callable[[], AssistantDialog],
    target: Target,
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    panel = open_panel().memories
    MemoryStore(target.memory_dir, target.id).add("Added by the chat in another window.", status="durable")
    qtbot.waitUntil(lambda: "Added by the chat in another window." in shown_texts(panel), timeout=WAIT_MS)
    MemoryStore(paths.global_memory_dir(), "global").add("Added globally elsewhere.", status="durable")
    qtbot.waitUntil(lambda: "Added globally elsewhere." in shown_texts(panel), timeout=WAIT_MS)


def test_large_store_loads_off_the_gui_thread(
    qtbot: QtBot, ctx: AppContext, target: Target, open_panel: Callable[[], AssistantDialog]
) -> None:
    lines = [
        f'{{"id": "m-{i:08x}", "status": "durable", "pinned": false, "text": "fact number {i}"}}' for i in range(10_000)
    ]
    target.memory_dir.mkdir(parents=True, exist_ok=True)
    (target.memory_dir / "memories.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    panel = MemoryPanel(ctx, target)
    qtbot.addWidget(panel)
    # construction reads nothing on the GUI thread: the rows arrive through ctx.tasks
    assert panel.busy and panel.model.rowCount() == 0 and panel._stores is None
    settle(qtbot, panel)
    assert panel.model.rowCount() == 10_000
    panel.search.setText("9999")
    panel.apply_search()
    assert shown_texts(panel) == ["fact number 9999"]
    assert not panel.model.index(0, 0).parent().isValid() and panel.model.rowCount(QModelIndex()) == 10_000
