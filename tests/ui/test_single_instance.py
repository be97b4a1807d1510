"""One GUI per data dir: the second raises the first and exits; the CLI keeps working (issue 9)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.session import SessionStore
from okbot.core.workspace import Workspace
from okbot.storage.datalock import DataDirLock
from okbot.ui.app import claim_data_dir, serve_second_instances
from okbot.ui.single_instance import SingleInstance, server_name
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.patience import PATIENT_SECONDS

REPO = Path(__file__).resolve().parents[2]

# The second GUI exactly as `okbot` starts it; a dialog it shows is recorded, then dismissed.
_SECOND_GUI = textwrap.dedent("""
    import json, sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox
    from okbot.ui.app import create_application
    from okbot.__main__ import main

    app = create_application(["okbot"])
    dialogs = []

    def dismiss_dialogs():
        for w in QApplication.topLevelWidgets():
            if isinstance(w, QMessageBox) and w.isVisible():
                dialogs.append([w.windowTitle(), w.text()])
                w.done(0)
        QTimer.singleShot(100, dismiss_dialogs)

    QTimer.singleShot(100, dismiss_dialogs)
    code = main([])
    print(json.dumps({"code": code, "dialogs": dialogs}))
    sys.exit(code)
""")

_HOLD_GUI_CLAIM = textwrap.dedent("""
    from pathlib import Path
    import sys
    from PySide6.QtWidgets import QWidget
    from okbot.ui.app import claim_data_dir, create_application, serve_second_instances

    app = create_application(["okbot"])
    lock = claim_data_dir(Path(sys.argv[1]))
    window = QWidget()
    guard = serve_second_instances(lock, window) if lock is not None else None
    print("claimed" if guard is not None and guard.listening else "refused", flush=True)
    app.exec()
""")

# The first GUI exactly as `okbot` starts it; it minimizes its window once it listens, and on a
# stop file reports whether a second instance brought the window back.
_FIRST_GUI = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from okbot.ui.app import create_application
    from okbot.ui.main_window import MainWindow
    from okbot.ui.single_instance import SingleInstance
    from okbot.__main__ import main

    app = create_application(["okbot"])
    stop = Path(sys.argv[1])
    state = {"ready": False}

    def poll():
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        for w in windows:
            guards = w.findChildren(SingleInstance)
            if not state["ready"] and guards and guards[0].listening:
                state["ready"] = True
                w.showMinimized()
                print("ready", flush=True)
            if state["ready"] and stop.exists():
                print(json.dumps({"minimized": w.isMinimized()}), flush=True)
                w.close()
                return
        QTimer.singleShot(50, poll)

    QTimer.singleShot(50, poll)
    sys.exit(main([]))
""")


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "OKBOT_HOME": str(home), "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}


