"""Attaching files in the app: the attach button, drops and pastes, the chips, the sent turn and its bubble."""

from __future__ import annotations

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
    assert "[attached file: notes.md · text · 15 B]\nship on Friday" in text_part["text"]
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
