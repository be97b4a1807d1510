"""Settings → Models: provider base URL, API key, key source, model picker, context window (and the window
the server taught by refusing a longer request, with Forget), the other providers
(:mod:`okbot.ui.settings.providers_box`), Test connection.

Everything that can wait on the network or the keyring (listing models, testing the connection,
finding or saving the key) runs through ``ctx.tasks``; results for an older base URL are dropped.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QPushButton, QWidget

from okbot.app.provider_setup import (
    ConnectionCheck,
    check_connection,
    key_status,
    list_models,
    provider_configured,
    saved_text,
    where_text,
)
from okbot.config.providers import resolve_model
from okbot.config.schema import MODEL, MODELS_PAGE, PROVIDER, Setting, setting
from okbot.core.tokens import model_facts
from okbot.i18n import plural
from okbot.llm.keystore import KeyStore
from okbot.storage.errors import OkBotError
from okbot.ui.settings.fields import ProblemLabel, SettingField
from okbot.ui.settings.page import NoteLabel, SettingsPage, help_label, if_alive
from okbot.ui.settings.providers_box import ProvidersBox, slots_note

_PROVIDER_KEYS = ("provider.baseUrl", "provider.keySource")
_WINDOW_KEYS = ("provider.baseUrl", "provider.model", "model.contextWindow")


class ModelPickerField(SettingField):
    """An editable combo box: pick a model the server lists, or type any name."""

    def __init__(self, spec: Setting, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.combo.setMinimumWidth(150)
        self.combo.setToolTip(spec.shown_description())
        self.combo.activated.connect(self._on_combo_activated)
        self.combo.lineEdit().editingFinished.connect(self._on_line_editing_finished)
        self.refresh_button = QPushButton(self.tr("Refresh list"))
        self.refresh_button.setToolTip(self.tr("Ask the server which models it offers"))
        self._shown = ""
        self._layout.addWidget(self.combo, 1)
        self._layout.addWidget(self.refresh_button)

    def editor(self) -> QWidget:
        return self.combo

    def value(self) -> str:
        return self.combo.currentText()

    def models(self) -> list[str]:
        """The names in the drop-down list."""
        return [self.combo.itemText(i) for i in range(self.combo.count())]

    def set_models(self, models: list[str]) -> None:
        """Offer ``models`` in the list, keeping the name on show."""
        self.combo.blockSignals(True)
        try:
            self.combo.clear()
            self.combo.addItems(models)
            self.combo.setEditText(self._shown)
        finally:
            self.combo.blockSignals(False)

    def _show(self, value: Any) -> None:
        self._shown = str(value)
        index = self.combo.findText(self._shown)
        if index >= 0:
            self.combo.setCurrentIndex(index)
        self.combo.setEditText(self._shown)

    def _on_combo_activated(self, _index: int) -> None:
        self._emit_if_changed()

    def _on_line_editing_finished(self) -> None:
        self._emit_if_changed()

    def _emit_if_changed(self) -> None:
        if self.combo.currentText() != self._shown:
            self.edited.emit(self.combo.currentText())


class ModelsPage(SettingsPage):
    """Provider and model settings, with the server's model list and a connection test.

    ``models_listed(list)`` fires when a model list arrived; ``connection_checked(object)`` with
    the :class:`ConnectionCheck` of Test connection.
    """

    models_listed = Signal(list)
    connection_checked = Signal(object)

    def __init__(self, ctx: Any, parent: QWidget | None = None, *, keys: KeyStore | None = None) -> None:
        super().__init__(ctx, MODELS_PAGE, parent)
        self._keys = keys or KeyStore()
        self._generation = 0  # bumps when the base URL or key changes; older answers are dropped

        # The declared sections, with widgets of this page's own between and under their settings.
        provider = self.add_section(PROVIDER.shown_heading(), PROVIDER.shown_description())
        self.add_setting(provider, "provider.baseUrl")
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("Paste an API key to save it"))
        self.key_edit.setEnabled(False)  # until the background check says where a key would be kept
        self.key_edit.returnPressed.connect(self._on_save_key_clicked)
        self.save_key_button = QPushButton(self.tr("Save key"))
        self.save_key_button.setEnabled(False)
        self.save_key_button.clicked.connect(self._on_save_key_clicked)
        self.key_help = help_label(self.tr("Checking for a system keyring…"))
        self.key_status = help_label("")
        self.key_problem = ProblemLabel()  # why a key was not saved, right under the key
        self.key_edit.textEdited.connect(self._on_key_edit_text_edited)
        self.add_row(
            provider,
            self.tr("API key:"),
            _row(self.key_edit, self.save_key_button),
            self.key_problem,
            self.key_help,
            buddy=self.key_edit,
        )
        source = self.add_setting(provider, "provider.keySource")
        source.column.addWidget(self.key_status)
        parallel = self.add_setting(provider, "provider.slots")
        self.slots_note = help_label("")  # what this run learnt about the server's slots
        parallel.column.addWidget(self.slots_note)

        model = self.add_section(MODEL.shown_heading(), MODEL.shown_description())
        self.model_field = ModelPickerField(setting("provider.model"), self)
        self.model_field.refresh_button.clicked.connect(self._on_refresh_models_clicked)
        self.add_setting(model, "provider.model", self.model_field)
        self.models_status = help_label("")
        self.model_field.column.addWidget(self.models_status)
        window = self.add_setting(model, "model.contextWindow")
        self.window_note = help_label("")
        window.column.addWidget(self.window_note)
        self.learnt_window_note = help_label("")
        self.forget_window_button = QPushButton(self.tr("Forget"))
        self.forget_window_button.setToolTip(
            self.tr("Forget the window the server stated; the context window above applies again")
        )
        self.forget_window_button.clicked.connect(self._on_forget_window_clicked)
        self.learnt_window_row = QWidget()
        learnt = QHBoxLayout(self.learnt_window_row)
        learnt.setContentsMargins(0, 0, 0, 0)
        learnt.addWidget(self.learnt_window_note, 1)
        learnt.addWidget(self.forget_window_button, 0, Qt.AlignmentFlag.AlignTop)
        window.column.addWidget(self.learnt_window_row)

        others = self.add_section(
            self.tr("Other providers"),
            self.tr("More OpenAI-compatible servers. An assistant talks to one when its model is NAME/MODEL."),
        )
        self.providers_box = ProvidersBox(ctx, self.binder.settings, self._keys, self)
        self.add_row(others, "", self.providers_box)

        connection = self.add_section(self.tr("Connection"))
        self.test_button = QPushButton(self.tr("Test connection"))
        self.test_button.clicked.connect(self._on_test_button_clicked)
        self.test_result = NoteLabel()
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.add_row(connection, "", _row(self.test_button), self.test_result)
        self.finish()

        self.binder.changed.connect(self._on_binder_changed_models)
        self._show_window_note()
        self._show_slots_note()
        self._check_keys()
        self.fetch_models(auto=True)

    # ------------------------------------------------------------------ public
    def fetch_models(self, *, auto: bool = False) -> None:
        """List the server's models in the background; ``auto`` skips servers that have no key yet."""
        settings, generation = self.binder.settings(), self._generation

        def job() -> list[str] | None:
            if auto and not provider_configured(settings):
                return None
            return list_models(settings)

        self.model_field.refresh_button.setEnabled(False)
        if not auto:
            self.models_status.setText(self.tr("Asking the server for its models…"))
        self.ctx.tasks.run(
            job,
            if_alive(self, lambda models: self._on_models_done(generation, models)),
            if_alive(self, lambda exc: self._on_models_failed(generation, exc)),
        )

    def test_connection(self) -> None:
        """Run Test connection in the background; the result shows under the button."""
        settings = self.binder.settings()
        self.test_button.setEnabled(False)
        self.test_button.setText(self.tr("Testing…"))
        self.test_result.setText("")
        self.ctx.tasks.run(
            lambda: check_connection(settings), if_alive(self, self._on_test_done), if_alive(self, self._on_test_failed)
        )

    # ------------------------------------------------------------------ slots
    def _on_refresh_models_clicked(self) -> None:
        self.fetch_models()

    def _on_test_button_clicked(self) -> None:
        self.test_connection()

    def _on_binder_changed_models(self, key: str) -> None:
        if key in _PROVIDER_KEYS:
            self._generation += 1
            self.model_field.set_models([])
            self.models_status.setText("")
            self.test_result.setText("")
            self._check_keys()
            self.fetch_models(auto=True)
        if key in ("provider.model", "model.contextWindow"):
            self._show_window_note()
        if key in ("provider.baseUrl", "provider.slots"):
            self._show_slots_note()
        if key in _WINDOW_KEYS:
            self._show_learnt_window()

    def showEvent(self, event: QShowEvent) -> None:
        """A window a turn learnt while Settings were closed shows when they open again."""
        super().showEvent(event)
        self._show_learnt_window()

    def _on_forget_window_clicked(self) -> None:
        config, model = resolve_model(self.binder.settings(), None)
        self.ctx.sources.windows.forget(config.base_url, model)
        self._show_learnt_window()

    def _on_save_key_clicked(self) -> None:
        key = self.key_edit.text().strip()
        if not key:
            self.key_problem.show_problem(self.tr("Paste a key first."))
            return
        keys = self._keys
        self.save_key_button.setEnabled(False)
        self.ctx.tasks.run(
            lambda: keys.save(key), if_alive(self, self._on_key_stored), if_alive(self, self._on_key_store_failed)
        )

    def _on_key_stored(self, where: str) -> None:
        self.ctx.key_changed()  # the next request reads the new key
        self.save_key_button.setEnabled(True)
        self.key_problem.show_problem("")
        self.key_edit.clear()
        self.show_message(saved_text(where, self._keys.key_file), error=False)
        if self.binder.settings().get("provider.keySource") != "keyring":
            self.binder.apply("provider.keySource", "keyring")  # refreshes status and models
        else:
            self._generation += 1
            self._check_keys()
            self.fetch_models(auto=True)

    def _on_key_store_failed(self, exc: BaseException) -> None:
        self.save_key_button.setEnabled(True)
        text = str(exc) if isinstance(exc, OkBotError) else type(exc).__name__  # never the key itself
        self.key_problem.show_problem(self.tr("The key was not saved: {why}").format(why=text))

    def _on_key_edit_text_edited(self, _text: str) -> None:
        self.key_problem.show_problem("")

    def _on_keys_checked(self, state: tuple[str, str]) -> None:
        where, status = state
        self.key_edit.setEnabled(True)
        self.save_key_button.setEnabled(True)
        self.key_help.setText(where_text(where, self._keys.key_file))
        self.key_status.setText(status)
        self.providers_box.set_saved_in(where)

    def _on_keys_check_failed(self, exc: BaseException) -> None:
        self.key_status.setText(self.tr("Could not check for a key: {error}").format(error=type(exc).__name__))

    def _on_models_done(self, generation: int, models: list[str] | None) -> None:
        if generation != self._generation:
            return
        self.model_field.refresh_button.setEnabled(True)
        if models is None:
            self.models_status.setText(self.tr("Add an API key to list this server's models."))
            return
        self.model_field.set_models(models)
        count = len(models)
        self.models_status.setText(
            plural(count, self.tr("{n} model on this server."), self.tr("{n} models on this server.")).format(n=count)
            if count
            else self.tr("The server lists no models; type the model's name.")
        )
        self.models_listed.emit(models)

    def _on_models_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        self.model_field.refresh_button.setEnabled(True)
        if isinstance(exc, OkBotError):
            text = str(exc)
        else:
            text = self.tr("unexpected error ({error})").format(error=type(exc).__name__)
        self.models_status.setText(self.tr("Could not list models: {why}").format(why=text))

    def _on_test_done(self, check: ConnectionCheck) -> None:
        self.test_button.setEnabled(True)
        self.test_button.setText(self.tr("Test connection"))
        self.test_result.setText(("✓ " if check.ok else "⚠ ") + check.message)
        if check.models:
            self.model_field.set_models(list(check.models))
        self.connection_checked.emit(check)

    def _on_test_failed(self, exc: BaseException) -> None:
        self._on_test_done(ConnectionCheck(False, self.tr("The test failed: {error}").format(error=exc)))

    # --------------------------------------------------------------- internals
    def _check_keys(self) -> None:
        settings, keys = self.binder.settings(), self._keys
        self.ctx.tasks.run(
            lambda: (keys.where(), key_status(settings, keys)),
            if_alive(self, self._on_keys_checked),
            if_alive(self, self._on_keys_check_failed),
        )

    def _show_learnt_window(self) -> None:
        config, model = resolve_model(self.binder.settings(), None)
        learnt = self.ctx.sources.windows.get(config.base_url, model)
        self.learnt_window_row.setVisible(learnt is not None)
        if learnt is None:
            self.learnt_window_note.setText("")
            return
        if learnt.prompt_tokens:
            text = self.tr(
                "Learnt from the server: {tokens} tokens (it refused a request of {prompt} tokens on {date}). "
                "OkBot uses the smaller of this and the window above."
            )
        else:
            text = self.tr(
                "Learnt from the server: {tokens} tokens (it refused a longer request on {date}). "
                "OkBot uses the smaller of this and the window above."
            )
        prompt = f"{learnt.prompt_tokens:,}" if learnt.prompt_tokens else ""
        date = _learnt_date(learnt.learnt_at)
        self.learnt_window_note.setText(text.format(tokens=f"{learnt.window:,}", prompt=prompt, date=date))

    def _show_window_note(self) -> None:
        model = self.binder.settings().get("provider.model")
        known = model_facts(model).context_window
        default = setting("model.contextWindow").shown_null_words()
        self.window_note.setText(
            self.tr("“{model}” is known to take {tokens} tokens; “{default}” uses that.").format(
                model=model, tokens=f"{known:,}", default=default
            )
        )

    def _show_slots_note(self) -> None:
        self.slots_note.setText(slots_note(self.binder.settings().get("provider.baseUrl")))
        self.slots_note.setVisible(bool(self.slots_note.text()))


def _learnt_date(learnt_at: str) -> str:
    """The local date of an ISO time (the time itself when it does not read as one)."""
    try:
        return datetime.fromisoformat(learnt_at.replace("Z", "+00:00")).astimezone().date().isoformat()
    except ValueError:
        return learnt_at


def _row(*widgets: QWidget) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget, 1 if isinstance(widget, QLineEdit) else 0)
    layout.addStretch(0 if any(isinstance(w, QLineEdit) for w in widgets) else 1)
    return row
