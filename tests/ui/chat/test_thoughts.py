"""A reply's reasoning shows folded ("Thought for 12 s ▸") above the answer and unfolds on click; while
the reply streams, the folded line says "Thinking… 4 s"."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from okbot.core import items
from okbot.core.session import SessionStore
from okbot.ui.app_context import AppContext
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.ui.chat.test_chat_view import assistant, click, layout_of, open_view
from tests.ui.test_chat_page import open_page, target_of, type_and_enter, wait_idle

THOUGHT = "The user asks for the capital of France.\nThat is Paris; answer in one word."


def store_with_thought(path: Path) -> SessionStore:
    store = SessionStore(path)
    store.append(items.user_message("Capital of France?"))
    store.append(assistant("Paris.", reasoning=THOUGHT, reasoningSeconds=12.4))
    return store


def test_a_thought_shows_folded_and_unfolds_on_click(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, store_with_thought(tmp_path / "session.jsonl"))
    model = view.chat_model()
    folded = layout_of(view, 1)
    assert folded.thought is not None and folded.thought.label == "Thought for 12 s ▸"
    assert folded.thought_doc is None
    assert folded.doc is not None and folded.doc.toPlainText() == "Paris."  # the answer, only
    assert folded.doc_pos.y() > folded.thought.rect.bottom()
    folded_h = view.visualRect(model.index(1, 0)).height()

    rect = view.action_rect(1, "thought")
    assert rect is not None
    click(qtbot, view, rect.center())
    assert model.is_thought_open(1)
    opened = layout_of(view, 1)
    assert opened.thought.label == "Thought for 12 s ▾"
    assert opened.thought_doc is not None and opened.thought_doc.toPlainText() == THOUGHT
    assert opened.doc_pos.y() > opened.thought_pos.y() + opened.thought_doc.size().height()
    assert view.visualRect(model.index(1, 0)).height() > folded_h

    click(qtbot, view, view.action_rect(1, "thought").center())
    assert not model.is_thought_open(1) and view.visualRect(model.index(1, 0)).height() == folded_h


def test_a_reply_without_reasoning_has_no_thought_line(qtbot: QtBot, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(assistant("Plain."))
    view = open_view(qtbot, store)
    assert layout_of(view, 0).thought is None and view.action_rect(0, "thought") is None


def test_reasoning_streams_folded_then_the_answer_follows(qtbot: QtBot, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(items.user_message("Capital of France?"))
    view = open_view(qtbot, store)
    view.stream_reasoning("The user asks")
    qtbot.waitUntil(lambda: layout_of(view, 1).style == "stream" and layout_of(view, 1).thought is not None)
    thinking = layout_of(view, 1)
    assert thinking.thought.label.startswith("Thinking…")
    assert view.chat_model().stream_text == ""  # reasoning is not the answer
    view.stream_delta("Paris.")
    qtbot.waitUntil(lambda: "Paris." in (layout_of(view, 1).doc.toPlainText() if layout_of(view, 1).doc else ""))
    assert layout_of(view, 1).thought.label.startswith("Thought")
    view.append_item(store.append(assistant("Paris.", reasoning="The user asks", reasoningSeconds=0.4)))
    final = layout_of(view, 1)
    assert final.style == "assistant" and final.thought.label == "Thought for 1 s ▸"


def test_an_interrupted_thought_without_answer_keeps_its_status(qtbot: QtBot, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(assistant("", status="error", reasoning=THOUGHT, reasoningSeconds=3.0, error="cut"))
    view = open_view(qtbot, store)
    out = layout_of(view, 0)
    assert out.thought is not None and out.doc is None and out.status
    assert out.status_rect.top() >= out.thought.rect.bottom()


def test_a_turn_streams_its_thought_into_the_fold_and_stores_it_apart(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.enqueue(Reply(text="Paris.", reasoning=THOUGHT, chunk_chars=4, chunk_delay=0.01))
    page = open_page(qtbot, ctx)
    labels: list[str] = []

    def on_event(_event: object) -> None:
        model = page.view.chat_model()
        if model.streaming and (thought := layout_of(page.view, model.rowCount() - 1).thought) is not None:
            labels.append(thought.label)

    type_and_enter(qtbot, page, "Capital of France?")
    page.worker.event.connect(on_event)
    wait_idle(qtbot, page)
    assert any(label.startswith("Thinking…") for label in labels)
    reply = ctx.sources.session(target_of(ctx)).tail(1)[0]
    assert (reply["content"], reply["reasoning"]) == ("Paris.", THOUGHT)
    row = page.view.chat_model().row_of_id(reply["id"])
    qtbot.waitUntil(lambda: layout_of(page.view, row).thought is not None)
    assert layout_of(page.view, row).thought.label.startswith("Thought for")
