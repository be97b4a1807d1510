"""Add or edit one MCP server: its name, how it is reached, its env and header values, approval, users.

The form checks each field itself and shows a refusal under that field, in the settings' own words
(:class:`SettingError`); nothing is saved here. The caller saves the accepted :class:`McpForm.result`
(the config in settings, the values with the keys, off the GUI thread). When editing, the values kept
for the server are never read: they are shown as :data:`KEPT`, which means "keep the saved value".
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from okbot.config.mcp import (
    APPROVALS,
    DEFAULT_APPROVAL,
    McpServerConfig,
    check_server_name,
    parse_pairs,
    server_from_json,
)
from okbot.config.schema import APPROVAL_WORDS, SettingError, shown_text
from okbot.core.workspace import Target
from okbot.ui.settings.fields import ProblemLabel
from okbot.ui.settings.page import help_label, stacked

KEPT = "••••••"  # an edited server's saved value, left as it is
FORM_SIZE = (560, 600)


@dataclass(frozen=True)
class McpFormResult:
    """What the form was accepted with: ``env`` / ``headers`` values equal to :data:`KEPT` keep the saved one."""

    config: McpServerConfig
    env: dict[str, str]
    headers: dict[str, str]
    users: frozenset[str]  # ids of the assistants that may use the server


class McpForm(QDialog):
    """The Add… / Edit… form. ``existing`` is the server edited (its name cannot change), else a new one."""

    def __init__(
        self,
        assistants: Sequence[Target],
        existing: McpServerConfig | None = None,
        taken: Sequence[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mcpForm")
        self.setWindowTitle(
            self.tr("Edit MCP server {name}").format(name=existing.name) if existing else self.tr("Add an MCP server")
        )
        self.resize(*FORM_SIZE)
        self._existing, self._taken = existing, set(taken)
        self.is_new = existing is None
        self.result_value: McpFormResult | None = None

        self.name_edit = QLineEdit(objectName="mcpName")
        self.name_edit.setPlaceholderText(self.tr("e.g. time (lower-case letters, digits, - or _)"))
        self.local_radio = QRadioButton(self.tr("A program on this computer"))
        self.remote_radio = QRadioButton(self.tr("A remote server (Streamable HTTP)"))
        self._kind = QButtonGroup(self)
        self._kind.addButton(self.local_radio)
        self._kind.addButton(self.remote_radio)
        self.local_radio.setChecked(True)
        self._kind.buttonToggled.connect(self._on_kind_button_toggled)
        self.program_edit = QLineEdit(objectName="mcpProgram")
        self.program_edit.setPlaceholderText(self.tr("e.g. uvx or /usr/local/bin/mcp-server-time"))
        self.args_edit = QLineEdit(objectName="mcpArgs")
        self.args_edit.setPlaceholderText(self.tr('e.g. mcp-server-time --local-timezone "Europe/Paris"'))
        self.url_edit = QLineEdit(objectName="mcpUrl")
        self.url_edit.setPlaceholderText("https://mcp.example.com/mcp")
        self.env_edit = _pairs_edit("mcpEnv", self.tr("NAME=value, one a line, e.g. TZ=Europe/Paris"))
        self.headers_edit = _pairs_edit(
            "mcpHeaders", self.tr("Name=value, one a line, e.g. Authorization=Bearer abc123")
        )
        self.approval_combo = QComboBox(objectName="mcpApproval")
        for approval in APPROVALS:
            self.approval_combo.addItem(shown_text(APPROVAL_WORDS[approval]), approval)
        self.approval_combo.setCurrentIndex(APPROVALS.index(DEFAULT_APPROVAL))  # a new server asks first
        self.users_list = QListWidget(objectName="mcpUsers")
        self.users_list.setMaximumHeight(110)
        for target in assistants:
            item = QListWidgetItem(target.name)
            item.setData(Qt.ItemDataRole.UserRole, target.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            used = existing is not None and existing.name in target.mcp_servers
            item.setCheckState(Qt.CheckState.Checked if used else Qt.CheckState.Unchecked)
            self.users_list.addItem(item)

        self.problems = {key: ProblemLabel() for key in ("name", "command", "args", "url", "env", "headers")}
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow(self.tr("Name:"), stacked(self.name_edit, self.problems["name"]))
        form.addRow(self.tr("Reached as:"), stacked(self.local_radio, self.remote_radio))
        form.addRow(self.tr("Program:"), stacked(self.program_edit, self.problems["command"]))
        form.addRow(self.tr("Arguments:"), stacked(self.args_edit, self.problems["args"]))
        form.addRow(self.tr("URL:"), stacked(self.url_edit, self.problems["url"]))
        self.env_note = help_label(self.tr("Values are kept with your API keys, never in settings.json."))
        form.addRow(self.tr("Environment:"), stacked(self.env_edit, self.problems["env"], self.env_note))
        form.addRow(self.tr("Headers:"), stacked(self.headers_edit, self.problems["headers"]))
        form.addRow(self.tr("Tool calls:"), self.approval_combo)
        users_note = help_label("" if assistants else self.tr("There are no assistants yet."))
        form.addRow(self.tr("Used by:"), stacked(self.users_list, users_note))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addStretch(1)
        layout.addWidget(buttons)
        if existing is not None:
            self._show(existing)
        self._on_kind_button_toggled()

    # ------------------------------------------------------------------ public
    def problem(self, field: str) -> str:
        """The refusal shown under ``field`` (name, command, args, url, env, headers), "" when none."""
        label = self.problems[field]
        return label.text() if label.isVisibleTo(self) else ""

    def accept(self) -> None:
        """Save only when every field holds an allowed value; otherwise say why under each field."""
        result = self._collect()
        if result is not None:
            self.result_value = result
            super().accept()

    # ------------------------------------------------------------------ internals
    def _show(self, config: McpServerConfig) -> None:
        self.name_edit.setText(config.name)
        self.name_edit.setReadOnly(True)
        self.name_edit.setToolTip(
            self.tr("A server's name cannot change: remove it and add it again under another name.")
        )
        (self.remote_radio if config.remote else self.local_radio).setChecked(True)
        self.program_edit.setText(config.command)
        self.args_edit.setText(shlex.join(config.args))
        self.url_edit.setText(config.url)
        self.env_edit.setPlainText("\n".join(f"{name}={KEPT}" for name in config.env))
        self.headers_edit.setPlainText("\n".join(f"{name}={KEPT}" for name in config.headers))
        self.approval_combo.setCurrentIndex(APPROVALS.index(config.approval))
        if config.env or config.headers:
            self.env_note.setText(
                self.tr("{kept} keeps the saved value; values are kept with your API keys.").format(kept=KEPT)
            )

    def _on_kind_button_toggled(self, *_args: object) -> None:
        remote = self.remote_radio.isChecked()
        for widget in (self.program_edit, self.args_edit, self.env_edit):
            widget.setEnabled(not remote)
        self.url_edit.setEnabled(remote)
        self.headers_edit.setEnabled(remote)

    def _collect(self) -> McpFormResult | None:
        for label in self.problems.values():
            label.show_problem("")
        name = self.name_edit.text().strip()
        remote = self.remote_radio.isChecked()
        entry: dict[str, object] = {"name": name, "approval": self.approval_combo.currentData()}
        bad = False
        try:
            check_server_name(name)
            if self._existing is None and name in self._taken:
                raise SettingError(
                    self.tr("there is already an MCP server called {name}").format(name=repr(name)),
                    hint=self.tr("pick another name"),
                )
        except SettingError as exc:
            bad = self._refuse("name", exc)
        env = headers = {}
        if remote:
            entry["url"] = self.url_edit.text().strip()
            try:
                headers = parse_pairs(_lines(self.headers_edit), "header")
            except SettingError as exc:
                bad = self._refuse("headers", exc)
            entry["headers"] = list(headers)
        else:
            entry["command"] = self.program_edit.text().strip()
            try:
                entry["args"] = shlex.split(self.args_edit.text())
            except ValueError as exc:  # an unclosed quote
                why = self.tr("the arguments could not be read: {error}").format(error=exc)
                bad = self._refuse("args", SettingError(why))
            try:
                env = parse_pairs(_lines(self.env_edit), "env")
            except SettingError as exc:
                bad = self._refuse("env", exc)
            entry["env"] = list(env)
        if self._existing is not None:
            entry["toolApproval"] = dict(self._existing.tool_approval)
        if bad:
            return None
        try:
            config = server_from_json(entry)
        except SettingError as exc:
            self._refuse(_field_of(exc, remote), exc)
            return None
        users = frozenset(
            self.users_list.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.users_list.count())
            if self.users_list.item(i).checkState() == Qt.CheckState.Checked
        )
        return McpFormResult(config, env, headers, users)

    def _refuse(self, field: str, exc: SettingError) -> bool:
        text = str(exc)
        self.problems[field].show_problem(text[:1].upper() + text[1:])
        return True


def _field_of(exc: SettingError, remote: bool) -> str:
    """Which field a refusal of the whole entry is about (the error names it)."""
    if exc.about in ("args", "url", "command", "headers", "env"):
        return exc.about
    return "url" if remote else "command"


def _pairs_edit(name: str, placeholder: str) -> QPlainTextEdit:
    edit = QPlainTextEdit(objectName=name)
    edit.setPlaceholderText(placeholder)
    edit.setTabChangesFocus(True)
    edit.setFixedHeight(edit.fontMetrics().lineSpacing() * 3 + 14)
    return edit


def _lines(edit: QPlainTextEdit) -> list[str]:
    return [line for line in edit.toPlainText().splitlines() if line.strip()]
