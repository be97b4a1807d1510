"""The Settings dialog against real settings files, the real fake OpenAI server and a real workspace."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSlider, QSpinBox
from pytestqt.qtbot import QtBot

from okbot.config.schema import SECTIONS, SETTINGS, setting
from okbot.config.settings import Settings
from okbot.core.compression import structure
from okbot.core.items import new_item, user_message
from okbot.core.turn.request import Send
from okbot.core.workspace import Target
from okbot.llm.keystore import KeyStore
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.settings import PAGE_KEYS, SettingsDialog
from okbot.ui.settings.compression_page import NO_CHAT
from okbot.ui.settings.fields import BoolField, ChoiceField, FloatField, IntField, RatioField, TextField
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.keyrings import MemoryKeyring, system_keyring
from tests.ui.conftest import KEYLESS
from tests.ui.settings_doubles import closed_port_url

pytestmark = KEYLESS


@pytest.fixture
def ctx(serverless_ctx: AppContext) -> AppContext:
    return serverless_ctx


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=("gpt-4o-mini", "fake-small", "llama3")) as srv:
        yield srv


def settle(qtbot: QtBot, ctx: AppContext) -> None:
    """Wait until every background job delivered its result on the GUI thread."""
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)


def open_dialog(qtbot: QtBot, ctx: AppContext, **kwargs: object) -> SettingsDialog:
    dialog = SettingsDialog(ctx, **kwargs)  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    settle(qtbot, ctx)
    return dialog


def on_disk() -> dict:
    return json.loads(paths.settings_file().read_text(encoding="utf-8"))


def target(ctx: AppContext) -> Target:
    return ctx.workspace.list()[0]


# ---------------------------------------------------------------------- built from the schema


def test_pages_and_every_setting_has_a_field(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    assert dialog.page_names() == ["Models", "Context compression", "Tools", "MCP servers", "Appearance", "Advanced"]
    shown = [key for name in PAGE_KEYS for key in dialog.page(name).binder.fields()]
    assert sorted(shown) == sorted(spec.key for spec in SETTINGS)
    assert len(shown) == len(set(shown)), "a setting appears on two pages"
    for name in PAGE_KEYS:
        page = dialog.page(name)
        declared = [
            spec.key
            for section in SECTIONS
            if section.page == page.title
            for spec in SETTINGS
            if spec.section == section
        ]
        assert list(page.binder.fields()) == declared, "each setting on its declared page, section by section"
    assert dialog.open_page("Tools") is dialog.current_page() is dialog.tools_page
    assert dialog.open_page("compression") is dialog.compression_page
    with pytest.raises(KeyError, match="models, compression, tools, mcp, appearance, advanced"):
        dialog.page("colours")


def test_widgets_follow_the_declared_types_and_bounds(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    kinds = {
        key: type(field)
        for page in (dialog.page(n) for n in ("compression", "tools", "advanced"))
        for key, field in page.binder.fields().items()
    }
    assert kinds["developerMode"] is BoolField
    assert kinds["contextCompression.ratio"] is RatioField
    assert kinds["provider.timeout"] is FloatField
    assert kinds["tools.search_history.approval"] is ChoiceField
    assert kinds["contextCompression.keepRecentMin"] is IntField
    assert isinstance(dialog.models_page.field("provider.baseUrl"), TextField)

    slider = dialog.compression_page.field("contextCompression.ratio").editor()
    assert isinstance(slider, QSlider) and (slider.minimum(), slider.maximum()) == (30, 95)
    spin = dialog.compression_page.field("contextCompression.summaryMaxChars").editor()
    assert isinstance(spin, QSpinBox) and (spin.bounds, spin.value()) == ((100, 8000), 2000)
    assert spin.minimum() < 100 and spin.maximum() > 8000, "a value out of bounds can be typed, to be refused in words"
    combo = dialog.tools_page.field("tools.search_history.approval").editor()
    assert isinstance(combo, QComboBox)
    assert [combo.itemData(i) for i in range(combo.count())] == list(setting("tools.search_history.approval").choices)


# ---------------------------------------------------------------------- edits apply, persist, refuse


def test_ratio_slider_moves_in_keyboard_steps_and_persists(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    field = dialog.open_page("compression").field("contextCompression.ratio")
    slider = field.editor()
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert ctx.settings.get("contextCompression.ratio") == pytest.approx(0.61)
    assert field.value_label.text() == "0.61 of the window"
    qtbot.keyClick(slider, Qt.Key.Key_PageUp)
    assert ctx.settings.get("contextCompression.ratio") == pytest.approx(0.66)
    assert on_disk()["contextCompression.ratio"] == pytest.approx(0.66)
    assert Settings.load().get("contextCompression.ratio") == pytest.approx(0.66)


def test_checkbox_change_applies_without_restart(qtbot: QtBot, ctx: AppContext) -> None:
    seen: list[str] = []
    ctx.settings.subscribe(seen.append)
    dialog = open_dialog(qtbot, ctx)
    box = dialog.open_page("advanced").field("developerMode").editor()
    assert isinstance(box, QCheckBox) and not box.isChecked()
    with qtbot.waitSignal(dialog.setting_changed) as changed:
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert changed.args == ["developerMode"]
    assert seen == ["developerMode"]
    assert ctx.settings.get("developerMode") is True
    assert on_disk()["developerMode"] is True


def test_keep_min_above_max_is_refused_with_a_message(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.open_page("compression")
    spin = page.field("contextCompression.keepRecentMin").editor()
    spin.setValue(20)  # keyboard tracking is off: this is one committed edit
    assert ctx.settings.get("contextCompression.keepRecentMin") == 8
    assert spin.value() == 20, "the refused value stays on show"
    assert page.field_message("contextCompression.keepRecentMin").startswith(
        "“Keep at least” must not be more than “Keep at most” (12 items)."
    )
    assert not paths.settings_file().exists(), "nothing was written"
    page.field("contextCompression.keepRecentMax").editor().setValue(30)
    assert ctx.settings.get("contextCompression.keepRecentMin") == 20
    assert page.field_message("contextCompression.keepRecentMin") == "", "the error goes once the value is saved"


def test_out_of_range_context_window_is_refused(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    spin = dialog.models_page.field("model.contextWindow").editor()
    assert spin.text() == "Model default"
    spin.setValue(500)
    assert ctx.settings.get("model.contextWindow") is None
    assert spin.text() == "500 tokens"
    assert "between 1,000 and 10,000,000 tokens" in dialog.models_page.field_message("model.contextWindow")


def test_bad_base_url_is_refused_and_nothing_changes(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    line = dialog.models_page.field("provider.baseUrl").editor()
    assert isinstance(line, QLineEdit)
    line.setText("ftp://example.com")
    line.editingFinished.emit()
    assert ctx.settings.get("provider.baseUrl") == "https://api.openai.com/v1"
    assert line.text() == "ftp://example.com"
    assert "must be an http:// or https:// URL" in dialog.models_page.field_message("provider.baseUrl")


def test_choice_combo_persists(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    combo = dialog.open_page("tools").field("tools.search_history.approval").editor()
    combo.setCurrentIndex(combo.findData("ask"))
    combo.activated.emit(combo.currentIndex())
    assert ctx.settings.get("tools.search_history.approval") == "ask"
    assert combo.currentText() == "Ask me first"
    assert Settings.load().get("tools.search_history.approval") == "ask"


def test_context_window_is_per_model(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.models_page
    page.field("model.contextWindow").editor().setValue(64_000)
    picker = page.model_field.combo
    picker.setEditText("fake-small")
    picker.lineEdit().editingFinished.emit()
    assert ctx.settings.get("provider.model") == "fake-small"
    assert page.field("model.contextWindow").editor().text() == "Model default"
    assert "“fake-small” is known to take" in page.window_note.text()
    picker.setEditText("gpt-4o-mini")
    picker.lineEdit().editingFinished.emit()
    assert page.field("model.contextWindow").value() == 64_000


def test_changes_made_elsewhere_show_up(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    ctx.settings.set("contextCompression.summaryMaxChars", 3000)
    assert dialog.compression_page.field("contextCompression.summaryMaxChars").value() == 3000


def test_environment_override_locks_the_field(qtbot: QtBot, ctx: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKBOT_BASE_URL", "http://127.0.0.1:9/v1")
    dialog = open_dialog(qtbot, ctx)
    field = dialog.models_page.field("provider.baseUrl")
    assert field.editor().text() == "http://127.0.0.1:9/v1"
    assert not field.editor().isEnabled()
    assert "Set by OKBOT_BASE_URL" in field.help.text()


# ---------------------------------------------------------------------- Models page: network and keys


def test_model_picker_is_filled_from_the_server(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    ctx.settings.set("provider.baseUrl", server.base_url)
    dialog = open_dialog(qtbot, ctx)
    page = dialog.models_page
    assert page.model_field.models() == ["fake-small", "gpt-4o-mini", "llama3"]
    assert page.models_status.text() == "3 models on this server."
    assert any(r.method == "GET" and r.path == "/v1/models" for r in server.requests)
    assert page.model_field.combo.currentText() == "gpt-4o-mini", "the chosen model stays"


def test_no_model_list_is_requested_from_a_hosted_api_without_a_key(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    assert dialog.models_page.models_status.text() == "Add an API key to list this server's models."
    assert dialog.models_page.model_field.models() == []


def test_settings_edits_change_the_next_request(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    ctx.settings.set("provider.baseUrl", server.base_url)
    dialog = open_dialog(qtbot, ctx)
    picker = dialog.models_page.model_field.combo
    picker.setCurrentIndex(picker.findText("llama3"))
    picker.activated.emit(picker.currentIndex())
    assert ctx.settings.get("provider.model") == "llama3"
    ctx.app.run_turn(target(ctx), Send("hello"))
    assert server.chat_requests()[-1]["model"] == "llama3"


def test_test_connection_reports_success_and_a_missing_model(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    ctx.settings.set("provider.baseUrl", server.base_url)
    dialog = open_dialog(qtbot, ctx)
    page = dialog.models_page
    with qtbot.waitSignal(page.connection_checked) as done:
        qtbot.mouseClick(page.test_button, Qt.MouseButton.LeftButton)
        assert page.test_button.text() == "Testing…"  # the GUI did not wait for the server
    assert done.args[0].ok
    assert page.test_result.text().startswith("✓ Connected to http://127.0.0.1")
    ctx.settings.set("provider.model", "not-there")
    with qtbot.waitSignal(page.connection_checked) as done:
        page.test_connection()
    assert not done.args[0].ok
    assert "does not list “not-there”" in page.test_result.text()


def test_test_connection_to_a_closed_port_says_so(qtbot: QtBot, ctx: AppContext) -> None:
    ctx.settings.set("provider.baseUrl", closed_port_url())
    dialog = open_dialog(qtbot, ctx)
    page = dialog.models_page
    assert page.models_status.text().startswith("Could not list models:")
    with qtbot.waitSignal(page.connection_checked, timeout=15_000) as done:
        page.test_connection()
    assert not done.args[0].ok
    assert page.test_result.text().startswith("⚠ Could not connect to http://127.0.0.1")
    assert page.test_button.isEnabled()


def test_without_a_keyring_the_page_says_where_the_key_is_kept_and_keeps_it_there(
    qtbot: QtBot, ctx: AppContext
) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.models_page
    key_file = paths.data_dir() / "keys.json"
    assert "no system keyring" in page.key_help.text() and str(key_file) in page.key_help.text()
    assert "only your user account can read" in page.key_help.text()
    assert page.key_edit.isEnabled() and page.key_edit.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(page.key_edit, "sk-test-file-1234567890")
    qtbot.mouseClick(page.save_key_button, Qt.MouseButton.LeftButton)
    settle(qtbot, ctx)
    assert page.message_text() == f"Key saved in {key_file} (readable by your user only)."
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 or os.name != "posix"
    assert ctx.settings.get("provider.keySource") == "keyring"
    assert page.key_status.text() == f"Using the key saved in {key_file} (readable by your user only)."
    assert "sk-test" not in paths.settings_file().read_text(encoding="utf-8")


def test_a_key_file_others_can_read_is_named_with_the_fix(qtbot: QtBot, ctx: AppContext) -> None:
    KeyStore().save("sk-test-file-1234567890")
    ctx.settings.set("provider.keySource", "keyring")
    KeyStore().key_file.chmod(0o644)
    dialog = open_dialog(qtbot, ctx)
    page = dialog.models_page
    assert "other users can read that file" in page.key_status.text()
    assert "chmod 600" in page.key_status.text()


def test_saving_a_key_uses_the_keyring_and_never_settings_json(qtbot: QtBot, ctx: AppContext) -> None:
    with system_keyring(MemoryKeyring()) as keyring:
        dialog = open_dialog(qtbot, ctx)
        page = dialog.models_page
        assert page.key_help.text() == "Saved in the system keyring, never in settings.json."
        assert page.key_edit.isEnabled() and page.key_edit.echoMode() == QLineEdit.EchoMode.Password
        qtbot.keyClicks(page.key_edit, "sk-test-1234567890")
        qtbot.mouseClick(page.save_key_button, Qt.MouseButton.LeftButton)
        settle(qtbot, ctx)
        assert keyring.saved == {("okbot", "api-key"): "sk-test-1234567890"}
        assert page.message_text() == "Key saved in the system keyring."
        assert ctx.settings.get("provider.keySource") == "keyring"
        assert page.key_edit.text() == ""
        assert page.key_status.text() == "Using the key saved in the system keyring."
    assert "sk-test" not in paths.settings_file().read_text(encoding="utf-8")
    assert not KeyStore().key_file.exists()


# ---------------------------------------------------------------------- Compress now


def fill_session(ctx: AppContext, turns: int) -> None:
    store = ctx.sources.session(target(ctx))
    for n in range(turns):
        store.append(user_message(f"question {n} about the garden plan"))
        store.append(new_item("assistant", author=target(ctx).id, source="model", content=f"answer {n}"))


def test_compress_now_needs_a_chat(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx, current_target=None)
    button = dialog.open_page("compression").compress_button
    assert not button.isEnabled()
    assert button.toolTip() == NO_CHAT
    dialog.set_current_target(target(ctx))
    assert button.isEnabled()


def test_compress_now_summarizes_the_current_chat(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    ctx.settings.set("provider.baseUrl", server.base_url)
    server.set_default(lambda _body: Reply(text=structure.empty_summary()))
    fill_session(ctx, 12)
    dialog = open_dialog(qtbot, ctx, current_target=target(ctx))
    page = dialog.open_page("compression")
    with qtbot.waitSignal(dialog.compress_finished, timeout=15_000) as done:
        qtbot.mouseClick(page.compress_button, Qt.MouseButton.LeftButton)
        assert not page.compress_button.isEnabled()  # running in the background
    report = done.args[0]
    assert report.ok, report.message
    assert report.covered_items == 24 - 8
    shown = page.result_label.text()
    assert shown.startswith("✓ Summarized 16 items (#1–#16); tokens ")  # once, with the ids, in plural form
    assert shown.count("Summarized") == 1 and "item(s)" not in shown
    assert page.compress_button.isEnabled()
    summary, _problems = ctx.sources.summary(target(ctx))
    assert summary.covered_through_id == 16


def test_compress_now_with_too_little_history_says_so(qtbot: QtBot, ctx: AppContext) -> None:
    fill_session(ctx, 2)
    ctx.settings.set("provider.baseUrl", closed_port_url())
    dialog = open_dialog(qtbot, ctx, current_target=target(ctx))
    page = dialog.open_page("compression")
    with qtbot.waitSignal(dialog.compress_finished, timeout=15_000) as done:
        page.compress_now()
    assert not done.args[0].ok
    assert page.result_label.text().startswith("Nothing to compress: 4 items after the summary")
    assert "item(s)" not in page.result_label.text()
