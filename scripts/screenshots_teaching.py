"""Render the teaching card: ``python scripts/screenshots_teaching.py [--out DIR]``.

A chat where the user set a rule (kept: the card's line says so) and then taught a procedure (its card
offers *Keep as a skill* / *Not now*), in English and in Chinese, light and dark, in the smallest window
(640×460) and a large one (1280×800). Real turns through the window and the app's own keeper against the
local fake OpenAI server (``tests/helpers/fake_openai.py``); a temporary OKBOT_HOME, as ``screenshots.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import screenshots as shots

SIZES = ((640, 460), (1280, 800))
LESSONS = {
    "en": (
        "Thanks! From now on, always show the pandas code first and the explanation after.",
        "When I say profile it: 1) run the job under py-spy, 2) sort by total time, 3) show the top five functions.",
    ),
    "zh_CN": (
        "谢谢！以后请先给出 pandas 代码，再解释。",
        "当我说“分析性能”时：1）用 py-spy 运行任务 2）按总耗时排序 3）列出前五个函数",
    ),
}
REPLIES = {
    "en": "Got it.",
    "zh_CN": "好的，记住了。",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=shots.REPO / "docs" / "screenshots" / "teaching")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(shots.REPO))
    return shots.render_in_temp_home(render, args.out, "okbot-teach-shots-")


def render(out: Path) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    import keyring

    from tests.helpers.keyrings import MemoryKeyring

    keyring.set_keyring(MemoryKeyring())
    server = shots._fake_server()
    written: list[Path] = []
    try:
        from okbot.core.workspace import Workspace
        from okbot.ui.app_context import AppContext
        from okbot.ui.theme import follow_appearance
        from okbot.ui.translation import apply_language
        from tests.helpers.fake_evolution import teacher
        from tests.helpers.fake_openai import Reply

        ws = Workspace()
        ws.ensure_default()
        targets = {
            "en": ws.create_assistant("Data wrangler", role="Cleans and reshapes tabular data, fast."),
            "zh_CN": ws.create_assistant("数据助手", role="清洗、整理表格数据，并让它跑得更快。"),
        }
        settings = shots.fake_server_settings(server, **{"model.contextWindow": 32_768})
        ctx = AppContext.create(ws, settings)
        follow_appearance(app, ctx.settings)
        for lang, target in targets.items():
            ctx.settings.set("ui.language", lang)
            apply_language(lang)

            def answer(body: dict, lang: str = lang) -> Reply:
                return Reply(text=REPLIES[lang]) if body.get("stream") else teacher(body)

            server.set_default(answer)
            _teach(ctx, target, lang)
            for theme, setting in (("light", "system"), ("dark", "dark")):
                ctx.settings.set("ui.theme", setting)
                for size in SIZES:
                    window = _window(ctx, target, size)
                    window.current_page().focus_composer()
                    shots.settle(ctx)
                    name = f"teaching-card-{lang}-{theme}-{size[0]}x{size[1]}.png"
                    written.append(shots.grab(window, out / name))
                    window.close()
                    window.deleteLater()
                    shots.settle(ctx)
            ctx.settings.set("ui.theme", "system")
        apply_language("en")
    finally:
        from okbot.ui.tasks import shutdown_tasks

        server.stop()
        shutdown_tasks()
    return written


def _teach(ctx: object, target: object, lang: str) -> None:
    """The lessons said in ``target``'s chat; the first card kept by its button, as a user would."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    window = _window(ctx, target, (1280, 800))
    page = window.current_page()
    for text in LESSONS[lang]:
        page.send(text)
        shots.settle(ctx, until=lambda: not page.streaming)
    first = _card_rows(page)[0]
    card_id = page.view.chat_model().item_id(first)
    rect = page.view.action_rect(first, "teach_keep")
    QTest.mouseClick(page.view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center()))
    shots.settle(ctx, until=lambda: page.view.chat_model().teaching_state(card_id) == "kept")
    if not ctx.app.keeper.drain(30):
        raise SystemExit("the memory wrap-up did not finish")
    window.close()
    window.deleteLater()
    shots.settle(ctx)


def _window(ctx: object, target: object, size: tuple[int, int]) -> object:
    from okbot.ui.main_window import MainWindow

    window = MainWindow(ctx)
    window.resize(*size)
    window.show()
    window.select_target(target.kind, target.id)
    window.activateWindow()
    page = window.current_page()
    shots.settle(ctx, until=lambda: not page.view.chat_model().loading)
    return window


def _card_rows(page: object) -> list[int]:
    from okbot.core.items import teaching_of

    model = page.view.chat_model()
    return [r for r in range(model.rowCount()) if teaching_of(model.item(r) or {}) is not None]


if __name__ == "__main__":
    raise SystemExit(main())
