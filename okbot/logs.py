"""Log files and crash reports, with secrets redacted before anything reaches disk.

``setup_logging`` sends OkBot's log records to ``<log dir>/okbot.log`` (rotated, private 0600)
and installs hooks that write a crash report (``crash-<UTC time>.txt``) for an exception that
escapes the main thread or a worker thread. Every line passes :func:`okbot.llm.keys.redact`: the
API keys this process resolved (``keys.remember_secret``) and anything shaped like a credential are
replaced before they are written.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import traceback
from datetime import datetime, timezone
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import TracebackType

from okbot import __version__
from okbot.llm.keys import scrub
from okbot.storage import paths

LOG_FILE = "okbot.log"
LOG_BYTES = 1_000_000
LOG_BACKUPS = 3


class _RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


class _PrivateRotatingFileHandler(RotatingFileHandler):
    """Rotates like its parent; every file it opens is created 0600."""

    def _open(self):  # type: ignore[no-untyped-def]  # logging's own signature
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return os.fdopen(fd, self.mode.replace("w", "a"), encoding=self.encoding, errors=self.errors)


def setup_logging(*, level: int = logging.INFO, crash_reports: bool = True) -> Path | None:
    """Log ``okbot.*`` records to the log file; return its path (``None`` when it cannot be written)."""
    try:
        directory = paths.ensure_private_dir(paths.log_dir())
        handler = _PrivateRotatingFileHandler(
            directory / LOG_FILE, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
        )
    except OSError as exc:  # a read-only home: run without a log file rather than not at all
        logging.getLogger("okbot").warning("no log file (%s)", exc)
        return None
    handler.setFormatter(_RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("okbot")
    logger.setLevel(min(level, logger.level or level))
    for old in [h for h in logger.handlers if isinstance(h, _PrivateRotatingFileHandler)]:
        logger.removeHandler(old)  # called again (another data dir in the same process): one log file
        old.close()
    logger.addHandler(handler)
    if crash_reports:
        sys.excepthook = _on_uncaught
        threading.excepthook = _on_thread_uncaught
    return directory / LOG_FILE


def write_crash_report(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None, *, thread: str = "main"
) -> Path | None:
    """Write a redacted crash report to the log dir; return its path (``None`` if it could not be written)."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    body = scrub(
        f"OkBot {__version__} crash report\n"
        f"time: {stamp}\nthread: {thread}\npython: {sys.version.split()[0]}\nplatform: {sys.platform}\n\n{text}"
    )
    try:
        directory = paths.ensure_private_dir(paths.log_dir())
        path = directory / f"crash-{stamp}.txt"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
    except OSError:
        return None
    logging.getLogger("okbot").error("crash report written to %s", path)
    return path


def _on_uncaught(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if not issubclass(exc_type, KeyboardInterrupt):
        write_crash_report(exc_type, exc, tb)
    sys.__excepthook__(exc_type, exc, tb)


def _on_thread_uncaught(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is not None and not issubclass(args.exc_type, SystemExit):
        name = args.thread.name if args.thread is not None else "?"
        write_crash_report(args.exc_type, args.exc_value, args.exc_traceback, thread=name)
    threading.__excepthook__(args)
