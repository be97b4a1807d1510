"""The first-run panel's offer to bring assistants over from the original OkBot: shown only when its data
dir is there and nothing came from it yet; the import runs in the background and its report is shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from okbot.app.provider_setup import LocalServerCandidate
from okbot.core.import_okbot import import_okbot
from okbot.ui.app_context import AppContext
from okbot.ui.first_run import FirstRunPanel
from tests.ui.conftest import KEYLESS
from tests.ui.settings_doubles import closed_port_url
from tests.unit.core.import_okbot.test_import import build_sample, snapshot

pytestmark = KEYLESS


@pytest.fixture
def ctx(serverless_ctx: AppContext) -> AppContext:
    return serverless_ctx


def make_panel(qtbot: QtBot, ctx: AppContext, okbot_dir: Path) -> FirstRunPanel:
    panel = FirstRunPanel(ctx, candidates=[LocalServerCandidate("vLLM", closed_port_url())], okbot_dir=okbot_dir)
    qtbot.addWidget(panel)
    panel.show()
    return panel


def settle(qtbot: QtBot, ctx: AppContext) -> None:
    assert ctx.tasks.wait_for_done(10_000)
    qtbot.wait(50)  # the results are delivered as events


def test_offer_runs_the_import_in_the_background_and_shows_the_report(
    qtbot: QtBot, ctx: AppContext, tmp_path: Path
) -> None:
    source = build_sample(tmp_path / "dot-okbot")
    before = snapshot(source)
    panel = make_panel(qtbot, ctx, source)
    qtbot.waitUntil(panel.import_row.isVisible, timeout=10_000)
    assert str(source) in panel.import_label.text()

    with qtbot.waitSignal(panel.imported, timeout=20_000) as done:
        panel.import_button.click()
    report = done.args[0]
    assert {o.name for o in report.imported()} == {"Ann", "Bob the reviewer", "Release crew"}
    assert not panel.import_row.isVisible() and panel.import_report.isVisible()
    assert "Ann" in panel.import_report.text() and "7 items" in panel.import_report.text()
    assert {"Ann", "Bob the reviewer", "Release crew"} <= {t.name for t in ctx.workspace.list()}
    assert snapshot(source) == before
    settle(qtbot, ctx)


def test_no_offer_without_the_original_data_dir(qtbot: QtBot, ctx: AppContext, tmp_path: Path) -> None:
    panel = make_panel(qtbot, ctx, tmp_path / "nothing-here")
    settle(qtbot, ctx)
    assert not panel.import_row.isVisible()


def test_no_offer_once_imported(qtbot: QtBot, ctx: AppContext, tmp_path: Path) -> None:
    source = build_sample(tmp_path / "dot-okbot")
    import_okbot(source, ctx.workspace)
    panel = make_panel(qtbot, ctx, source)
    settle(qtbot, ctx)
    assert not panel.import_row.isVisible()
