"""Attaching files in the app: the attach button, drops and pastes, the chips, the sent turn and its bubble."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from okbot.core.attachments import attachment_line
from okbot.core.session import SessionStore
from okbot.ui.app_context import AppContext
from okbot.ui.attachment_chips import MAX_IMAGE_SIDE
from okbot.ui.chat_page import ChatPage
from okbot.ui.composer import Composer
from tests.helpers.fake_openai import FakeOpenAIServer, Reply


def open_page(qtbot: QtBot, ctx: AppContext) -> ChatPage:
    page = ChatPage(ctx, ctx.workspace.list()[0])
    qtbot.addWidget(page)
    page.resize(800, 600)
    page.show()
    qtbot.waitExposed(page)
    return page


def chip_texts(composer: Composer) -> list[str]:
    from PySide6.QtWidgets import QLabel

    return [label.text() for label in composer.chips.findChildren(QLabel)]


def image_file(path: Path, width: int, height: int) -> Path:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#3a7"))
    assert image.save(str(path), "PNG")
    return path


def test_the_attach_button_adds_chips_that_can_be_removed(qtbot: QtBot, tmp_path: Path):
    composer = Composer()
    qtbot.addWidget(composer)
    composer.show()
    (tmp_path / "notes.md").write_text("# Plan\n" * 100)
    picture = image_file(tmp_path / "pic.png", 512, 512)
    composer.pick_files = lambda: [str(tmp_path / "notes.md"), str(picture)]
    assert not composer.button.isEnabled()
    composer.attach_button.click()
    assert composer.attachments() == [tmp_path / "notes.md", picture]
    texts = chip_texts(composer)
    assert texts[0] == "notes.md · 700 B · ≈175 tokens"
    assert texts[1].startswith("pic.png · 512×512 · ") and texts[1].endswith("≈255 tokens")  # gpt-4o-mini: vision
    assert composer.button.isEnabled()  # files alone may be sent
    remove = [b for b in composer.chips.findChildren(QToolButton) if b.toolTip() == "Remove notes.md"]
    remove[0].click()
    assert composer.attachments() == [picture]


def test_a_dropped_or_pasted_file_and_a_pasted_image_become_attachments(qtbot: QtBot, tmp_path: Path):
    composer = Composer()
    qtbot.addWidget(composer)
    (tmp_path / "a.py").write_text("print(1)\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path / "a.py"))])
    assert composer.edit.canInsertFromMimeData(mime)
    composer.edit.insertFromMimeData(mime)
    assert composer.attachments() == [tmp_path / "a.py"] and composer.text() == ""

    pasted = QMimeData()
    image = QImage(40, 20, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    pasted.setImageData(image)
    composer.edit.insertFromMimeData(pasted)
    assert len(composer.attachments()) == 2
    saved = QImage(str(composer.attachments()[1]))
    assert (saved.width(), saved.height()) == (40, 20)

    text = QMimeData()
    text.setText("just words")
    composer.edit.insertFromMimeData(text)
    assert composer.text() == "just words" and len(composer.attachments()) == 2


def test_an_image_over_the_models_limit_is_scaled_down_before_it_is_attached(qtbot: QtBot, tmp_path: Path):
    composer = Composer()
    qtbot.addWidget(composer)
    big = image_file(tmp_path / "big.png", 4096, 1024)
    composer.add_files([big])
    (attached,) = composer.attachments()
    assert attached != big
    scaled = QImage(str(attached))
    assert (scaled.width(), scaled.height()) == (MAX_IMAGE_SIDE, MAX_IMAGE_SIDE // 4)


def test_a_folder_is_not_attached_and_the_page_says_why(qtbot: QtBot, ctx: AppContext, tmp_path: Path):
    page = open_page(qtbot, ctx)
    page.composer.add_files([tmp_path])
    assert page.composer.attachments() == []
    assert "is not a file" in page.status_text()


def test_sending_with_files_runs_the_turn_with_them_and_the_bubble_names_them(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer, tmp_path: Path
):
    page = open_page(qtbot, ctx)
    (tmp_path / "notes.md").write_text("ship on Friday\n")
    picture = image_file(tmp_path / "pic.png", 64, 48)
    page.composer.add_files([tmp_path / "notes.md", picture])
    server.enqueue(Reply(text="Friday."))
    page.composer.edit.setFocus()
    page.composer.set_text("when?")
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not page.streaming and page.last_result is not None, timeout=15_000)
    assert page.last_result.status == "complete"
    text_part, image_part = server.chat_requests()[0]["messages"][-1]["content"]
    assert "[source: attached file notes.md · text · 15 B — " in text_part["text"]
    assert "included]\nship on Friday\n[end of attached file notes.md · " in text_part["text"]
    assert image_part["image_url"]["url"].startswith("data:image/png;base64,")
    assert page.composer.attachments() == [] and page.composer.text() == ""
    user = next(SessionStore(page.target.session_path).iter_items())
    assert [a["name"] for a in user["attachments"]] == ["notes.md", "pic.png"]
    layout = page.view.chat_model()
    row = next(r for r in range(layout.rowCount()) if (layout.item(r) or {}).get("type") == "user")
    assert layout.item(row)["attachments"]
    assert attachment_line(layout.item(row)) == "Attached: notes.md (15 B), pic.png (" + f"{picture.stat().st_size} B)"


def test_an_image_for_a_model_without_vision_is_refused_and_the_chips_stay(qtbot: QtBot, tmp_path: Path):
    from okbot.core.workspace import Workspace
    from tests.helpers.env import settings_for
    from tests.helpers.fake_openai import ModelRules

    with FakeOpenAIServer(models=("qwen2.5:7b",), rules={"qwen2.5:7b": ModelRules(vision=False)}) as server:
        settings = settings_for(server, {"provider.maxRetries": 1, "provider.model": "qwen2.5:7b"})
        ws = Workspace()
        ws.ensure_default()
        ctx = AppContext.create(ws, settings)
        try:
            page = open_page(qtbot, ctx)
            picture = image_file(tmp_path / "pic.png", 64, 48)
            page.composer.add_files([picture])
            (chip,) = chip_texts(page.composer)
            assert chip.startswith("⚠ pic.png · 64×48") and chip.endswith("qwen2.5:7b cannot read images")
            page.send("look")
            qtbot.waitUntil(lambda: not page.streaming, timeout=15_000)
            qtbot.waitUntil(lambda: "cannot read images" in page.status_text())
            assert "qwen2.5:7b cannot read images; remove the image or pick a vision model" in page.status_text()
            assert page.composer.attachments() == [picture]
            assert list(SessionStore(page.target.session_path).iter_items()) == []
            assert server.chat_requests() == []
        finally:
            ctx.tasks.wait_for_done(5000)


def test_files_waiting_to_be_sent_count_in_the_gauge_before_sending(
    qtbot: QtBot, ctx: AppContext, tmp_path: Path
) -> None:
    from okbot.core.attachments import image_tokens

    page = open_page(qtbot, ctx)
    qtbot.waitUntil(lambda: page.gauge.reading is not None, timeout=10_000)
    before = page.gauge.reading.tokens
    picture = image_file(tmp_path / "pic.png", 1024, 768)
    (tmp_path / "notes.md").write_text("x" * 4000)
    page.composer.add_files([picture, tmp_path / "notes.md"])
    added = image_tokens(1024, 768) + 1000
    assert page.gauge.reading.tokens == before + added
    assert f"{added:,} tokens of the files attached" in page.gauge.toolTip()
    page.composer.chips.clear()
    assert page.gauge.reading.tokens == before


def test_okbots_key_file_is_refused_when_added_by_drop_paste_or_the_button(
    qtbot: QtBot, okbot_home: Path, tmp_path: Path
):
    okbot_home.mkdir(parents=True, exist_ok=True)
    keys = okbot_home / "keys.json"
    keys.write_text('{"version": 1, "keys": {"default": "sk-canary-keyfile-ui"}}', encoding="utf-8")
    (tmp_path / "shortcut.json").symlink_to(keys)
    os.link(keys, tmp_path / "hardlink.json")
    (tmp_path / "notes.md").write_text("fine\n", encoding="utf-8")
    composer = Composer()
    qtbot.addWidget(composer)
    refused: list[str] = []
    composer.attach_refused.connect(refused.append)
    dropped = QMimeData()
    dropped.setUrls([QUrl.fromLocalFile(str(keys)), QUrl.fromLocalFile(str(tmp_path / "notes.md"))])
    composer.edit.insertFromMimeData(dropped)  # a drop and a paste of files both arrive here
    composer.pick_files = lambda: [str(tmp_path / "shortcut.json"), str(tmp_path / "hardlink.json")]
    composer.attach_button.click()
    assert composer.attachments() == [tmp_path / "notes.md"]  # the good file beside them is kept
    assert [why.split(":")[0] for why in refused] == [
        "keys.json is not attached",
        "shortcut.json is not attached",
        "hardlink.json is not attached",
    ]
    assert "hard link to a file OkBot protects" in refused[2]


def test_a_hostile_pdf_is_read_off_the_gui_thread_and_refused_in_words(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer, tmp_path: Path
):
    from PySide6.QtCore import QTimer

    from tests.helpers.pdfs import HOSTILE_STREAM, shared_stream_pdf

    page = open_page(qtbot, ctx)
    pdf = tmp_path / "hostile.pdf"
    pdf.write_bytes(shared_stream_pdf(300, HOSTILE_STREAM))  # its text took pypdf minutes to read
    page.composer.add_files([pdf])
    assert chip_texts(page.composer)[0].startswith("hostile.pdf · PDF · ")  # not read when added
    refused = "its pages hold too much to read"
    ticks: list[bool] = []  # at each tick of the GUI thread's event loop: was the refusal shown yet
    timer = QTimer(page)
    timer.timeout.connect(lambda: ticks.append(refused in page.status_text()))
    timer.start(10)
    page.send("summarise")
    qtbot.waitUntil(lambda: refused in page.status_text(), timeout=30_000)
    timer.stop()
    assert False in ticks  # the GUI thread ran its event loop while the PDF was being read
    assert page.composer.attachments() == [pdf] and server.chat_requests() == []
    assert list(SessionStore(page.target.session_path).iter_items()) == []


def test_a_file_swapped_for_a_link_to_the_key_file_after_it_was_added_is_refused_at_send(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer, okbot_home: Path, tmp_path: Path
):
    keys = okbot_home / "keys.json"
    keys.write_text('{"version": 1, "keys": {"default": "sk-canary-keyfile-swap"}}', encoding="utf-8")
    page = open_page(qtbot, ctx)
    notes = tmp_path / "notes.md"
    notes.write_text("fine\n", encoding="utf-8")
    page.composer.add_files([notes])
    assert page.composer.attachments() == [notes]
    notes.unlink()
    notes.symlink_to(keys)  # swapped after the check at add time
    page.send("read it")
    qtbot.waitUntil(lambda: "notes.md is not attached" in page.status_text(), timeout=30_000)
    assert "OkBot's own data" in page.status_text()
    assert server.chat_requests() == [] and list(SessionStore(page.target.session_path).iter_items()) == []
    assert not list(okbot_home.rglob("attachments"))


def test_a_binary_file_is_refused_when_added_and_the_good_files_stay_and_count(
    qtbot: QtBot, ctx: AppContext, tmp_path: Path
) -> None:
    from okbot.core.attachments import image_tokens

    page = open_page(qtbot, ctx)
    qtbot.waitUntil(lambda: page.gauge.reading is not None, timeout=10_000)
    before = page.gauge.reading.tokens
    (tmp_path / "notes.md").write_text("x" * 4000)
    (tmp_path / "tool.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64)
    picture = image_file(tmp_path / "pic.png", 64, 48)
    page.composer.add_files([tmp_path / "notes.md", tmp_path / "tool.bin", picture])
    assert page.composer.attachments() == [tmp_path / "notes.md", picture]  # refused when added, not at Send
    assert "tool.bin is a binary file" in page.status_text()
    assert not [t for t in chip_texts(page.composer) if "tool.bin" in t]
    assert page.gauge.reading.tokens == before + 1000 + image_tokens(64, 48)  # the refused file never counts


def test_a_damaged_image_is_refused_when_added_as_a_damaged_image(qtbot: QtBot, ctx: AppContext, tmp_path: Path):
    page = open_page(qtbot, ctx)
    whole = image_file(tmp_path / "whole.png", 64, 48).read_bytes()
    (tmp_path / "cut.png").write_bytes(whole[:40])  # the PNG's header survived, its image data did not
    page.composer.add_files([tmp_path / "cut.png"])
    assert page.composer.attachments() == []
    assert "cut.png is a damaged image" in page.status_text()
    assert "binary" not in page.status_text()


LONG_NAMES = (
    "quarterly-sensor-readings-for-the-north-building-march.csv",
    "nightly_import_job_with_the_new_chunked_reader.py",
    "meeting-notes-about-the-parquet-migration-plan.md",
    "another-very-long-file-name-for-the-release-checklist.txt",
)


def shown_composer(qtbot: QtBot, width: int) -> Composer:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(width, 120)
    composer.show()
    qtbot.waitExposed(composer)
    return composer


def long_named_files(folder: Path) -> list[Path]:
    for name in LONG_NAMES:
        (folder / name).write_text("ts,sensor,reading\n" * 40)
    return [folder / n for n in LONG_NAMES] + [image_file(folder / "whiteboard-photo-from-the-review.png", 300, 180)]


def test_a_long_chip_is_elided_with_an_ellipsis_and_its_tooltip_has_the_name_and_size(qtbot: QtBot, tmp_path: Path):
    from PySide6.QtWidgets import QLabel

    from okbot.core.attachments import human_size

    composer = shown_composer(qtbot, 420)
    files = long_named_files(tmp_path)
    composer.add_files(files)
    labels = [w for w in composer.chips.findChildren(QLabel) if w.objectName() == "attachmentChipText"]
    assert len(labels) == len(files)
    qtbot.waitUntil(lambda: all(label.width() > 0 for label in labels))
    for label, path in zip(labels, files, strict=True):
        shown = QLabel.text(label)  # what is painted (an ElidedLabel's text() is the whole text)
        assert shown.endswith("…") and shown[:-1] and path.name.startswith(shown[:-1]), shown
        assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()  # never cut mid-glyph
        assert path.name in label.toolTip() and human_size(path.stat().st_size) in label.toolTip()


def test_the_chip_row_never_takes_width_from_the_sidebar(qtbot: QtBot, ctx: AppContext, tmp_path: Path):
    from PySide6.QtWidgets import QApplication

    from okbot.ui.main_window import MainWindow

    files = long_named_files(tmp_path)
    for size in ((640, 460), (1280, 800)):
        window = MainWindow(ctx)
        qtbot.addWidget(window)
        window.resize(*size)
        window.show()
        qtbot.waitExposed(window)
        window.select_target("assistant", ctx.workspace.list()[0].id)
        page = window.current_page()
        qtbot.waitUntil(lambda page=page: page.isVisible())
        QApplication.processEvents()
        given = window.sidebar.width()
        page.composer.add_files(files)
        assert len(page.composer.attachments()) == len(files)
        QApplication.processEvents()  # the layout requests the chips posted
        QApplication.processEvents()
        assert window.sidebar.width() == given, size
        assert window.width() == size[0]
        assert page.composer.geometry().right() <= page.width()
        window.close()


def test_a_sent_image_shows_as_a_bounded_thumbnail_and_a_moved_copy_keeps_the_text_line(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer, tmp_path: Path
):
    from okbot.ui.chat.layout import THUMB_MAX

    page = open_page(qtbot, ctx)
    (tmp_path / "notes.md").write_text("ship on Friday\n")
    picture = image_file(tmp_path / "wide-chart.png", 800, 300)
    page.composer.add_files([tmp_path / "notes.md", picture])
    server.enqueue(Reply(text="A chart."))
    page.send("what is it?")
    qtbot.waitUntil(lambda: not page.streaming and page.last_result is not None, timeout=15_000)
    model = page.view.chat_model()
    row = next(r for r in range(model.rowCount()) if (model.item(r) or {}).get("type") == "user")

    def layout():
        index = model.index(row, 0)
        return page.view.chat_delegate().layout(page.view._option(index), index)  # noqa: SLF001

    qtbot.waitUntil(lambda: bool(layout().thumbs), timeout=10_000)  # decoded on a pool thread
    ((rect, image, name),) = layout().thumbs
    assert name == "wide-chart.png"
    assert rect.width() <= THUMB_MAX[0] and rect.height() <= THUMB_MAX[1]
    assert abs(rect.width() / rect.height() - 800 / 300) < 0.05  # the aspect is kept
    assert layout().bubble.contains(rect)
    text = layout().doc.toPlainText()
    assert "Attached: notes.md (15 B)" in text and "wide-chart.png" not in text  # the image shows as itself

    user = model.item(row)
    (stored,) = [a for a in user["attachments"] if a["kind"] == "image"]
    (page.target.dir / stored["path"]).unlink()  # the chat's copy is gone
    page.view.set_session(
        SessionStore(page.target.session_path), tasks=ctx.tasks
    )  # shown again: the image cannot be read now
    qtbot.waitUntil(lambda: model.rowCount() > row and model.item(row) is not None, timeout=10_000)
    ctx.tasks.wait_for_done(5000)
    qtbot.waitUntil(lambda: "wide-chart.png" in layout().doc.toPlainText(), timeout=10_000)
    assert layout().thumbs == []


def test_only_image_chips_warn_of_a_model_without_vision_and_the_warning_stays_in_view(qtbot: QtBot, tmp_path: Path):
    from PySide6.QtWidgets import QLabel

    composer = shown_composer(qtbot, 700)
    files = long_named_files(tmp_path)
    composer.set_model("qwen2.5:7b", False)
    composer.add_files([files[-1], files[0]])  # the image, then a CSV
    image_label, text_label = [w for w in composer.chips.findChildren(QLabel) if w.objectName() == "attachmentChipText"]
    qtbot.waitUntil(lambda: image_label.width() > 0 and text_label.width() > 0)
    assert QLabel.text(image_label).endswith("qwen2.5:7b cannot read images")  # elided in its middle
    assert "…" in QLabel.text(image_label)
    assert not text_label.text().startswith("⚠") and "cannot read images" not in text_label.text()
