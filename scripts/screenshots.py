"""Render the README screenshots: ``make screenshots`` (or ``python scripts/screenshots.py [--out DIR]``).

Builds a realistic data dir in a temporary OKBOT_HOME (assistants, a squad, a conversation with
Markdown, code, a collapsed tool row and a summary whose coverage shows the divider; last, what the
user teaches an assistant and the Evolution tab that lists it; then a retried turn, now covered by the
summary, that View context shows as sent), points the
app at the local fake OpenAI server from ``tests/helpers/fake_openai.py`` and grabs each window
offscreen into PNGs. Nothing outside the temporary dir and ``--out`` is touched.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from okbot.core.turn.request import Retry, Send

REPO = Path(__file__).resolve().parents[1]
WINDOW_SIZE = (1100, 720)
SETTINGS_SIZE = (880, 700)
SETTINGS_MINIMUM = (640, 460)  # the Settings dialog's minimum size: every page must fit it sideways
VIEWER_SIZE = (1000, 700)
SMALL_CHAT_SIZE = (820, 560)  # the failed-reply and model-picker shots: a small window, the chat readable
FIRST_RUN_SIZE = (860, 720)  # the chat area of the main window, where the panel shows
MODEL = "qwen2.5-14b-instruct"
LOCAL_PORT = 11434  # where Ollama listens, so the Models page shows a familiar URL (any free port if taken)
CONTEXT_WINDOW = 4096  # a small local model's window, so the gauge and the token bar show their parts

EARLIER = [
    (
        "I'm importing a 2 GB CSV of sensor readings with pandas and it takes minutes. Ideas?",
        "Start by reading only the columns you need and giving pandas the dtypes up front.",
    ),
    (
        "The timestamps are strings like `2024-03-01T12:00:00Z`.",
        "Parse them once with `pd.to_datetime(..., utc=True)` after loading, not per row.",
    ),
    ("Memory still spikes to 9 GB.", "Read in chunks of ~500k rows and aggregate each chunk as you go."),
    (
        "Can we keep everything in one DataFrame in the end?",
        "Yes, if you downcast: `float32` for readings and `category` for sensor ids.",
    ),
]
SUMMARY = """## Mission
Speed up a 2 GB CSV import of sensor readings (pandas) and keep memory under 4 GB.

## Decisions so far
- Read only the needed columns, with explicit dtypes.
- Parse timestamps once, vectorised, in UTC.
- Load in chunks of ~500k rows; downcast readings to `float32`, sensor ids to `category`.

## Open questions
- Is Parquet an option for the nightly job?
"""
ANSWER = """Yes, and it pays off quickly. Convert once, then every later run reads a columnar file:

```python
import pandas as pd

dtypes = {"sensor": "category", "reading": "float32"}
chunks = pd.read_csv("readings.csv", usecols=["ts", "sensor", "reading"],
                     dtype=dtypes, chunksize=500_000)
for i, chunk in enumerate(chunks):
    chunk["ts"] = pd.to_datetime(chunk["ts"], utc=True)
    chunk.to_parquet(f"readings/part-{i:04d}.parquet", index=False)
```

