"""Create or edit a squad: name, description, members (each with a role in this squad) and the captain.

The dialog only gathers the values and shows what is wrong next to the field concerned; the
workspace checks everything again and writes (``Workspace.create_squad`` / ``update_squad``).
A refusal from the workspace is shown in the dialog, which stays open with the input intact.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from okbot.core.record_fields import DEFAULT_CAPTAIN, MAX_ROUNDS, MIN_SQUAD_MEMBERS
from okbot.core.workspace import Target, Workspace
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.storage.errors import OkBotError
from okbot.ui.chat.colors import blend

ERROR_TONE = QColor(214, 64, 56)  # mixed with the palette's text colour, so it reads on light and dark
VISIBLE_MEMBER_ROWS = 5  # the member list scrolls beyond this many rows
HELP_SCALE = 0.92
NAME_MISSING = QT_TRANSLATE_NOOP("SquadDialog", "Give the squad a name.")
CAPTAIN_HELP = QT_TRANSLATE_NOOP(
    "SquadDialog",
    "The captain leads the squad: it reads each message, hands parts of the work to members and "
    "answers you. Both fields are optional.",
)


class MemberRow:
    """One assistant in the member list: a check box with its name and the role it plays in this squad."""

    def __init__(self, assistant: Target, role: str, picked: bool) -> None:
        self.assistant = assistant
        self.check = QCheckBox(assistant.name)
        self.check.setChecked(picked)
        if assistant.role_line:
            self.check.setToolTip(assistant.role_line)
        self.role_edit = QLineEdit(role)
        self.role_edit.setPlaceholderText(
            QCoreApplication.translate("SquadDialog", "What does {name} do in this squad?").format(name=assistant.name)
        )
        self.role_edit.textEdited.connect(self._on_role_edit_text_edited)

    @property
    def picked(self) -> bool:
        return self.check.isChecked()

    def _on_role_edit_text_edited(self, text: str) -> None:
        if text.strip():  # writing a role means "this one is in"
            self.check.setChecked(True)


class SquadDialog(QDialog):
    """Create a squad (``squad`` is ``None``) or edit ``squad``; emits ``saved(Target)`` and closes on success."""

    saved = Signal(object)  # Target as written

    def __init__(self, workspace: Workspace, squad: Target | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("squadDialog")
        self.workspace, self.squad = workspace, squad
        self.setWindowTitle(self.tr("Edit squad – {name}").format(name=squad.name) if squad else self.tr("New squad"))
        self.setMinimumWidth(560)
        meta = squad.meta if squad else {}
        captain = meta.get("captain") if isinstance(meta.get("captain"), dict) else {}

        self.name_edit = QLineEdit(squad.name if squad else "")
        self.name_edit.setPlaceholderText(self.tr("e.g. Review desk"))
        self.name_edit.textEdited.connect(self._on_name_edit_text_edited)
        self.name_error = self._error_label("nameError")
        self.description_edit = QLineEdit(_text(meta.get("description")))
        self.description_edit.setPlaceholderText(self.tr("What the squad is for (optional)"))

        self.member_rows: list[MemberRow] = []
        self._tried = False  # after the first Save, the members message follows every tick
        self.members_error = self._error_label("membersError")
        members_box = self._build_members(squad)

        self.persona_edit = _text_edit(_text(captain.get("persona")), self.tr("How the captain speaks and decides"), 3)
        self.playbook_edit = _text_edit(
            _text(captain.get("playbook")), self.tr("Steps the captain follows, e.g.\n1. Ask the researcher\n2. …"), 4
        )
        self.captain_rounds = _rounds_box(captain.get("maxCaptainRounds"), DEFAULT_CAPTAIN["maxCaptainRounds"])
        self.captain_rounds.setToolTip(
            self.tr("Most tool rounds the captain may take in one turn (delegations included)")
        )
        self.member_rounds = _rounds_box(captain.get("maxMemberRounds"), DEFAULT_CAPTAIN["maxMemberRounds"])
        self.member_rounds.setToolTip(self.tr("Most tool rounds each member may take on one task"))
        self.form_error = self._error_label("formError")
        self.form_error.setWordWrap(True)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText(self.tr("Save") if squad else self.tr("Create squad"))
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self._build_layout(members_box)
        self._apply_palette()

    # ------------------------------------------------------------------ public
    def picked_members(self) -> list[tuple[str, str]]:
        """``(assistant id, role)`` for every ticked row, in the order shown."""
        return [(row.assistant.id, row.role_edit.text().strip()) for row in self.member_rows if row.picked]

    def row_for(self, name_or_id: str) -> MemberRow:
        """The member row of the assistant with this id or (case-insensitive) name."""
        key = name_or_id.casefold()
        for row in self.member_rows:
            if key in (row.assistant.id.casefold(), row.assistant.name.casefold()):
                return row
        raise KeyError(name_or_id)

    def errors(self) -> dict[str, str]:
        """The inline messages on show, by field: ``name``, ``members``, ``form``."""
        labels = {"name": self.name_error, "members": self.members_error, "form": self.form_error}
        return {key: label.text() for key, label in labels.items() if not label.isHidden() and label.text()}

    def save(self) -> Target | None:
        """Check the fields, then create or update the squad; returns it, or ``None`` when refused."""
        name, picked = self.name_edit.text().strip(), self.picked_members()
        self._tried = True
        self._show_error(self.name_error, "" if name else self.tr(NAME_MISSING))
        self._show_error(self.members_error, self._members_problem(len(picked)))
        self._show_error(self.form_error, "")
        if not name or len(picked) < MIN_SQUAD_MEMBERS:
            (self.name_edit if not name else self._first_unpicked_check()).setFocus()
            return None
        captain = {
            "persona": self.persona_edit.toPlainText(),
            "playbook": self.playbook_edit.toPlainText(),
            "maxCaptainRounds": self.captain_rounds.value(),
            "maxMemberRounds": self.member_rounds.value(),
        }
        description = self.description_edit.text()
        try:
            if self.squad is None:
                target = self.workspace.create_squad(name, picked, description=description, captain=captain)
            else:
                target = self.workspace.update_squad(
                    self.squad.id, name=name, description=description, members=picked, captain=captain
                )
        except (OkBotError, OSError) as exc:
            self._show_error(self.form_error, self.tr("Not saved: {error}").format(error=exc))
            return None
        self.saved.emit(target)
        self.accept()
        return target

    # ------------------------------------------------------------------- slots
    def _on_name_edit_text_edited(self, text: str) -> None:
        if text.strip():
            self._show_error(self.name_error, "")

    def _on_member_check_toggled(self, _checked: bool) -> None:
        if self._tried:
            self._show_error(self.members_error, self._members_problem(len(self.picked_members())))

    # --------------------------------------------------------------- internals
    def _build_members(self, squad: Target | None) -> QWidget:
        assistants = self.workspace.assistants()
        by_id = {a.id: a for a in assistants if a.meta}
        current = squad.members if squad else []
        roles = {m["assistant"]: m["role"] for m in current}
        ordered = [by_id[m["assistant"]] for m in current if m["assistant"] in by_id]
        ordered += [a for a in by_id.values() if a.id not in roles]
        body = QWidget()
        body.setObjectName("memberList")
        grid = QGridLayout(body)
        grid.setContentsMargins(8, 6, 8, 6)
        grid.setHorizontalSpacing(12)
        grid.setColumnStretch(1, 1)
        for n, assistant in enumerate(ordered):
            row = MemberRow(assistant, roles.get(assistant.id, ""), assistant.id in roles)
            row.check.toggled.connect(self._on_member_check_toggled)
            grid.addWidget(row.check, n, 0)
            grid.addWidget(row.role_edit, n, 1)
            self.member_rows.append(row)
        if not ordered:
            grid.addWidget(_help_label(self.tr("There are no assistants yet.")), 0, 0, 1, 2)
        missing = [m["assistant"] for m in current if m["assistant"] not in by_id]
        note = (
            self.tr("No longer here (saving drops them from the squad): {ids}").format(ids=", ".join(missing))
            if missing
            else ""
        )
        self.missing_note = _help_label(note)
        area = QScrollArea()
        area.setObjectName("memberArea")
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.StyledPanel)
        area.setWidget(body)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        row_height = max(self.name_edit.sizeHint().height(), 24) + grid.verticalSpacing()
        shown = min(max(len(ordered), 2), VISIBLE_MEMBER_ROWS)
        area.setFixedHeight(shown * row_height + 12 + 2 * area.frameWidth())
        return area

    def _build_layout(self, members_box: QWidget) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.tr("Name"), _stacked(self.name_edit, self.name_error))
        form.addRow(self.tr("Description"), self.description_edit)

        members_hint = _help_label(
            self.tr("Pick at least {n} assistants and say what each one does in this squad.").format(
                n=MIN_SQUAD_MEMBERS
            )
        )
        if len(self.member_rows) < MIN_SQUAD_MEMBERS:
            members_hint.setText(
                self.tr(
                    "A squad needs at least {n} assistants; there are {count}. Create another assistant first."
                ).format(n=MIN_SQUAD_MEMBERS, count=len(self.member_rows))
            )
        captain_form = QFormLayout()
        captain_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        captain_form.addRow(self.tr("Persona"), self.persona_edit)
        captain_form.addRow(self.tr("Playbook"), self.playbook_edit)
        limits = QHBoxLayout()
        limits.addWidget(QLabel(self.tr("Captain")))
        limits.addWidget(self.captain_rounds)
        limits.addSpacing(12)
        limits.addWidget(QLabel(self.tr("Each member")))
        limits.addWidget(self.member_rounds)
        limits.addStretch(1)
        captain_form.addRow(self.tr("Tool rounds"), limits)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.setSpacing(6)
        layout.addLayout(form)
        layout.addSpacing(8)
        layout.addWidget(_heading(self.tr("Members")))
        layout.addWidget(members_hint)
        layout.addWidget(members_box)
        layout.addWidget(self.members_error)
        layout.addWidget(self.missing_note)
        layout.addSpacing(8)
        layout.addWidget(_heading(self.tr("Captain")))
        layout.addWidget(_help_label(self.tr(CAPTAIN_HELP)))
        layout.addLayout(captain_form)
        layout.addSpacing(4)
        layout.addWidget(self.form_error)
        layout.addWidget(self.buttons)
        # labels of both forms line up
        width = max(
            form.labelForField(self.description_edit).sizeHint().width(),
            captain_form.labelForField(self.playbook_edit).sizeHint().width(),
        )
        for f in (form, captain_form):
            for row in range(f.rowCount()):
                item = f.itemAt(row, QFormLayout.ItemRole.LabelRole)
                if item is not None and item.widget() is not None:
                    item.widget().setMinimumWidth(width)

    def _members_problem(self, picked: int) -> str:
        if picked >= MIN_SQUAD_MEMBERS:
            return ""
        return self.tr("Pick at least {n} assistants ({picked} picked).").format(n=MIN_SQUAD_MEMBERS, picked=picked)

    def _first_unpicked_check(self) -> QWidget:
        rows = [r for r in self.member_rows if not r.picked] or self.member_rows
        return rows[0].check if rows else self.name_edit

    def _error_label(self, name: str) -> QLabel:
        label = QLabel()
        label.setObjectName(name)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.hide()
        return label

    def _show_error(self, label: QLabel, text: str) -> None:
        label.setText(f"⚠ {text}" if text else "")
        label.setVisible(bool(text))
        if text and self.isVisible():  # grow to make room for the message instead of squeezing the fields
            self.layout().activate()
            wanted = self.sizeHint().height()
            if self.height() < wanted:
                self.resize(self.width(), wanted)

    def _apply_palette(self) -> None:
        """Tint the error labels from the current palette (again whenever the palette changes)."""
        for label in (self.name_error, self.members_error, self.form_error):
            palette = QPalette(self.palette())
            text = palette.color(QPalette.ColorRole.WindowText)
            palette.setColor(QPalette.ColorRole.WindowText, blend(text, ERROR_TONE, 0.8))
            label.setPalette(palette)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _rounds_box(value: object, default: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(1, MAX_ROUNDS)
    box.setValue(
        value if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ROUNDS else default
    )
    return box


def _text_edit(text: str, placeholder: str, lines: int) -> QPlainTextEdit:
    edit = QPlainTextEdit(text)
    edit.setPlaceholderText(placeholder)
    edit.setTabChangesFocus(True)
    line = edit.fontMetrics().lineSpacing()
    edit.setFixedHeight(lines * line + 2 * int(edit.document().documentMargin()) + 2 * edit.frameWidth() + 4)
    return edit


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())
    font.setBold(True)
    label.setFont(font)
    return label


def _help_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * HELP_SCALE)
    label.setFont(font)
    if not text:
        label.hide()  # never show() here: a label without a parent yet would open as a window
    return label


def _stacked(field: QWidget, below: QWidget) -> QWidget:
    """``field`` with ``below`` (an inline error) under it, as one form cell."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    layout.addWidget(field)
    layout.addWidget(below)
    return box
