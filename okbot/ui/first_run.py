"""The first-run panel: shown while no model provider is configured.

It explains what OkBot needs, looks for OpenAI-compatible servers on this computer (Ollama,
LM Studio, llama.cpp, vLLM; ``GET /v1/models`` with a short timeout, each probe a background job
through ``ctx.tasks``), offers the ones that answer, and takes a hosted base URL + key instead.
Nothing here blocks the GUI thread, and the app stays usable for browsing chats meanwhile
("Not now" emits ``skipped``).

When the original (Electron) OkBot's data dir is there and nothing came from it yet
(:func:`okbot.core.import_okbot.pending_import`, asked in the background), a line offers to bring its
assistants over; the import runs as a background job, its report is shown in the panel, and
``imported(report)`` is emitted so the window can list the new assistants.

:meth:`FirstRunPanel.needs_first_run` decides when to show it: see
:func:`okbot.app.provider_setup.provider_configured` — the panel is needed only when the
base URL is a hosted one (not this computer or the local network), the key source is not
``none``, and no key is found in the environment or among the keys OkBot saved.

A typed key is saved through :class:`okbot.llm.keystore.KeyStore`: the system keyring, or where
there is none a file in the data dir only the user can read. The panel says which, and where,
before anything is saved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from okbot.app.provider_setup import (
    DEFAULT_CANDIDATES,
    PROBE_TIMEOUT,
    LocalServerCandidate,
    ProbeResult,
    list_models_at,
    probe_server,
    provider_configured,
    saved_text,
    where_text,
)
from okbot.config.schema import SettingError, setting
from okbot.core.import_okbot import (
    ImportReport,
    apply_settings,
    default_source_dir,
    import_okbot,
    pending_import,
)
from okbot.i18n import QT_TRANSLATE_NOOP, plural
from okbot.llm.key_source import resolve_api_key
from okbot.llm.keys import env_api_key, is_local_url
from okbot.llm.keystore import FILE, KeyStore, KeyStoreError
from okbot.storage.errors import OkBotError
from okbot.ui.settings.page import MessageBanner, NoteLabel, help_label, humanize, if_alive

TITLE = QT_TRANSLATE_NOOP("FirstRunPanel", "Set up a model")
INTRO = QT_TRANSLATE_NOOP(
    "FirstRunPanel",
    "OkBot talks to any OpenAI-compatible model: one running on this computer, or a hosted API "
    "with a key. You can browse your chats while you decide.",
)
HOSTED_DEFAULT_URL = "https://api.openai.com/v1"
PANEL_WIDTH = 640


class _ServerRow(QFrame):
    """One local server that answered: its name, address, models and a Use button."""

    def __init__(self, result: ProbeResult, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result = result
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        name = QLabel(f"<b>{result.candidate.name}</b> · {result.candidate.base_url}")
        name.setTextFormat(Qt.TextFormat.RichText)
        if result.needs_key:
            detail = self.tr("Answers, but wants an API key: use it below with its key.")
        else:
            count = len(result.models)
            shown = ", ".join(result.models[:3]) + (" …" if count > 3 else "")
            detail = (
                plural(count, self.tr("{n} model: {models}"), self.tr("{n} models: {models}")).format(
                    n=count, models=shown
                )
                if count
                else self.tr("No models loaded yet.")
            )
        self.detail = help_label(detail)
        self.use_button = QPushButton(self.tr("Use with key…") if result.needs_key else self.tr("Use"))
        text = QVBoxLayout()
        text.setSpacing(2)
        text.addWidget(name)
        text.addWidget(self.detail)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addLayout(text, 1)
        layout.addWidget(self.use_button, 0, Qt.AlignmentFlag.AlignVCenter)


class FirstRunPanel(QWidget):
    """A friendly panel shown instead of the chat while no provider is configured.

    Signals: ``configured()`` once a local server or a hosted API was set up (settings saved);
    ``skipped()`` when the user chose to browse without a provider; ``probe_finished(list)``
    with the :class:`ProbeResult` of every candidate once all answered.
    ``candidates`` and ``probe_timeout`` are injectable (tests point them at the fake server and a
    closed port); ``keys`` is where a typed API key is saved (the keyring, else the 0600 key file).
    """

    configured = Signal()
    skipped = Signal()
    probe_finished = Signal(list)
    imported = Signal(object)  # the ImportReport once assistants were brought over from the original OkBot

    def __init__(
        self,
        ctx: Any,
        parent: QWidget | None = None,
        *,
        candidates: Sequence[LocalServerCandidate] = DEFAULT_CANDIDATES,
        probe_timeout: float = PROBE_TIMEOUT,
        keys: KeyStore | None = None,
        okbot_dir: Path | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._okbot_dir = okbot_dir or default_source_dir()
        self._candidates = tuple(candidates)
        self._probe_timeout = probe_timeout
        self._keys = keys or KeyStore()
        self._generation = 0
        self._results: list[ProbeResult] = []
        self._rows: list[_ServerRow] = []
        self._build()
        self._check_keys()
        self.scan()
        self._check_import()

    @staticmethod
    def needs_first_run(settings: Any, find_key: Callable[[str], str | None] = resolve_api_key) -> bool:
        """True when no provider is usable: a hosted base URL, a key source other than ``none``, and no key.

        ``find_key(key_source)`` may read the system keyring (it can block on an unlock prompt);
        call this off the GUI thread.
        """
        return not provider_configured(settings, find_key)

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        title = QLabel(QCoreApplication.translate("FirstRunPanel", TITLE))
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.7)
        font.setBold(True)
        title.setFont(font)
        intro = QLabel(QCoreApplication.translate("FirstRunPanel", INTRO))
        intro.setWordWrap(True)
        self.banner = MessageBanner(self)

        self.scan_status = QLabel()
        self.scan_status.setWordWrap(True)
        self.rows_box = QVBoxLayout()
        self.rows_box.setSpacing(6)
        self.scan_button = QPushButton(self.tr("Look again"))
        self.scan_button.clicked.connect(self._on_scan_button_clicked)

        self.url_edit = QLineEdit()
        current = self.ctx.settings.get("provider.baseUrl")
        self.url_edit.setText(current if not is_local_url(current) else HOSTED_DEFAULT_URL)
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("sk-…"))
        self.key_edit.setEnabled(False)
        self.key_note = help_label(self.tr("Checking for a system keyring…"))
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setEditText(self.ctx.settings.get("provider.model"))
        self.url_edit.textEdited.connect(self._on_url_edit_text_edited)
        self.connect_button = QPushButton(self.tr("Connect"))
        self.connect_button.setDefault(True)
        self.connect_button.clicked.connect(self._on_connect_button_clicked)
        self.connect_status = NoteLabel()
        self.connect_status.setWordWrap(True)

        self.import_label = QLabel()
        self.import_label.setWordWrap(True)
        self.import_button = QPushButton(self.tr("Bring them over"))
        self.import_button.clicked.connect(self._on_import_button_clicked)
        self.import_report = NoteLabel()
        self.import_report.setWordWrap(True)
        self.import_report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.import_report.hide()
        self.import_row = QWidget()
        import_line = QHBoxLayout(self.import_row)
        import_line.setContentsMargins(0, 0, 0, 0)
        import_line.addWidget(self.import_label, 1)
        import_line.addWidget(self.import_button)
        self.import_row.hide()

        self.skip_button = QPushButton(self.tr("Not now — browse my chats"))
        self.skip_button.setFlat(True)
        self.skip_button.clicked.connect(self._on_skip_button_clicked)

        local_head = QHBoxLayout()
        local_head.addWidget(_heading(self.tr("On this computer")), 1)
        local_head.addWidget(self.scan_button)
        hosted_form = QFormLayout()
        hosted_form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        hosted_form.addRow(self.tr("Base URL:"), self.url_edit)
        key_column = QVBoxLayout()
        key_column.setSpacing(2)
        key_column.addWidget(self.key_edit)
        key_column.addWidget(self.key_note)
        hosted_form.addRow(self.tr("API key:"), key_column)
        hosted_form.addRow(self.tr("Model:"), self.model_combo)
        connect_row = QHBoxLayout()
        connect_row.addWidget(self.connect_button)
        connect_row.addWidget(self.connect_status, 1)
        connect_row.addStretch()  # holds the room while the status line is hidden: the button keeps its size
        hosted_form.addRow("", connect_row)

        card = QWidget()
        card.setMaximumWidth(PANEL_WIDTH)
        column = QVBoxLayout(card)
        column.setSpacing(10)
        column.addWidget(title)
        column.addWidget(intro)
        column.addWidget(self.banner)
        column.addWidget(self.import_row)
        column.addWidget(self.import_report)
        column.addSpacing(8)
        column.addLayout(local_head)
        column.addWidget(self.scan_status)
        column.addLayout(self.rows_box)
        column.addSpacing(12)
        column.addWidget(_heading(self.tr("A hosted API")))
        column.addWidget(
            help_label(self.tr("OpenAI or any OpenAI-compatible service: its base URL, your key and a model."))
        )
        column.addLayout(hosted_form)
        column.addSpacing(12)
        column.addWidget(self.skip_button, 0, Qt.AlignmentFlag.AlignLeft)

        page = QWidget()
        centred = QHBoxLayout(page)
        centred.setContentsMargins(32, 32, 32, 32)
        centred.addStretch(1)
        wrapper = QVBoxLayout()
        wrapper.addWidget(card)
        wrapper.addStretch(1)
        centred.addLayout(wrapper, 6)
        centred.addStretch(1)
        scroll = QScrollArea(self)  # a small window scrolls the panel instead of squeezing its fields
        scroll.setObjectName("firstRunScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(page)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    # ------------------------------------------------------------------ public
    def scan(self) -> None:
        """Probe every candidate in the background; rows appear as servers answer."""
        self._generation += 1
        generation = self._generation
        self._results = []
        for row in self._rows:
            row.deleteLater()
        self._rows = []
        names = ", ".join(c.name for c in self._candidates)
        self.scan_status.setText(self.tr("Looking for {names}…").format(names=names))
        self.scan_button.setEnabled(False)
        timeout = self._probe_timeout
        for candidate in self._candidates:
            self.ctx.tasks.run(
                lambda c=candidate: probe_server(c, timeout),
                if_alive(self, lambda result, g=generation: self._on_probe_done(g, result)),
                if_alive(
                    self,
                    lambda exc, c=candidate, g=generation: self._on_probe_done(
                        g, ProbeResult(c, False, problem=type(exc).__name__)
                    ),
                ),
            )
        if not self._candidates:
            self._finish_scan()

    def found_servers(self) -> list[ProbeResult]:
        """The candidates that answered so far (in the order they were listed)."""
        order = {c: i for i, c in enumerate(self._candidates)}
        return sorted((r for r in self._results if r.found), key=lambda r: order[r.candidate])

    def server_rows(self) -> list[_ServerRow]:
        return list(self._rows)

    def use_server(self, result: ProbeResult) -> None:
        """Save ``result``'s server as the provider (no key) and emit ``configured``."""
        settings = self.ctx.settings
        model = settings.get("provider.model")
        try:
            settings.set("provider.baseUrl", result.candidate.base_url)
            settings.set("provider.keySource", "none")
            if result.models and model not in result.models:
                settings.set("provider.model", result.models[0])
        except SettingError as exc:
            self.banner.show_text(humanize(str(exc)), error=True)
            return
        self.configured.emit()

    def connect_hosted(self) -> None:
        """Check the typed base URL + key in the background; on success save them and emit ``configured``."""
        try:
            url = setting("provider.baseUrl").validate(self.url_edit.text())
            model = setting("provider.model").validate(self.model_combo.currentText())
        except SettingError as exc:
            self.banner.show_text(humanize(str(exc)), error=True)
            return
        typed = self.key_edit.text().strip()
        key = typed or env_api_key()
        if not key and not is_local_url(url):
            self.banner.show_text(self.tr("Paste your API key: a hosted API needs one."), error=True)
            return
        keys, keep = self._keys, bool(typed)

        def job() -> tuple[list[str], str]:
            models = list_models_at(url, key)
            where = keys.save(typed) if keep else ""  # only a key the server accepted is kept
            return models, where

        self.banner.clear()
        self.connect_button.setEnabled(False)
        self.connect_status.setText(self.tr("Connecting to {url}…").format(url=url))
        self.ctx.tasks.run(
            job,
            if_alive(self, lambda out: self._on_hosted_done(url, model, keep, out)),
            if_alive(self, self._on_hosted_failed),
        )

    def start_import(self) -> None:
        """Bring assistants, squads and chats over from the original OkBot in the background; show the report."""
        source, workspace = self._okbot_dir, self.ctx.workspace
        self.import_button.setEnabled(False)
        self.import_label.setText(self.tr("Bringing your assistants over from {path}…").format(path=source))
        self.ctx.tasks.run(
            lambda: import_okbot(source, workspace),
            if_alive(self, self._on_import_done),
            if_alive(self, self._on_import_failed),
        )

    # ------------------------------------------------------------------ slots
    def _on_import_button_clicked(self) -> None:
        self.start_import()

    def _on_import_checked(self, found: bool) -> None:
        if found:
            self.import_label.setText(self._import_offer())
            self.import_row.show()

    def _on_import_done(self, report: ImportReport) -> None:
        apply_settings(report, self.ctx.settings, self.ctx.workspace)  # here: settings notify the widgets
        self.import_row.hide()
        self.import_report.setText(report.text())
        self.import_report.show()
        self.imported.emit(report)

    def _on_import_failed(self, exc: BaseException) -> None:
        self.import_label.setText(self._import_offer())
        self.import_button.setEnabled(True)
        self.banner.show_text(humanize(str(exc)), error=True)

    def _on_scan_button_clicked(self) -> None:
        self.scan()

    def _on_connect_button_clicked(self) -> None:
        self.connect_hosted()

    def _on_url_edit_text_edited(self, _text: str) -> None:
        if self.banner.is_error:  # it was about the URL being replaced
            self.banner.clear()

    def _on_skip_button_clicked(self) -> None:
        self.skipped.emit()

    def _on_probe_done(self, generation: int, result: ProbeResult) -> None:
        if generation != self._generation:
            return  # an older scan
        self._results.append(result)
        if result.found:
            self._add_row(result)
        if len(self._results) == len(self._candidates):
            self._finish_scan()

    def _on_row_use_clicked(self, result: ProbeResult) -> None:
        if result.needs_key:
            self.url_edit.setText(result.candidate.base_url)
            self.key_edit.setFocus()
            return
        self.use_server(result)

    def _on_keys_checked(self, state: tuple[str, str]) -> None:
        where, problem = state
        if problem:  # e.g. a key file others can read, which was not used
            self.banner.show_text(problem, error=True)
        self.key_edit.setEnabled(True)
        note = where_text(where, self._keys.key_file)
        if env_api_key():
            note += " " + self.tr("Leave it empty to use the key in OKBOT_API_KEY / OPENAI_API_KEY.")
        self.key_note.setText(note)

    def _on_hosted_done(self, url: str, model: str, typed: bool, out: tuple[list[str], str]) -> None:
        models, where = out
        self.connect_button.setEnabled(True)
        self.model_combo.clear()
        self.model_combo.addItems(models)
        if models and model not in models:
            self.model_combo.setEditText(model)
            self.connect_status.setText(
                self.tr("Connected, but the server does not list “{model}”. Pick one of its models.").format(
                    model=model
                )
            )
            return
        settings = self.ctx.settings
        try:
            settings.set("provider.baseUrl", url)
            settings.set("provider.keySource", "keyring" if typed else "env")
            settings.set("provider.model", model)
        except SettingError as exc:
            self.banner.show_text(humanize(str(exc)), error=True)
            return
        self.key_edit.clear()
        self.connect_status.setText(
            self.tr("✓ Connected.") + (f" {saved_text(where, self._keys.key_file)}" if where else "")
        )
        self.configured.emit()

    def _on_hosted_failed(self, exc: BaseException) -> None:
        self.connect_button.setEnabled(True)
        self.connect_status.clear()
        if isinstance(exc, KeyStoreError):  # the server took the key; keeping it failed
            self.banner.show_text(self.tr("The key works, but it was not saved: {error}").format(error=exc), error=True)
            return
        text = (
            str(exc)
            if isinstance(exc, OkBotError)
            else self.tr("unexpected error ({kind})").format(kind=type(exc).__name__)
        )
        self.banner.show_text(self.tr("Could not connect: {error}").format(error=text), error=True)

    # --------------------------------------------------------------- internals
    def _check_keys(self) -> None:
        keys = self._keys

        def check() -> tuple[str, str]:
            where = keys.where()
            keys.get()  # sets keys.problem when a saved key could not be used
            return where, keys.problem

        self.ctx.tasks.run(
            check,
            if_alive(self, self._on_keys_checked),
            if_alive(self, lambda _exc: self._on_keys_checked((FILE, ""))),
        )

    def _check_import(self) -> None:
        """Offer the import when the original's data dir is there and nothing came from it yet (asked off the GUI
        thread)."""
        source, workspace = self._okbot_dir, self.ctx.workspace
        self.ctx.tasks.run(lambda: pending_import(source, workspace), if_alive(self, self._on_import_checked))

    def _import_offer(self) -> str:
        return self.tr("Bring over your assistants from OkBot (found at {path})").format(path=self._okbot_dir)

    def _add_row(self, result: ProbeResult) -> None:
        row = _ServerRow(result, self)
        row.use_button.clicked.connect(lambda _checked=False, r=result: self._on_row_use_clicked(r))
        found = self.found_servers()
        self._rows.insert(found.index(result), row)
        self.rows_box.insertWidget(found.index(result), row)

    def _finish_scan(self) -> None:
        self.scan_button.setEnabled(True)
        found = self.found_servers()
        if found:
            count = len(found)
            self.scan_status.setText(
                plural(
                    count, self.tr("Found {n} server running here."), self.tr("Found {n} servers running here.")
                ).format(n=count)
            )
        else:
            names = ", ".join(c.name for c in self._candidates)
            self.scan_status.setText(
                self.tr(
                    "No local server is running ({names} checked). Start one and look again, or use a hosted API below."
                ).format(names=names)
            )
        self.probe_finished.emit(list(self._results))


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.1)
    label.setFont(font)
    return label
