"""Fixtures for the UI tests: an AppContext pointed at the fake server (the `server` fixture of tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from okbot import i18n
from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.translation import apply_language
from tests.helpers.env import settings_for
from tests.helpers.fake_openai import FakeOpenAIServer
from tests.helpers.keyrings import no_keyring, system_keyring

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
