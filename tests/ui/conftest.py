"""Fixtures for the UI tests: an AppContext pointed at the fake server (the `server` fixture of tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from okbot import i18n
from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.translation import apply_language
from tests.helpers.env import settings_for
from tests.helpers.fake_openai import FakeOpenAIServer
from tests.helpers.keyrings import no_keyring, system_keyring
from tests.helpers.patience import PATIENT_MS

# The keys and settings tests run as on a desktop without a keyring (this machine's own is never
# touched): ``pytestmark = KEYLESS`` in their module.
KEYLESS = pytest.mark.usefixtures("no_system_keyring")


@pytest.fixture(autouse=True)
def _application(qapp: object) -> Iterator[object]:
    """Every UI test runs with the QApplication up: a QFont or a QTextDocument made without one aborts the
    process, and which test a worker runs first is not fixed. A test that switched the UI's language leaves
    the next one in English, translators removed."""
    yield qapp
    apply_language(i18n.SOURCE_LANGUAGE)  # cheap in English: nothing to read


class PatientQtBot(QtBot):
    """pytest-qt's bot whose waits, when a test names no bound, last :data:`PATIENT_MS` instead of 5 s: a turn,
    a worker's result or a repaint that a loaded machine delays past 5 s is still the pass it is."""

    def waitUntil(self, callback: Callable[[], bool | None], *, timeout: int = PATIENT_MS) -> None:
        super().waitUntil(callback, timeout=timeout)

    def waitSignal(self, signal: Any, *, timeout: int = PATIENT_MS, **kwargs: Any) -> Any:
        return super().waitSignal(signal, timeout=timeout, **kwargs)

    def waitSignals(self, signals: list[Any], *, timeout: int = PATIENT_MS, **kwargs: Any) -> Any:
        return super().waitSignals(signals, timeout=timeout, **kwargs)

    def waitCallback(self, *, timeout: int = PATIENT_MS, raising: bool | None = None) -> Any:
        return super().waitCallback(timeout=timeout, raising=raising)

    def waitExposed(self, widget: Any, *, timeout: int = PATIENT_MS) -> Any:
        return super().waitExposed(widget, timeout=timeout)

    def waitActive(self, widget: Any, *, timeout: int = PATIENT_MS) -> Any:
        return super().waitActive(widget, timeout=timeout)


@pytest.fixture
def qtbot(qapp: object, request: pytest.FixtureRequest) -> PatientQtBot:
    """Every UI test's qtbot (pytest-qt's own fixture, made patient)."""
    return PatientQtBot(request)


@pytest.fixture
def ctx(qapp: object, server: FakeOpenAIServer) -> Iterator[AppContext]:
    """An AppContext in the test's OKBOT_HOME whose provider is the fake server (no key)."""
    settings = settings_for(server, {"provider.maxRetries": 1})
    ws = Workspace()
    ws.ensure_default()
    context = AppContext.create(ws, settings)
    yield context
    context.tasks.wait_for_done(5000)


@pytest.fixture
def no_system_keyring() -> Iterator[None]:
    """No system keyring unless the test sets one."""
    with system_keyring(no_keyring()):
        yield


@pytest.fixture
def serverless_ctx() -> AppContext:
    """An AppContext in the test's OKBOT_HOME holding the default assistant, with the settings as stored
    (no fake server: for the tests of setting a provider up)."""
    workspace = Workspace()
    workspace.ensure_default()
    return AppContext.create(workspace, Settings.load())
