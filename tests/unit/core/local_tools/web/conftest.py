"""The loopback server fixture of the web_fetch tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.core.local_tools.web.fakes import Server


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    yield srv
    srv.close()
