"""Log files and crash reports: private, and never holding the API key."""

from __future__ import annotations

import logging
import stat
import sys
import threading

import pytest

from okbot.llm.key_source import resolve_api_key
from okbot.llm.keys import remember_secret
from okbot.logs import LOG_FILE, setup_logging, write_crash_report
from okbot.storage import paths

CANARY = "sk-canary-logs-0123456789abcdef"


@pytest.fixture
def logged(monkeypatch):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    logger = logging.getLogger("okbot")
    before = list(logger.handlers)
    path = setup_logging()
    yield path
    for handler in logger.handlers[:]:
        if handler not in before:
            logger.removeHandler(handler)
            handler.close()


def test_the_log_file_is_private_and_the_resolved_key_never_reaches_it(logged, monkeypatch):
    monkeypatch.setenv("OKBOT_API_KEY", CANARY)
    assert resolve_api_key("env") == CANARY  # resolving remembers it for redaction
    logging.getLogger("okbot.test").warning("request with key %s failed; Bearer %s", CANARY, CANARY)
    text = logged.read_text(encoding="utf-8")
    assert "failed" in text and CANARY not in text and "[redacted]" in text
    if sys.platform != "win32":
        assert stat.S_IMODE(logged.stat().st_mode) == 0o600
        assert stat.S_IMODE(paths.log_dir().stat().st_mode) == 0o700
    assert logged.name == LOG_FILE


def test_crash_reports_are_written_private_and_redacted_for_main_and_worker_threads(logged):
    remember_secret(CANARY)
    try:
        raise RuntimeError(f"boom with {CANARY}")
    except RuntimeError as exc:
        report = write_crash_report(type(exc), exc, exc.__traceback__)
    assert report is not None and "boom with [redacted]" in report.read_text(encoding="utf-8")

    def crash() -> None:
        raise ValueError(f"worker died holding {CANARY}")

    worker = threading.Thread(target=crash, name="okbot-test-worker")
    worker.start()
    worker.join()
    reports = sorted(paths.log_dir().glob("crash-*.txt"))
    assert len(reports) == 2
    latest = reports[-1].read_text(encoding="utf-8")
    assert "thread: okbot-test-worker" in latest and "worker died holding [redacted]" in latest
    for path in paths.log_dir().iterdir():
        assert CANARY.encode() not in path.read_bytes()
        if sys.platform != "win32":
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
