"""Attached files end to end: real files in a temp dir, real turns through the fake server, real records."""

from __future__ import annotations

import base64
import os
import struct
import zlib
from pathlib import Path

import pytest

from okbot.config.settings import Settings
from okbot.core import attach_guard, attachments
from okbot.core.attachments import TEXT_CAP_CHARS, AttachmentView, image_tokens
from okbot.core.context import build_context
from okbot.core.digest import item_digest
from okbot.core.items import InvalidItem, validate_item
from okbot.core.messages import items_to_messages
from okbot.core.session import SessionStore
from okbot.core.sources import ContextSources
from okbot.core.tokens import model_facts
from okbot.core.turn.request import Edit, Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from okbot.llm.openai_backend import OpenAIProvider
from okbot.storage.errors import OkBotError
from tests.helpers.fake_openai import IMAGES_REFUSED, FakeOpenAIServer, ModelRules, Reply
from tests.helpers.patience import PATIENT_SECONDS


def png_bytes(width: int, height: int) -> bytes:
    """A real (valid) PNG of ``width``×``height`` grey pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def jpeg_header(width: int, height: int) -> bytes:
    """The start of a baseline JPEG: SOI, an APP0 segment, then the frame with its size."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def pdf_bytes(pages: list[str]) -> bytes:
    """A real PDF with one line of Helvetica text per page (built by hand: objects, xref, trailer)."""
    count = len(pages)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    font = 3 + 2 * count
    for i, text in enumerate(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        stream = f"BT /F1 12 Tf 72 712 Td ({text}) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def records(target) -> list[dict]:
    return list(SessionStore(target.session_path).iter_items())


def make_env(server: FakeOpenAIServer, model: str):
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.model", model)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    provider = OpenAIProvider(server.base_url, None, sleep=lambda _s: None, max_reply_seconds=PATIENT_SECONDS)
    return target, sources, TurnRunner(sources, provider)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    folder = tmp_path / "picked"
    folder.mkdir()
    return folder


# ---------------------------------------------------------------------------- reading files
def test_a_text_file_is_copied_byte_identical_into_the_chat_folder(files, tmp_path):
    source = files / "notes.md"
    source.write_text("# Plan\n- ship attachments\n", encoding="utf-8")
    chat = tmp_path / "chat"
    record = attachments.attach(source, chat)
    assert record["kind"] == "text" and record["name"] == "notes.md"
    assert record["size"] == source.stat().st_size and record["chars"] == len(source.read_text())
    assert record["path"].startswith("attachments/") and record["path"].endswith("-notes.md")
    assert (chat / record["path"]).read_bytes() == source.read_bytes()


def test_a_binary_file_is_refused_in_words_and_nothing_is_copied(files, tmp_path):
    source = files / "tool.bin"
    source.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 10)
    with pytest.raises(OkBotError, match="tool.bin is a binary file; OkBot attaches text files"):
        attachments.attach(source, tmp_path / "chat")
    assert not (tmp_path / "chat").exists()


def test_a_damaged_image_is_refused_as_one_not_as_a_binary_file(files, tmp_path):
    """A PNG cut after its header or inside its data, a JPEG without its end, a .png that holds no image."""
    whole = png_bytes(64, 48)
    cases = {
        "header-only.png": whole[:33],  # the signature and IHDR, nothing after
        "cut.png": whole[:-20],  # cut inside the image data: no IEND
        "cut.jpg": jpeg_header(640, 480)[:-2],  # no end-of-image marker
        "renamed.png": b"\x00\x01\x02 not an image at all" * 40,
        "cut.gif": b"GIF89a\x10\x00\x10\x00\x80\x00\x00" + b"\x01" * 30,  # no trailer
    }
    for name, data in cases.items():
        (files / name).write_bytes(data)
        for check in (lambda p: attachments.attach(p, tmp_path / "chat"), attachments.check_head):
            with pytest.raises(OkBotError) as caught:
                check(files / name)
            assert f"{name} is a damaged image" in str(caught.value), name
            assert "binary" not in str(caught.value)
    assert not (tmp_path / "chat").exists()


