"""Settings → MCP servers: the declared servers, their state and tools, added, edited, removed.

The list shows each server's state (running, failed, not started) and how many tools it offered. The
selected one shows how it is reached (its env and header *names*, never their values), what its tool
calls need, why it failed, and each tool with its description and what had to be simplified in its
schema for providers. Everything that may block (starting a server, the keyring) runs through
``ctx.tasks``; the hub's reports arrive on its own thread and are relayed here as a queued signal.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from okbot.config.mcp import APPROVALS, MCP_KEY, McpServerConfig
from okbot.config.schema import APPROVAL_WORDS, shown_text
from okbot.i18n import QT_TRANSLATE_NOOP, plural
from okbot.mcp import secrets as mcp_secrets
from okbot.mcp.hub import FAILED, IDLE, RUNNING, STARTING, STOPPED, McpTool, ServerState
from okbot.mcp.secrets import ServerSecrets
from okbot.storage.errors import OkBotError
from okbot.ui.settings.mcp_form import KEPT, McpForm, McpFormResult
from okbot.ui.settings.page import help_label, if_alive
from okbot.ui.settings_relay import subscribe_weakly

MASK = "•••"
# The hub's states (values compared in code) in words.
STATE_WORDS = {
    IDLE: QT_TRANSLATE_NOOP("McpBox", "not started"),
    STARTING: QT_TRANSLATE_NOOP("McpBox", "starting"),
    RUNNING: QT_TRANSLATE_NOOP("McpBox", "running"),
    FAILED: QT_TRANSLATE_NOOP("McpBox", "failed"),
    STOPPED: QT_TRANSLATE_NOOP("McpBox", "stopped"),
}


def state_words(state: str) -> str:
    """A server state as the page shows it."""
    return QCoreApplication.translate("McpBox", STATE_WORDS.get(state, state))


def server_line(config: McpServerConfig, state: ServerState) -> str:
    """One server as the list shows it: name, state, tool count."""
    tools = ""
    if state.state == RUNNING or state.tools:
        tools = plural(
            state.tools,
            QCoreApplication.translate("McpBox", " — {n} tool"),
            QCoreApplication.translate("McpBox", " — {n} tools"),
        ).format(n=state.tools)
    return f"{config.name} — {state_words(state.state)}{tools}"


def tools_html(tools: list[McpTool], config: McpServerConfig) -> str:
    """Each tool: its name, its own approval when it has one, its description and the simplification notes."""
    rows = []
    for tool in tools:
        own = config.tool_approval.get(tool.name)
        mark = f" <i>({shown_text(APPROVAL_WORDS[own]).lower()})</i>" if own else ""
        text = f"<b>{html.escape(tool.name)}</b>{mark}"
        if tool.description:
            text += f" — {html.escape(tool.description)}"
        for note in tool.notes:
            simplified = QCoreApplication.translate("McpBox", "⚠ simplified for the model: {note}")
            text += "<br>&nbsp;&nbsp;" + simplified.format(note=html.escape(note))
        rows.append(text)
    return "<br>".join(rows)


class McpBox(QWidget):
    """The MCP servers: a list, the selected one's details, Add…, Edit…, Remove, Check / Restart.

    ``settings()`` gives the live settings, ``keys`` keeps the env and header values; ``form`` is the
    Add… / Edit… form while it is open.
    """

    hub_reported = Signal(str)  # a server's state or tools changed (emitted on the hub's thread)
    settings_reported = Signal(str)

    def __init__(self, ctx: Any, settings: Any, keys: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx, self._settings, self._keys = ctx, settings, keys
        self.hub = ctx.sources.mcp
        self._busy = False  # a server is being started from here: Check waits
        self.form: McpForm | None = None  # the Add… or Edit… form while it is open
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget(objectName="mcpList")
        self.list.setMaximumHeight(110)
        self.list.currentRowChanged.connect(self._on_list_current_row_changed)
        layout.addWidget(self.list)
        self.empty_note = help_label(self.tr("No MCP servers yet. Add one to give your assistants its tools."))
        layout.addWidget(self.empty_note)

        buttons = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add…"))
        self.edit_button = QPushButton(self.tr("Edit…"))
        self.remove_button = QPushButton(self.tr("Remove"))
        self.check_button = QPushButton(self.tr("Check"))
        self.check_button.setToolTip(self.tr("Start the server (again) and read its tools"))
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.edit_button.clicked.connect(self._on_edit_button_clicked)
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.check_button.clicked.connect(self._on_check_button_clicked)
        for button in (self.add_button, self.edit_button, self.remove_button, self.check_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.status = help_label("")
        layout.addWidget(self.status)

        self.details = QWidget(objectName="mcpDetails")
        self._form = form = QFormLayout(self.details)
        form.setContentsMargins(0, 4, 0, 0)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.state_label = _text_label("mcpState")
        self.where_label = _text_label("mcpWhere")
        self.secrets_label = _text_label("mcpSecrets")
        self.approval_combo = QComboBox(objectName="mcpApprovalCombo")
        for approval in APPROVALS:
            self.approval_combo.addItem(shown_text(APPROVAL_WORDS[approval]), approval)
        self.approval_combo.activated.connect(self._on_approval_combo_activated)
        self.users_label = _text_label("mcpUsedBy")
        self.tools_label = _text_label("mcpTools")
        self.tools_label.setTextFormat(Qt.TextFormat.RichText)
        form.addRow(self.tr("State:"), self.state_label)
        form.addRow(self.tr("Reached by:"), self.where_label)
        form.addRow(self.tr("Environment:"), self.secrets_label)  # "Headers:" for a remote server
        form.addRow(self.tr("Tool calls:"), self.approval_combo)
        form.addRow(self.tr("Used by:"), self.users_label)
        form.addRow(self.tr("Tools:"), self.tools_label)
        layout.addWidget(self.details)

        self.hub_reported.connect(self._on_hub_reported, Qt.ConnectionType.QueuedConnection)
        self.settings_reported.connect(self._on_settings_reported)
        subscribe_weakly(self.hub, self, "hub_reported")
        subscribe_weakly(settings(), self, "settings_reported")
        self.refresh()

    # ------------------------------------------------------------------ public
    def servers(self) -> list[McpServerConfig]:
        return self._settings().mcp_servers.all()

    def selected(self) -> McpServerConfig | None:
        """The server selected in the list (``None`` when none is, or it was removed meanwhile)."""
        item = self.list.currentItem()
        name = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return next((c for c in self.servers() if c.name == name), None)

    def select(self, name: str) -> None:
        """Select server ``name`` in the list (nothing when there is none)."""
        names = [c.name for c in self.servers()]
        if name in names:
            self.list.setCurrentRow(names.index(name))

    def refresh(self) -> None:
        """Show the servers as settings and the hub have them now, keeping the selection by name."""
        item = self.list.currentItem()
        keep = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        servers = self.servers()
        self.list.blockSignals(True)
        try:
            self.list.clear()
            for config in servers:
                item = QListWidgetItem(server_line(config, self.hub.state(config.name)))
                item.setData(Qt.ItemDataRole.UserRole, config.name)
                self.list.addItem(item)
            names = [c.name for c in servers]
            if names:
                self.list.setCurrentRow(names.index(keep) if keep in names else 0)
        finally:
            self.list.blockSignals(False)
        self.list.setVisible(bool(servers))
        self.empty_note.setVisible(not servers)
        self._show_selected()

    # ------------------------------------------------------------------ slots
    def _on_list_current_row_changed(self, _row: int) -> None:
        self.status.setText("")
        self._show_selected()

    def _on_hub_reported(self, _name: str) -> None:
        self.refresh()

    def _on_settings_reported(self, key: str) -> None:
        if key == MCP_KEY:
            self.refresh()

    def _on_approval_combo_activated(self, _index: int) -> None:
        config = self.selected()
        if config is None:
            return
        try:
            self._settings().mcp_servers.set_approval(config.name, self.approval_combo.currentData())
        except OkBotError as exc:
            self.status.setText(f"⚠ {exc}")
            self._show_selected()

    def _on_add_button_clicked(self) -> None:
        self._open(McpForm(self.ctx.workspace.assistants(), taken=[c.name for c in self.servers()], parent=self))

    def _on_edit_button_clicked(self) -> None:
        config = self.selected()
        if config is None:
            self.status.setText(self.tr("Pick a server in the list first."))
            return
        self._open(McpForm(self.ctx.workspace.assistants(), config, parent=self))

    def _on_remove_button_clicked(self) -> None:
        config = self.selected()
        if config is None:
            self.status.setText(self.tr("Pick a server in the list first."))
            return
        try:
            self._settings().mcp_servers.remove(config.name)
            self._set_users(config.name, frozenset())
        except OkBotError as exc:
            self.status.setText(f"⚠ {exc}")
            return
        hub, keys, name = self.hub, self._keys, config.name

        def job() -> None:
            hub.forget(name)
            mcp_secrets.delete(keys, name)

        self.status.setText(self.tr("Removed MCP server {name}.").format(name=name))
        self.ctx.tasks.run(job, None, if_alive(self, self._on_job_failed))

    def _on_check_button_clicked(self) -> None:
        config = self.selected()
        if config is None:
            self.status.setText(self.tr("Pick a server in the list first."))
            return
        self._check(config.name)

    def _on_checked(self, state: ServerState) -> None:
        self._busy = False
        if state.state == RUNNING:
            running = plural(
                state.tools, self.tr("{name} is running with {n} tool."), self.tr("{name} is running with {n} tools.")
            )
            self.status.setText(running.format(name=state.name, n=state.tools))
        else:
            self.status.setText(f"⚠ {state.name}: {state.detail or state_words(state.state)}")
        self.refresh()

    def _on_job_failed(self, exc: BaseException) -> None:
        self._busy = False
        self.status.setText(f"⚠ {_words(exc)}")
        self.refresh()

    def _on_form_accepted(self) -> None:
        form, self.form = self.form, None
        if form is not None and form.result_value is not None:
            self._save(form.result_value, new=form.is_new)

    # ------------------------------------------------------------------ internals
    def _open(self, form: McpForm) -> None:
        """Show ``form`` (window-modal, without blocking); its accepted values are saved."""
        self.form = form
        form.accepted.connect(self._on_form_accepted)
        form.finished.connect(form.deleteLater)
        form.open()

    def _save(self, result: McpFormResult, *, new: bool) -> None:
        name = result.config.name
        try:
            self._settings().mcp_servers.add(result.config)
            self._set_users(name, result.users)
        except OkBotError as exc:
            self.status.setText(f"⚠ {exc}")
            return
        self.select(name)
        hub, keys = self.hub, self._keys

        def job() -> ServerState:
            saved = ServerSecrets() if new else mcp_secrets.load(keys, name)
            mcp_secrets.save(keys, name, _merged(result, saved))
            hub.forget(name)  # a changed server starts again from its new settings
            return hub.check([name])[0]

        self._set_busy()
        self.status.setText(self.tr("Saved MCP server {name}; starting it to read its tools…").format(name=name))
        self.ctx.tasks.run(job, if_alive(self, self._on_checked), if_alive(self, self._on_job_failed))

    def _check(self, name: str) -> None:
        hub = self.hub
        self._set_busy()
        self.status.setText(self.tr("Starting {name}…").format(name=name))
        self.ctx.tasks.run(
            lambda: hub.restart(name), if_alive(self, self._on_checked), if_alive(self, self._on_job_failed)
        )

    def _set_users(self, name: str, users: frozenset[str]) -> None:
        """Write ``name`` into the ``mcpServers`` of exactly the assistants ``users``."""
        workspace = self.ctx.workspace
        for target in workspace.assistants():
            has = name in target.mcp_servers
            if has == (target.id in users):
                continue
            listed = [n for n in target.mcp_servers if n != name] + ([name] if not has else [])
            workspace.set_meta(target, MCP_KEY, listed)

    def _show_selected(self) -> None:
        config = self.selected()
        self.details.setVisible(config is not None)
        self.edit_button.setEnabled(config is not None)
        self.remove_button.setEnabled(config is not None)
        self.check_button.setEnabled(config is not None and not self._busy)
        if config is None:
            return
        state = self.hub.state(config.name)
        self.check_button.setText(self.tr("Check") if state.state == IDLE else self.tr("Restart"))
        words = state_words(state.state)
        if state.state == FAILED and state.detail:
            words = self.tr("failed: {why}").format(why=state.detail)
        elif state.state == RUNNING and state.detail:
            words = self.tr("running ({detail})").format(detail=state.detail)
        if state.restarts:
            words += plural(state.restarts, self.tr(" — restarted {n} time"), self.tr(" — restarted {n} times")).format(
                n=state.restarts
            )
        self.state_label.setText(words)
        where = self.tr("URL: {url}") if config.remote else self.tr("Command: {command}")
        self.where_label.setText(where.format(url=config.where(), command=config.where()))
        self.where_label.setToolTip(config.where())
        names = [f"{n}={MASK}" for n in (config.headers if config.remote else config.env)]
        self.secrets_label.setText(", ".join(names) if names else self.tr("none"))
        self._form.labelForField(self.secrets_label).setText(
            self.tr("Headers:") if config.remote else self.tr("Environment:")
        )
        self.approval_combo.setCurrentIndex(APPROVALS.index(config.approval))
        users = [t.name for t in self.ctx.workspace.assistants() if config.name in t.mcp_servers]
        self.users_label.setText(", ".join(users) if users else self.tr("no assistant yet (Edit… to choose)"))
        tools = self.hub.tools_of(config.name)
        if tools:
            self.tools_label.setText(tools_html(tools, config))
        elif state.state == IDLE:
            self.tools_label.setText(self.tr("not read yet: Check starts the server and lists them"))
        else:
            self.tools_label.setText(self.tr("none"))

    def _set_busy(self) -> None:
        self._busy = True
        self.check_button.setEnabled(False)


def _merged(result: McpFormResult, saved: ServerSecrets) -> ServerSecrets:
    """The values to keep: the form's, with :data:`KEPT` standing for the value saved before."""
    env = {k: saved.env.get(k, "") if v == KEPT else v for k, v in result.env.items()}
    headers = {k: saved.headers.get(k, "") if v == KEPT else v for k, v in result.headers.items()}
    return ServerSecrets(env, headers)


class _WrappedLabel(QLabel):
    """A word-wrapped label that asks for the height its text needs at the width it was given.

    A layout works out a wrapping label's height for the width it planned; inside a scroll area the width it
    gets can differ (a scroll bar came or went), and the last lines were cut. Its minimum height follows the
    width it has."""

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit_height()

    def _fit_height(self) -> None:
        needed = self.heightForWidth(self.width()) if self.width() > 0 else -1
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)


def _text_label(name: str) -> QLabel:
    """A wrapping, selectable label that never widens the page (a long URL without spaces is cut, not the page)."""
    label = _WrappedLabel(objectName=name)
    label.setWordWrap(True)
    policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)  # a new policy drops the one word wrap set: the wrapped lines were cut
    label.setSizePolicy(policy)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _words(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, OkBotError) else type(exc).__name__  # never a secret
