"""The UI's language: Qt's translators for OkBot's own catalogue and for Qt's standard dialogs.

The language comes from the ``ui.language`` setting (``system`` follows the desktop's preferred
languages) and is applied when the app starts: every window is built in it. The core and the CLI read
the same catalogue through :mod:`okbot.i18n`, so this also sets their language.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from okbot import i18n

log = logging.getLogger("okbot.ui.translation")

_installed: list[QTranslator] = []


def apply_language(setting: str) -> str:
    """Translate the UI, the core and Qt's own dialogs into the language ``setting`` names; returns it."""
    code = i18n.set_language(i18n.resolve(setting, QLocale.system().uiLanguages()))
    install_translators(code)
    return code


def qt_catalogue(code: str) -> str:
    """Qt's own ``qtbase_<code>.qm``: where Qt says its translations are, else beside the PySide6 package
    (a bundled app whose Qt prefix points elsewhere)."""
    name = f"qtbase_{code}.qm"
    for folder in (QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath), _pyside_translations()):
        if folder and (Path(folder) / name).is_file():
            return str(Path(folder) / name)
    return name


def _pyside_translations() -> str:
    import PySide6

    return str(Path(PySide6.__file__).parent / "Qt" / "translations")


def install_translators(code: str) -> None:
    """Replace the application's translators with those for ``code`` (none for English)."""
    app = QCoreApplication.instance()
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    # dates and numbers Qt formats follow the UI's language; in English, the system's own conventions
    QLocale.setDefault(QLocale.system() if code == i18n.SOURCE_LANGUAGE else QLocale(code))
    if code == i18n.SOURCE_LANGUAGE:
        return
    wanted = (
        (str(i18n.catalogue_file(code)), "OkBot"),
        (qt_catalogue(code), "Qt"),  # the standard dialogs' buttons, file dialog, context menus
    )
    for path, whose in wanted:
        translator = QTranslator(app)
        if translator.load(path):
            app.installTranslator(translator)
            _installed.append(translator)
        else:
            log.warning("cannot load %s's %s translations from %s", whose, code, path)
