"""Opening a file the user picked to attach, under the file tools' guard (:mod:`okbot.core.local_tools.guard`).

What OkBot never lets a tool read it never attaches either: its own data dir (settings, keys, chats,
memories), its configuration, tokenizer and keyring files, a process's environment — whether the
path names one, a symlink leads to one, or the file is a hard link to one. The path is resolved and
judged; then the file is opened along that resolved path without following any symlink
(:mod:`okbot.core.local_tools.safe_open`) and the file actually opened is judged again by its
``fstat`` (a regular file, not another name for a protected one), so a swap between
the check and the read cannot pass. A FIFO or device is never waited on: it is opened non-blocking
and refused.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from okbot.core.local_tools import guard, safe_open
from okbot.i18n import translate
from okbot.storage.errors import OkBotError


class Refused(OkBotError):
    """A file OkBot never attaches: its own data, configuration or keys (or another name for one)."""


def open_source(source: Path) -> tuple[int, os.stat_result]:
    """``source`` opened for reading (a descriptor the caller closes) and its ``fstat``.

    Raises :class:`Refused` for a protected file, :class:`OkBotError` for one that is missing, not a
    regular file or unreadable.
    """
    source = Path(source)
    try:
        real = Path(os.path.realpath(source))
    except (OSError, ValueError, RuntimeError) as exc:
        raise unreadable(source, exc) from exc
    why = guard.protected(real)
    if why:
        raise Refused(_refusal(source, _reason_text(why)), hint=_hint())
    try:
        with safe_open.open_folder(real.parent) as folder:
            fd, st = folder.open_read(real.name)
    except safe_open.PathChanged as exc:
        raise OkBotError(
            translate("attachments", "{path} changed while it was being opened; nothing was attached").format(
                path=source
            ),
            hint=translate("attachments", "a folder on its path was replaced by a symlink"),
        ) from exc
    except FileNotFoundError as exc:
        raise OkBotError(translate("attachments", "{path} does not exist").format(path=source)) from exc
    except (OSError, ValueError) as exc:
        raise unreadable(source, exc) from exc
    try:
        _judge(source, st)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def check(source: Path) -> None:
    """Raise what opening ``source`` to attach it would raise (the guard, a file that is not one)."""
    fd, _st = open_source(source)
    os.close(fd)


def _judge(source: Path, st: os.stat_result) -> None:
    """The checks made on the file actually opened."""
    if not stat.S_ISREG(st.st_mode):
        raise OkBotError(
            translate("attachments", "{path} is not a file").format(path=source),
            hint=translate("attachments", "attach a file, not a folder"),
        )
    link = guard.protected_link(st)
    if link:
        raise Refused(
            _refusal(
                source,
                translate("attachments", "it is a hard link to a file OkBot protects: {detail}").format(detail=link),
            ),
            hint=_hint(),
        )


def _refusal(source: Path, why: str) -> str:
    return translate("attachments", "{name} is not attached: {why}").format(name=source.name, why=why)


def _hint() -> str:
    return translate("attachments", "OkBot never sends its own data or keys to a model")


def _reason_text(reason: str) -> str:
    """The guard's reason (written for the model) in the user's words."""
    texts = {
        guard.DATA_REASON: translate("attachments", "it is OkBot's own data (settings, keys, chats, memories)"),
        guard.CONFIG_REASON: translate("attachments", "it is OkBot's configuration"),
        guard.TIKTOKEN_REASON: translate("attachments", "it is one of OkBot's tokenizer files"),
        guard.KEYRING_REASON: translate("attachments", "it is one of the system keyring's files, which hold API keys"),
        guard.PROC_REASON: translate("attachments", "it is a process's environment or memory, which may hold API keys"),
    }
    return texts.get(reason, reason)


def unreadable(source: Path, exc: BaseException) -> OkBotError:
    """The error for a file that cannot be read (``exc`` says why)."""
    error = getattr(exc, "strerror", None) or exc
    return OkBotError(translate("attachments", "{path} cannot be read: {error}").format(path=source, error=error))
