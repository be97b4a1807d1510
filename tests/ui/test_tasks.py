"""TaskRunner: blocking work on a pool thread, results (and errors) delivered on the GUI thread."""

from __future__ import annotations

import threading

import pytest
from pytestqt.qtbot import QtBot

from okbot.storage.errors import OkBotError
from okbot.ui.tasks import TaskRunner


def test_result_is_delivered_on_the_gui_thread(qtbot: QtBot) -> None:
    tasks = TaskRunner()
    gui = threading.get_ident()
    seen: list[tuple[int, int]] = []
    worker_thread: list[int] = []

    def work() -> int:
        worker_thread.append(threading.get_ident())
        return 42

    tasks.run(work, lambda v: seen.append((v, threading.get_ident())))
    qtbot.waitUntil(lambda: bool(seen))
    assert seen == [(42, gui)]
    assert worker_thread and worker_thread[0] != gui
    assert tasks.pending == 0


def test_an_exception_goes_to_on_error_on_the_gui_thread(qtbot: QtBot) -> None:
    tasks = TaskRunner()
    gui = threading.get_ident()
    errors: list[tuple[BaseException, int]] = []

    def work() -> None:
        raise OkBotError("disk full")

    tasks.run(work, lambda _v: pytest.fail("on_done must not run"), lambda e: errors.append((e, threading.get_ident())))
    qtbot.waitUntil(lambda: bool(errors))
    assert str(errors[0][0]) == "disk full" and errors[0][1] == gui


def test_an_error_without_a_handler_is_logged_not_raised(qtbot: QtBot, caplog: pytest.LogCaptureFixture) -> None:
    tasks = TaskRunner()
    tasks.run(lambda: 1 / 0)
    qtbot.waitUntil(lambda: tasks.pending == 0)
    assert "background task crashed" in caplog.text


def test_many_jobs_all_deliver(qtbot: QtBot) -> None:
    tasks = TaskRunner()
    results: list[int] = []
    for n in range(20):
        tasks.run(lambda n=n: n * n, results.append)
    qtbot.waitUntil(lambda: len(results) == 20)
    assert sorted(results) == [n * n for n in range(20)]
