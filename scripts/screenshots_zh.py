"""Render the Chinese screenshots: ``make screenshots`` (or ``python scripts/screenshots_zh.py [--out DIR]``).

The app in Simplified Chinese (``ui.language`` = ``zh_CN``) over a Chinese conversation whose summary
has Chinese headings: the main window, Settings → Context compression and View context, into
``docs/screenshots/zh_CN/``. Like ``screenshots.py``: a temporary OKBOT_HOME, the local fake OpenAI
server, offscreen; nothing else is touched.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from okbot.core.turn.request import Send

sys.path.insert(0, str(Path(__file__).resolve().parent))
import screenshots as shots  # noqa: E402 - the helpers of the English run

REPO = shots.REPO
EARLIER = [
    (
        "我用 pandas 导入一个 2 GB 的传感器读数 CSV，要好几分钟。有什么办法？",
        "先只读需要的列，并一开始就告诉 pandas 每列的 dtype。",
    ),
    (
        "时间戳是 `2024-03-01T12:00:00Z` 这样的字符串。",
        "加载后用 `pd.to_datetime(..., utc=True)` 一次解析，不要逐行解析。",
    ),
    ("内存还是会涨到 9 GB。", "按每块约 50 万行分块读取，每块读完就先聚合。"),
    (
        "记住：夜间任务的结果必须写回 /srv/exports，别动原始文件。",
        "好的，只写 /srv/exports，原始文件只读。",
    ),
]
SUMMARY = """## 目标
- [active] 把 2 GB 传感器 CSV 的导入提速，内存保持在 4 GB 以下 (#1)

## 约定
- 夜间任务的结果写回 /srv/exports，原始文件只读 (#7)

## 决定
- 只读需要的列并指定 dtype —— 读取量最小
- 时间戳在加载后一次性按 UTC 解析

## 进展与下一步
- 已改为每块约 50 万行分块读取；下一步：评估 Parquet

## 引用
- /srv/exports
- readings.csv"""
FOLLOW_UP = "夜间任务改用 Parquet 会更快吗？会保留传感器编号的 `category` 类型吗？"
LAST = """会更快，而且类型会保留：Parquet 把分类列存成**字典编码**，pandas 读回来仍是 `category`。

```python
import pandas as pd

chunks = pd.read_csv("readings.csv", usecols=["ts", "sensor", "reading"],
                     dtype={"sensor": "category", "reading": "float32"}, chunksize=500_000)
for i, chunk in enumerate(chunks):
    chunk.to_parquet(f"/srv/exports/part-{i:04d}.parquet", index=False)
```

两点注意：

1. 每个分块文件的 dtype 必须一致；
2. 引擎用 `pyarrow`。
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots" / "zh_CN", help="where the PNGs go")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    return shots.render_in_temp_home(render_all, args.out, "okbot-shots-zh-")


def render_all(out: Path) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    from PySide6.QtGui import QFontDatabase

    if not QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese):  # the English shots stand
        print(
            "skipped the Chinese screenshots: no Chinese font (Debian/Ubuntu: apt install fonts-noto-cjk)",
            file=sys.stderr,
        )
        return []
    import keyring

    from tests.helpers.keyrings import MemoryKeyring

    keyring.set_keyring(MemoryKeyring())
    server = shots._fake_server()
    written: list[Path] = []
    try:
        ctx, target = build_data(server)
        from okbot.ui.main_window import MainWindow
        from okbot.ui.settings import SettingsDialog
        from okbot.ui.theme import follow_appearance
        from okbot.ui.translation import apply_language
        from okbot.ui.window_extras import open_context_viewer

        apply_language(ctx.settings.get("ui.language"))  # as the app does at start-up
        follow_appearance(app, ctx.settings)
        window = MainWindow(ctx)
        window.resize(*shots.WINDOW_SIZE)
        window.show()
        window.select_target(target.kind, target.id)
        window.activateWindow()
        window.current_page().focus_composer()
        shots.settle(ctx)
        written.append(shots.grab(window, out / "main-window.png"))

        window.settings_dialog = SettingsDialog(ctx, current_target=target, parent=window)
        dialog = window.open_settings("compression")
        dialog.resize(*shots.SETTINGS_SIZE)
        shots.settle(ctx)
        written.append(shots.grab(dialog, out / "settings-compression.png"))
        dialog.close()

        store = ctx.sources.session(target)
        last_user = max(i["id"] for i in store.iter_items() if i["type"] == "user")
        viewer = open_context_viewer(ctx, target, last_user, window)
        viewer.resize(*shots.VIEWER_SIZE)
        shots.settle(ctx, until=lambda: bool(viewer.text()))
        show_summary_block(viewer)  # the Chinese headings of the summary the model read
        written.append(shots.grab(viewer, out / "view-context.png"))
        viewer.close()
        window.close()
        shots.settle(ctx)
    finally:
        from okbot.ui.tasks import shutdown_tasks

        server.stop()
        shutdown_tasks()
    return written


def show_summary_block(viewer: object) -> None:
    """Scroll the viewer's text so the summary block is at the top."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QPlainTextEdit

    text = next(e for e in viewer.findChildren(QPlainTextEdit) if e.isVisible() and "### summary" in e.toPlainText())
    block = text.document().find("### summary").block()
    text.verticalScrollBar().setValue(block.firstLineNumber() - 1)  # a plain text edit scrolls by lines
    QTest.qWait(100)


def build_data(server: object) -> tuple[object, object]:
    """A Chinese chat with a Chinese summary; its last turn runs for real against ``server``."""
    from okbot.core.turn.runner import TurnRunner
    from okbot.core.workspace import Workspace
    from okbot.ui.app_context import AppContext
    from tests.helpers.fake_openai import Reply

    settings = shots.fake_server_settings(server, **{"ui.language": "zh_CN"})
    ws = Workspace()
    ws.ensure_default()
    data = ws.create_assistant("数据助手", role="清洗、整理表格数据，并让它跑得更快。")
    researcher = ws.create_assistant("研究员", role="查找资料并核对事实。")
    writer = ws.create_assistant("写作助手", role="写出清楚、友好的文字。")
    ws.create_squad(
        "发布说明小组",
        [(writer.id, "起草说明"), (researcher.id, "核对每一条说法")],
        description="写作助手起草，研究员核对",
    )
    ctx = AppContext.create(ws, settings)
    shots.seed_summarized_chat(
        ctx.sources.session(data), data, EARLIER, SUMMARY, kept_user_ids=[7], tokens=(6120, 1710, 980)
    )
    server.enqueue(Reply(text=LAST))
    TurnRunner(ctx.sources, ctx.app.provider).run(data, Send(FOLLOW_UP))
    return ctx, data


if __name__ == "__main__":
    sys.exit(main())
