"""The chat header's model picker: which model this chat talks to, and a popup to pick another.

The button shows the model (an assistant's own ``model`` from assistant.json, else the default in
settings). Its popup lists the models the server offers (``GET /v1/models``, asked through the
TaskRunner, never on the GUI thread), filters them as the user types, and takes a typed name as it is,
so a server that cannot list its models still works. The choice is reported as ``chosen``; the chat
page writes it. A squad's picker is locked (its captain uses the default) and says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QPoint, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from okbot.config.providers import DEFAULT_PROVIDER
from okbot.i18n import QT_TRANSLATE_NOOP, plural
from okbot.ui.tasks import TaskRunner

log = logging.getLogger("okbot.ui.chat")

BUTTON_MAX_CHARS = 28  # a longer model name is elided on the button (the tooltip has it whole)
POPUP_WIDTH = 340
LIST_ROWS = (3, 9)  # the list shows this many rows at least and at most (more scroll)
# the popup's status line (translated where shown)
ASKING_TEXT = QT_TRANSLATE_NOOP("ModelPicker", "Asking the server for its models…")
FAILED_TEXT = QT_TRANSLATE_NOOP("ModelPicker", "⚠ Could not list the server's models: {error} Type a model name above.")
MARK = "✓ "


def _tr(text: str) -> str:
    return QCoreApplication.translate("ModelPicker", text)


Groups = list[tuple[str, list[str]]]  # (provider name, its model references), as models_by_provider gives them


def listed_text(groups: Groups) -> str:
    """``2 models on this server.``, or with more than one provider ``6 models from 2 providers.``"""
    count = sum(len(models) for _name, models in groups)
    if not count:
        return QCoreApplication.translate("ModelPicker", "The server lists no models.")
    if len(groups) > 1:
        text = plural(
            count,
            QCoreApplication.translate("ModelPicker", "{n} model from {providers} providers."),
            QCoreApplication.translate("ModelPicker", "{n} models from {providers} providers."),
        )
        return text.format(n=count, providers=len(groups))
    one, other = (
        QCoreApplication.translate("ModelPicker", "{n} model on this server."),
        QCoreApplication.translate("ModelPicker", "{n} models on this server."),
    )
    return plural(count, one, other).format(n=count)


class ModelNameEdit(QLineEdit):
    """The popup's name box: Down moves into the list below it."""

    down = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Down:
            event.accept()
            self.down.emit()
            return
        super().keyPressEvent(event)


