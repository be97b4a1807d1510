"""The model picker in the chat header: the chat's model, the server's list (GET /v1/models, fetched in the
background), a typed name when listing fails, remembered per assistant and used by the next request —
real ChatPage, real files, the local fake OpenAI server."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext
from okbot.ui.chat_page import ChatPage
from tests.helpers.fake_openai import FakeOpenAIServer, Reply

WAIT_MS = 10_000


def open_page(qtbot: QtBot, ctx: AppContext, target: Target | None = None) -> ChatPage:
    page = ChatPage(ctx, target or ctx.workspace.list()[0])
    qtbot.addWidget(page)
    page.resize(800, 600)
    page.show()
    qtbot.waitExposed(page)
    return page


def open_popup(qtbot: QtBot, page: ChatPage) -> None:
    qtbot.mouseClick(page.model_picker, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.model_picker.popup.isVisible(), timeout=WAIT_MS)


def listed(page: ChatPage) -> list[str]:
    names = page.model_picker.popup.list
    return [names.item(i).data(Qt.ItemDataRole.UserRole) for i in range(names.count())]


def stored_model(target: Target) -> object:
    return json.loads(target.meta_path.read_text(encoding="utf-8")).get("model")


def send_and_wait(qtbot: QtBot, page: ChatPage, text: str) -> None:
    with qtbot.waitSignal(page.reply_finished, timeout=WAIT_MS):
        page.send(text)


def test_the_header_shows_the_default_model_until_the_assistant_has_its_own(qtbot: QtBot, ctx: AppContext) -> None:
    page = open_page(qtbot, ctx)
    assert page.model_picker.model == "gpt-4o-mini"
    assert "default" in page.model_picker.toolTip()
    target = ctx.workspace.set_meta(page.target, "model", "fake-small")
    page.update_target(target)
    assert page.model_picker.model == "fake-small"
    assert "default" not in page.model_picker.toolTip()


def test_picking_a_listed_model_is_remembered_and_the_next_request_uses_it(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    page = open_page(qtbot, ctx)
    open_popup(qtbot, page)
    qtbot.waitUntil(lambda: listed(page) == ["fake-small", "gpt-4o-mini"], timeout=WAIT_MS)
    assert [r.path for r in server.requests if r.method == "GET"] == ["/v1/models"]
    assert page.model_picker.popup.status.text() == "2 models on this server."
    changed: list[Target] = []
    page.target_changed.connect(changed.append)

    names = page.model_picker.popup.list
    item = names.item(listed(page).index("fake-small"))
    qtbot.mouseClick(names.viewport(), Qt.MouseButton.LeftButton, pos=names.visualItemRect(item).center())
    assert not page.model_picker.popup.isVisible()
    assert stored_model(page.target) == "fake-small"  # assistant.json, the assistant's own
    assert page.model_picker.model == "fake-small" and changed and changed[-1].meta["model"] == "fake-small"

    server.enqueue(Reply(text="small but willing"))
    send_and_wait(qtbot, page, "which model are you?")
    assert server.chat_requests()[-1]["model"] == "fake-small"

    again = open_page(qtbot, ctx, ctx.workspace.resolve(page.target.id))  # a new page reads it back
    assert again.model_picker.model == "fake-small"


def test_when_the_list_fails_the_error_is_said_and_a_typed_name_still_works(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.models_fault = 503
    page = open_page(qtbot, ctx)
    open_popup(qtbot, page)
    popup = page.model_picker.popup
    qtbot.waitUntil(lambda: popup.status.text().startswith("⚠"), timeout=WAIT_MS)
    assert "Could not list the server's models" in popup.status.text() and "503" in popup.status.text()
    assert "type a model name" in popup.status.text().lower()
    assert listed(page) == []
    qtbot.keyClicks(popup.name_edit, "fake-small")
    qtbot.keyClick(popup.name_edit, Qt.Key.Key_Return)
    assert stored_model(page.target) == "fake-small"
    server.enqueue(Reply(text="typed, and it works"))
    send_and_wait(qtbot, page, "hello")
    assert server.chat_requests()[-1]["model"] == "fake-small"


def test_use_the_default_forgets_the_assistants_own_model(qtbot: QtBot, ctx: AppContext) -> None:
    target = ctx.workspace.set_meta(ctx.workspace.list()[0], "model", "fake-small")
    page = open_page(qtbot, ctx, target)
    open_popup(qtbot, page)
    popup = page.model_picker.popup
    assert popup.default_button.text() == "Use the default (gpt-4o-mini)"
    qtbot.mouseClick(popup.default_button, Qt.MouseButton.LeftButton)
    assert stored_model(page.target) is None
    assert page.model_picker.model == "gpt-4o-mini"


def test_the_gauge_follows_the_picked_models_window(qtbot: QtBot, ctx: AppContext) -> None:
    ctx.settings.set("provider.model", "fake-small")
    ctx.settings.set("model.contextWindow", 9_000)  # known for fake-small only
    ctx.settings.set("provider.model", "gpt-4o-mini")
    page = open_page(qtbot, ctx)
    qtbot.waitUntil(lambda: page.gauge.reading is not None and page.gauge.reading.window > 9_000, timeout=WAIT_MS)
    open_popup(qtbot, page)
    qtbot.waitUntil(lambda: "fake-small" in listed(page), timeout=WAIT_MS)
    qtbot.keyClicks(page.model_picker.popup.name_edit, "fake-small")
    qtbot.keyClick(page.model_picker.popup.name_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.gauge.reading.window == 9_000, timeout=WAIT_MS)
    assert page.gauge.reading.threshold == int(9_000 * 0.6)


def test_a_squad_shows_its_captains_model_and_says_why_it_cannot_change_here(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    ws = ctx.workspace
    ws.create_assistant("Ada")
    ws.create_assistant("Bob")
    squad = ws.create_squad("Pair", [("Ada", ""), ("Bob", "")])
    page = open_page(qtbot, ctx, squad)
    assert page.model_picker.model == "gpt-4o-mini"
    assert not page.model_picker.isEnabled()
    assert "captain" in page.model_picker.toolTip() and "Settings → Models" in page.model_picker.toolTip()
    assert not [r for r in server.requests if r.method == "GET"]  # nothing listed for a picker that cannot pick


def test_the_assistant_dialog_picks_the_model_too_and_the_chat_follows(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    from okbot.ui.assistant_dialog import AssistantDialog

    page = open_page(qtbot, ctx)
    dialog = AssistantDialog(ctx, page.target)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.model_picker.model == "gpt-4o-mini" and "default" in dialog.model_picker.toolTip()
    dialog.target_changed.connect(page.update_target)  # as the main window wires it
    qtbot.mouseClick(dialog.model_picker, Qt.MouseButton.LeftButton)
    popup = dialog.model_picker.popup
    qtbot.waitUntil(lambda: popup.list.count() == 2, timeout=WAIT_MS)
    qtbot.keyClicks(popup.name_edit, "fake-small")
    qtbot.keyClick(popup.name_edit, Qt.Key.Key_Return)
    assert stored_model(page.target) == "fake-small" and dialog.model_picker.model == "fake-small"
    assert page.model_picker.model == "fake-small"  # the chat header shows it too
    server.enqueue(Reply(text="small"))
    send_and_wait(qtbot, page, "hi")
    assert server.chat_requests()[-1]["model"] == "fake-small"


def test_with_two_providers_the_list_is_grouped_under_their_names(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    """Issue 34, item 8: the picker said "6 models on this server." for two servers, in one flat list."""
    from okbot.config.providers import ProviderConfig

    with FakeOpenAIServer(models=("m1", "m2")) as second:
        ctx.settings.providers.add(ProviderConfig("lab", second.base_url, "none"))
        page = open_page(qtbot, ctx)
        open_popup(qtbot, page)
        popup = page.model_picker.popup
        qtbot.waitUntil(lambda: "lab/m2" in listed(page), timeout=WAIT_MS)
        rows = [(popup.list.item(i).text(), listed(page)[i]) for i in range(popup.list.count())]
        assert rows == [
            ("Default provider", None),
            ("fake-small", "fake-small"),
            ("✓ gpt-4o-mini", "gpt-4o-mini"),
            ("lab", None),
            ("lab/m1", "lab/m1"),
            ("lab/m2", "lab/m2"),
        ]
        assert popup.status.text() == "4 models from 2 providers."
        assert not popup.list.item(0).flags() & Qt.ItemFlag.ItemIsSelectable  # a heading cannot be picked
        qtbot.keyClicks(popup.name_edit, "m1")  # the filter hides a heading with none of its models shown
        shown = [popup.list.item(i).text() for i in range(popup.list.count()) if not popup.list.item(i).isHidden()]
        assert shown == ["lab", "lab/m1"]
        qtbot.keyClick(popup.name_edit, Qt.Key.Key_Down)
        qtbot.keyClick(popup.list, Qt.Key.Key_Return)
        assert stored_model(page.target) == "lab/m1"