def _start(script: str, home: Path, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        cwd=REPO,
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(qtbot: QtBot, proc: subprocess.Popen[str]) -> tuple[str, str]:
    """Wait for ``proc`` while this process's event loop keeps answering it."""
    qtbot.waitUntil(lambda: proc.poll() is not None, timeout=60_000)
    return proc.communicate(timeout=10)


def _snapshot(home: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(home)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in home.rglob("*")
        if p.is_file() and "logs" not in p.relative_to(home).parts
    }


@pytest.fixture
def first_gui(qtbot: QtBot, okbot_home: Path) -> tuple[SingleInstance, QWidget]:
    """This process as the data dir's GUI: it holds the claim and raises its window when asked."""
    Workspace().ensure_default()
    lock = claim_data_dir(okbot_home)
    assert lock is not None
    window = QWidget()
    qtbot.addWidget(window)
    guard = serve_second_instances(lock, window)
    assert guard.listening
    yield guard, window
    guard.release()


def test_the_socket_name_is_stable_per_data_dir_and_differs_between_them(tmp_path: Path) -> None:
    assert server_name(tmp_path / "a") == server_name(tmp_path / "a" / ".." / "a")
    assert server_name(tmp_path / "a") != server_name(tmp_path / "b")
    assert len(server_name(tmp_path / ("x" * 300))) < 40  # short enough for any socket path


def test_a_claimed_data_dir_cannot_be_claimed_again_until_released(first_gui: tuple, okbot_home: Path) -> None:
    guard, _ = first_gui
    assert not SingleInstance(okbot_home).acquire()
    guard.release()
    again = SingleInstance(okbot_home)
    assert again.acquire() and again.listening
    again.release()


def test_a_second_gui_raises_the_first_window_and_exits_0_touching_nothing(
    first_gui: tuple, qtbot: QtBot, okbot_home: Path
) -> None:
    _, window = first_gui
    window.show()
    window.showMinimized()
    assert window.isMinimized()
    before = _snapshot(okbot_home)
    out, err = _finish(qtbot, _start(_SECOND_GUI, okbot_home))
    assert '"code": 0' in out, err
    assert "already running" in err and str(okbot_home) in err
    assert '"dialogs": []' in out
    assert not window.isMinimized() and window.isVisible()
    assert _snapshot(okbot_home) == before  # the second instance wrote nothing


@pytest.mark.slow
def test_a_second_gui_that_cannot_reach_the_first_says_so_and_exits_non_zero(qtbot: QtBot, okbot_home: Path) -> None:
    lock = DataDirLock(okbot_home)  # held, but nobody listens: a hung first instance
    assert lock.try_acquire()
    try:
        proc = _start(_SECOND_GUI, okbot_home)
        out, err = _finish(qtbot, proc)
    finally:
        lock.release()
    assert proc.returncode == 1
    assert "did not answer" in err and f"process {os.getpid()}" in err
    assert '"OkBot is already running"' in out and "close the other one" in out  # the dialog was shown


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_gui_leaves_no_stale_claim_or_socket(qtbot: QtBot, okbot_home: Path) -> None:
    okbot_home.mkdir(parents=True, exist_ok=True)
    proc = _start(_HOLD_GUI_CLAIM, okbot_home, okbot_home)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "claimed"
    os.kill(proc.pid, signal.SIGKILL)  # a crash: the socket file it listened on stays behind
    proc.wait(timeout=30)
    guard = SingleInstance(okbot_home)
    assert guard.acquire() and guard.listening
    seen = []
    guard.raise_requested.connect(lambda: seen.append(True))
    out, err = _finish(qtbot, _start(_SECOND_GUI, okbot_home))
    guard.release()
    assert '"code": 0' in out, err
    assert seen == [True]


def test_the_cli_writes_to_a_chat_while_the_gui_holds_the_data_dir(
    first_gui: tuple,
    server: FakeOpenAIServer,
    okbot_home: Path,  # noqa: F811 - fixture
) -> None:
    server.set_default(lambda _body: Reply(text="hello from the model"))
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    target = Workspace().ensure_default()
    store = SessionStore(target.dir / "session.jsonl")  # the GUI's view of the chat
    done = subprocess.run(
        [sys.executable, "-m", "okbot", "chat", target.name, "-m", "hi from the CLI"],
        cwd=REPO,
        env=_env(okbot_home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "hello from the model" in done.stdout
    added = [(it["type"], it["content"]) for it in store.read_after(0)[0]]
    assert ("user", "hi from the CLI") in added and ("assistant", "hello from the model") in added
    assert (
        store.append({"type": "notice", "content": "the GUI writes next", "author": "app", "source": "app"})["id"]
        == len(added) + 1
    )


@pytest.mark.slow
def test_two_real_guis_on_one_data_dir_the_second_raises_the_first(
    qtbot: QtBot, okbot_home: Path, tmp_path: Path
) -> None:
    stop = tmp_path / "stop"
    first = _start(_FIRST_GUI, okbot_home, stop)
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "ready", first.stderr
        second = subprocess.run(
            [sys.executable, "-c", _SECOND_GUI],
            cwd=REPO,
            env=_env(okbot_home),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stderr
        stop.touch()
        out, err = first.communicate(timeout=60)
    finally:
        first.kill()
    assert first.returncode == 0, err
    assert '{"minimized": false}' in out  # the first window came back to the front


def test_sigterm_quits_the_real_app_cleanly_and_frees_the_data_dir(okbot_home: Path) -> None:
    import time

    okbot_home.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "okbot"],
        cwd=REPO,
        env=_env(okbot_home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    listening = Path(tempfile.gettempdir()) / server_name(okbot_home)  # after the first paint: in the event loop
    try:
        deadline = time.monotonic() + PATIENT_SECONDS
        while not listening.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "the app never reached its event loop"
            time.sleep(0.05)
        assert DataDirLock(okbot_home).holder_pid() == proc.pid
        proc.send_signal(signal.SIGTERM)  # a logout, or `kill`
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and not list((okbot_home / "logs").glob("crash-*"))
    lock = DataDirLock(okbot_home)
    assert lock.try_acquire()  # released on the way out
    lock.release()