def test_a_file_is_judged_when_added_from_its_first_and_last_bytes(files):
    """What attaching would refuse for its kind is known at add time, from a small head and tail of the file."""
    (files / "notes.md").write_text("# Plan\n" + "é" * 40_000, encoding="utf-8")  # a head cut inside a character
    (files / "a.png").write_bytes(png_bytes(40, 30))
    (files / "b.jpg").write_bytes(jpeg_header(1024, 768))
    (files / "paper.pdf").write_bytes(pdf_bytes(["text"]))
    (files / "tool.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 10)
    (files / "big.log").write_bytes(b"x" * (attachments.MAX_FILE_BYTES + 1))
    kinds = [attachments.check_head(files / n) for n in ("notes.md", "a.png", "b.jpg", "paper.pdf")]
    assert kinds == ["text", "image", "image", "pdf"]
    with pytest.raises(OkBotError, match="tool.bin is a binary file; OkBot attaches text files"):
        attachments.check_head(files / "tool.bin")
    with pytest.raises(OkBotError, match="big.log is 20.0 MB; OkBot attaches files of at most 20.0 MB"):
        attachments.check_head(files / "big.log")


def test_a_pdf_goes_in_as_its_text(files, tmp_path):
    source = files / "paper.pdf"
    source.write_bytes(pdf_bytes(["Attachments are copied", "into the chat folder"]))
    chat = tmp_path / "chat"
    record = attachments.attach(source, chat)
    assert (record["kind"], record["pages"]) == ("pdf", 2)
    assert (chat / record["path"]).read_bytes() == source.read_bytes()
    item = {"id": 1, "type": "user", "source": "user", "content": "summarise", "attachments": [record]}
    (message,) = items_to_messages([item], AttachmentView(chat, vision=True))
    size = attachments.human_size(record["size"])
    assert message["content"].startswith(f"summarise\n\n[source: attached file paper.pdf · pdf 2 pages · {size} — ")
    assert (
        "included]\nAttachments are copied\n\ninto the chat folder\n[end of attached file paper.pdf · "
        in (message["content"])
    )


def test_a_pdf_that_cannot_be_read_is_refused_in_words(files, tmp_path):
    source = files / "broken.pdf"
    source.write_bytes(b"%PDF-1.7\n\x00\x01 not really a pdf")
    with pytest.raises(OkBotError, match="broken.pdf cannot be read as a PDF"):
        attachments.attach(source, tmp_path / "chat")
    scan = files / "scan.pdf"
    scan.write_bytes(pdf_bytes([""]))
    with pytest.raises(OkBotError, match=r"scan.pdf holds no text OkBot can read \(a scanned PDF\?\)"):
        attachments.attach(scan, tmp_path / "chat")
    assert not (tmp_path / "chat").exists()


def test_missing_and_folder_sources_are_refused(files, tmp_path):
    with pytest.raises(OkBotError, match="does not exist"):
        attachments.attach(files / "nope.txt", tmp_path / "chat")
    with pytest.raises(OkBotError, match="is not a file"):
        attachments.attach(files, tmp_path / "chat")


def test_image_sizes_are_read_from_the_headers(files, tmp_path):
    (files / "a.png").write_bytes(png_bytes(40, 30))
    (files / "b.jpg").write_bytes(jpeg_header(1024, 768))
    png = attachments.attach(files / "a.png", tmp_path / "chat")
    jpg = attachments.attach(files / "b.jpg", tmp_path / "chat")
    assert (png["kind"], png["mime"], png["width"], png["height"]) == ("image", "image/png", 40, 30)
    assert (jpg["kind"], jpg["mime"], jpg["width"], jpg["height"]) == ("image", "image/jpeg", 1024, 768)


def test_odd_file_names_become_safe_ones(files, tmp_path):
    source = files / "my notes; v2?.txt"
    source.write_text("x")
    record = attachments.attach(source, tmp_path / "chat")
    assert "/" not in record["name"] and ";" not in record["name"] and "?" not in record["name"]
    assert (tmp_path / "chat" / record["path"]).is_file()


def test_image_token_cost_follows_openais_tile_formula():
    assert image_tokens(512, 512) == 85 + 170  # one tile
    assert image_tokens(1024, 1024) == 85 + 170 * 4  # 768×768 after scaling: 2×2 tiles
    assert image_tokens(4096, 2048) == 85 + 170 * 6  # 2048×1024 -> 1536×768: 3×2 tiles
    assert image_tokens(100, 50) == 85 + 170


def test_items_accept_attachments_and_refuse_broken_ones():
    base = {"id": 1, "type": "user", "content": "see file"}
    good = {"name": "a.md", "kind": "text", "path": "attachments/x-a.md", "sha256": "ab", "size": 1}
    assert validate_item({**base, "attachments": [good]})
    assert validate_item(dict(base))  # older items without attachments are unchanged
    with pytest.raises(InvalidItem, match="unknown kind"):
        validate_item({**base, "attachments": [{**good, "kind": "video"}]})
    with pytest.raises(InvalidItem, match="not a list"):
        validate_item({**base, "attachments": "a.md"})


def test_vision_comes_from_the_model_facts():
    assert model_facts("gpt-4o-mini").vision and model_facts("openai/gpt-4.1").vision
    assert model_facts("qwen2.5vl:7b").vision and model_facts("llama3.2-vision:11b").vision
    assert not model_facts("qwen2.5:7b").vision and not model_facts("o1-mini").vision
    assert not model_facts("some-unknown-model").vision


# ---------------------------------------------------------------------------- turns
def test_a_5mb_text_file_is_sent_capped_with_a_note_and_never_written_to_the_record(server, files):
    target, sources, runner = make_env(server, "gpt-4o-mini")
    line = "the secret-looking line 0123456789 abcdefghij\n"
    source = files / "big.log"
    source.write_text(line * (5 * 1024 * 1024 // len(line)), encoding="utf-8")
    server.enqueue(Reply(text="read it"))
    result = runner.run(target, Send("what does this log say?", attachments=[source]))
    assert result.status == "complete"

    user = records(target)[0]
    (record,) = user["attachments"]
    assert record["kind"] == "text" and record["size"] == source.stat().st_size
    assert (target.dir / record["path"]).read_bytes() == source.read_bytes()
    raw = target.session_path.read_text(encoding="utf-8")
    assert "secret-looking" not in raw and len(raw) < 5000

    content = server.chat_requests()[0]["messages"][-1]["content"]
    assert isinstance(content, str)
    assert content.startswith("what does this log say?\n\n[source: attached file big.log · text · 5.0 MB — ")
    assert "[app note: big.log was cut: the first 100,000 of its" in content
    assert len(content) < TEXT_CAP_CHARS + 500
    # the gauge counted the file before sending: the request's estimate includes its text
    proj = build_context(target, at=user["id"], sources=sources)
    assert proj.item_tokens[0] > 10_000


def test_an_image_goes_to_a_vision_model_as_an_image_part(server, files):
    target, sources, runner = make_env(server, "gpt-4o-mini")
    data = png_bytes(64, 48)
    (files / "chart.png").write_bytes(data)
    before = build_context(target, sources=sources).total_tokens
    server.enqueue(Reply(text="a grey chart"))
    assert runner.run(target, Send("what is this?", attachments=[files / "chart.png"])).status == "complete"

    text_part, image_part = server.chat_requests()[0]["messages"][-1]["content"]
    assert text_part == {"type": "text", "text": "what is this?"}
    assert image_part["type"] == "image_url"
    assert image_part["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(data).decode()
    user = records(target)[0]
    assert "base64" not in target.session_path.read_text()
    assert (target.dir / user["attachments"][0]["path"]).read_bytes() == data
    # the image's cost is in the estimate before the reply
    proj = build_context(target, at=user["id"], sources=sources)
    assert proj.total_tokens - before >= image_tokens(64, 48)


def test_an_image_for_a_model_that_cannot_read_images_is_refused_before_anything_is_written(files):
    with FakeOpenAIServer(models=("qwen2.5:7b",), rules={"qwen2.5:7b": ModelRules(vision=False)}) as server:
        target, sources, runner = make_env(server, "qwen2.5:7b")
        (files / "cat.png").write_bytes(png_bytes(8, 8))
        with pytest.raises(OkBotError, match=r"qwen2.5:7b cannot read images; remove the image or pick a vision model"):
            runner.run(target, Send("look", attachments=[files / "cat.png"]))
        assert records(target) == []
        assert not (target.dir / "attachments").exists()
        assert server.chat_requests() == []


def test_the_fake_server_refuses_image_parts_as_openai_does_for_non_vision_models():
    with FakeOpenAIServer(models=("qwen2.5:7b",), rules={"qwen2.5:7b": ModelRules(vision=False)}) as server:
        import json
        import urllib.error
        import urllib.request

        body = {
            "model": "qwen2.5:7b",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "hi"},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    ],
                }
            ],
        }
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=PATIENT_SECONDS)
        assert caught.value.code == 400
        error = json.loads(caught.value.read())["error"]
        assert error["message"] == IMAGES_REFUSED and error["param"] == "messages.[0].content.[1].type"


