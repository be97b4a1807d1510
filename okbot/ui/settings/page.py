"""The frame every Settings page shares: a title, a message banner and sections of generated fields.

A refused value is reported right under its own field (:meth:`SettingField.show_problem`), in the
setting's words, and stays there until that field holds a saved value again; several refusals at
once each stay by their field. The banner is for what belongs to no one field (a key saved).

A page made only of declared settings is :func:`declared_page`; a page with widgets of its own
(Models, Context compression) subclasses :class:`SettingsPage`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from okbot.config.schema import SECTIONS, SETTINGS, setting, shown_text
from okbot.ui.settings.binder import SettingsBinder
from okbot.ui.settings.fields import BoolField, SettingField, make_field

T = TypeVar("T")

ERROR_TONE = QColor(214, 64, 56)  # mixed into the palette's window colour, so it suits light and dark
HELP_FONT_SCALE = 0.92
LABEL_WIDTH = 130  # the label column of every section lines up


def if_alive(owner: QObject, callback: Callable[[T], None]) -> Callable[[T], None]:
    """``callback`` for a TaskRunner result that is dropped once ``owner`` was deleted (window closed)."""

    def deliver(value: T) -> None:
        if shiboken6.isValid(owner):
            callback(value)

    return deliver


def blend(base: QColor, tone: QColor, amount: float) -> QColor:
    """``base`` moved ``amount`` (0..1) of the way towards ``tone``."""
    return QColor(
        round(base.red() + (tone.red() - base.red()) * amount),
        round(base.green() + (tone.green() - base.green()) * amount),
        round(base.blue() + (tone.blue() - base.blue()) * amount),
    )


def humanize(message: str) -> str:
    """``message`` with each setting key replaced by its label on the page (“Keep at most”)."""
    for spec in sorted(SETTINGS, key=lambda s: len(s.key), reverse=True):
        if spec.key in message:
            message = message.replace(spec.key, f"“{spec.shown_label()}”")
    return message


class NoteLabel(QLabel):
    """A label that hides itself while it has no text (so empty status lines take no room)."""

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setVisible(bool(text))

    def clear(self) -> None:
        super().clear()
        self.setVisible(False)


def help_label(text: str) -> QLabel:
    """Secondary text (smaller, the palette's placeholder colour) that wraps; hidden while empty."""
    label = NoteLabel()
    label.setText(text)
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * HELP_FONT_SCALE)
    label.setFont(font)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class MessageBanner(QFrame):
    """A one-line (wrapping) notice at the top of a page: an error (tinted) or plain information."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsMessage")
        self.setAutoFillBackground(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.label, 1)
        self.is_error = False
        self.hide()

    def show_text(self, text: str, *, error: bool) -> None:
        """Show ``text``; ``error`` tints the banner."""
        self.is_error = error
        palette = QPalette(self.parentWidget().palette() if self.parentWidget() else self.palette())
        window = palette.color(QPalette.ColorRole.Window)
        tone = ERROR_TONE if error else palette.color(QPalette.ColorRole.Highlight)
        palette.setColor(QPalette.ColorRole.Window, blend(window, tone, 0.22 if error else 0.14))
        self.setPalette(palette)
        self.label.setText(("⚠ " if error else "") + text)
        self.show()

    def clear(self) -> None:
        """Hide the banner."""
        self.label.clear()
        self.is_error = False
        self.hide()


class _WrappingScrollArea(QScrollArea):
    """A scroll area whose page is as tall as its wrapped text needs at the current width.

    Qt sizes a resizable scroll area's widget from its minimum size, which for word-wrapped
    labels is far too small: rows then overlap instead of scrolling.
    """

    def __init__(self, body: QWidget) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(body)
        body.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._fit()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: Any) -> None:
        self._fit()
        super().resizeEvent(event)

    def _fit(self) -> None:
        body = self.widget()
        layout = body.layout() if body is not None else None
        if layout is None:
            return
        width = self.viewport().width()
        height = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else -1
        height = max(height, layout.totalMinimumSize().height())
        if body.minimumHeight() != height:
            body.setMinimumHeight(height)


class SettingsPage(QWidget):
    """One page of the Settings dialog. Its fields are bound to the live settings by its own binder.

    ``title`` is the page's name in English (marked ``QT_TRANSLATE_NOOP("settings", …)``): the key that
    finds the page and its declared sections; ``shown_title`` is what the page shows.
    """

    def __init__(self, ctx: Any, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.title = title
        self.shown_title = shown_text(title)
        self.binder = SettingsBinder(ctx, self)
        self.binder.refused.connect(self._on_binder_refused)
        self.binder.changed.connect(self._on_binder_changed)

        heading = QLabel(self.shown_title)
        font = QFont(heading.font())
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        heading.setFont(font)
        self.banner = MessageBanner(self)

        self.body = QWidget()
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(0, 0, 8, 0)
        self.body_layout.setSpacing(6)
        scroll = _WrappingScrollArea(self.body)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 12, 12)
        outer.setSpacing(10)
        outer.addWidget(heading)
        outer.addWidget(self.banner)
        outer.addWidget(scroll, 1)

    # ------------------------------------------------------------------ building
    def add_section(self, heading: str, description: str = "") -> QFormLayout:
        """A titled group of rows; returns its form layout."""
        title = QLabel(heading)
        font = QFont(title.font())
        font.setBold(True)
        title.setFont(font)
        if self.body_layout.count():
            self.body_layout.addSpacing(12)
        self.body_layout.addWidget(title)
        if description:
            self.body_layout.addWidget(help_label(description))
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(
            QFormLayout.RowWrapPolicy.WrapLongRows
        )  # a narrow window: a wide field goes under its label
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        form.setHorizontalSpacing(14)
        form.setVerticalSpacing(4)
        form.setContentsMargins(8, 2, 0, 0)
        self.body_layout.addLayout(form)
        return form

    def add_declared_sections(self) -> None:
        """Every section declared for this page, each with its settings in declaration order."""
        for section in SECTIONS:
            if section.page == self.title:
                form = self.add_section(section.shown_heading(), section.shown_description())
                for spec in SETTINGS:
                    if spec.section == section:
                        self.add_setting(form, spec.key)

    def add_setting(self, form: QFormLayout, key: str, field: SettingField | None = None) -> SettingField:
        """A field for ``key`` (generated from the schema unless given) with its help text, bound to the settings."""
        spec = setting(key)
        if spec.page != self.title:
            raise ValueError(f"{key} is declared for the {spec.page} page, not {self.title}")
        field = field or make_field(spec, self)
        field.help = help_label(spec.shown_description())
        field.column = self.add_row(
            form,
            "" if isinstance(field, BoolField) else self.tr("{label}:").format(label=spec.shown_label()),
            field,
            field.problem_label,
            field.help,
            buddy=field.editor(),
        )
        self.binder.bind(field)
        return field

    def add_row(self, form: QFormLayout, label: str, *widgets: QWidget, buddy: QWidget | None = None) -> QVBoxLayout:
        """A row of ``form``: ``label`` beside ``widgets`` stacked; returns the stack (to add notes to)."""
        column = stacked(*widgets, bottom=8)
        box = column.layout()
        text = QLabel(label)
        text.setMinimumWidth(LABEL_WIDTH)
        text.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        text.setContentsMargins(0, 4, 0, 0)
        if buddy is not None and label:
            text.setBuddy(buddy)
        form.addRow(text, column)
        return box

    def finish(self) -> None:
        """Call after the last section: pushes the rows to the top."""
        self.body_layout.addStretch(1)

    # ------------------------------------------------------------------ messages
    def show_message(self, text: str, *, error: bool = True) -> None:
        """Show ``text`` in the page's banner."""
        self.banner.show_text(text, error=error)

    def clear_message(self) -> None:
        self.banner.clear()

    def message_text(self) -> str:
        """The banner's text without its marker ("" when hidden)."""
        return self.banner.label.text().removeprefix("⚠ ") if self.banner.isVisibleTo(self) else ""

    def field(self, key: str) -> SettingField:
        """The field for ``key`` on this page."""
        return self.binder.field(key)

    def field_message(self, key: str) -> str:
        """The refusal shown under the field for ``key`` ("" when it holds a saved value)."""
        return self.field(key).problem()

    # ------------------------------------------------------------------ slots
    def _on_binder_refused(self, key: str, words: str) -> None:
        fields = self.binder.fields()
        if key not in fields:
            self.show_message(humanize(words))
            return
        spec = setting(key)
        still = spec.words_for(self.binder.settings().get(key))
        text = humanize(words)
        problem = f"{text[:1].upper()}{text[1:]}"
        fields[key].show_problem(self.tr("{problem} Still using {value}.").format(problem=problem, value=still))

    def _on_binder_changed(self, key: str) -> None:
        field = self.binder.fields().get(key)
        if field is not None and key not in self.binder.pending():
            field.show_problem("")
        if self.banner.is_error:
            self.clear_message()


def declared_page(ctx: Any, title: str) -> SettingsPage:
    """The Settings page called ``title``, made only of the sections and settings declared for it."""
    page = SettingsPage(ctx, title)
    page.add_declared_sections()
    page.finish()
    return page


def stacked(*widgets: QWidget, bottom: int = 0) -> QWidget:
    """``widgets`` one above the other, 3 px apart, in a widget of their own (a form row's field column)."""
    column = QWidget()
    box = QVBoxLayout(column)
    box.setContentsMargins(0, 0, 0, bottom)
    box.setSpacing(3)
    for widget in widgets:
        box.addWidget(widget)
    return column
