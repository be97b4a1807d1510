"""Settings → Tools: the declared tool settings, and in *Web search* the key of the chosen search service.

The service, the SearXNG URL, the results per search and the approval are declared settings (saved in
settings.json like every other); the key is not a setting: it goes to the key store (the system keyring, or
the 0600 key file) under the service's name, through ``ctx.tasks`` (a keyring may block). The key row shows
only for a service that takes a key, the SearXNG URL only for SearXNG.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QWidget

from okbot.app.provider_setup import saved_text, where_text
from okbot.config.schema import SECTIONS, SETTINGS, TOOLS_PAGE, WEB_SEARCH
from okbot.core.local_tools.web.search_providers import SERVICES
from okbot.core.local_tools.web.search_setup import delete_key, has_key, key_changed, save_key
from okbot.llm.keystore import KeyStore
from okbot.storage.errors import OkBotError
from okbot.ui.settings.fields import ProblemLabel
from okbot.ui.settings.page import SettingsPage, help_label, if_alive

PROVIDER_KEY = "webSearch.provider"
URL_KEY = "webSearch.searxngUrl"


class ToolsPage(SettingsPage):
    """The Tools page: its declared sections, with a key row for the chosen web search service."""

    def __init__(self, ctx: Any, keys: KeyStore | None = None, parent: QWidget | None = None) -> None:
        super().__init__(ctx, TOOLS_PAGE, parent)
        self._keys = keys or KeyStore()
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setEnabled(False)  # until the background check says where a key would be kept
        self.key_edit.returnPressed.connect(self._on_save_key_clicked)
        self.key_edit.textEdited.connect(self._on_key_edit_text_edited)
        self.save_key_button = QPushButton(self.tr("Save key"))
        self.save_key_button.clicked.connect(self._on_save_key_clicked)
        self.remove_key_button = QPushButton(self.tr("Remove key"))
        self.remove_key_button.clicked.connect(self._on_remove_key_clicked)
        self.key_problem = ProblemLabel()
        self.key_status = help_label("")
        self.key_help = help_label("")
        self._forms = {}
        for section in SECTIONS:
            if section.page != TOOLS_PAGE:
                continue
            form = self._forms[section] = self.add_section(section.shown_heading(), section.shown_description())
            for spec in SETTINGS:
                if spec.section == section:
                    self.add_setting(form, spec.key)
                if spec.section == section and spec.key == PROVIDER_KEY:
                    self._key_row = self.add_row(
                        form,
                        self.tr("API key:"),
                        _row(self.key_edit, self.save_key_button, self.remove_key_button),
                        self.key_problem,
                        self.key_status,
                        self.key_help,
                        buddy=self.key_edit,
                    ).parentWidget()
        self.finish()
        self.binder.changed.connect(self._on_binder_changed_search)
        self._show_service()

    # ------------------------------------------------------------------ public
    def service(self) -> str:
        """The chosen search service's id ("off" when none)."""
        return str(self.binder.settings().get(PROVIDER_KEY))

    # ------------------------------------------------------------------ slots
    def _on_binder_changed_search(self, key: str) -> None:
        if key in (PROVIDER_KEY, URL_KEY):
            self._show_service()

    def _on_save_key_clicked(self) -> None:
        key = self.key_edit.text().strip()
        if not key:
            self.key_problem.show_problem(self.tr("Paste a key first."))
            return
        keys, service = self._keys, self.service()
        self.save_key_button.setEnabled(False)
        self.ctx.tasks.run(
            lambda: save_key(keys, service, key),
            if_alive(self, self._on_key_stored),
            if_alive(self, self._on_key_store_failed),
        )

    def _on_key_stored(self, where: str) -> None:
        self.save_key_button.setEnabled(True)
        self.key_problem.show_problem("")
        self.key_edit.clear()
        self.show_message(saved_text(where, self._keys.key_file), error=False)
        self._check_key()

    def _on_key_store_failed(self, exc: BaseException) -> None:
        self.save_key_button.setEnabled(True)
        text = str(exc) if isinstance(exc, OkBotError) else type(exc).__name__  # never the key itself
        self.key_problem.show_problem(self.tr("The key was not saved: {why}").format(why=text))

    def _on_remove_key_clicked(self) -> None:
        keys, service = self._keys, self.service()
        self.remove_key_button.setEnabled(False)
        self.ctx.tasks.run(
            lambda: delete_key(keys, service),
            if_alive(self, lambda _none: self._check_key()),
            if_alive(self, self._on_key_store_failed),
        )

    def _on_key_edit_text_edited(self, _text: str) -> None:
        self.key_problem.show_problem("")

    def _on_key_checked(self, state: tuple[str, str, bool]) -> None:
        service, where, present = state
        if service != self.service():
            return  # the choice changed meanwhile: its own check follows
        name = SERVICES[service].name
        self.key_edit.setEnabled(True)
        self.save_key_button.setEnabled(True)
        self.remove_key_button.setEnabled(present)
        self.key_edit.setPlaceholderText(self.tr("Paste the {service} API key to save it").format(service=name))
        self.key_help.setText(where_text(where, self._keys.key_file))
        if present:
            self.key_status.setText(
                self.tr("A key for {service} is saved; assistants can search.").format(service=name)
            )
        else:
            self.key_status.setText(
                self.tr("No key for {service} yet: web search stays off until you save one.").format(service=name)
            )

    def _on_key_check_failed(self, exc: BaseException) -> None:
        self.key_status.setText(self.tr("Could not check for a key: {error}").format(error=type(exc).__name__))

    # --------------------------------------------------------------- internals
    def _show_service(self) -> None:
        service = SERVICES.get(self.service())
        form = self._forms[WEB_SEARCH]
        self._set_row_visible(form, self._key_row, service is not None and service.needs_key)
        url_field = self.field(URL_KEY)
        self._set_row_visible(form, url_field.column.parentWidget(), service is not None and not service.needs_key)
        if service is not None and service.needs_key:
            self.key_edit.setEnabled(False)
            self.remove_key_button.setEnabled(False)
            self._check_key()

    @staticmethod
    def _set_row_visible(form: Any, column: QWidget, visible: bool) -> None:
        row = form.getWidgetPosition(column)[0]
        if row >= 0:
            form.setRowVisible(row, visible)

    def _check_key(self) -> None:
        keys, service = self._keys, self.service()
        if service not in SERVICES or not SERVICES[service].needs_key:
            return
        key_changed()  # what is saved now, not what an earlier offer remembered

        def job() -> tuple[str, str, bool]:
            return service, keys.where(), has_key(keys, service)

        self.ctx.tasks.run(job, if_alive(self, self._on_key_checked), if_alive(self, self._on_key_check_failed))


def _row(*widgets: QWidget) -> QWidget:
    """``widgets`` side by side, the first one stretching."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(6)
    for n, widget in enumerate(widgets):
        layout.addWidget(widget, 1 if n == 0 else 0)
    return row