def test_an_older_image_stays_out_of_a_request_to_a_non_vision_model(tmp_path, files):
    (files / "cat.png").write_bytes(png_bytes(8, 8))
    record = attachments.attach(files / "cat.png", tmp_path)
    item = {"id": 1, "type": "user", "source": "user", "content": "look", "attachments": [record]}
    (message,) = items_to_messages([item], AttachmentView(tmp_path, vision=False))
    size = record["size"]
    assert message["content"] == (
        f"look\n\n[attached image: cat.png · image 8×8 · {size} B — not sent: this model cannot read images]"
    )


def test_an_attachment_only_message_is_sent(server, files):
    target, sources, runner = make_env(server, "gpt-4o-mini")
    (files / "a.py").write_text("print('hi')\n")
    server.enqueue(Reply(text="it prints hi"))
    assert runner.run(target, Send("", attachments=[files / "a.py"])).status == "complete"
    content = server.chat_requests()[0]["messages"][-1]["content"]
    assert content.startswith("[source: attached file a.py · text · 12 B — ")
    assert content.endswith(
        "included]\nprint('hi')\n[end of attached file a.py · "
        + records(target)[0]["attachments"][0]["sha256"][:16]
        + "]"
    )


def test_the_summarizer_digest_names_the_file_but_never_holds_its_text(server, files):
    target, sources, runner = make_env(server, "gpt-4o-mini")
    (files / "secret.txt").write_text("the launch code is 7788\n")
    server.enqueue(Reply(text="ok"))
    runner.run(target, Send("keep this safe", attachments=[files / "secret.txt"]))
    user = records(target)[0]
    line = item_digest(user)
    assert line == f"#{user['id']} user: keep this safe [attached: secret.txt · text · 24 B]"
    assert "7788" not in line
    assert "7788" not in target.session_path.read_text()


