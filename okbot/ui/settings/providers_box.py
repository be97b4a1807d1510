"""Settings → Models → Other providers: the servers besides the default, added, changed and removed.

The list shows each provider's name, base URL and where its key is read from (never the key). A key
pasted here goes to the keyring (or the 0600 key file) under the provider's name, in the background;
listing a provider's models runs in the background too, and the list is remembered in settings.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from okbot.config.providers import (
    DEFAULT_PROVIDER,
    KEY_SOURCES,
    MAX_SLOTS,
    ProviderConfig,
    check_base_url,
    parse_windows,
)
from okbot.config.schema import setting
from okbot.i18n import plural, translate
from okbot.llm.keys import is_local_url
from okbot.storage.errors import OkBotError
from okbot.storage.redaction import redact_url
from okbot.ui.settings.page import help_label, if_alive


def provider_line(config: ProviderConfig, saved_in: str = "keyring") -> str:
    """One provider as the list shows it."""
    models = ""
    if config.models:
        n = len(config.models)
        models = plural(
            n,
            QCoreApplication.translate("ProvidersBox", " — {n} model"),
            QCoreApplication.translate("ProvidersBox", " — {n} models"),
        ).format(n=n)
    return QCoreApplication.translate("ProvidersBox", "{name} — {url} — key: {key}{models}").format(
        name=config.name, url=redact_url(config.base_url), key=config.key_where(saved_in), models=models
    )


def slots_note(base_url: str) -> str:
    """What this run of OkBot learnt about the slots of the server at ``base_url`` ("" when nothing)."""
    from okbot.llm.slots import LEARNT_WHY, state_of

    state = state_of(base_url)
    if state is None or state.learnt is None:
        return ""
    return QCoreApplication.translate("ProvidersBox", "Sending {n} at a time: {why}").format(
        n=state.slots, why=translate("slots", LEARNT_WHY)
    )


class ProvidersBox(QWidget):
    """The other providers: a list, the selected one's fields, Add or update, Remove, List models.

    ``settings()`` gives the live settings; ``workspace`` says who uses a provider; ``keys`` keeps keys.
    ``changed(str)`` fires with a provider's name after it was added, changed, removed or its models listed.
    """

    changed = Signal(str)

    def __init__(self, ctx: Any, settings: Any, keys: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx, self._settings, self._keys = ctx, settings, keys
        self._saved_in = "keyring"  # where a saved key is kept here, once the page has asked (off the GUI thread)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget()
        self.list.setObjectName("providerList")
        self.list.setMaximumHeight(110)
        self.list.currentRowChanged.connect(self._on_list_current_row_changed)
        layout.addWidget(self.list)
        self.empty_label = help_label(
            self.tr(
                "No other providers yet. Fill in a name and a base URL below and press Add or update; "
                "an assistant then picks its models as provider/model."
            )
        )
        self.empty_label.setObjectName("providerListEmpty")
        layout.addWidget(self.empty_label)
        form = QFormLayout()
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("e.g. openrouter"))
        self.name_edit.textEdited.connect(self._on_name_edit_text_edited)
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("https://openrouter.ai/api/v1")
        self.url_edit.textEdited.connect(self._on_url_edit_text_edited)
        self.source_combo = QComboBox()
        self.source_combo.activated.connect(self._on_source_combo_activated)
        self._source_chosen = False  # the user picked a key source: a typed URL no longer changes it
        key_source = setting("provider.keySource")
        for source in KEY_SOURCES:
            self.source_combo.addItem(key_source.shown_choice(source), source)
        self.env_edit = QLineEdit()
        self.env_edit.setPlaceholderText(self.tr("OKBOT_API_KEY or OPENAI_API_KEY when empty"))
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("Paste a key to keep it in the keyring"))
        self.windows_edit = QLineEdit()
        self.windows_edit.setObjectName("providerWindows")
        self.windows_edit.setPlaceholderText(
            self.tr("model=tokens, e.g. llama3.1:8b=32768 (empty: the model's known window)")
        )
        form.addRow(self.tr("Name:"), self.name_edit)
        form.addRow(self.tr("Base URL:"), self.url_edit)
        form.addRow(self.tr("Key from:"), self.source_combo)
        form.addRow(self.tr("Variable:"), self.env_edit)
        form.addRow(self.tr("API key:"), self.key_edit)
        self.slots_spin = QSpinBox()
        self.slots_spin.setObjectName("providerSlots")
        self.slots_spin.setRange(0, MAX_SLOTS)
        self.slots_spin.setSpecialValueText(self.tr("Automatic"))  # 0: 1 on this computer, 4 hosted
        self.slots_spin.setToolTip(setting("provider.slots").shown_description())
        self.slots_note = help_label("")
        self.slots_note.setObjectName("providerSlotsNote")
        self.slots_note.hide()  # until this run learnt something about the server
        form.addRow(self.tr("Context windows:"), self.windows_edit)
        form.addRow(self.tr("Parallel requests:"), self.slots_spin)
        form.addRow("", self.slots_note)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add or update"))
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.models_button = QPushButton(self.tr("List models"))
        self.models_button.clicked.connect(self._on_models_button_clicked)
        for button in (self.add_button, self.remove_button, self.models_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.status = help_label("")
        layout.addWidget(self.status)
        self.refresh()

    # ------------------------------------------------------------------ public
    def others(self) -> list[ProviderConfig]:
        """The providers listed here (all but the default)."""
        return [p for p in self._settings().providers.all() if p.name != DEFAULT_PROVIDER]

    def set_saved_in(self, where: str) -> None:
        """Where saved keys are kept on this machine (``keyring``, or ``file`` without a system keyring)."""
        if where != self._saved_in:
            self._saved_in = where
            self.refresh()

    def refresh(self) -> None:
        """Show the providers as settings have them now, keeping the selection by name."""
        keep = self.name_edit.text().strip()
        others = self.others()
        names = [p.name for p in others]
        self.list.blockSignals(True)  # the form already shows the kept one; re-selecting it must not clear the status
        try:
            self.list.clear()
            for config in others:
                self.list.addItem(provider_line(config, self._saved_in))
            if keep in names:
                self.list.setCurrentRow(names.index(keep))
        finally:
            self.list.blockSignals(False)
        self.list.setHidden(not others)
        self.empty_label.setHidden(bool(others))

    def selected(self) -> ProviderConfig | None:
        row = self.list.currentRow()
        others = self.others()
        return others[row] if 0 <= row < len(others) else None

    # ------------------------------------------------------------------ slots
    def _on_list_current_row_changed(self, _row: int) -> None:
        config = self.selected()
        if config is None:
            return
        self.name_edit.setText(config.name)
        self.url_edit.setText(config.base_url)
        self.source_combo.setCurrentIndex(KEY_SOURCES.index(config.key_source))
        self.env_edit.setText(config.key_env)
        self.windows_edit.setText(", ".join(f"{model}={tokens}" for model, tokens in config.context_windows.items()))
        self.slots_spin.setValue(config.slots or 0)
        self.slots_note.setText(slots_note(config.base_url))
        self.slots_note.setVisible(bool(self.slots_note.text()))
        self.key_edit.clear()
        self.status.setText("")
        self._source_chosen = True  # a saved provider's key source is a choice already made

    def _on_name_edit_text_edited(self, text: str) -> None:
        if text.strip() not in {p.name for p in self.others()}:  # a new provider: its key source not chosen yet
            self._source_chosen = False

    def _on_source_combo_activated(self, _index: int) -> None:
        self._source_chosen = True

    def _on_url_edit_text_edited(self, text: str) -> None:
        """Until the user picks a key source, it follows the URL: a server on this computer or the local
        network needs no key, a hosted one reads it from the environment."""
        if self._source_chosen or self.key_edit.text().strip():
            return
        local = is_local_url(text.strip())
        self.source_combo.setCurrentIndex(KEY_SOURCES.index("none" if local else "env"))

    def _on_add_button_clicked(self) -> None:
        name, key = self.name_edit.text().strip(), self.key_edit.text().strip()
        source = self.source_combo.currentData()
        if key and source != "keyring":
            source = "keyring"  # a pasted key is kept in the keyring: read it from there
            self.source_combo.setCurrentIndex(KEY_SOURCES.index(source))
        env = self.env_edit.text().strip() if source == "env" else ""
        settings = self._settings()
        try:
            old = settings.providers.get(name) if name in {p.name for p in self.others()} else None
            url = check_base_url(
                self.url_edit.text(), hint=self.tr("give the URL without it and paste the key in the API key field")
            )
            same = old is not None and old.base_url == url  # same server: keep what it listed
            windows = parse_windows([w for w in self.windows_edit.text().split(",") if w.strip()])
            slots = self.slots_spin.value() or None
            settings.providers.add(ProviderConfig(name, url, source, env, old.models if same else (), windows, slots))
        except OkBotError as exc:
            self.status.setText(f"⚠ {exc}")
            return
        self.status.setText(self.tr("Saved provider {name}.").format(name=name))
        self.refresh()
        self.changed.emit(name)
        if key:
            self.key_edit.clear()
            keys, ctx = self._keys, self.ctx

            def save() -> str:
                where = keys.save(key, name)
                ctx.key_changed(name)  # the next request to it reads the new key
                return where

            self.ctx.tasks.run(
                save,
                if_alive(
                    self,
                    lambda where: self.status.setText(
                        self.tr("Saved provider {name}; its key is in {where}.").format(name=name, where=where)
                    ),
                ),
                if_alive(
                    self,
                    lambda exc: self.status.setText(self.tr("⚠ The key was not saved: {why}").format(why=_words(exc))),
                ),
            )

    def _on_remove_button_clicked(self) -> None:
        from okbot.core.provider_use import provider_users

        config = self.selected()
        if config is None:
            self.status.setText(self.tr("Pick a provider in the list first."))
            return
        settings = self._settings()
        users = provider_users(settings, self.ctx.workspace, config.name, ids=False)
        if users:
            self.status.setText(
                self.tr("⚠ {name} is in use by {users}; give them another model first.").format(
                    name=config.name, users=self.tr(", ").join(users)
                )
            )
            return
        try:
            settings.providers.remove(config.name)
        except OkBotError as exc:
            self.status.setText(f"⚠ {exc}")
            return
        self.name_edit.clear()
        self.status.setText(self.tr("Removed provider {name}.").format(name=config.name))
        self.refresh()
        self.changed.emit(config.name)
        if config.key_source == "keyring":
            keys, ctx, name = self._keys, self.ctx, config.name

            def delete() -> None:
                keys.delete(name)
                ctx.key_changed(name)

            self.ctx.tasks.run(delete, lambda _none: None, lambda _exc: None)

    def _on_models_button_clicked(self) -> None:
        from okbot.llm.providers import build_backend

        config = self.selected()
        if config is None:
            self.status.setText(self.tr("Pick a provider in the list first."))
            return
        settings = self._settings()

        def job() -> list[str]:
            from okbot.llm.slots import listed_models

            backend = build_backend(settings, config, timeout=10.0, max_retries=0)
            try:
                return listed_models(backend)
            finally:
                backend.close()

        self.models_button.setEnabled(False)
        self.status.setText(self.tr("Asking {name} for its models…").format(name=config.name))
        self.ctx.tasks.run(
            job,
            if_alive(self, lambda models: self._on_models_listed(config.name, models)),
            if_alive(self, self._on_models_failed),
        )

    def _on_models_listed(self, name: str, models: list[str]) -> None:
        self.models_button.setEnabled(True)
        try:
            self._settings().providers.set_models(name, models)
        except OkBotError as exc:
            self.status.setText(f"⚠ {exc}")
            return
        count = len(models)
        self.status.setText(
            plural(
                count, self.tr("{name}: {n} model on this server."), self.tr("{name}: {n} models on this server.")
            ).format(name=name, n=count)
        )
        self.refresh()
        self.changed.emit(name)

    def _on_models_failed(self, exc: BaseException) -> None:
        self.models_button.setEnabled(True)
        self.status.setText(self.tr("⚠ Could not list models: {why}").format(why=_words(exc)))


def _words(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, OkBotError) else type(exc).__name__  # never a key
