"""One editor widget per declared setting, chosen by its type in the schema.

bool -> check box; int -> spin box (a nullable int shows its declared ``null_words``, "Model
default", at its lowest step); float ratio (bounds within 0..1) -> slider in steps of 0.01 with a
value label; other float -> decimal spin box; choices -> combo box; text -> line edit.

A field only reports what the user chose (``edited``); it never validates or stores anything.
The :class:`~okbot.ui.settings.binder.SettingsBinder` hands the value to ``Settings.set``. A value
the store refuses stays on show, with the refusal in :attr:`SettingField.problem_label` right under
the field, so nothing the user typed vanishes. That is why the spin boxes take any number typed
(up to one digit more than the bound): the arrows stay within the declared bounds, but a typed 50
reaches the store and comes back with its message instead of being silently clamped.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSlider,
    QSpinBox,
    QWidget,
)

from okbot.config.schema import Setting
from okbot.ui.chat.colors import ChatColors

RATIO_STEPS = 100  # slider steps per 1.0
RATIO_PAGE_STEP = 5


def suffix_for(spec: Setting) -> str:
    """What a spin box shows after the number: the declared unit, if any."""
    return f" {spec.shown_unit()}" if spec.unit else ""


def is_ratio(spec: Setting) -> bool:
    """A float with both bounds inside 0..1: shown as a slider."""
    return (
        spec.type is float
        and spec.minimum is not None
        and spec.maximum is not None
        and 0 <= spec.minimum < spec.maximum <= 1
    )


def typing_limit(bound: float) -> float:
    """How far a spin box lets a number be typed: one digit more than ``bound``, so 50 or 80000 reach the store."""
    return abs(bound) * 10 + 9


class ProblemLabel(QLabel):
    """Why the value on show in a field was refused, in the palette's error colour; hidden while empty."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingProblem")
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._tinting = False
        self.hide()

    def show_problem(self, text: str) -> None:
        self.setText(text)
        self.setVisible(bool(text))

    def changeEvent(self, event: QEvent) -> None:
        # the error colour follows the theme; setting it sends one more PaletteChange, which is ignored
        if event.type() == QEvent.Type.PaletteChange and not self._tinting:
            self._tinting = True
            try:
                palette = QPalette(self.palette())
                colour = ChatColors.from_palette(palette).error
                palette.setColor(QPalette.ColorRole.WindowText, colour)
                palette.setColor(QPalette.ColorRole.Text, colour)
                self.setPalette(palette)
            finally:
                self._tinting = False
        super().changeEvent(event)

    def showEvent(self, event: Any) -> None:
        self.changeEvent(QEvent(QEvent.Type.PaletteChange))
        super().showEvent(event)


