"""OkBot in the system tray: the assistants and squads, *Open*, *Quit*, and a notice when a reply arrives
while the window is hidden.

The main window decides what closing it does (``ui.onClose``: ask the first time, keep running in the
tray, or quit); it keeps a tray only where the desktop has one (:func:`tray_available`). Where there is
none, closing quits, as before, and Settings → Appearance says why the choice is off.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QAbstractButton, QMenu, QMessageBox, QSystemTrayIcon, QWidget

from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP

NO_TRAY_REASON = QT_TRANSLATE_NOOP("Tray", "This desktop shows no tray icons, so closing the window quits OkBot")
NOTICE_CHARS = 160  # of the reply shown in the notification
NOTICE_MS = 10_000


def tray_available() -> bool:
    """Whether the desktop shows tray icons (a status notifier host or an X11 system tray)."""
    return QSystemTrayIcon.isSystemTrayAvailable()


def notice_text(text: str) -> str:
    """The start of a reply as a notification shows it: one paragraph, at most :data:`NOTICE_CHARS`."""
    flat = " ".join(text.split())
    return flat if len(flat) <= NOTICE_CHARS else flat[: NOTICE_CHARS - 1].rstrip() + "…"


class Tray(QObject):
    """The tray icon and its menu. ``targets`` lists what the menu offers, read each time it opens.

    Signals: ``open_requested(target)`` (None: just the window), ``quit_requested()``.
    """

    open_requested = Signal(object)
    quit_requested = Signal()

    def __init__(self, icon: QIcon, targets: Callable[[], list[Target]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._targets = targets
        self._noticed: Target | None = None  # the chat the last notification was about
        self.last_notice: tuple[str, str] | None = None  # its title and text
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setToolTip("OkBot")
        self.menu = QMenu()
        self.menu.aboutToShow.connect(self._fill_menu)
        self._fill_menu()
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        self.icon.messageClicked.connect(self._on_message_clicked)

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def notify(self, target: Target, text: str) -> None:
        """Say that ``target`` replied (the desktop's own notification); clicking it opens that chat."""
        self._noticed = target
        title = QCoreApplication.translate("Tray", "{name} replied").format(name=target.name)
        self.last_notice = (title, notice_text(text))
        self.icon.showMessage(title, self.last_notice[1], QSystemTrayIcon.MessageIcon.Information, NOTICE_MS)

    def actions(self) -> list[QAction]:
        """The menu's actions as it shows them now (the targets first, then Open and Quit)."""
        return [action for action in self.menu.actions() if not action.isSeparator()]

    def _fill_menu(self) -> None:
        self.menu.clear()
        for target in self._targets():
            action = self.menu.addAction(target.name)
            action.triggered.connect(lambda _checked=False, t=target: self.open_requested.emit(t))
        if self.menu.actions():
            self.menu.addSeparator()
        self.menu.addAction(QCoreApplication.translate("Tray", "Open OkBot")).triggered.connect(
            lambda: self.open_requested.emit(None)
        )
        self.menu.addAction(QCoreApplication.translate("Tray", "Quit OkBot")).triggered.connect(self.quit_requested)

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.open_requested.emit(None)

    def _on_message_clicked(self) -> None:
        self.open_requested.emit(self._noticed)


def ask_on_close(parent: QWidget, answered: Callable[[str], None]) -> QMessageBox:
    """Ask (once: the answer is kept as ``ui.onClose``) whether closing the window quits or keeps OkBot in the
    tray; ``answered`` gets ``"tray"`` or ``"quit"``, nothing when the user cancels. Not modal: it returns the
    box, shown."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(QCoreApplication.translate("Tray", "Close OkBot"))
    box.setText(QCoreApplication.translate("Tray", "Keep OkBot running in the tray when the window closes?"))
    box.setInformativeText(
        QCoreApplication.translate(
            "Tray",
            "In the tray, replies finish and schedules run; a reply that arrives shows a notification. "
            "OkBot remembers your choice; change it in Settings → Appearance.",
        )
    )
    keep = box.addButton(
        QCoreApplication.translate("Tray", "Keep running in the tray"), QMessageBox.ButtonRole.AcceptRole
    )
    quit_button = box.addButton(
        QCoreApplication.translate("Tray", "Quit OkBot"), QMessageBox.ButtonRole.DestructiveRole
    )
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(keep)

    def on_clicked(button: QAbstractButton) -> None:
        if button is keep:
            answered("tray")
        elif button is quit_button:
            answered("quit")

    box.buttonClicked.connect(on_clicked)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