class ModelPopup(QFrame):
    """The picker's popup: a name box (type a name, or filter), the server's models, what the listing said."""

    chosen = Signal(str)  # a model name; "" = the default

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("modelPopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Window)
        self._current = ""

        self.title = QLabel(self)
        self.title.setObjectName("modelPopupTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.name_edit = ModelNameEdit(self)
        self.name_edit.setObjectName("modelNameEdit")
        self.name_edit.setPlaceholderText(self.tr("Type a model name, or filter the list"))
        self.name_edit.setClearButtonEnabled(True)
        self.name_edit.textChanged.connect(self._on_name_edit_text_changed)
        self.name_edit.returnPressed.connect(self._on_name_edit_return_pressed)
        self.name_edit.down.connect(self._on_name_edit_down)
        self.list = QListWidget(self)
        self.list.setObjectName("modelList")
        self.list.setSpacing(2)
        self.list.itemClicked.connect(self._on_list_item_chosen)
        self.list.itemActivated.connect(self._on_list_item_chosen)
        self.status = QLabel(self)
        self.status.setObjectName("modelStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.default_button = QPushButton(self)
        self.default_button.setObjectName("modelDefaultButton")
        self.default_button.setAutoDefault(False)
        self.default_button.clicked.connect(lambda: self.chosen.emit(""))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(self.name_edit)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.default_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.setFixedWidth(POPUP_WIDTH)
        self._fit_list()

    def set_current(self, target_name: str, model: str, default: str, *, own: bool) -> None:
        """Whose model this is, which one is in use, and the default it falls back to."""
        self._current = model
        self.title.setText(self.tr("Model for {name}").format(name=target_name))
        self.default_button.setText(self.tr("Use the default ({model})").format(model=default))
        self.default_button.setEnabled(own)
        self._mark_current()

    def show_models(self, groups: Groups) -> None:
        """List each provider's models, under its name when there is more than one provider, keeping the
        filter typed so far. A heading is not a model: it cannot be picked (its UserRole is None)."""
        self.list.clear()
        for provider, models in groups:
            if len(groups) > 1:
                heading = QListWidgetItem(self._heading(provider), self.list)
                heading.setFlags(Qt.ItemFlag.NoItemFlags)
                font = heading.font()
                font.setBold(True)
                heading.setFont(font)
            for name in models:
                item = QListWidgetItem(name, self.list)
                item.setData(Qt.ItemDataRole.UserRole, name)
        self._mark_current()
        self._on_name_edit_text_changed(self.name_edit.text())
        self._fit_list()

    def show_status(self, text: str) -> None:
        self.status.setText(text)
        self.adjustSize()

    def _heading(self, provider: str) -> str:
        return self.tr("Default provider") if provider == DEFAULT_PROVIDER else provider

    def _models(self) -> list[QListWidgetItem]:
        items = (self.list.item(row) for row in range(self.list.count()))
        return [item for item in items if item.data(Qt.ItemDataRole.UserRole) is not None]

    def _fit_list(self) -> None:
        """As tall as the models listed (within LIST_ROWS), so a short list leaves no empty box."""
        row = self.list.sizeHintForRow(0) if self.list.count() else self.list.fontMetrics().height() + 4
        rows = max(LIST_ROWS[0], min(self.list.count(), LIST_ROWS[1]))
        frame = 2 * self.list.frameWidth() + 2 * self.list.spacing()
        self.list.setFixedHeight(rows * (row + 2 * self.list.spacing()) + frame)
        self.adjustSize()

    def open_at(self, anchor: QWidget) -> None:
        """Show below ``anchor``, right edges aligned, kept on its screen."""
        self.name_edit.clear()
        below = anchor.mapToGlobal(QPoint(anchor.width() - self.width(), anchor.height() + 2))
        screen = anchor.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            room = screen.availableGeometry()
            below.setX(max(room.left(), min(below.x(), room.right() - self.width())))
            if below.y() + self.height() > room.bottom():
                below.setY(anchor.mapToGlobal(QPoint(0, 0)).y() - self.height() - 2)
        self.move(below)
        self.show()
        self.name_edit.setFocus(Qt.FocusReason.PopupFocusReason)

    # ------------------------------------------------------------------- slots
    def _on_name_edit_text_changed(self, text: str) -> None:
        wanted = text.strip().casefold()
        heading, shown = None, False  # a heading shows while one of its models does
        for row in range(self.list.count()):
            item = self.list.item(row)
            name = item.data(Qt.ItemDataRole.UserRole)
            if name is None:
                if heading is not None:
                    heading.setHidden(not shown)
                heading, shown = item, False
                continue
            item.setHidden(bool(wanted) and wanted not in str(name).casefold())
            shown = shown or not item.isHidden()
        if heading is not None:
            heading.setHidden(not shown)

    def _on_name_edit_return_pressed(self) -> None:
        typed = self.name_edit.text().strip()
        if typed:
            self.chosen.emit(typed)
        elif self.list.currentItem() is not None:
            self._on_list_item_chosen(self.list.currentItem())

    def _on_name_edit_down(self) -> None:
        shown = [item for item in self._models() if not item.isHidden()]
        if shown:
            self.list.setCurrentItem(shown[0])
            self.list.setFocus(Qt.FocusReason.TabFocusReason)

    def _on_list_item_chosen(self, item: QListWidgetItem) -> None:
        name = item.data(Qt.ItemDataRole.UserRole)
        if name is not None:  # a provider's heading is no model
            self.chosen.emit(str(name))

    def _mark_current(self) -> None:
        for item in self._models():
            name = str(item.data(Qt.ItemDataRole.UserRole))
            item.setText(MARK + name if name == self._current else name)


class ModelPicker(QToolButton):
    """The header button: the chat's model; a click opens :class:`ModelPopup` and asks the server for its list.

    ``list_models`` is blocking (network) and runs through ``tasks``; it gives the models per provider
    (:func:`okbot.llm.providers.models_by_provider`) and raises with a message for the user.
    """

    chosen = Signal(str)  # a model name; "" = back to the default

    def __init__(self, tasks: TaskRunner, list_models: Callable[[], Groups], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelPicker")
        self.setAutoRaise(True)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._tasks, self._list_models = tasks, list_models
        self._model = ""
        self._fetching = False
        self._listed: Groups | None = None
        self.popup = ModelPopup(self)
        self.popup.chosen.connect(self._on_popup_chosen)
        self.clicked.connect(self.open_popup)

    @property
    def model(self) -> str:
        """The model on show (whole, where the button may elide it)."""
        return self._model

    def set_model(self, target_name: str, model: str, default: str, *, own: bool) -> None:
        """Show ``model``: the assistant's own (``own``) or the ``default`` from settings."""
        self._model = model
        self.setEnabled(True)
        self.setText(_elided(model) + " ▾")
        if own:
            tip = self.tr("{name} talks to {model} (its own). Click to pick another model for {name}.")
        else:
            tip = self.tr(
                "{name} talks to {model} (the default, from Settings → Models). Click to pick another model for {name}."
            )
        self.setToolTip(tip.format(name=target_name, model=model))
        self.popup.set_current(target_name, model, default, own=own)

    def lock(self, model: str, reason: str) -> None:
        """Show the squad captain's ``model`` without offering a choice; ``reason`` says why (the tooltip)."""
        self._model = model
        self.setText(self.tr("Captain: {model}").format(model=_elided(model)))
        self.setToolTip(reason)
        self.setEnabled(False)

    def open_popup(self) -> None:
        """Open the list (the models known so far at once) and ask the server again in the background."""
        if not self.isEnabled():
            return
        if self._listed is None:
            self.popup.show_status(_tr(ASKING_TEXT))
        self.popup.open_at(self)
        self._fetch()

    # ------------------------------------------------------------------ internals
    def _fetch(self) -> None:
        if self._fetching:
            return
        self._fetching = True
        self._tasks.run(self._list_models, self._on_models_listed, self._on_models_failed, owner=self)

    def _on_models_listed(self, models: list[str]) -> None:
        self._fetching = False
        self._listed = list(models)
        self.popup.show_models(self._listed)
        self.popup.show_status(listed_text(self._listed))

    def _on_models_failed(self, exc: BaseException) -> None:
        self._fetching = False
        log.info("could not list the server's models: %s", exc)
        error = str(exc).strip()
        self.popup.show_status(_tr(FAILED_TEXT).format(error=error if error.endswith(".") else error + "."))

    def _on_popup_chosen(self, model: str) -> None:
        self.popup.hide()
        if model != self._model or not model:
            self.chosen.emit(model)


def _elided(model: str) -> str:
    return model if len(model) <= BUTTON_MAX_CHARS else model[: BUTTON_MAX_CHARS - 1] + "…"
