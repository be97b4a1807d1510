"""Squads in the desktop app: names and colours on bubbles, "asked X" rows, who is working, and the
View-context switch per member — real squad turns against the fake server, real files, offscreen Qt."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot.core import trash
from okbot.core.context import build_context
from okbot.core.items import new_item, user_message
from okbot.core.render import render_markdown
from okbot.core.roster import CAPTAIN_SLOT, SLOTS, SquadRoster, spread_slots, working_text
from okbot.core.tokens import APPROX_NOTE
from okbot.core.turn.runtime import MemberActivity
from okbot.core.workspace import Target, Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.chat import ChatView
from okbot.ui.chat.colors import ChatColors, avatar_colors, speaker_color
from okbot.ui.chat.layout import RowLayout
from okbot.ui.chat.model import ChatModel
from okbot.ui.chat_page import ChatPage
from okbot.ui.context_viewer import AS_SENT_TAB, ContextViewer
from tests.helpers.env import settings_for
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.fake_squad import SquadScript, ask
from tests.ui.palettes import dark_palette

WAIT_MS = 15_000
LONG_TASK = (
    "Review PR #41 — focus on the parser loop and the bounds checks.\n"
    "Report line numbers for anything risky, and say which fix you would ship first. " * 3
).strip()


@pytest.fixture
def script() -> SquadScript:
    return SquadScript()


@pytest.fixture
def server(script: SquadScript) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        srv.set_default(script)
        yield srv


@pytest.fixture
def ctx(qapp: object, server: FakeOpenAIServer) -> Iterator[AppContext]:
    settings = settings_for(server, {"provider.maxRetries": 0})
    ws = Workspace()
    ws.create_assistant("Rex", role="a meticulous code reviewer", soul_text="Rex cites line numbers.\n")
    ws.create_assistant("Mia", role="a release manager", soul_text="Mia thinks in checklists.\n")
    ws.create_assistant("Ola", role="a tester", soul_text="Ola writes failing tests first.\n")
    ws.create_squad(
        "Launch",
        [("Rex", "reviewer"), ("Mia", "release"), ("Ola", "tests")],
        description="Ships version 2.",
        captain={"playbook": "Review before release."},
    )
    context = AppContext.create(ws, settings)
    yield context
    context.tasks.wait_for_done(WAIT_MS)


@pytest.fixture
def squad(ctx: AppContext) -> Target:
    return ctx.workspace.resolve("Launch")


def open_page(qtbot: QtBot, ctx: AppContext, squad: Target) -> ChatPage:
    page = ChatPage(ctx, squad)
    qtbot.addWidget(page)
    page.resize(900, 1000)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: not view_of(page).chat_model().loading, timeout=WAIT_MS)
    return page


def view_of(page: ChatPage) -> ChatView:
    return page.view


def run_turn(qtbot: QtBot, page: ChatPage, text: str) -> None:
    with qtbot.waitSignal(page.reply_finished, timeout=WAIT_MS):
        page.send(text)
    QApplication.processEvents()


def layout_of(view: ChatView, row: int) -> RowLayout:
    index = view.chat_model().index(row, 0)
    view.scrollTo(index)
    return view.chat_delegate().layout(view._option(index), index)  # noqa: SLF001 - the option the view paints with


def rows(view: ChatView) -> list[tuple[dict[str, Any], RowLayout]]:
    model = view.chat_model()
    return [(model.item(r) or {}, layout_of(view, r)) for r in range(model.rowCount())]


def delegation_turn(script: SquadScript, task_for_rex: str = "Review PR #41") -> None:
    script.members["Mia"] = lambda body: Reply(text="Checklist drafted", chunk_chars=4, cut_after_chunks=3)
    script.captain += [
        Reply(
            text="I'll ask Rex and Mia.", tool_calls=[ask("rex", task_for_rex), ask("mia", "Draft the 2.0 checklist")]
        ),
        Reply(text="Rex approved #41; Mia's checklist broke off."),
    ]


# ---------------------------------------------------------------------------------------- bubbles
def test_a_delegating_turn_shows_asked_rows_and_member_bubbles_with_names_and_colours(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript
) -> None:
    page = open_page(qtbot, ctx, squad)
    delegation_turn(script, LONG_TASK)
    run_turn(qtbot, page, "Get version 2 ready")
    view = view_of(page)
    shown = rows(view)
    styles = [(item["type"], layout.style) for item, layout in shown]
    assert styles == [
        ("user", "user"),
        ("assistant", "assistant"),
        ("tool_call", "delegation"),
        ("tool_call", "delegation"),
        ("tool_result", "assistant"),
        ("tool_result", "assistant"),
        ("assistant", "assistant"),
    ]
    captain_first, rex_call, mia_call = shown[1][1], shown[2][1], shown[3][1]
    rex_answer, mia_answer, captain_last = shown[4][1], shown[5][1], shown[6][1]
    # the captain's replies carry "Captain"; each member answer is that member's bubble, to the captain
    assert (captain_first.author, captain_last.author) == ("Captain", "Captain")
    assert captain_first.slot == CAPTAIN_SLOT and captain_first.avatar is not None
    assert (rex_answer.author, rex_answer.author_note) == ("Rex", "to the captain")
    assert rex_answer.doc is not None and rex_answer.doc.toPlainText() == "Rex reporting: done."
    assert mia_answer.author == "Mia"
    roster = view.chat_model().roster
    assert roster is not None and rex_answer.slot == roster.slot("rex") and mia_answer.slot == roster.slot("mia")
    assert len({rex_answer.slot, mia_answer.slot, captain_first.slot}) == 3  # three distinct colours
    # delegation: one line "asked Rex: …", the task flattened to one line, elided by the painter
    assert rex_call.label.startswith("asked Rex: Review PR #41 — focus on the parser loop")
    assert "\n" not in rex_call.label
    assert rex_call.label.endswith("…") and rex_call.doc is None
    assert (rex_call.to_name, mia_call.label) == ("Rex", "asked Mia: Draft the 2.0 checklist")
    assert rex_call.height < 40  # compact


def test_clicking_a_delegation_row_shows_the_whole_task(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript
) -> None:
    page = open_page(qtbot, ctx, squad)
    delegation_turn(script, LONG_TASK)
    run_turn(qtbot, page, "Get version 2 ready")
    view = view_of(page)
    rect = view.action_rect(2, "toggle")
    assert rect is not None
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    opened = layout_of(view, 2)
    assert view.chat_model().is_expanded(2)
    assert opened.doc is not None and opened.doc.toPlainText() == LONG_TASK
    assert opened.label == "asked Rex" and opened.height > 60
    assert view.copy_row(2) == LONG_TASK  # Copy takes the task, not the raw call
    rect = view.action_rect(2, "toggle")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert layout_of(view, 2).doc is None


def test_a_failed_member_answer_is_marked_as_an_error_and_keeps_what_was_said(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript
) -> None:
    page = open_page(qtbot, ctx, squad)
    delegation_turn(script)
    run_turn(qtbot, page, "Get version 2 ready")
    mia = layout_of(view_of(page), 5)
    assert mia.author == "Mia" and mia.doc is not None
    assert mia.doc.toPlainText() == "Checklist dr"  # what arrived, without the app's note
    assert mia.status.startswith("Mia failed:") and mia.status_error
    assert not layout_of(view_of(page), 4).status  # Rex answered fine


def test_a_failed_ask_shows_as_a_failed_delegation_row(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript
) -> None:
    page = open_page(qtbot, ctx, squad)
    script.captain += [Reply(tool_calls=[ask("mia", "   ")]), Reply(text="ok")]
    run_turn(qtbot, page, "go")
    shown = rows(view_of(page))
    failed = [layout for item, layout in shown if item["type"] == "tool_result"]
    assert len(failed) == 1 and failed[0].style == "delegation" and failed[0].level == "failed"
    assert failed[0].label.startswith("could not ask Mia: the task is empty")


def test_direct_address_streams_and_shows_the_members_name(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript
) -> None:
    page = open_page(qtbot, ctx, squad)
    script.members["Ola"] = lambda body: Reply(
        text="Here is a failing test for line 12. " * 6, chunk_chars=6, chunk_delay=0.03
    )
    view = view_of(page)
    model = view.chat_model()
    with qtbot.waitSignal(page.reply_finished, timeout=WAIT_MS):
        page.send("@ola write a failing test for line 12")
        qtbot.waitUntil(lambda: model.streaming, timeout=WAIT_MS)
        streaming_row = model.rowCount() - 1
        qtbot.waitUntil(lambda: model.index(streaming_row, 0).data(ChatModel.AuthorRole) == "Ola", timeout=WAIT_MS)
        assert page.working.plain_text() == "Ola is working…"
    QApplication.processEvents()
    last = layout_of(view, model.rowCount() - 1)
    assert (last.style, last.author, last.author_note) == ("assistant", "Ola", "")
    assert last.slot == model.roster.slot("ola")
    assert not page.working.isVisible()
    # the next stream (the captain's) is the captain's again
    run_turn(qtbot, page, "thanks, wrap up")
    assert layout_of(view, model.rowCount() - 1).author == "Captain"


def test_a_deleted_member_shows_its_id(qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript) -> None:
    session = ctx.sources.session(squad)
    session.append(user_message("@ola hi"))
    session.append(new_item("assistant", author="ola", source="member:ola", content="hello", status="complete"))
    trash.delete(ctx.workspace, "Ola")
    page = open_page(qtbot, ctx, ctx.workspace.resolve(squad.id))
    assert layout_of(view_of(page), 1).author == "ola"


# ---------------------------------------------------------------------------------------- working line
def test_the_working_line_names_who_works_and_clears_when_the_turn_ends(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript
) -> None:
    page = open_page(qtbot, ctx, squad)
    script.members = {name: (lambda body: Reply(text="ok", first_byte_delay=0.8)) for name in ("Rex", "Mia")}
    script.captain += [Reply(tool_calls=[ask("rex", "a"), ask("mia", "b")]), Reply(text="done")]
    seen: list[str] = []
    with qtbot.waitSignal(page.reply_finished, timeout=WAIT_MS):
        page.send("go")
        qtbot.waitUntil(lambda: page.working.isVisible() and len(page.working.names()) == 2, timeout=WAIT_MS)
        seen.append(page.working.plain_text())
        assert "Rex" in page.working.text() and "Mia" in page.working.text()
        assert set(page.working.toolTip().splitlines()) == {"Rex: a", "Mia: b"}  # what each works on
    assert seen[0] in ("Rex and Mia are working…", "Mia and Rex are working…")
    assert not page.working.isVisible() and page.working.plain_text() == ""


def test_the_working_line_follows_each_members_state(qtbot: QtBot, ctx: AppContext, squad: Target) -> None:
    page = open_page(qtbot, ctx, squad)
    line = page.working
    line.on_activity(MemberActivity("rex", "Rex", "working", "review"))
    assert line.plain_text() == "Rex is working…" and line.isVisible()
    line.on_activity(MemberActivity("mia", "Mia", "working", "checklist"))
    line.on_activity(MemberActivity("ola", "Ola", "working", "tests"))
    assert line.plain_text() == "Rex, Mia and Ola are working…"
    line.on_activity(MemberActivity("mia", "Mia", "failed", "checklist"))
    line.on_activity(MemberActivity("rex", "Rex", "done", "review"))
    assert line.plain_text() == "Ola is working…"
    line.on_activity(MemberActivity("ola", "Ola", "stopped", "tests"))
    assert line.plain_text() == "" and not line.isVisible()
    assert working_text(["Rex", "Mia"]) == "Rex and Mia are working…" and working_text([]) == ""


# ---------------------------------------------------------------------------------------- view context
def expected(ctx: AppContext, squad: Target, at: int, member: str | None = None) -> str:
    return render_markdown(build_context(squad, at, sources=ctx.sources, member=member), approx_note=APPROX_NOTE)


def open_viewer(qtbot: QtBot, ctx: AppContext, squad: Target, item_id: int) -> ContextViewer:
    viewer = ContextViewer(ctx, squad, item_id)
    qtbot.addWidget(viewer)
    viewer.show()
    qtbot.waitUntil(lambda: viewer.snapshot is not None or viewer.problem.isVisible(), timeout=WAIT_MS)
    return viewer


def test_the_viewer_switches_between_the_captain_and_each_member_asked_in_the_turn(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript
) -> None:
    page = open_page(qtbot, ctx, squad)
    delegation_turn(script)
    run_turn(qtbot, page, "Get version 2 ready")
    run_turn(qtbot, page, "@ola write the failing test")
    record = list(ctx.sources.session(squad).iter_items())
    first, second = [it["id"] for it in record if it["type"] == "user"]
    viewer = open_viewer(qtbot, ctx, squad, first)
    assert viewer.text() == expected(ctx, squad, first)
    assert viewer.seats() == [("Captain", None, True), ("Rex", "rex", True), ("Mia", "mia", True)]
    assert viewer.seat.isVisible() and viewer.seat.currentText() == "Captain"
    assert viewer.tabs.isTabEnabled(AS_SENT_TAB)  # the captain's requests are recorded as sent
    viewer.tabs.setCurrentIndex(AS_SENT_TAB)

    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        viewer.seat.setCurrentIndex(1)  # the user picks Rex
    assert viewer.member == "rex" and viewer.snapshot.member == "rex"
    # As sent now shows Rex's own request, read back from the record, exactly as he was sent it
    assert viewer.tabs.isTabEnabled(AS_SENT_TAB) and viewer.tabs.currentIndex() == AS_SENT_TAB
    assert viewer.snapshot.sent.request.member == "rex"
    assert viewer.snapshot.sent.to_messages() == script.sent["Rex"][0]["messages"]
    viewer.tabs.setCurrentIndex(0)
    assert viewer.text() == expected(ctx, squad, first, "rex")
    assert viewer.snapshot.projection.to_messages() == script.sent["Rex"][0]["messages"]  # what Rex was sent
    assert "Request of: member Rex, from their seat" in viewer.text()
    assert viewer.windowTitle().endswith("Rex's request")

    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        viewer.seat.setCurrentIndex(2)
    assert viewer.text() == expected(ctx, squad, first, "mia")
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        viewer.seat.setCurrentIndex(0)
    assert viewer.member is None and viewer.text() == expected(ctx, squad, first)
    viewer.close()

    direct = open_viewer(qtbot, ctx, squad, second)  # a direct address: the captain and the member addressed
    assert direct.seats() == [("Captain", None, True), ("Ola", "ola", True)]
    with qtbot.waitSignal(direct.refreshed, timeout=WAIT_MS):
        direct.set_member("ola")
    assert direct.text() == expected(ctx, squad, second, "ola")
    assert direct.snapshot.projection.to_messages() == script.sent["Ola"][0]["messages"]


def test_a_turn_without_members_offers_only_the_captain_and_a_removed_member_is_disabled(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript
) -> None:
    session = ctx.sources.session(squad)
    asked = session.append(user_message("plan it"))["id"]
    session.append(
        new_item(
            "tool_call",
            author=squad.id,
            source="app",
            call_id="c1",
            name="ask_ola",
            arguments=json.dumps({"task": "tests"}),
        )
    )
    session.append(
        new_item(
            "tool_result", author="ola", source="member:ola", call_id="c1", name="ask_ola", content="done", ok=True
        )
    )
    quiet = session.append(user_message("hello"))["id"]
    session.append(new_item("assistant", author=squad.id, source="app", content="hi", status="complete"))
    trash.delete(ctx.workspace, "Ola")
    squad = ctx.workspace.resolve(squad.id)
    viewer = open_viewer(qtbot, ctx, squad, quiet)
    assert viewer.seats() == [("Captain", None, True)] and not viewer.seat.isEnabled()
    viewer.close()
    viewer = open_viewer(qtbot, ctx, squad, asked)
    assert viewer.seats() == [("Captain", None, True), ("ola (no longer a member)", "ola", False)]
    assert viewer.text() == expected(ctx, squad, asked)


def test_an_assistant_viewer_has_no_member_switch(qtbot: QtBot, ctx: AppContext) -> None:
    rex = ctx.workspace.resolve("Rex")
    uid = ctx.sources.session(rex).append(user_message("hi"))["id"]
    viewer = open_viewer(qtbot, ctx, rex, uid)
    assert viewer.seat.isHidden() and viewer.member is None
    viewer.set_member("mia")
    assert viewer.member is None


# ---------------------------------------------------------------------------------------- colours
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_member_colours_differ_and_read_on_the_palette(
    qtbot: QtBot, ctx: AppContext, squad: Target, script: SquadScript, theme: str
) -> None:
    page = open_page(qtbot, ctx, squad)
    if theme == "dark":
        page.setPalette(dark_palette())
    delegation_turn(script)
    run_turn(qtbot, page, "Get version 2 ready")
    view = view_of(page)
    colors = ChatColors.from_palette(view.palette())
    assert colors.dark == (theme == "dark")
    roster = view.chat_model().roster
    slots = [roster.slot(m) for m in ("rex", "mia", "ola")] + [roster.slot(squad.id)]
    names = [speaker_color(colors, s) for s in slots]
    assert len({c.name() for c in names}) == 4
    for color in names:  # every name reads on the background
        assert abs(color.lightness() - colors.background.lightness()) > 70
    # the painted avatar of Rex's answer has Rex's colour
    rect = view.visualRect(view.chat_model().index(4, 0))
    layout = layout_of(view, 4)
    image = view.grab().toImage()
    center = layout.avatar.center().toPoint() + rect.topLeft() + QPoint(-6, -6)
    assert image.pixelColor(center) == avatar_colors(colors, "Rex", roster.slot("rex"))[0]


def test_slots_are_stable_and_spread() -> None:
    members = [f"member-{i}" for i in range(SLOTS)]
    slots = spread_slots(members)
    assert sorted(slots.values()) == list(range(SLOTS)) and spread_slots(members) == slots
    roster = SquadRoster(squad_id="launch", members=["rex", "mia"], names={"rex": "Rex", "mia": "Mia"})
    assert roster.name("launch") == "Captain" and roster.name("rex") == "Rex" and roster.name("gone") == "gone"
    assert roster.member_of_call("ask_rex") == "rex" and roster.member_of_call("search_history") == ""
    assert roster.slot("launch") == CAPTAIN_SLOT and roster.slot("rex") != roster.slot("mia")


# ---------------------------------------------------------------------------------------- addressing by name
def test_after_renaming_the_hint_and_the_address_use_the_members_names(
    qtbot: QtBot, ctx: AppContext, script: SquadScript
) -> None:
    first = ctx.workspace.create_assistant("New assistant")
    second = ctx.workspace.create_assistant("New assistant")
    assert (first.id, second.id) == ("new-assistant", "new-assistant-2")
    ctx.workspace.rename(first.id, "Ada")
    ctx.workspace.rename(second.id, "Bob Stone")
    pair = ctx.workspace.create_squad("Pair", [(first.id, "research"), (second.id, "writing")])
    page = open_page(qtbot, ctx, pair)

    page.send("@Zed are you there?")
    qtbot.waitUntil(lambda: not page.streaming, timeout=WAIT_MS)
    assert "members: @Ada, @BobStone" in page.status_text()
    assert "new-assistant" not in page.status_text()
    assert page.composer.edit.placeholderText() == "Message Pair — start with @Ada to ask one member"

    script.members["Ada"] = lambda body: Reply(text="Ada here.")
    run_turn(qtbot, page, "@Ada what do you know?")
    assert [body["messages"][-1]["content"] for body in script.sent["Ada"]][-1].endswith("what do you know?")
    assert page.last_result.reply_text == "Ada here."
    run_turn(qtbot, page, "@BobStone and you?")
    assert script.sent.get("Bob Stone"), script.sent.keys()
