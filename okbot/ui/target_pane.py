"""The right-hand pane when there is no chat to show: nothing selected, or a target that cannot be read."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.ui.target_list_model import kind_label

# Shown through _text (translated where shown).
NOTHING_SELECTED = QT_TRANSLATE_NOOP("TargetPane", "Select an assistant or squad in the sidebar.")
NOTHING_THERE = QT_TRANSLATE_NOOP("TargetPane", "There are no assistants yet.")
CREATE_HINT = QT_TRANSLATE_NOOP("TargetPane", "Press Ctrl+N or the + button to create one.")
SELECT_HINT = QT_TRANSLATE_NOOP("TargetPane", "Or press Ctrl+N to create a new assistant.")
UNREADABLE_HINT = QT_TRANSLATE_NOOP(
    "TargetPane",
    "Its file could not be read, so there is no chat to show. Fix or restore the file, then select it again.",
)


def _text(source: str) -> str:
    return QCoreApplication.translate("TargetPane", source)


class TargetPane(QWidget):
    """Shows the selected assistant or squad: name, kind, role line and any problem with it.

    Only palette-aware widgets and font sizes are used, so it follows the system light/dark theme.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._target: Target | None = None

        self.title = QLabel(objectName="paneTitle")
        title_font = QFont(self.title.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.6)
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.subtitle = QLabel(objectName="paneSubtitle")
        self.subtitle.setWordWrap(True)
        self.problem = QLabel(objectName="paneProblem")
        self.problem.setWordWrap(True)
        self.body = QLabel(objectName="paneBody")
        self.body.setWordWrap(True)
        self.body.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # secondary text in any theme

        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 28, 32, 28)
        layout.setSpacing(10)
        for label in (self.title, self.subtitle, self.problem, self.body):
            layout.addWidget(label)
        layout.addStretch(1)
        self.show_target(None)

    @property
    def target(self) -> Target | None:
        """The target on show, or ``None``."""
        return self._target

    def show_target(self, target: Target | None, *, empty_workspace: bool = False) -> None:
        """Show ``target``; ``None`` shows a hint (which one depends on ``empty_workspace``)."""
        self._target = target
        if target is None:
            self.title.setText("OkBot")
            self.subtitle.setText(_text(NOTHING_THERE if empty_workspace else NOTHING_SELECTED))
            self.problem.clear()
            self.problem.hide()
            self.body.setText(_text(CREATE_HINT if empty_workspace else SELECT_HINT))
            return
        self.title.setText(target.name)
        detail = target.role_line or (target.meta.get("description") if target.is_squad else "")
        subtitle = self.tr("{kind} “{name}” is selected.").format(kind=kind_label(target.kind), name=target.name)
        self.subtitle.setText(f"{subtitle}\n{detail}" if isinstance(detail, str) and detail else subtitle)
        self.problem.setText(f"⚠ {target.problem}" if target.problem else "")
        self.problem.setVisible(bool(target.problem))
        self.body.setText(_text(UNREADABLE_HINT) if target.problem else "")
