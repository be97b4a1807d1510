"""One desktop app per data dir: the first instance holds the lock, a second one raises its window.

The first GUI takes :class:`okbot.storage.datalock.DataDirLock` and listens on a local socket
(QLocalServer) named from a hash of the data dir path. A second GUI on the same data dir fails to
take the lock, connects to that socket and asks the first to raise its window; when the first
answers, the second exits 0, and when it cannot be reached the second says so and exits non-zero.
The CLI never takes this lock (see :mod:`okbot.storage.datalock` for why that is safe).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from okbot.storage.datalock import DataDirLock

RAISE_REQUEST = b"raise\n"
RAISE_ACK = b"raised\n"
CONNECT_ATTEMPTS = 25  # the first instance holds the lock before it listens (after its first frame)
CONNECT_TIMEOUT_MS = 300
RETRY_PAUSE_S = 0.2
REPLY_TIMEOUT_MS = 3000


def server_name(data_dir: Path) -> str:
    """The local socket name for ``data_dir``: per user and per (resolved) data dir path."""
    key = f"{getattr(os, 'getuid', lambda: 0)()}:{Path(data_dir).resolve()}"
    return "okbot-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


class SingleInstance(QObject):
    """The data-dir lock plus the local server a second instance talks to.

    ``raise_requested`` fires (on the GUI thread) each time another instance asks this one to
    bring its window to the front.
    """

    raise_requested = Signal()

    def __init__(self, data_dir: Path, *, lock: DataDirLock | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data_dir = Path(data_dir)
        self.name = server_name(self.data_dir)
        self._lock = lock or DataDirLock(self.data_dir)
        self._server: QLocalServer | None = None

    def acquire(self) -> bool:
        """Take the data-dir lock (unless already held) and listen; False when another process holds it."""
        if not self._lock.held and not self._lock.try_acquire():
            return False
        self.listen()
        return True

    def listen(self) -> None:
        """Start answering second instances (the data-dir lock must be held by this process)."""
        if self._server is not None:
            return
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.name):
            # we hold the lock, so any socket left under this name belongs to a crashed instance
            QLocalServer.removeServer(self.name)
            server.listen(self.name)
        server.newConnection.connect(self._on_server_new_connection)
        self._server = server

    @property
    def listening(self) -> bool:
        """True when a second instance can reach this one."""
        return self._server is not None and self._server.isListening()

    def holder_pid(self) -> int | None:
        """The process id of the instance holding the data dir, if known."""
        return self._lock.holder_pid()

    def ask_first_to_raise(self) -> bool:
        """Second instance: ask the first to raise its window; True once it confirmed."""
        for _ in range(CONNECT_ATTEMPTS):
            socket = QLocalSocket()
            socket.connectToServer(self.name)
            if socket.waitForConnected(CONNECT_TIMEOUT_MS):
                socket.write(RAISE_REQUEST)
                socket.waitForBytesWritten(REPLY_TIMEOUT_MS)
                reply = b""
                while RAISE_ACK not in reply and socket.waitForReadyRead(REPLY_TIMEOUT_MS):
                    reply += bytes(socket.readAll().data())
                socket.abort()
                return RAISE_ACK in reply
            socket.abort()
            time.sleep(RETRY_PAUSE_S)
        return False

    def release(self) -> None:
        """Stop listening and let go of the data dir (also done by the OS when the process ends)."""
        if self._server is not None:
            self._server.close()
            self._server = None
        self._lock.release()

    def _on_server_new_connection(self) -> None:
        server = self._server
        while server is not None and server.hasPendingConnections():
            socket = server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._on_socket_ready_read(s))
            socket.disconnected.connect(socket.deleteLater)
            if socket.bytesAvailable():
                self._on_socket_ready_read(socket)

    def _on_socket_ready_read(self, socket: QLocalSocket) -> None:
        if RAISE_REQUEST.strip() not in bytes(socket.readAll().data()):
            return
        self.raise_requested.emit()
        socket.write(RAISE_ACK)
        socket.flush()