Then `pd.read_parquet("readings/")` loads the lot in **seconds**, with the dtypes kept.
"""
SEARCH_RESULT = """1 match(es) for 'chunks', best first (ids refer to this session's record):
- #6 assistant · data-wrangler · 64 chars: Read in chunks of ~500k rows and aggregate each chunk as you go."""
FOLLOW_UP = "Nice. Does that keep the `category` dtype for sensor ids?"
LAST = """It does: Parquet stores categoricals as *dictionary-encoded* columns, and pandas reads them back
as `category`. Two things to check:

1. Every part file must use the same dtypes, or the categories get merged slowly.
2. Use `pyarrow` as the engine; `fastparquet` handles categories differently.
"""
SQUAD_TALK = [
    ("user", "", "Draft a one-paragraph release note for the CSV import speed-up."),
    (
        "assistant",
        "writer",
        "**CSV import, now 6x faster.** Large sensor files load in chunks with the right "
        "types from the start, so a 2 GB import takes about 40 seconds and stays under 4 GB.",
    ),
    (
        "assistant",
        "researcher",
        "Checked against the benchmark run: 38–44 s on the reference machine. The "
        "claim holds; I would add *on the reference machine*.",
    ),
    ("user", "", "Good. Add a line on memory use and a short upgrade tip."),
    (
        "assistant",
        "writer",
        "**CSV import, now 6x faster.** Large sensor files load in chunks with the right "
        "types from the start: a 2 GB import takes about 40 seconds on the reference "
        "machine and stays under 4 GB of memory.\n\n> Tip: convert nightly exports to "
        "Parquet once with `okbot-import --to-parquet`; later loads take seconds.",
    ),
    (
        "assistant",
        "researcher",
        "Memory figure confirmed (peak 3.6 GB). The flag name matches the CLI help. Ready to publish.",
    ),
]
# What the user teaches the Data wrangler (persona rules, a procedure), and the chat's replies to each.
LESSONS = [
    (
        "From now on, always show the pandas code first and the explanation after. "
        "Never suggest Excel for files over 1 GB.",
        "Got it: code first, and no Excel for the big files.",
    ),
    (
        "When I say profile it: 1) run the job under py-spy, 2) sort by total time, 3) show the top five functions.",
        "Noted. Say *profile it* and I'll do exactly those three steps.",
    ),
    (
        "Profile it for the nightly job, please.",
        "```bash\npy-spy record --format speedscope -o nightly.json -- python nightly.py\n```\n\n"
        "Top five by total time: `read_csv` 61%, `to_datetime` 14%, `groupby.agg` 9%, `astype` 6%, `to_parquet` 4%.",
    ),
]
LATER = [  # after the chat shot: one more rule, still waiting for the next summary update in the Evolution tab
    ("From now on, always say which pandas version you assume.", "Will do: pandas 2.2 unless you say otherwise."),
]


def main(argv: list[str] | None = None) -> int:
    """Build the data, render every shot into ``--out`` and report the files written."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots", help="where the PNGs go")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))  # okbot and tests.helpers from this checkout
    return render_in_temp_home(render_all, args.out, "okbot-shots-")


def render_in_temp_home(render: Callable[[Path], list[Path]], out: Path, prefix: str) -> int:
    """Run ``render(out)`` over a fresh temporary OKBOT_HOME (removed after), offscreen; report the files."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ["OKBOT_HOME"] = str(home)  # before anything reads okbot.storage.paths
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    for name in ("OKBOT_API_KEY", "OPENAI_API_KEY", "OKBOT_BASE_URL", "OKBOT_MODEL"):  # they would show up
        os.environ.pop(name, None)
    os.environ.setdefault("OKBOT_TIKTOKEN_DOWNLOAD", "0")
    out.mkdir(parents=True, exist_ok=True)
    try:
        written = render(out)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    for path in written:
        print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}  {path.stat().st_size // 1024} KB")
    return 0


THOUGHTS = (
    (
        "Which is bigger, 9.11 or 9.9?",
        "Compare the decimals digit by digit.\n9.9 = 9.90, and 9.11 has 1 in the tenths place where 9.90 has 9.\n"
        "So 9.9 is larger. Answer briefly and show the padded form.",
        12.4,
        "**9.9** is bigger: 9.90 > 9.11.",
    ),
    (
        "And 3.45 or 3.5?",
        "Same trick: pad to two decimals.\n3.5 = 3.50, and 50 > 45 hundredths.",
        4.2,
        "**3.5**: 3.50 > 3.45.",
    ),
)


def render_chat_thought(ctx: object, out: Path) -> list[Path]:
    """A reasoning model's replies: one thought unfolded, the next folded ("Thought for 4 s ▸")."""
    from okbot.core import items
    from okbot.ui.main_window import MainWindow

    target = ctx.workspace.create_assistant("Reasoner", role="Thinks before it answers.")
    store = ctx.sources.session(target)
    for question, thought, seconds, answer in THOUGHTS:
        store.append(items.user_message(question))
        store.append(
            items.new_item(
                "assistant",
                author=target.id,
                source="app",
                content=answer,
                status="complete",
                reasoning=thought,
                reasoningSeconds=seconds,
            )
        )
    window = MainWindow(ctx)
    window.resize(*WINDOW_SIZE)
    window.show()
    window.select_target(target.kind, target.id)
    window.activateWindow()
    view = window.current_page().view
    settle(ctx, until=lambda: not view.chat_model().loading)
    view.chat_model().set_thought_open(1, True)
    view.scroll_to_bottom()
    settle(ctx)
    written = [grab(window, out / "chat-thought.png")]
    window.close()
    window.deleteLater()
    settle(ctx)
    return written


def render_mcp(ctx: object, target: object, out: Path) -> list[Path]:
    """Settings → MCP servers with three servers (the time server and the test server running, the
    test server's tools listed with what was simplified for the model, one that failed), then a chat whose
    assistant asks to use the time server's tool."""
    from okbot.config.mcp import McpServerConfig
    from okbot.core import items
    from okbot.llm.keystore import KeyStore
    from okbot.mcp import secrets
    from okbot.ui.main_window import MainWindow
    from okbot.ui.settings import SettingsDialog

    # the servers are found on PATH as a user's would be (this Python's scripts folder holds mcp-server-time)
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    settings = ctx.settings
    settings.mcp_servers.add(McpServerConfig("time", "mcp-server-time", ("--local-timezone", "Europe/Paris")))
    settings.mcp_servers.add(
        McpServerConfig("test-tools", "python", ("-m", "tests.helpers.mcp_server"), env=("PYTHONPATH",))
    )
    secrets.save(KeyStore(), "test-tools", secrets.ServerSecrets(env={"PYTHONPATH": str(REPO)}))
    settings.mcp_servers.add(
        McpServerConfig(
            "github", "github-mcp-server", ("stdio",), env=("GITHUB_PERSONAL_ACCESS_TOKEN",), approval="deny"
        )
    )
    settings.mcp_servers.set_approval("time", "allow", tool="convert_time")
    ctx.workspace.set_meta(target, "mcpServers", ["time", "test-tools"])
    ctx.sources.mcp.check()  # as Check in Settings does (this script may block: it is no GUI)
    written = []

    dialog = SettingsDialog(ctx, current_target=target)
    dialog.resize(*SETTINGS_SIZE)
    dialog.show()
    page = dialog.open_page("mcp")
    box = page.mcp_box
    box.select("test-tools")
    settle(ctx)
    written.append(grab(dialog, out / "settings-mcp.png"))
    box.select("github")
    dialog.resize(*SETTINGS_MINIMUM)
    settle(ctx)
    written.append(grab(dialog, out / "settings-mcp-failed-minimum.png"))
    dialog.close()
    dialog.deleteLater()

    ctx.sources.session(target).append(items.user_message("What time is it in Paris right now?"))
    window = MainWindow(ctx)
    window.resize(*WINDOW_SIZE)
    window.show()
    window.select_target(target.kind, target.id)
    page = window.current_page()
    settle(ctx, until=lambda: not page.view.chat_model().loading)
    page.approval.ask("time__get_current_time", {"timezone": "Europe/Paris"}, lambda _ok: None)
    page.view.scroll_to_bottom()
    settle(ctx)
    written.append(grab(window, out / "chat-mcp-approval.png"))
    page.approval.cancel()
    window.close()
    window.deleteLater()
    settle(ctx)
    ctx.sources.close()  # stop the servers
    return written


def render_search(ctx: object, out: Path) -> list[Path]:
    """Search all chats (Ctrl+Shift+F) for "parquet": the hits across chats, then the chat opened at one,
    the word highlighted by its find bar."""
    from okbot.ui.main_window import MainWindow

    window = MainWindow(ctx)
    window.resize(*WINDOW_SIZE)
    window.show()
    window.activateWindow()
    dialog = window.open_search()
    dialog.edit.setText("parquet")
    dialog.search_now()
    settle(ctx, until=lambda: dialog.hits and not dialog._catching_up)
    dialog.search_now()  # the index caught up meanwhile: every hit
    settle(ctx, until=lambda: len(dialog.hits) > 1)
    written = [grab(dialog, out / "search-all-chats.png")]
    dialog.choose(min(2, len(dialog.hits) - 1))
    settle(ctx, until=lambda: window.current_page().view.finder().current_match() is not None)
    written.append(grab(window, out / "search-opened-at-hit.png"))
    window.close()
    window.deleteLater()
    settle(ctx)
    return written


def render_all(out: Path) -> list[Path]:
    """Every screenshot, in the order the README shows them."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setStyle("Fusion")  # the same look on every machine that renders them
    written: list[Path] = []
    server = _fake_server()
    # A keyring that exists but holds no key (the usual desktop); the real one, which may ask to be
    # unlocked, is never touched.
    import keyring

    from tests.helpers.keyrings import MemoryKeyring

    keyring.set_keyring(MemoryKeyring())
    try:
        ctx, chat_target, squad = build_data(server)
        from okbot.ui.main_window import MainWindow
        from okbot.ui.theme import follow_appearance

        follow_appearance(app, ctx.settings)  # as the app does at start-up: ui.theme and ui.fontSize apply live
        # "light" is the system's (Fusion's) own palette; "dark" is OkBot's dark theme, chosen in Settings
        for theme, setting in (("light", "system"), ("dark", "dark")):
            ctx.settings.set("ui.theme", setting)
            window = MainWindow(ctx)
            window.resize(*WINDOW_SIZE)
            window.show()
            window.select_target(chat_target.kind, chat_target.id)
            window.activateWindow()
            window.current_page().focus_composer()
            settle(ctx)
            written.append(grab(window, out / f"main-window-{theme}.png"))
            if theme == "light":
                written += render_secondary(ctx, window, chat_target, squad, out)
                written += render_settings_minimum(ctx, window, chat_target, out)
            else:
                ctx.settings.set("ui.fontSize", 13)  # Settings → Appearance → Chat text size
                settle(ctx)
                written.append(grab(window, out / "main-window-dark-large-text.png"))
                ctx.settings.reset("ui.fontSize")
            window.close()
            window.deleteLater()
            settle(ctx)
        ctx.settings.set("ui.theme", "system")
        settle(ctx)
        written += render_first_run(ctx, server, out)
        written += render_evolution(ctx, server, chat_target, out)
        written += render_chat_details(ctx, server, out)
        written += render_versions(ctx, server, out)
        written += render_attachments(ctx, server, out)
        written += render_as_sent(ctx, server, out)
        written += render_chat_view(ctx, out)
        written += render_chat_thought(ctx, out)
        written += render_mcp(ctx, chat_target, out)
        written += render_search(ctx, out)
    finally:
        from okbot.ui.tasks import shutdown_tasks

        server.stop()
        shutdown_tasks()  # no result may arrive while Python shuts down
    return written


def render_secondary(ctx: object, window: object, chat_target: object, squad: object, out: Path) -> list[Path]:
    """The squad chat, View context, Settings (Models, Context compression) and the squad dialog."""
    from okbot.ui.squad_dialog import SquadDialog
    from okbot.ui.window_extras import open_context_viewer

    written = []
    window.select_target(squad.kind, squad.id)
    settle(ctx)
    written.append(grab(window, out / "squad-chat.png"))
    window.select_target(chat_target.kind, chat_target.id)
    settle(ctx)

    store = ctx.sources.session(chat_target)
    last_user = max(i["id"] for i in store.iter_items() if i["type"] == "user")
    viewer = open_context_viewer(ctx, chat_target, last_user, window)
    viewer.resize(*VIEWER_SIZE)
    settle(ctx, until=lambda: bool(viewer.text()))
    written.append(grab(viewer, out / "view-context.png"))
    viewer.close()

    from okbot.ui.settings import SettingsDialog

    window.settings_dialog = SettingsDialog(ctx, current_target=chat_target, parent=window)
    dialog = window.open_settings("models")
    dialog.resize(*SETTINGS_SIZE)
    settle(ctx, until=lambda: _models_listed(dialog))
    written.append(grab(dialog, out / "settings-models.png"))
    dialog.open_page("compression")
    settle(ctx)
    written.append(grab(dialog, out / "settings-compression.png"))
    dialog.close()

    assistant = window.open_assistant_dialog(chat_target, "memories")
    assistant.resize(*SETTINGS_SIZE)
    settle(ctx, until=lambda: assistant.memories.model.rowCount() > 0)
    written.append(grab(assistant, out / "assistant-memories.png"))
    assistant.show_tab("skills")
    settle(ctx)
    written.append(grab(assistant, out / "assistant-skills.png"))
    assistant.close()

    editor = SquadDialog(ctx.workspace, ctx.workspace.resolve(squad.id), window)
    editor.show()
    settle(ctx)
    written.append(grab(editor, out / "squad-dialog.png"))
    editor.close()
    return written


def render_settings_minimum(ctx: object, window: object, chat_target: object, out: Path) -> list[Path]:
    """Settings at its minimum size, every page (nothing may be cut off at the right), one with refused
    values and their messages; then the Appearance page at the usual size."""
    from PySide6.QtWidgets import QScrollArea

    from okbot.ui.settings import PAGE_KEYS, SettingsDialog

    written = []
    dialog = SettingsDialog(ctx, current_target=chat_target, parent=window)
    dialog.resize(*SETTINGS_MINIMUM)
    dialog.show()
    for name in PAGE_KEYS:
        dialog.open_page(name)
        settle(ctx, until=(lambda: _models_listed(dialog)) if name == "models" else None)
        written.append(grab(dialog, out / f"settings-{name}-minimum.png"))
    page = dialog.open_page("compression")
    page.binder.apply("contextCompression.summaryMaxChars", 50)  # as if typed: refused, each by its field
    page.binder.apply("contextCompression.keepRecentMin", 20)
    settle(ctx)  # the messages are laid out before the page scrolls to them
    page.findChild(QScrollArea).ensureWidgetVisible(page.field("contextCompression.summaryMaxChars"), 0, 140)
    settle(ctx)
    written.append(grab(dialog, out / "settings-refused-minimum.png"))
    dialog.resize(*SETTINGS_SIZE)
    dialog.open_page("appearance")
    settle(ctx)
    written.append(grab(dialog, out / "settings-appearance.png"))
    dialog.close()
    dialog.deleteLater()
    return written


def render_first_run(ctx: object, server: object, out: Path) -> list[Path]:
    """The first-run panel with a system keyring, and on a computer without one (the key file is named)."""
    import keyring
    from keyring.backends import fail

    from okbot.app.provider_setup import LocalServerCandidate
    from okbot.llm.keystore import KeyStore
    from okbot.ui.first_run import FirstRunPanel
    from tests.helpers.keyrings import MemoryKeyring

    candidates = [LocalServerCandidate("Ollama", server.base_url), LocalServerCandidate("LM Studio", _closed_port())]
    # where the key file is on a usual Linux desktop (nothing is saved while the shots are taken)
    keys = KeyStore(key_file=Path.home() / ".local" / "share" / "okbot" / "keys.json")
    written = []
    for name, backend in (("keyring", MemoryKeyring()), ("no-keyring", fail.Keyring())):
        keyring.set_keyring(backend)
        panel = FirstRunPanel(ctx, candidates=candidates, keys=keys)
        panel.resize(*FIRST_RUN_SIZE)
        panel.show()
        settle(ctx, until=lambda p=panel: p.key_edit.isEnabled() and p.server_rows())
        written.append(grab(panel, out / f"first-run-{name}.png"))
        panel.close()
        panel.deleteLater()
    keyring.set_keyring(MemoryKeyring())
    settle(ctx)
    return written


def _closed_port() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def render_evolution(ctx: object, server: object, target: object, out: Path) -> list[Path]:
    """A chat where what the user taught has just landed (its quiet line), then the Evolution tab: applied
    changes (one undone) and one waiting. Real turns and real upkeep, the fake server answering as a careful model."""
    from okbot.ui.main_window import MainWindow
    from tests.helpers.fake_evolution import teacher
    from tests.helpers.fake_openai import Reply

    replies = dict(LESSONS + LATER)

    def answer(body: dict) -> Reply:
        if not body.get("stream"):  # upkeep, memory extraction, summaries
            return teacher(body)
        return Reply(text=replies.get(body["messages"][-1].get("content"), "Noted."))

    server.set_default(answer)
    ctx.settings.set("model.contextWindow", 32_768)  # no compression (a boundary, where upkeep runs too)
    ctx.settings.set("evolution.everyTurns", 2)  # upkeep after every second message
    ctx.settings.set("evolution.waitTurns", 0)  # and its changes land with the next one
    ctx.settings.set("evolution.offerTeachings", False)  # upkeep's own work here (the cards: screenshots_teaching.py)
    ctx.app.keeper.upkeep.run(target, boundary=True)  # upkeep read the earlier conversation already, as it would have
    window = MainWindow(ctx)
    window.resize(*WINDOW_SIZE)
    window.show()
    window.select_target(target.kind, target.id)
    page = window.current_page()

    def say(text: str) -> None:
        page.send(text)
        settle(ctx, until=lambda: not page.streaming)
        if not ctx.app.keeper.drain(30):
            raise SystemExit("persona and skill upkeep did not finish")
        settle(ctx)

    written = []
    for text, _reply in LESSONS:
        say(text)
    page.focus_composer()
    settle(ctx)
    written.append(grab(window, out / "evolution-chat.png"))
    for text, _reply in LATER:
        say(text)

    dialog = window.open_assistant_dialog(target, "evolution")
    dialog.resize(*SETTINGS_SIZE)
    panel = dialog.evolution
    settle(ctx, until=lambda: panel.snapshot is not None and not panel.busy)
    excel = next(e for e in panel.entries() if "Excel" in e.summary)
    panel.undo(excel.id)
    settle(ctx, until=lambda: not panel.busy and any(e.undone for e in panel.entries()))
    panel.select(next(e.id for e in panel.entries() if e.kind == "persona" and not e.undone))
    settle(ctx)
    written.append(grab(dialog, out / "evolution-tab.png"))
    dialog.close()
    window.close()
    window.deleteLater()
    settle(ctx)
    return written


def render_versions(ctx: object, server: object, out: Path) -> list[Path]:
    """A reply regenerated (‹ 2/2 › under it), then an earlier message being edited (the banner above the
    composer). Real turns: edit and regenerate write what the app writes."""
    from okbot.ui.main_window import MainWindow
    from tests.helpers.fake_openai import Reply

    target = ctx.workspace.create_assistant("Travel buddy", role="Helps plan short trips.")
    answers = {
        "Suggest a weekend trip from Lyon by train.": [
            "**Annecy**: 2 h by train. Walk the old town, swim or rent a boat on the lake.",
            "**Turin**: 4 h by TGV. Museums, arcades and the best *gianduiotto* you will ever eat.",
        ],
        "What should I pack for it?": ["Light layers, swimwear and comfortable shoes for the cobbles."],
    }
    server.set_default(lambda body: Reply(text=answers.get(body["messages"][-1].get("content"), ["Noted."]).pop(0)))
    window = MainWindow(ctx)
    window.resize(*WINDOW_SIZE)
    window.show()
    window.select_target(target.kind, target.id)
    page = window.current_page()
    page.send("Suggest a weekend trip from Lyon by train.")
    settle(ctx, until=lambda: not page.streaming)
    first_reply = ctx.sources.session(target).tail(1)[0]["id"]
    page.regenerate(first_reply)
    settle(ctx, until=lambda: not page.streaming)
    page.send("What should I pack for it?")
    settle(ctx, until=lambda: not page.streaming)
    settle(ctx)
    written = [grab(window, out / "chat-versions.png")]
    recent = ctx.sources.session(target).tail(20)
    question = next(it for it in recent if it.get("content", "").startswith("What should"))
    page.begin_edit(question["id"], question["content"])
    page.composer.set_text("What should I pack for Turin in October?")
    settle(ctx)
    written.append(grab(window, out / "chat-edit.png"))
    page.cancel_edit()
    window.close()
    window.deleteLater()
    settle(ctx)
    return written


def render_attachments(ctx: object, server: object, out: Path) -> list[Path]:
    """A message sent with a CSV and a chart (the bubble names its files; the chart went as an image part to
    a vision model), then two more files waiting as chips above the composer. A real turn."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QImage, QPainter

    from okbot.ui.main_window import MainWindow
    from tests.helpers.fake_openai import Reply

    vision_model = "qwen2.5-vl-7b-instruct"
    server.models.append(vision_model)
    target = ctx.workspace.create_assistant("Chart reader", role="Reads data files and charts.", model=vision_model)
    files = Path(tempfile.mkdtemp(prefix="okbot-shot-files-"))
    (files / "readings-march.csv").write_text(
        "ts,sensor,reading\n"
        + "".join(f"2024-03-{d:02d}T12:00:00Z,s{d % 4},{20 + d * 0.3:.1f}\n" for d in range(1, 29))
    )
    chart = QImage(900, 500, QImage.Format.Format_RGB32)
    chart.fill(QColor("white"))
    painter = QPainter(chart)
    for i, height in enumerate((120, 180, 150, 260, 310, 280, 390)):
        painter.fillRect(QRectF(60 + i * 115, 460 - height, 80, height), QColor("#3b82f6"))
    painter.setPen(QColor("#333"))
    painter.drawLine(40, 460, 880, 460)
    painter.drawText(QRectF(0, 10, 900, 30), Qt.AlignmentFlag.AlignCenter, "Peak memory per import (MB)")
    painter.end()
    chart.save(str(files / "memory-chart.png"), "PNG")
    (files / "nightly.py").write_text("import pandas as pd\n\nframe = pd.read_parquet('readings/')\n")
    (files / "notes.md").write_text("# Import notes\n\n- chunks of 500k rows\n- float32 readings\n")
    server.enqueue(
        Reply(
            text="The CSV has **28 readings** from 4 sensors. The chart shows peak memory climbing from about "
            "120 MB to **390 MB** over seven imports: the last three runs are where the chunk size grew."
        )
    )
    window = MainWindow(ctx)
    window.resize(*WINDOW_SIZE)
    window.show()
    window.select_target(target.kind, target.id)
    page = window.current_page()
    page.composer.add_files([files / "readings-march.csv", files / "memory-chart.png"])
    page.send("What do these show?")
    settle(ctx, until=lambda: not page.streaming)
    page.composer.add_files([files / "nightly.py", files / "notes.md"])
    page.composer.set_text("Now check the nightly job against these notes")
    page.focus_composer()
    settle(ctx)
    written = [grab(window, out / "chat-attachment.png")]
    window.close()
    window.deleteLater()
    settle(ctx)
    shutil.rmtree(files, ignore_errors=True)
    return written


def render_chat_details(ctx: object, server: object, out: Path) -> list[Path]:
    """The main window at its minimum size (the composer's placeholder), a failed reply retried twice (one
    bubble, its latest attempt) and the model picker open in the chat header."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QPainter

    from okbot.ui.main_window import MainWindow
    from tests.helpers.fake_openai import Reply

    written = []
    target = ctx.workspace.resolve("travel-planner")
    window = MainWindow(ctx)
    window.show()
    window.resize(window.minimumSize())
    window.select_target(target.kind, target.id)
    page = window.current_page()
    page.focus_composer()
    settle(ctx)
    written.append(grab(window, out / "main-window-small.png"))

    window.resize(*SMALL_CHAT_SIZE)
    ctx.settings.set("provider.maxRetries", 0)
    server.enqueue(*[Reply(status=503, error_message="The server is overloaded.")] * 3)
    page.send("Find me three cheap weekends by train from Lyon in May.")
    settle(ctx, until=lambda: not page.streaming)
    for _ in range(2):
        page.retry()
        settle(ctx, until=lambda: not page.streaming)
    page.focus_composer()
    settle(ctx)
    written.append(grab(window, out / "failed-retries.png"))

    page.model_picker.open_popup()
    popup = page.model_picker.popup
    settle(ctx, until=lambda: popup.list.count() > 0)
    shot = window.grab()  # the popup is a window of its own: painted onto the main window where it shows
    painter = QPainter(shot)
    painter.drawPixmap(window.mapFromGlobal(popup.mapToGlobal(QPoint(0, 0))), popup.grab())
    painter.end()
    written.append(save(shot.toImage(), out / "model-picker.png"))
    popup.hide()
    window.close()
    window.deleteLater()
    settle(ctx)
    return written


RETRIED = [  # the Researcher's chat: the second turn asks for a tool, its reply is cut, Retry answers
    ("Which sources cover the 2.0 release?", "The changelog and the release blog post both cover 2.0."),
    ("Check what we said about the Parquet switch.", None),
    ("Does the blog post give numbers?", "Yes: the nightly job went from 42 to 9 minutes."),
    ("And memory use?", "Peak memory fell from 11 GB to 3.2 GB."),
    ("Anything about the old CSV exports?", "They stay for one more release, then go."),
]


def render_as_sent(ctx: object, server: object, out: Path) -> list[Path]:
    """View context on the As-sent tab for a message of a retried turn that a later summary now covers: the
    whole request the reply came from, its own numbers, and the choice of each attempt and tool round."""
    from okbot.app.wiring import make_compressor
    from okbot.core.turn.runner import TurnRunner
    from okbot.ui.context_viewer import AS_SENT_TAB
    from okbot.ui.window_extras import open_context_viewer
    from tests.helpers.fake_openai import Reply, tool_call
    from tests.helpers.fake_summarizer import faithful

    target = ctx.workspace.resolve("Researcher")
    ctx.settings.set("model.contextWindow", CONTEXT_WINDOW)  # the bar then shows the request's parts
    runner = TurnRunner(ctx.sources, ctx.app.provider)
    for question, answer in RETRIED:
        if answer is None:
            server.enqueue(
                Reply(tool_calls=[tool_call("search_history", {"query": "Parquet"})]),
                Reply(text="We agreed to switch the nightly", chunk_chars=6, cut_after_chunks=3),
                Reply(text="We agreed to switch the nightly export to Parquet in 2.0, keeping CSV one release."),
            )
            runner.run(target, Send(question))
            runner.run(target, Retry())
        else:
            server.enqueue(Reply(text=answer))
            runner.run(target, Send(question))
    server.set_default(faithful)
    ctx.settings.set("contextCompression.keepRecentMin", 2)
    ctx.settings.set("contextCompression.keepRecentMax", 4)
    if not make_compressor(ctx.sources, ctx.app.provider).compress_now(target).ok:
        raise SystemExit("the Researcher's chat was not compressed")
    asked = [i["id"] for i in ctx.sources.session(target).iter_items() if i["type"] == "user"][1]
    viewer = open_context_viewer(ctx, target, asked, None)
    viewer.resize(*VIEWER_SIZE)
    settle(ctx, until=lambda: viewer.snapshot is not None)
    viewer.tabs.setCurrentIndex(AS_SENT_TAB)
    settle(ctx)
    items = viewer.as_sent_view.document().find("## session items").block()  # what the request held
    viewer.as_sent_view.verticalScrollBar().setValue(max(0, items.firstLineNumber() - 4))
    settle(ctx)
    written = [grab(viewer, out / "view-context-as-sent.png")]
    viewer.close()
    return written


REVIEW_CODE = """Two changes: back off between attempts, and give up with the last error attached.

```python
import time


def fetch_with_retry(fetch, attempts: int = 3, delay: float = 0.5):
    \"\"\"Call fetch(); on a timeout wait a little longer each time, then give up.\"\"\"
    for attempt in range(1, attempts + 1):
        try:
            return fetch()
        except TimeoutError as exc:
            if attempt == attempts:
                raise RuntimeError(f"gave up after {attempts} tries") from exc
            time.sleep(delay * 2 ** attempt)  # 1 s, 2 s, 4 s ...
```

The `retry` count stays small: a server that times out three times is down, not slow.
"""
REVIEW_SHELL = """The deploy script stops on the first failed step now:

```bash
#!/usr/bin/env bash
set -euo pipefail
for host in "${HOSTS[@]}"; do
  echo "deploying to $host"
  rsync -az --delete build/ "deploy@$host:/srv/app/"   # retry by running it again
done
```
"""
REVIEW_LOG = (
    "Here is the whole log of last night's failed run:\n\n```text\n"
    + "\n".join(
        f"02:{i // 2:02d}:{(i * 7) % 60:02d}  worker-{i % 4}  fetch page {i}: "
        + ("timeout after 30 s, retry 1 of 3" if i % 5 == 3 else "ok (120 rows)")
        for i in range(48)
    )
    + "\n```\n\nWhy does it keep failing?"
)
REVIEW_CONFIG = """From the log: the timeouts all hit one worker. Give it a longer timeout and fewer retries:

```json
{"worker-3": {"timeout_s": 60, "retry": 2}, "default": {"timeout_s": 30, "retry": 3}}
```
"""


def render_chat_view(ctx: object, out: Path) -> list[Path]:
    """The chat view's reading aids: a long message collapsed, find in chat with its highlights, the
    "New messages" pill while scrolled up, and coloured code in the light and the dark theme."""
    from PySide6.QtWidgets import QAbstractItemView

    from okbot.core import items
    from okbot.ui.main_window import MainWindow

    target = ctx.workspace.create_assistant("Code reviewer", role="Reviews Python and shell scripts.")
    store = ctx.sources.session(target)
    author = target.id
    for question, answer in EARLIER:
        store.append(items.user_message(question))
        store.append(items.new_item("assistant", author=author, source="app", content=answer, status="complete"))
    for question, answer in (
        ("Can you review my retry helper? It hammers the server when it times out.", REVIEW_CODE),
        ("And the deploy script?", REVIEW_SHELL),
        (REVIEW_LOG, REVIEW_CONFIG),
    ):
        store.append(items.user_message(question))
        store.append(items.new_item("assistant", author=author, source="app", content=answer, status="complete"))
    written: list[Path] = []
    for theme, setting in (("light", "system"), ("dark", "dark")):  # as render_all: OkBot's own dark theme
        ctx.settings.set("ui.theme", setting)
        window = MainWindow(ctx)
        window.resize(*WINDOW_SIZE)
        window.show()
        window.select_target(target.kind, target.id)
        window.activateWindow()
        view = window.current_page().view
        settle(ctx, until=lambda view=view: not view.chat_model().loading)
        model = view.chat_model()
        code_row = model.row_of_id(max(i["id"] for i in store.iter_items() if "fetch_with_retry" in i["content"]))
        view.scrollTo(model.index(code_row - 1, 0), QAbstractItemView.ScrollHint.PositionAtTop)
        settle(ctx, until=lambda view=view: view.chat_delegate().highlighter.pending == 0)
        written.append(grab(window, out / f"chat-code-{theme}.png"))
        if theme == "light":
            log_row = model.row_of_id(max(i["id"] for i in store.iter_items() if "whole log" in i["content"]))
            view.scrollTo(model.index(log_row - 1, 0), QAbstractItemView.ScrollHint.PositionAtTop)
            settle(ctx)
            written.append(grab(window, out / "chat-collapsed.png"))
            view.open_find()
            view.find_bar().edit.setText("retry")
            view.find_bar().search_now()
            settle(ctx, until=lambda view=view: view.finder().done)
            view.find_next()
            settle(ctx)
            written.append(grab(window, out / "chat-find.png"))
            view.close_find()
            view.scrollTo(model.index(code_row + 1, 0), QAbstractItemView.ScrollHint.PositionAtTop)
            window.current_page().focus_composer()
            view.stream_delta("Looking at worker-3's timeouts again…")
            settle(ctx)
            written.append(grab(window, out / "chat-new-messages.png"))
            view.end_stream()
        window.close()
        window.deleteLater()
        settle(ctx)
    ctx.settings.set("ui.theme", "system")
    settle(ctx)
    return written


def build_data(server: object) -> tuple[object, object, object]:
    """Assistants, a squad and their chats in the temporary OKBOT_HOME; returns (AppContext, chat, squad).

    The last turn of the main chat runs for real against ``server``, so its items, usage and
    as-sent record are what the app itself writes (View context shows that turn).
    """
    from okbot.core import items
    from okbot.core.turn.runner import TurnRunner
    from okbot.core.workspace import Workspace
    from okbot.ui.app_context import AppContext
    from tests.helpers.fake_openai import Reply

    settings = fake_server_settings(server)
    ws = Workspace()
    ws.ensure_default()
    data = ws.create_assistant("Data wrangler", role="Cleans, reshapes and speeds up tabular data work.")
    ws.create_assistant("Researcher", role="Finds sources and checks facts.")
    ws.create_assistant("Writer", role="Drafts clear, friendly prose.")
    ws.create_assistant("Travel planner", role="Plans trips on a budget.")
    squad = ws.create_squad(
        "Release notes desk",
        [("writer", "drafts the note"), ("researcher", "checks every claim")],
        description="Writer drafts, Researcher checks",
        captain={
            "persona": "A calm editor who keeps notes short and accurate.",
            "playbook": "1. Ask the Writer for a draft.\n2. Ask the Researcher to check each claim.\n"
            "3. Reply with the checked draft.",
        },
    )
    ctx = AppContext.create(ws, settings)
    _add_memories_and_skills(ctx, data)

    store = ctx.sources.session(data)

    def reply(text: str, author: str = data.id, **extra: object) -> dict:
        return reply_item(text, author, **extra)

    seed_summarized_chat(store, data, EARLIER, SUMMARY, kept_user_ids=[1], tokens=(9120, 2310, 1450))
    store.append(items.user_message("We agreed on chunks earlier. Could Parquet make the nightly job faster?"))
    store.append(
        items.new_item(
            "tool_call",
            author=data.id,
            source="app",
            call_id="call_1",
            name="search_history",
            arguments='{"query": "chunks", "limit": 5}',
        )
    )
    store.append(
        items.new_item(
            "tool_result",
            author=data.id,
            source="tool",
            call_id="call_1",
            name="search_history",
            ok=True,
            content=SEARCH_RESULT,
        )
    )
    store.append(reply(ANSWER))
    server.enqueue(Reply(text=LAST))
    TurnRunner(ctx.sources, ctx.app.provider).run(data, Send(FOLLOW_UP))  # as-sent record for View context

    squad_store = ctx.sources.session(squad)
    for kind, author, text in SQUAD_TALK:
        if kind == "user":
            squad_store.append(items.user_message(text))
        else:
            squad_store.append(reply(text, author=author))
    return ctx, data, squad


def fake_server_settings(server: object, **extra: object) -> object:
    """The stored settings pointed at the fake ``server`` (no key), developer mode on, a small model's window."""
    from okbot.config.settings import Settings

    settings = Settings.load()
    for key, value in {
        "provider.baseUrl": server.base_url,
        "provider.keySource": "none",
        "provider.model": MODEL,
        "provider.maxRetries": 1,
        "developerMode": True,
        "model.contextWindow": CONTEXT_WINDOW,
        **extra,
    }.items():
        settings.set(key, value)
    return settings


def reply_item(text: str, author: str, **extra: object) -> dict:
    """A finished assistant reply, with the usage a server would have reported."""
    from okbot.core import items

    usage = {"prompt_tokens": 1800, "completion_tokens": len(text) // 4, "total_tokens": 1800 + len(text) // 4}
    return items.new_item(
        "assistant", author=author, source="app", content=text, status="complete", usage=usage, **extra
    )


def seed_summarized_chat(
    store: object, target: object, earlier: list, summary: str, *, kept_user_ids: list[int], tokens: tuple
) -> None:
    """``earlier`` (question, answer) pairs in ``store``, all covered by ``summary`` (a ratio compression that
    took ``tokens`` = before, after, summarizer's)."""
    from okbot.core import items
    from okbot.core.summary import SessionSummary, SummaryStore

    for question, answer in earlier:
        store.append(items.user_message(question))
        store.append(reply_item(answer, target.id))
    before, after, used = tokens
    health = {
        "count": 1,
        "lastTrigger": "ratio",
        "lastAt": items.now_iso(),
        "tokensBefore": before,
        "tokensAfter": after,
        "summarizerTokens": used,
    }
    SummaryStore(target.summary_path).save(
        SessionSummary(
            summary=summary,
            covered_through_id=store.last_id(),
            kept_user_ids=kept_user_ids,
            updated_at=items.now_iso(),
            trigger="ratio",
            health=health,
        )
    )


def _add_memories_and_skills(ctx: object, data: object) -> None:
    from okbot.core.skills import create_skill

    shared = ctx.sources.memory.global_store()
    shared.add("The user's name is Sam; they work at a small logistics company.", status="durable", pinned=True)
    shared.add("The user prefers short answers with code first, explanation after.", status="durable")
    own = ctx.sources.memory.own_store(data)
    own.add("The nightly job reads orders.csv (about 4 GB) from /srv/exports.", status="durable", sources=(3,))
    own.add("Sam's team runs Python 3.11 with pandas 2.2 on the batch server.", status="durable", sources=(5,))
    own.add("Sam may switch the nightly job to Parquet next quarter.", sources=(9,))
    create_skill(data.skills_dir, "profile-a-job", "Find where a slow pandas job spends its time, step by step")
    create_skill(data.skills_dir, "csv-to-parquet", "Convert large CSV exports to partitioned Parquet safely")


def settle(ctx: object, *, until: Callable[[], object] | None = None, timeout: float = 15.0) -> None:
    """Let background work finish and its results arrive (then paint), or fail after ``timeout`` s."""
    from PySide6.QtTest import QTest

    deadline = time.monotonic() + timeout
    quiet = 0
    while quiet < 3:  # three calm rounds in a row: nothing was pending and nothing new was started
        ctx.tasks.wait_for_done(2000)
        QTest.qWait(60)
        done = until is None or until()
        quiet = quiet + 1 if ctx.tasks.pending == 0 and done else 0
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the app to settle")
    QTest.qWait(100)  # debounced timers (file watchers, relayout) and the last paint


def _fake_server() -> object:
    """The fake OpenAI server on :data:`LOCAL_PORT`, or on any free port when that one is taken."""
    from tests.helpers.fake_openai import FakeOpenAIServer

    models = (MODEL, "llama3.1-8b-instruct", "mistral-nemo-12b")
    try:
        return FakeOpenAIServer(port=LOCAL_PORT, models=models).start()
    except OSError:
        return FakeOpenAIServer(models=models).start()


def _models_listed(dialog: object) -> bool:
    from PySide6.QtWidgets import QComboBox

    return any(combo.count() > 1 for combo in dialog.models_page.findChildren(QComboBox))


def grab(widget: object, path: Path) -> Path:
    """Save ``widget`` as a PNG."""
    return save(widget.grab().toImage(), path)


def save(image: object, path: Path) -> Path:
    """Save ``image`` (a QImage) as a PNG (8-bit palette when that keeps it sharp and small)."""
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB32)
    if not image.save(str(path), "PNG", 9):
        raise SystemExit(f"could not write {path}")
    return path


if __name__ == "__main__":
    raise SystemExit(main())
