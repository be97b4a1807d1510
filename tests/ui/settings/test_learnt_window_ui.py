"""Settings → Models shows the window a server taught (it refused a longer request), with Forget."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from okbot.core.learnt_windows import LearntWindows
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.settings import SettingsDialog
from tests.ui.conftest import KEYLESS
from tests.ui.settings_doubles import closed_port_url

pytestmark = KEYLESS


def open_models(qtbot: QtBot, ctx: AppContext) -> SettingsDialog:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)
    return dialog


def local_ctx(ctx: AppContext) -> str:
    url = closed_port_url()
    ctx.settings.set("provider.baseUrl", url)
    ctx.settings.set("provider.keySource", "none")
    ctx.settings.set("provider.model", "qwen-local")
    return url


def test_a_learnt_window_is_shown_and_forgotten(qtbot: QtBot, serverless_ctx: AppContext) -> None:
    ctx = serverless_ctx
    url = local_ctx(ctx)
    configured = ctx.sources.context_window()
    LearntWindows(paths.learnt_windows_file()).learn(url, "qwen-local", 4096, prompt_tokens=5000)
    assert ctx.sources.context_window() == 4096
    dialog = open_models(qtbot, ctx)
    page = dialog.models_page
    text = page.learnt_window_note.text()
    assert "4,096" in text and "refused" in text
    assert page.forget_window_button.isVisibleTo(page)
    page.forget_window_button.click()
    assert not page.learnt_window_note.isVisibleTo(page) and not page.forget_window_button.isVisibleTo(page)
    assert LearntWindows(paths.learnt_windows_file()).entries() == []
    assert ctx.sources.context_window() == configured


def test_nothing_learnt_shows_nothing_and_the_line_follows_the_model(qtbot: QtBot, serverless_ctx: AppContext) -> None:
    ctx = serverless_ctx
    url = local_ctx(ctx)
    dialog = open_models(qtbot, ctx)
    page = dialog.models_page
    assert not page.learnt_window_note.isVisibleTo(page) and not page.forget_window_button.isVisibleTo(page)
    LearntWindows(paths.learnt_windows_file()).learn(url, "other-model", 2048)
    picker = page.model_field.combo
    picker.setEditText("other-model")
    picker.lineEdit().editingFinished.emit()
    assert "2,048" in page.learnt_window_note.text()
    picker.setEditText("qwen-local")
    picker.lineEdit().editingFinished.emit()
    assert not page.learnt_window_note.isVisibleTo(page)


def test_a_window_learnt_while_settings_were_closed_shows_when_they_open_again(
    qtbot: QtBot, serverless_ctx: AppContext
) -> None:
    ctx = serverless_ctx
    url = local_ctx(ctx)
    dialog = open_models(qtbot, ctx)
    dialog.hide()
    ctx.sources.windows.learn(url, "qwen-local", 8192)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert "8,192" in dialog.models_page.learnt_window_note.text()
