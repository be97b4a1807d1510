"""Settings → Models → Other providers: add, list models, refuse removing one in use, remove."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.llm.keystore import KeyStore
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.settings import SettingsDialog
from tests.helpers.fake_openai import FakeOpenAIServer
from tests.ui.conftest import KEYLESS

pytestmark = KEYLESS


@pytest.fixture
def ctx(serverless_ctx: AppContext) -> AppContext:
    return serverless_ctx


KEY = "sk-box-0123456789abcdef"


def settle(qtbot: QtBot, ctx: AppContext) -> None:
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)


def open_box(qtbot: QtBot, ctx: AppContext):
    """A real Settings dialog (hold it: the box goes with it) and its Models → Other providers box."""
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    settle(qtbot, ctx)
    return dialog, dialog.models_page.providers_box


def test_add_list_models_refuse_in_use_and_remove(qtbot: QtBot, ctx: AppContext) -> None:
    with FakeOpenAIServer(models=("m1", "m2"), require_key=KEY) as srv:
        _dialog, box = open_box(qtbot, ctx)
        box.name_edit.setText("work")
        box.url_edit.setText(srv.base_url)
        box.key_edit.setText(KEY)
        box.add_button.click()
        settle(qtbot, ctx)
        assert [p.name for p in Settings.load().providers.all()] == ["default", "work"]
        assert Settings.load().providers.get("work").key_source == "keyring"
        assert KeyStore().get("work").key == KEY
        assert KEY not in paths.settings_file().read_text() and KEY not in box.list.item(0).text()
        assert "key: key file (work)" in box.list.item(0).text()  # no keyring here (issue 34, item 19)
        box.list.setCurrentRow(0)
        box.models_button.click()
        settle(qtbot, ctx)
        assert Settings.load().providers.get("work").models == ("m1", "m2")
        assert "2 models" in box.list.item(0).text()
        ctx.workspace.rename(ctx.workspace.create_assistant("New assistant", model="work/m1").id, "Bob")
        box.list.setCurrentRow(0)
        box.remove_button.click()
        assert "in use by Bob;" in box.status.text()  # by its name: the id it was created with stays out of sight
        assert "new-assistant" not in box.status.text()
        ctx.workspace.set_meta(ctx.workspace.resolve("Bob"), "model", None)
        box.remove_button.click()
        settle(qtbot, ctx)
        assert [p.name for p in Settings.load().providers.all()] == ["default"] and box.list.count() == 0
        assert KeyStore().get("work") is None


def test_a_bad_url_is_refused_with_a_message(qtbot: QtBot, ctx: AppContext) -> None:
    _dialog, box = open_box(qtbot, ctx)
    box.name_edit.setText("x")
    box.url_edit.setText("not a url")
    box.add_button.click()
    assert "baseUrl must be" in box.status.text()
    assert [p.name for p in Settings.load().providers.all()] == ["default"]


def test_a_token_in_the_url_is_refused_and_never_saved_or_shown(qtbot: QtBot, ctx: AppContext) -> None:
    """Issue 31, class 18, in the Settings dialog as in `provider add`: settings.json is no place for a key."""
    _dialog, box = open_box(qtbot, ctx)
    box.name_edit.setText("work")
    box.url_edit.setText(f"https://{KEY}@llm.example/v1")
    box.add_button.click()
    assert "holds a user name or password" in box.status.text() and "API key field" in box.status.text()
    assert KEY not in box.status.text() and "--key-stdin" not in box.status.text()
    assert [p.name for p in Settings.load().providers.all()] == ["default"]
    assert not paths.settings_file().exists() or KEY not in paths.settings_file().read_text()


def test_a_providers_context_windows_are_set_here_and_the_chat_follows(qtbot: QtBot, ctx: AppContext) -> None:
    _dialog, box = open_box(qtbot, ctx)
    box.name_edit.setText("local")
    box.url_edit.setText("http://127.0.0.1:9/v1")
    box.source_combo.setCurrentIndex(box.source_combo.findData("none"))
    box.windows_edit.setText("tiny")
    box.add_button.click()
    assert "expected MODEL=TOKENS" in box.status.text()
    assert [p.name for p in Settings.load().providers.all()] == ["default"]  # nothing saved
    box.windows_edit.setText("llama3.1:8b=32768, qwen=8192")
    box.add_button.click()
    assert Settings.load().providers.get("local").context_windows == {"llama3.1:8b": 32768, "qwen": 8192}
    bob = ctx.workspace.create_assistant("Bob", model="local/llama3.1:8b")
    assert ctx.sources.context_window(bob) == 32768  # the gauge and the threshold follow it
    box.list.setCurrentRow(0)
    assert box.windows_edit.text() == "llama3.1:8b=32768, qwen=8192"


def test_what_a_save_or_a_listing_says_stays_and_an_empty_list_says_what_to_do(qtbot: QtBot, ctx: AppContext) -> None:
    """Issue 34, item 8: "Saved provider second." and the model count vanished at once (the list's refresh
    re-selected the row, which cleared the status); an empty list was a blank box."""
    with FakeOpenAIServer(models=("m1", "m2")) as srv:
        _dialog, box = open_box(qtbot, ctx)
        assert box.list.isHidden() and not box.empty_label.isHidden()
        assert "No other providers yet" in box.empty_label.text()
        for name in ("first", "second"):
            box.name_edit.setText(name)
            box.url_edit.setText(srv.base_url)
            box.add_button.click()
            settle(qtbot, ctx)
            assert box.status.text() == f"Saved provider {name}."
        assert not box.list.isHidden() and box.empty_label.isHidden()
        assert box.selected().name == "second"
        box.models_button.click()
        settle(qtbot, ctx)
        assert box.status.text() == "second: 2 models on this server."
        box.list.setCurrentRow(0)  # the user picks another one: what was said of the other goes
        assert box.status.text() == "" and box.name_edit.text() == "first"


def test_a_typed_local_url_needs_no_key_unless_the_user_chose_a_key_source(qtbot: QtBot, ctx: AppContext) -> None:
    """Issue 34, item 8: a local URL typed in saved key source "Environment variable"."""
    _dialog, box = open_box(qtbot, ctx)
    box.name_edit.setText("lab")
    qtbot.keyClicks(box.url_edit, "http://127.0.0.1:8080/v1")
    assert box.source_combo.currentData() == "none"
    box.add_button.click()
    assert Settings.load().providers.get("lab").key_source == "none"
    box.name_edit.setText("hosted")
    box.url_edit.clear()
    qtbot.keyClicks(box.url_edit, "https://api.example.com/v1")
    assert box.source_combo.currentData() == "env"  # a hosted server: its key from the environment again
    box.source_combo.setCurrentIndex(box.source_combo.findData("keyring"))
    box.source_combo.activated.emit(box.source_combo.currentIndex())  # as a user's pick says it
    box.url_edit.clear()
    qtbot.keyClicks(box.url_edit, "http://localhost:11434/v1")
    assert box.source_combo.currentData() == "keyring"  # chosen by the user: kept
