"""Export chat… from the chat's menu and Back up… / Restore… in Settings → Advanced: the work runs off the GUI
thread and lands on it."""

from __future__ import annotations

import json
import os
import threading
import zipfile
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from benchmarks.synth import write_session
from okbot.core.export import export_to_file
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.chat_page import ChatPage
from okbot.ui.export_chat import ChatExporter
from okbot.ui.settings.backup_box import AdvancedPage

HUGE = 100_000


def test_a_huge_chat_is_exported_on_a_worker_thread(qtbot: QtBot, ctx: AppContext, tmp_path: Path) -> None:
    target = ctx.workspace.ensure_default()
    write_session(target.dir, HUGE)
    threads: list[threading.Thread] = []

    def spy(*args: Any, **kwargs: Any) -> int:
        threads.append(threading.current_thread())
        return export_to_file(*args, **kwargs)

    exporter = ChatExporter(ctx.tasks, ctx.workspace, export=spy)
    dest = tmp_path / "huge.json"
    with qtbot.waitSignal(exporter.finished, timeout=120_000) as done:
        exporter.start(target, "json", dest)
        assert exporter.running  # start() returned while the export runs: the GUI thread is free
    assert threads and threads[0] is not threading.main_thread()
    assert done.args == [str(dest), HUGE]
    assert len(json.loads(dest.read_text("utf-8"))["items"]) == HUGE


def test_the_chat_menu_offers_export_and_reports_it(qtbot: QtBot, ctx: AppContext, tmp_path: Path) -> None:
    target = ctx.workspace.ensure_default()
    page = ChatPage(ctx, target)
    qtbot.addWidget(page)
    assert "Export chat…" in [a.text() for a in page.chat_menu.actions()]
    dest = tmp_path / "chat.md"
    with qtbot.waitSignal(page.exporter.finished, timeout=20_000):
        page.exporter.start(target, "md", dest)
    assert dest.read_text("utf-8").startswith(f"# {target.name}")
    assert "Exported 0 items" in page.status_line.text()


def test_back_up_and_restore_from_settings(qtbot: QtBot, ctx: AppContext, tmp_path: Path) -> None:
    home = paths.data_dir()
    (home / "settings.json").write_text('{"version": 1}\n', "utf-8")
    (home / "keys.json").write_text('{"version": 1, "keys": {"default": "sk-x"}}\n', "utf-8")
    threads: list[threading.Thread] = []
    asked: list[str] = []
    quits: list[bool] = []
    page = AdvancedPage(
        ctx,
        confirm=lambda text: asked.append(text) or True,
        on_thread=lambda: threads.append(threading.current_thread()),
        quit_app=lambda: quits.append(True),
    )
    qtbot.addWidget(page)
    dest = tmp_path / "b.zip"
    page.back_up_to(dest)
    qtbot.waitUntil(lambda: not page.busy, timeout=20_000)
    assert "Backed up" in page.backup_note.text()
    assert "data/keys.json" not in zipfile.ZipFile(dest).namelist()
    (home / "settings.json").write_text('{"version": 1, "changed": true}\n', "utf-8")

    page.restore_from(dest)
    qtbot.waitUntil(lambda: bool(quits), timeout=20_000)
    assert asked and "moved to" in asked[0]
    assert json.loads((home / "settings.json").read_text("utf-8")) == {"version": 1}
    assert all(t is not threading.main_thread() for t in threads) and len(threads) >= 3


def test_a_backup_from_settings_names_what_it_left_out(qtbot: QtBot, ctx: AppContext, tmp_path: Path) -> None:
    """A workspace file that is another name of the key file stays out of the zip; the box says so, as the CLI does."""
    home = paths.data_dir()
    (home / "keys.json").write_text('{"version": 1, "keys": {"default": "sk-secret-ui"}}\n', "utf-8")
    workspace = home / "assistants" / "okbot" / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    os.link(home / "keys.json", workspace / "notes.txt")
    page = AdvancedPage(ctx, confirm=lambda text: True, quit_app=lambda: None)
    qtbot.addWidget(page)
    dest = tmp_path / "b.zip"
    page.back_up_to(dest)
    qtbot.waitUntil(lambda: not page.busy)
    assert "Backed up" in page.backup_note.text() and "assistants/okbot/workspace/notes.txt" in page.backup_note.text()
    assert "data/assistants/okbot/workspace/notes.txt" not in zipfile.ZipFile(dest).namelist()


def test_restore_asks_and_a_no_changes_nothing(qtbot: QtBot, ctx: AppContext, tmp_path: Path) -> None:
    home = paths.data_dir()
    (home / "settings.json").write_text('{"version": 1}\n', "utf-8")
    page = AdvancedPage(ctx, confirm=lambda text: False, quit_app=lambda: None)
    qtbot.addWidget(page)
    dest = tmp_path / "b.zip"
    page.back_up_to(dest)
    qtbot.waitUntil(lambda: not page.busy, timeout=20_000)
    (home / "settings.json").write_text('{"version": 1, "changed": true}\n', "utf-8")
    page.restore_from(dest)
    qtbot.waitUntil(lambda: not page.busy, timeout=20_000)
    assert json.loads((home / "settings.json").read_text("utf-8")) == {"version": 1, "changed": True}
    assert "Nothing was restored" in page.backup_note.text()