def test_a_missing_copy_is_said_not_crashed(tmp_path, files):
    (files / "a.md").write_text("hello")
    record = attachments.attach(files / "a.md", tmp_path)
    (tmp_path / record["path"]).unlink()
    item = {"id": 1, "type": "user", "source": "user", "content": "x", "attachments": [record]}
    (message,) = items_to_messages([item], AttachmentView(tmp_path, vision=True))
    assert "the copy of a.md is missing" in message["content"]


def test_the_as_sent_view_counts_the_attached_files_as_the_request_did(server, files):
    from okbot.core.sent_request import load_sent

    target, sources, runner = make_env(server, "gpt-4o-mini")
    (files / "notes.md").write_text("ship on Friday\n" * 200)
    (files / "chart.png").write_bytes(png_bytes(640, 480))
    server.enqueue(Reply(text="ok"))
    result = runner.run(target, Send("read these", attachments=[files / "notes.md", files / "chart.png"]))
    sent = load_sent(sources, target, result.user_id)
    assert sum(s.tokens for s in sent.items) == sent.request.items_tokens


def test_an_edited_message_keeps_its_files(server, files):
    target, sources, runner = make_env(server, "gpt-4o-mini")
    (files / "notes.md").write_text("ship on Friday\n")
    server.enqueue(Reply(text="Friday"), Reply(text="Still Friday"))
    first = runner.run(target, Send("when?", attachments=[files / "notes.md"]))
    runner.run(target, Edit(first.user_id, "when exactly?"))
    edited = [it for it in records(target) if it["type"] == "user"][-1]
    assert edited["content"] == "when exactly?"
    assert edited["attachments"] == records(target)[0]["attachments"]
    assert "ship on Friday" in server.chat_requests()[-1]["messages"][-1]["content"]


