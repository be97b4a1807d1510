"""A UI test's waits that name no bound outlast an event a loaded machine delays past pytest-qt's 5 s."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

SLOWER_THAN_THE_OLD_BOUND_MS = 6000  # pytest-qt's own waits give up after 5000


@pytest.mark.slow
def test_waits_without_a_bound_outlast_an_event_slower_than_five_seconds(qtbot: QtBot) -> None:
    fired: list[bool] = []
    signalled, flagged = QTimer(), QTimer()
    for timer in (signalled, flagged):
        timer.setSingleShot(True)
        timer.setInterval(SLOWER_THAN_THE_OLD_BOUND_MS)
    flagged.timeout.connect(lambda: fired.append(True))
    with qtbot.waitSignal(signalled.timeout):
        signalled.start()
        flagged.start()
        qtbot.waitUntil(lambda: bool(fired))
    assert fired == [True] and not signalled.isActive()