class SettingField(QWidget):
    """The editor of one setting. ``edited(value)`` fires when the user chose a value.

    ``problem_label`` says why the value on show was refused (the page puts it right under the field).
    """

    edited = Signal(object)

    def __init__(self, spec: Setting, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.help: QLabel | None = None  # the help text under the field, set by the page
        self.column: Any = None  # the page's stack of this field and its notes (a QVBoxLayout)
        self.problem_label = ProblemLabel()
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def key(self) -> str:
        return self.spec.key

    def editor(self) -> QWidget:
        """The widget that takes focus (a label's buddy, what tests type into)."""
        raise NotImplementedError

    def value(self) -> Any:
        """The value on show."""
        raise NotImplementedError

    def set_value(self, value: Any) -> None:
        """Show ``value`` without emitting ``edited``."""
        blocker = QSignalBlocker(self.editor())
        try:
            self._show(value)
        finally:
            blocker.unblock()

    def _show(self, value: Any) -> None:
        raise NotImplementedError

    def show_problem(self, text: str) -> None:
        """Say why the value on show is not saved (``""`` clears it)."""
        self.problem_label.show_problem(text)
        self.editor().setAccessibleDescription(text)

    def problem(self) -> str:
        """The refusal shown under the field ("" when the value on show is the saved one)."""
        return self.problem_label.text()

    def set_locked(self, reason: str) -> None:
        """Make the field read-only with ``reason`` as its tooltip (``""`` unlocks it)."""
        self.editor().setEnabled(not reason)
        self.editor().setToolTip(reason or self.spec.shown_description())
        if self.help is not None:
            description = self.spec.shown_description()
            self.help.setText(
                self.tr("{reason}. {description}").format(reason=reason, description=description)
                if reason
                else description
            )


class BoolField(SettingField):
    """A check box whose text is the setting's label."""

    def __init__(self, spec: Setting, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.box = QCheckBox(spec.shown_label())
        self.box.setToolTip(spec.shown_description())
        self.box.toggled.connect(self._on_box_toggled)
        self._layout.addWidget(self.box)
        self._layout.addStretch(1)

    def editor(self) -> QWidget:
        return self.box

    def value(self) -> bool:
        return self.box.isChecked()

    def _show(self, value: Any) -> None:
        self.box.setChecked(bool(value))

    def _on_box_toggled(self, checked: bool) -> None:
        self.edited.emit(bool(checked))


class _SteppedWithinBounds:
    """Arrow keys, wheel and buttons of a spin box stay within ``bounds``; typing may go beyond them.

    ``null_at`` is the value that stands for "no value" (a nullable setting's 0, shown as its
    ``null_words``): one step down from the lowest bound reaches it, one step up leaves it for
    ``null_step``.
    """

    bounds: tuple[float, float]
    null_at: float | None = None
    null_step: float = 0

    def stepBy(self, steps: int) -> None:
        low, high = self.bounds
        value = self.value()  # type: ignore[attr-defined]
        if self.null_at is not None and value == self.null_at:
            target = self.null_step if steps > 0 else value
        else:
            target = min(max(value + steps * self.singleStep(), low), high)  # type: ignore[attr-defined]
            if self.null_at is not None and steps < 0 and value <= low:
                target = self.null_at
        self.setValue(target)  # type: ignore[attr-defined]

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        low, high = self.bounds
        value = self.value()  # type: ignore[attr-defined]
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        is_null = self.null_at is not None and value == self.null_at
        if is_null or value < high:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        if not is_null and (value > low or self.null_at is not None):
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        return flags


class BoundedSpinBox(_SteppedWithinBounds, QSpinBox):
    """A whole-number spin box whose arrows keep to ``bounds``."""


class BoundedDoubleSpinBox(_SteppedWithinBounds, QDoubleSpinBox):
    """A decimal spin box whose arrows keep to ``bounds``."""


class IntField(SettingField):
    """A spin box whose arrows keep to the schema's bounds; typing commits on Enter or leaving the box."""

    def __init__(self, spec: Setting, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.spin = BoundedSpinBox()
        self.spin.setKeyboardTracking(False)  # one valueChanged per commit, not per keystroke
        self.spin.setGroupSeparatorShown(True)
        self.spin.setSuffix(suffix_for(spec))
        low = int(spec.minimum) if spec.minimum is not None else 0
        high = int(spec.maximum) if spec.maximum is not None else 2**31 - 1
        self.spin.bounds = (low, high)
        limit = int(min(typing_limit(high), 2**31 - 1))
        if spec.nullable:
            # 0 stands for "no value", shown in the declared words; a number below the minimum can
            # still be typed and is refused by the store with its message.
            self.spin.setSpecialValueText(spec.shown_null_words())
            self.spin.null_at, self.spin.null_step = 0, low
            self.spin.setRange(0, limit)
        else:
            self.spin.setRange(-limit, limit)
        self.spin.setSingleStep(1000 if high >= 100_000 else 1)
        self.spin.setMinimumWidth(150)
        self.spin.setToolTip(spec.shown_description())
        self.spin.valueChanged.connect(self._on_spin_value_changed)
        self._layout.addWidget(self.spin)
        self._layout.addStretch(1)

    def editor(self) -> QWidget:
        return self.spin

    def value(self) -> int | None:
        number = self.spin.value()
        return None if self.spec.nullable and number == 0 else number

    def _show(self, value: Any) -> None:
        self.spin.setValue(0 if value is None else int(value))

    def set_null_step(self, value: int) -> None:
        """Where one step up from "no value" goes (the lowest bound unless set): the system's text size."""
        self.spin.null_step = value

    def _on_spin_value_changed(self, _number: int) -> None:
        self.edited.emit(self.value())


class FloatField(SettingField):
    """A decimal spin box whose arrows keep to the schema's bounds."""

    def __init__(self, spec: Setting, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.spin = BoundedDoubleSpinBox()
        self.spin.setKeyboardTracking(False)
        self.spin.setDecimals(1)
        self.spin.setSuffix(suffix_for(spec))
        low = spec.minimum if spec.minimum is not None else 0.0
        high = spec.maximum if spec.maximum is not None else 1e9
        self.spin.bounds = (low, high)
        self.spin.setRange(-typing_limit(high), typing_limit(high))
        self.spin.setMinimumWidth(150)
        self.spin.setToolTip(spec.shown_description())
        self.spin.valueChanged.connect(self._on_spin_value_changed)
        self._layout.addWidget(self.spin)
        self._layout.addStretch(1)

    def editor(self) -> QWidget:
        return self.spin

    def value(self) -> float:
        return float(self.spin.value())

    def _show(self, value: Any) -> None:
        self.spin.setValue(float(value))

    def _on_spin_value_changed(self, number: float) -> None:
        self.edited.emit(float(number))


class RatioField(SettingField):
    """A slider in steps of 0.01 (arrow keys: one step, Page Up/Down: five) with its value beside it.

    The value is committed when the handle is released or a key moved it, not on every pixel of
    a drag, so dragging does not rewrite settings.json dozens of times.
    """

    def __init__(self, spec: Setting, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(round(spec.minimum * RATIO_STEPS), round(spec.maximum * RATIO_STEPS))
        self.slider.setSingleStep(1)
        self.slider.setPageStep(RATIO_PAGE_STEP)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(RATIO_PAGE_STEP)
        self.slider.setMinimumWidth(120)
        self.slider.setToolTip(spec.shown_description())
        self.slider.setAccessibleName(spec.shown_label())
        self.value_label = QLabel()
        widest = self.tr("{ratio} of the window").format(ratio="0.00") + " "
        self.value_label.setMinimumWidth(self.value_label.fontMetrics().horizontalAdvance(widest))
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.slider.sliderReleased.connect(self._on_slider_released)
        self._layout.addWidget(self.slider, 1)
        self._layout.addWidget(self.value_label)

    def editor(self) -> QWidget:
        return self.slider

    def value(self) -> float:
        return round(self.slider.value() / RATIO_STEPS, 2)

    def _show(self, value: Any) -> None:
        self.slider.setValue(round(float(value) * RATIO_STEPS))
        self._show_label()

    def _show_label(self) -> None:
        self.value_label.setText(self.tr("{ratio} of the window").format(ratio=f"{self.value():.2f}"))

    def _on_slider_value_changed(self, _step: int) -> None:
        self._show_label()
        if not self.slider.isSliderDown():
            self.edited.emit(self.value())

    def _on_slider_released(self) -> None:
        self.edited.emit(self.value())


class ChoiceField(SettingField):
    """A combo box of the schema's choices (shown in the declared words where there are some)."""

    def __init__(self, spec: Setting, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.combo = QComboBox()
        for choice in spec.choices or ():
            self.combo.addItem(spec.shown_choice(choice), choice)
        self.combo.setToolTip(spec.shown_description())
        self.combo.activated.connect(self._on_combo_activated)
        self._layout.addWidget(self.combo)
        self._layout.addStretch(1)

    def editor(self) -> QWidget:
        return self.combo

    def value(self) -> str:
        return str(self.combo.currentData())

    def _show(self, value: Any) -> None:
        self.combo.setCurrentIndex(max(0, self.combo.findData(value)))

    def _on_combo_activated(self, _index: int) -> None:
        self.edited.emit(self.value())


class TextField(SettingField):
    """A line edit; the text is committed on Enter or when focus leaves it (only when it changed)."""

    def __init__(self, spec: Setting, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.line = QLineEdit()
        self.line.setToolTip(spec.shown_description())
        self.line.setClearButtonEnabled(True)
        self.line.editingFinished.connect(self._on_line_editing_finished)
        self._shown = ""
        self._layout.addWidget(self.line, 1)

    def editor(self) -> QWidget:
        return self.line

    def value(self) -> str:
        return self.line.text()

    def _show(self, value: Any) -> None:
        self._shown = "" if value is None else str(value)
        self.line.setText(self._shown)

    def _on_line_editing_finished(self) -> None:
        if self.line.text() != self._shown:
            self.edited.emit(self.line.text())


def make_field(spec: Setting, parent: QWidget | None = None) -> SettingField:
    """The editor for ``spec``, chosen by its declared type."""
    if spec.type is bool:
        return BoolField(spec, parent)
    if spec.type is int:
        return IntField(spec, parent)
    if spec.type is float:
        return RatioField(spec, parent) if is_ratio(spec) else FloatField(spec, parent)
    if spec.choices is not None:
        return ChoiceField(spec, parent)
    return TextField(spec, parent)