def test_files_too_big_for_the_models_window_are_refused_before_anything_is_written(files):
    with FakeOpenAIServer(models=("llava",)) as server:
        target, sources, runner = make_env(server, "llava")  # a 4,096-token window
        (files / "long.txt").write_text("many words here " * 5000)
        with pytest.raises(OkBotError, match=r"the message with its files is about [\d,]+ tokens and cannot fit"):
            runner.run(target, Send("read it", attachments=[files / "long.txt"]))
        assert records(target) == [] and not (target.dir / "attachments").exists()


# ---------------------------------------------------------------------------- OkBot's own files
KEY_CANARY = "sk-canary-keyfile-5f0c1d"


def key_file(okbot_home: Path) -> Path:
    """OkBot's key file as the key store writes it (the data dir, 0600)."""
    okbot_home.mkdir(parents=True, exist_ok=True)
    keys = okbot_home / "keys.json"
    keys.write_text(f'{{"version": 1, "keys": {{"default": "{KEY_CANARY}"}}}}', encoding="utf-8")
    keys.chmod(0o600)
    return keys


def test_okbots_key_file_is_never_attached_by_its_path_a_symlink_or_a_hard_link(okbot_home, tmp_path):
    keys = key_file(okbot_home)
    (tmp_path / "innocent.json").symlink_to(keys)
    (tmp_path / "folder").symlink_to(okbot_home)  # a symlinked folder on the way
    os.link(keys, tmp_path / "notes.json")  # another name, outside every protected folder
    chat = tmp_path / "chat"
    for source, why in (
        (keys, "OkBot's own data"),
        (tmp_path / "innocent.json", "OkBot's own data"),
        (tmp_path / "folder" / "keys.json", "OkBot's own data"),
        (tmp_path / "notes.json", "a hard link to a file OkBot protects"),
    ):
        with pytest.raises(attach_guard.Refused) as caught:
            attachments.attach(source, chat)
        assert str(caught.value).startswith(f"{source.name} is not attached: ") and why in str(caught.value)
        assert KEY_CANARY not in str(caught.value)
    assert not chat.exists()
    (tmp_path / "fine.md").write_text("fine\n", encoding="utf-8")
    assert attachments.attach(tmp_path / "fine.md", chat)["name"] == "fine.md"  # the guard refuses only those


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OkBotError, match="pipe is not a file"):
        attachments.attach(tmp_path / "pipe", tmp_path / "chat")
