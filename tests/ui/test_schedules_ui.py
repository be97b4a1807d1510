"""The Schedules window and the scheduler in the desktop: a job set from the window's line lands in the chat's
schedules.json, a bad time is said and the message kept, pausing and removing go to the file, and a due job's
turn (and Run now) shows in the open chat as it runs, with the time the test's clock says."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from okbot.core.schedules import rules
from okbot.core.schedules.store import ScheduleStore
from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext
from okbot.ui.schedules_panel import MESSAGE_COLUMN, NEXT_COLUMN, RULE_COLUMN, SchedulesDialog
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.ui.test_chat_page import shown_text
from tests.ui.test_main_window import open_window
from tests.ui.test_squad_chat import layout_of

START = datetime(2026, 6, 10, 12, 0, tzinfo=timezone.utc)


class Clock:
    """The time the store and the scheduler see, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def target_of(ctx: AppContext) -> Target:
    return ctx.workspace.list()[0]


def open_dialog(qtbot: QtBot, ctx: AppContext, store: ScheduleStore) -> SchedulesDialog:
    dialog = SchedulesDialog(ctx, target_of(ctx), store=store)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def choose_kind(dialog: SchedulesDialog, kind: str) -> None:
    dialog.kind_box.setCurrentIndex(dialog.kind_box.findData(kind))


def add_from_the_line(qtbot: QtBot, dialog: SchedulesDialog, text: str, kind: str, value: str) -> None:
    dialog.message_edit.setText(text)
    choose_kind(dialog, kind)
    dialog.value_edit.setText(value)
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)


def select_row(dialog: SchedulesDialog, row: int) -> None:
    dialog.view.setCurrentItem(dialog.view.topLevelItem(row))


def test_a_job_set_from_the_line_is_in_the_file_and_the_list(qtbot: QtBot, ctx: AppContext) -> None:
    store = ScheduleStore(Clock(), timezone.utc)
    dialog = open_dialog(qtbot, ctx, store)
    qtbot.waitUntil(lambda: dialog.empty.isVisible())  # the first read is done: nothing yet
    add_from_the_line(qtbot, dialog, "Water the plants", "every", "30")
    qtbot.waitUntil(lambda: len(dialog.jobs()) == 1)
    [job] = store.load(target_of(ctx)).jobs
    assert (job.text, job.rule, job.created_by) == ("Water the plants", rules.every(30), "user")
    assert job.next_run == START + timedelta(minutes=30)
    row = dialog.view.topLevelItem(0)
    assert row.text(RULE_COLUMN) == rules.describe(job.rule)
    assert row.text(NEXT_COLUMN) == rules.short_time(job.next_run)
    assert dialog.message_edit.text() == "" and "next run" in dialog.status.text()
    assert not dialog.empty.isVisible()


def test_a_bad_time_is_said_and_the_message_stays(qtbot: QtBot, ctx: AppContext) -> None:
    store = ScheduleStore(Clock(), timezone.utc)
    dialog = open_dialog(qtbot, ctx, store)
    add_from_the_line(qtbot, dialog, "Stand up and stretch", "daily", "25:99")
    qtbot.waitUntil(lambda: dialog.status.text() != "")
    assert "25:99" in dialog.status.text()  # the error names what was typed
    assert dialog.message_edit.text() == "Stand up and stretch" and dialog.value_edit.text() == "25:99"
    assert store.load(target_of(ctx)).jobs == [] and not ScheduleStore.path(target_of(ctx)).exists()


def test_hourly_takes_no_value_and_pausing_and_removing_reach_the_file(qtbot: QtBot, ctx: AppContext) -> None:
    store = ScheduleStore(Clock(), timezone.utc)
    dialog = open_dialog(qtbot, ctx, store)
    choose_kind(dialog, "hourly")
    assert not dialog.value_edit.isEnabled()
    add_from_the_line(qtbot, dialog, "Check the build", "hourly", "")
    qtbot.waitUntil(lambda: len(dialog.jobs()) == 1)
    assert not dialog.run_button.isEnabled()  # nothing chosen yet

    dialog.view.topLevelItem(0).setCheckState(MESSAGE_COLUMN, Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: not store.load(target_of(ctx)).jobs[0].enabled)
    qtbot.waitUntil(lambda: dialog.view.topLevelItem(0).text(NEXT_COLUMN) == "paused")

    select_row(dialog, 0)
    assert dialog.remove_button.isEnabled()
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.jobs() == [])
    assert store.load(target_of(ctx)).jobs == [] and dialog.empty.isVisible()


def test_a_hand_broken_file_is_named_and_a_new_job_still_lands(qtbot: QtBot, ctx: AppContext) -> None:
    store = ScheduleStore(Clock(), timezone.utc)
    path = ScheduleStore.path(target_of(ctx))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ not json", encoding="utf-8")
    dialog = open_dialog(qtbot, ctx, store)
    qtbot.waitUntil(lambda: dialog.status.text() != "")
    assert "schedules.json" in dialog.status.text()
    add_from_the_line(qtbot, dialog, "Still here", "every", "5")
    qtbot.waitUntil(lambda: len(dialog.jobs()) == 1)
    assert [job.text for job in store.load(target_of(ctx)).jobs] == ["Still here"]


def test_a_due_job_runs_in_the_open_chat_and_run_now_runs_it_again(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.set_default(lambda _body: Reply(text="watered"))
    clock = Clock()
    store = ScheduleStore(clock, timezone.utc)
    target = target_of(ctx)
    job = store.add(target, "Water the plants", rules.every(10))
    clock.now = START + timedelta(minutes=10, seconds=5)  # due
    window = open_window(qtbot, ctx)
    qtbot.waitUntil(lambda: window.current_page() is not None)
    page = window.current_page()
    assert page is window.page_for(target)
    window.start_schedules(store)
    try:
        qtbot.waitUntil(lambda: "watered" in shown_text(page))  # appended as the job's turn wrote it
        assert "Water the plants" in shown_text(page)
        sent = layout_of(page.view, 0)  # the job's message, marked as the schedule's in a quiet line
        assert (sent.status, sent.status_quiet, sent.status_error) == ("Sent by a schedule", True, False)
        assert not layout_of(page.view, 1).status  # the reply has no such line
        qtbot.waitUntil(lambda: store.load(target).jobs[0].last_result == "complete")
        assert store.load(target).jobs[0].last_run == clock.now
        assert len(server.chat_requests()) == 1
        qtbot.waitUntil(lambda: page.status_text() == "")  # the job's status line is gone once it is done

        clock.now += timedelta(minutes=1)  # not due again: Run now is the user's
        dialog = window.open_schedules(target)
        qtbot.waitUntil(lambda: len(dialog.jobs()) == 1)
        select_row(dialog, 0)
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(server.chat_requests()) == 2)
        qtbot.waitUntil(lambda: shown_text(page).count("watered") == 2)
        qtbot.waitUntil(lambda: store.load(target).jobs[0].last_run == clock.now)
        after = store.load(target).jobs[0]
        assert after.next_run == START + timedelta(minutes=20)  # Run now leaves the job's times alone
        model = page.view.chat_model()
        items = [it for row in range(model.rowCount()) if (it := model.item(row)) is not None]
        assert [it.get("source") for it in items if it["type"] == "user"] == [
            f"schedule:{job.id}",
            f"schedule:{job.id}",
        ]
    finally:
        window.schedules.stop()
