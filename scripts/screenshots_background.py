"""Render the screenshots of OkBot's background work: ``make screenshots`` (or
``python scripts/screenshots_background.py [--out DIR]``).

The tray menu (drawn where a desktop panel drops it, over the window's top right corner) with the question of
the first close, messages queued behind a streaming reply, a chat's Schedules window, the timing trace over a
reply's time (its tooltip, drawn where Qt shows it), and Settings → Appearance with its Window section; in
English and Chinese, light and dark, at 640×460 and 1280×800. Like ``screenshots.py``: a temporary OKBOT_HOME,
the local fake OpenAI server, offscreen; nothing else is touched.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import screenshots as shots  # noqa: E402 - the helpers of the English run

REPO = shots.REPO
SIZES = ((640, 460), (1280, 800))
THEMES = (("light", "system"), ("dark", "dark"))
LANGUAGES = ("en", "zh_CN")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=REPO / "docs" / "screenshots" / "background", help="where the PNGs go"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    return shots.render_in_temp_home(render_all, args.out, "okbot-shots-bg-")


def render_all(out: Path) -> list[Path]:
    from PySide6.QtGui import QFontDatabase
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    import keyring

    from tests.helpers.keyrings import MemoryKeyring

    keyring.set_keyring(MemoryKeyring())
    server = shots._fake_server()
    written: list[Path] = []
    has_chinese = bool(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))
    try:
        ctx = build_data(server)
        from okbot.ui.theme import follow_appearance

        follow_appearance(app, ctx.settings)
        for language in LANGUAGES:
            if language != "en" and not has_chinese:
                print("skipped the Chinese shots: no Chinese font (apt install fonts-noto-cjk)", file=sys.stderr)
                continue
            ctx.settings.set("ui.language", language)
            from okbot.ui.translation import apply_language

            apply_language(language)
            for theme, setting in THEMES:
                ctx.settings.set("ui.theme", setting)
                shots.settle(ctx)
                for size in SIZES:
                    written += render_tray(ctx, out, f"{language}-{theme}-{size[0]}", size)
                    written += render_queue(ctx, server, out, f"{language}-{theme}-{size[0]}", size, language)
                    written += render_schedules(ctx, server, out, f"{language}-{theme}-{size[0]}", size, language)
                    written += render_timing(ctx, server, out, f"{language}-{theme}-{size[0]}", size, language)
            written += render_appearance(ctx, out, language)
        ctx.settings.set("ui.theme", "system")
    finally:
        from okbot.ui.tasks import shutdown_tasks

        server.stop()
        shutdown_tasks()
    return written


def build_data(server: object) -> object:
    """A few assistants and a squad (what the tray's menu lists), over the fake server."""
    from okbot.core.workspace import Workspace
    from okbot.ui.app_context import AppContext

    ws = Workspace()
    ws.ensure_default()
    ws.create_assistant("Data wrangler", role="Cleans, reshapes and speeds up tabular data work.")
    ws.create_assistant("Researcher", role="Finds sources and checks facts.")
    ws.create_assistant("Writer", role="Drafts clear, friendly prose.")
    ws.create_squad("Release notes desk", [("writer", "drafts the note"), ("researcher", "checks every claim")])
    return AppContext.create(ws, shots.fake_server_settings(server))


def render_tray(ctx: object, out: Path, name: str, size: tuple[int, int]) -> list[Path]:
    """The window with the tray's menu open at its top right, then the question the first close asks."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication, QMessageBox

    from okbot.ui.main_window import MainWindow
    from okbot.ui.tray import Tray

    ctx.settings.set("ui.onClose", "ask")
    window = MainWindow(ctx)
    window.resize(*size)
    window.show()
    model = window.model
    tray = Tray(
        QApplication.windowIcon(),
        lambda: [t for row in range(model.rowCount()) if (t := model.target(row)) is not None],
        parent=window,
    )
    window.attach_tray(tray)
    shots.settle(ctx)
    tray.menu.popup(window.mapToGlobal(QPoint(window.width() - 1, 0)))  # placed by Qt on the screen
    shots.settle(ctx)
    image = window.grab().toImage()
    menu = tray.menu.grab().toImage()
    written = [shots.save(overlay(image, menu, image.width() - menu.width() - 8, 8), out / f"tray-menu-{name}.png")]
    tray.menu.hide()

    window.close()  # the first close asks
    shots.settle(ctx)
    box = next(b for b in window.findChildren(QMessageBox) if b.isVisible())
    shots.settle(ctx)
    image = window.grab().toImage()
    question = box.grab().toImage()
    x, y = (image.width() - question.width()) // 2, (image.height() - question.height()) // 3
    written.append(shots.save(overlay(image, question, max(0, x), max(0, y)), out / f"tray-close-{name}.png"))
    box.reject()
    window.quit_app()
    window.deleteLater()
    shots.settle(ctx)
    return written


QUEUED = {
    "en": ("Read readings.csv in chunks, please.", "Then plot the daily means.", "And save it as PNG."),
    "zh_CN": ("请分块读取 readings.csv。", "然后画出每天的平均值。", "再把图存成 PNG。"),
}
STREAMING = {
    "en": "Reading it in chunks of 500,000 rows, each aggregated as it arrives, keeps memory flat. " * 6,
    "zh_CN": "按每块 50 万行分块读取，每块读完就先聚合，内存就能保持平稳。" * 8,
}


def render_queue(ctx: object, server: object, out: Path, name: str, size: tuple[int, int], language: str) -> list[Path]:
    """A reply streaming, with two messages queued behind it (sent while it streams)."""
    from PySide6.QtTest import QTest

    from okbot.ui.main_window import MainWindow
    from tests.helpers.fake_openai import Reply

    first, *queued = QUEUED[language]
    server.enqueue(Reply(text=STREAMING[language], chunk_chars=3, chunk_delay=0.05))
    window = MainWindow(ctx)
    window.resize(*size)
    window.show()
    target = next(t for t in ctx.workspace.list() if t.name == "Data wrangler")
    window.select_target(target.kind, target.id)
    page = window.current_page()
    shots.settle(ctx)
    page.send(first)
    for _ in range(200):  # until a line or two of the reply has arrived (a running turn never settles)
        QTest.qWait(50)
        model = page.view.chat_model()
        if model.streaming and len(model.stream_text) > 120:
            break
    for text in queued:
        page.composer.set_text(text)
        page.send(text)
    QTest.qWait(150)
    path = shots.grab(window, out / f"queued-{name}.png")
    page.queued.take_all()
    page.stop()
    for _ in range(200):
        if not page.streaming:
            break
        QTest.qWait(50)
    window.quit_app()
    window.deleteLater()
    shots.settle(ctx)
    target.session_path.unlink(missing_ok=True)  # the next shot starts from an empty chat again
    return [path]


JOBS = {
    "en": (
        ("Summarise yesterday's readings.csv and flag any gaps.", "daily", "08:30"),
        ("Check the import folder for new files.", "every", "30"),
        ("Weekly: list the slowest queries of the week.", "cron", "0 9 * * mon"),
    ),
    "zh_CN": (
        ("总结昨天的 readings.csv，并标出缺失的数据。", "daily", "08:30"),
        ("检查导入文件夹里有没有新文件。", "every", "30"),
        ("每周：列出本周最慢的查询。", "cron", "0 9 * * mon"),
    ),
}
JOB_REPLY = {
    "en": "Yesterday's 86,400 readings: mean 21.4 °C, two gaps (03:10–03:25 and 14:02–14:05).",
    "zh_CN": "昨天共 86,400 条读数：平均 21.4 °C，有两段缺失（03:10–03:25 与 14:02–14:05）。",
}


def render_schedules(
    ctx: object, server: object, out: Path, name: str, size: tuple[int, int], language: str
) -> list[Path]:
    """A chat whose daily job has just run (its message marked as scheduled), with its Schedules window open."""
    from okbot.app.scheduler import run_now
    from okbot.core.schedules import rules
    from okbot.core.schedules.store import ScheduleStore
    from okbot.ui.main_window import MainWindow
    from okbot.ui.schedules_panel import SchedulesDialog
    from tests.helpers.fake_openai import Reply

    target = next(t for t in ctx.workspace.list() if t.name == "Data wrangler")
    store = ScheduleStore()
    make = {"daily": rules.daily, "every": rules.every, "cron": rules.cron}
    jobs = [store.add(target, text, make[kind](value)) for text, kind, value in JOBS[language]]
    server.enqueue(Reply(text=JOB_REPLY[language]))
    run_now(ctx.app, store, target, jobs[0])
    window = MainWindow(ctx)
    window.resize(*size)
    window.show()
    window.select_target(target.kind, target.id)
    shots.settle(ctx)
    dialog = SchedulesDialog(ctx, target, None, window, store=store)
    dialog.resize(min(760, size[0] - 40), min(420, size[1] - 60))
    dialog.show()
    shots.settle(ctx)
    dialog.view.setCurrentItem(dialog.view.topLevelItem(0))  # once read: Run now and Remove are on
    shots.settle(ctx)
    shots.grab(window, out / f"schedules-chat-{name}.png")
    image = window.grab().toImage()
    panel = dialog.grab().toImage()
    x, y = (image.width() - panel.width()) // 2, (image.height() - panel.height()) // 2
    path = shots.save(overlay(image, panel, max(0, x), max(0, y)), out / f"schedules-{name}.png")
    dialog.close()
    window.quit_app()
    window.deleteLater()
    shots.settle(ctx)
    ScheduleStore.path(target).unlink(missing_ok=True)
    target.session_path.unlink(missing_ok=True)
    return [path]


ASKED = {"en": "When did we settle the chunk size?", "zh_CN": "我们什么时候定下分块大小的？"}
ANSWERED = {
    "en": "On Tuesday: 500,000 rows a chunk, each aggregated as it arrives.",
    "zh_CN": "周二定的：每块 50 万行，每块读完就先聚合。",
}


def render_timing(
    ctx: object, server: object, out: Path, name: str, size: tuple[int, int], language: str
) -> list[Path]:
    """A reply that waited for its first token and called a tool, with the tooltip over its time: where the
    time went (a real turn against the fake server, so the figures are measured)."""
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QHelpEvent, QMouseEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QToolTip

    from okbot.ui.main_window import MainWindow
    from tests.helpers.fake_openai import Reply, tool_call

    server.enqueue(
        Reply(tool_calls=[tool_call("search_history", {"query": "chunk size"})], first_byte_delay=0.4),
        Reply(text=ANSWERED[language], chunk_chars=3, chunk_delay=0.03),
    )
    window = MainWindow(ctx)
    window.resize(*size)
    window.show()
    target = next(t for t in ctx.workspace.list() if t.name == "Researcher")
    window.select_target(target.kind, target.id)
    page = window.current_page()
    shots.settle(ctx)
    page.send(ASKED[language])
    for _ in range(400):
        QTest.qWait(50)
        if not page.streaming:
            break
    shots.settle(ctx)
    view = page.view
    model = view.chat_model()
    row = next(r for r in reversed(range(model.rowCount())) if (model.item(r) or {}).get("type") == "assistant")
    view.scrollTo(model.index(row, 0))
    shots.settle(ctx)
    spot = view.time_rect(row).center()
    move = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(spot),
        QPointF(view.viewport().mapToGlobal(spot)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), move)
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, spot, view.viewport().mapToGlobal(spot)))
    QTest.qWait(300)  # the tooltip fades in
    tip = next(w for w in QApplication.topLevelWidgets() if w.inherits("QTipLabel") and w.isVisible())
    image = window.grab().toImage()
    at = window.mapFromGlobal(tip.pos())
    x = min(max(0, at.x()), image.width() - tip.width() - 4)
    y = min(max(0, at.y()), image.height() - tip.height() - 4)
    path = shots.save(overlay(image, tip.grab().toImage(), x, y), out / f"timing-tip-{name}.png")
    QToolTip.hideText()
    window.quit_app()
    window.deleteLater()
    shots.settle(ctx)
    target.session_path.unlink(missing_ok=True)  # the next shot starts from an empty chat again
    return [path]


def render_appearance(ctx: object, out: Path, language: str) -> list[Path]:
    """Settings → Appearance at the dialog's minimum size, scrolled to the Window section."""
    from PySide6.QtWidgets import QScrollArea

    from okbot.ui.settings import SettingsDialog

    dialog = SettingsDialog(ctx)
    dialog.resize(*shots.SETTINGS_MINIMUM)
    dialog.show()
    dialog.open_page("appearance")
    shots.settle(ctx)
    field = dialog.appearance_page.field("ui.onClose")
    for area in dialog.appearance_page.findChildren(QScrollArea):
        area.ensureWidgetVisible(field, 0, 40)
    shots.settle(ctx)
    path = shots.grab(dialog, out / f"settings-window-{language}.png")
    dialog.close()
    dialog.deleteLater()
    return [path]


def overlay(image: object, top: object, x: int, y: int) -> object:
    """``top`` painted over ``image`` at (x, y), with a thin frame as a window manager draws one."""
    from PySide6.QtGui import QColor, QPainter

    painter = QPainter(image)
    painter.drawImage(x, y, top)
    painter.setPen(QColor(0, 0, 0, 90))
    painter.drawRect(x - 1, y - 1, top.width() + 1, top.height() + 1)
    painter.end()
    return image


if __name__ == "__main__":
    sys.exit(main())
