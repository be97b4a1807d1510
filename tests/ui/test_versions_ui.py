"""Edit and resend, Regenerate and ‹ › in the real chat page, against the fake server (offscreen Qt, real files)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from okbot.core.summary import SessionSummary, SummaryStore
from okbot.ui.app_context import AppContext
from okbot.ui.chat.model import ChatModel
from okbot.ui.chat_page import ChatPage
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.ui.chat.test_chat_view import hover
from tests.ui.test_chat_page import open_page, type_and_enter, wait_idle


def rows(page: ChatPage) -> list[tuple[str, str]]:
    model = page.view.chat_model()
    out = []
    for row in range(model.rowCount()):
        item = model.item(row)
        if item is not None and item.get("type") in ("user", "assistant"):
            out.append((item["type"], item["content"]))
    return out


def row_of(page: ChatPage, text: str) -> int:
    model = page.view.chat_model()
    return next(r for r in range(model.rowCount()) if (model.item(r) or {}).get("content") == text)


def click_action(qtbot: QtBot, page: ChatPage, row: int, name: str, payload: object = None) -> None:
    view = page.view
    view.scrollTo(view.chat_model().index(row, 0))
    hover(view, view.visualRect(view.chat_model().index(row, 0)).center())  # shows the footer actions
    rect = view.action_rect(row, name, payload)
    assert rect is not None, f"no {name} action on row {row}"
    pos: QPoint = rect.center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def chat(qtbot: QtBot, page: ChatPage, server: FakeOpenAIServer, question: str, answer: str) -> None:
    server.enqueue(Reply(text=answer))
    type_and_enter(qtbot, page, question)
    wait_idle(qtbot, page)


def test_regenerate_then_switch_between_the_two_replies(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer):
    page = open_page(qtbot, ctx)
    chat(qtbot, page, server, "name a colour", "blue")
    server.enqueue(Reply(text="green"))
    click_action(qtbot, page, row_of(page, "blue"), "regenerate")
    wait_idle(qtbot, page)
    model = page.view.chat_model()
    qtbot.waitUntil(lambda: rows(page) == [("user", "name a colour"), ("assistant", "green")])
    assert [m["content"] for m in server.chat_requests()[-1]["messages"][1:]] == ["name a colour"]
    green = row_of(page, "green")
    qtbot.waitUntil(lambda: model.index(green, 0).data(ChatModel.VersionsRole) == (1, 2))

    click_action(qtbot, page, green, "version", 0)  # ‹
    qtbot.waitUntil(lambda: rows(page) == [("user", "name a colour"), ("assistant", "blue")])
    blue = row_of(page, "blue")
    assert model.index(blue, 0).data(ChatModel.VersionsRole) == (0, 2)
    chat(qtbot, page, server, "and another?", "red")  # the chat goes on from the version shown
    assert [m["content"] for m in server.chat_requests()[-1]["messages"][1:]] == [
        "name a colour",
        "blue",
        "and another?",
    ]


def test_edit_puts_the_message_in_the_composer_and_sends_a_new_version(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
):
    page = open_page(qtbot, ctx)
    chat(qtbot, page, server, "q1", "a1")
    chat(qtbot, page, server, "q2 with a typo", "a2")
    page.composer.set_text("a draft I was writing")
    click_action(qtbot, page, row_of(page, "q2 with a typo"), "edit")
    assert page.composer.text() == "q2 with a typo" and page.edit_banner.isVisible()
    assert page.edit_banner.label.text().startswith("✎ Editing your message “q2 with a typo”.")  # not "#3"
    page.cancel_edit()  # Cancel gives the draft back
    assert page.composer.text() == "a draft I was writing" and not page.edit_banner.isVisible()

    click_action(qtbot, page, row_of(page, "q2 with a typo"), "edit")
    server.enqueue(Reply(text="a2 fixed"))
    type_and_enter(qtbot, page, "q2 fixed")
    wait_idle(qtbot, page)
    assert [m["content"] for m in server.chat_requests()[-1]["messages"][1:]] == ["q1", "a1", "q2 fixed"]
    qtbot.waitUntil(lambda: rows(page)[-2:] == [("user", "q2 fixed"), ("assistant", "a2 fixed")])
    assert ("user", "q2 with a typo") not in rows(page) and not page.edit_banner.isVisible()
    fixed = row_of(page, "q2 fixed")
    qtbot.waitUntil(lambda: page.view.chat_model().index(fixed, 0).data(ChatModel.VersionsRole) == (1, 2))


def test_covered_messages_offer_no_edit_and_the_divider_explains(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
):
    page = open_page(qtbot, ctx)
    chat(qtbot, page, server, "old question", "old answer")
    chat(qtbot, page, server, "new question", "new answer")
    target = ctx.workspace.list()[0]
    covered = ctx.sources.session(target).tail(4)[1]["id"]
    SummaryStore(target.summary_path).save(SessionSummary(summary="## Goal\n- x", covered_through_id=covered))
    page.reload_summary()
    model = page.view.chat_model()
    assert model.index(row_of(page, "old question"), 0).data(ChatModel.ChangeableRole) is False
    assert model.index(row_of(page, "new question"), 0).data(ChatModel.ChangeableRole) is True
    assert page.view.action_rect(row_of(page, "old answer"), "regenerate") is None
    menu = page.view.context_menu(row_of(page, "old question"))
    reason = [a for a in menu.actions() if a.text().startswith("Edit and resend")]
    assert len(reason) == 1 and not reason[0].isEnabled() and "summarized" in reason[0].text()
    fresh = page.view.context_menu(row_of(page, "new question"))
    assert any(a.text() == "Edit and resend" and a.isEnabled() for a in fresh.actions())


def _switch_rects(layout) -> list:
    return [a.rect for a in layout.actions if a.name == "version"] + [r for r, _ in layout.version_ends]


def test_the_version_switch_never_overlaps_the_hover_actions_or_the_time(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
):
    """Issue 34, item 2: "↻ Regenerate‹ 2/2 ›" collided on a reply, "‹ 2/2" was drawn over a user message's time."""
    page = open_page(qtbot, ctx)
    chat(qtbot, page, server, "hi", "ok")  # short bubbles: the footer reaches past them
    click_action(qtbot, page, row_of(page, "hi"), "edit")
    server.enqueue(Reply(text="yes"))
    type_and_enter(qtbot, page, "yo")
    wait_idle(qtbot, page)
    server.enqueue(Reply(text="sure"))
    click_action(qtbot, page, row_of(page, "yes"), "regenerate")
    wait_idle(qtbot, page)
    model, view = page.view.chat_model(), page.view
    for text in ("yo", "sure"):
        row = row_of(page, text)
        qtbot.waitUntil(lambda r=row: model.index(r, 0).data(ChatModel.VersionsRole) is not None)
        index = model.index(row, 0)
        layout = view._delegate.layout(view._option(index), index)
        switch = [*_switch_rects(layout), layout.version_rect]
        taken = [a.rect for a in layout.footer] + ([layout.footer_time_rect] if layout.footer_time else [])
        assert len(switch) == 3 and taken
        for a in switch:
            assert 0 <= a.left() and a.right() <= layout.width, (text, a)
            for b in taken:
                assert not a.intersects(b), (text, a, b)
