"""The chat and persona and skill upkeep: a quiet line while upkeep runs, one line when its changes land.

Real turns through the chat page, the app's own memory keeper (upkeep in its background thread) and
the fake server answering as a careful model; upkeep's requests are held at gates so the test sees
each phase.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from okbot.core.evolution.persona import Change
from okbot.core.evolution.skill_edits import SkillChange
from okbot.core.evolution.store import LogEntry
from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext
from okbot.ui.chat_page import ChatPage
from okbot.ui.evolution_lines import landed_text, upkeep_text
from tests.helpers.env import provider_for
from tests.helpers.fake_evolution import LESSONS, is_persona_request, is_skill_request, teach, teacher
from tests.helpers.fake_openai import FakeOpenAIServer, Reply

WAIT_MS = 20_000
SOUL = "# Ada\n\nYou help the user ship releases.\n"


@pytest.fixture
def target(ctx: AppContext) -> Target:
    return ctx.workspace.create_assistant("Ada", soul_text=SOUL)


@pytest.fixture
def gates(server: FakeOpenAIServer) -> Iterator[dict[str, threading.Event]]:
    """Upkeep requests wait until their gate opens (all open at the end, so no request hangs)."""
    held = {"persona": threading.Event(), "skills": threading.Event()}

    def gated(body: dict) -> Reply:
        if is_persona_request(body):
            held["persona"].wait(30)
        elif is_skill_request(body):
            held["skills"].wait(30)
        return teacher(body)

    server.set_default(gated)
    yield held
    for gate in held.values():
        gate.set()


def open_chat(qtbot: QtBot, ctx: AppContext, target: Target) -> ChatPage:
    page = ChatPage(ctx, target)
    qtbot.addWidget(page)
    page.resize(720, 560)
    page.show()
    qtbot.waitUntil(lambda: not page.view.chat_model().loading, timeout=WAIT_MS)
    return page


def send(qtbot: QtBot, page: ChatPage, text: str) -> None:
    page.composer.edit.setFocus()
    page.composer.set_text(text)
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not page.streaming, timeout=WAIT_MS)


def test_a_quiet_line_shows_while_upkeep_runs_and_goes_when_it_is_done(
    qtbot: QtBot, ctx: AppContext, target: Target, gates: dict[str, threading.Event]
) -> None:
    ctx.settings.set("evolution.everyTurns", 1)  # upkeep after every message
    ctx.settings.set("evolution.offerTeachings", False)  # upkeep's own path (the card's: test_teaching_card)
    page = open_chat(qtbot, ctx, target)
    send(qtbot, page, LESSONS[0])
    qtbot.waitUntil(lambda: page.status_text() == "Updating Ada's persona…", timeout=WAIT_MS)
    gates["persona"].set()
    qtbot.waitUntil(lambda: page.status_text() == "Updating Ada's skills…", timeout=WAIT_MS)
    gates["skills"].set()
    assert ctx.app.keeper.drain(20)
    qtbot.waitUntil(lambda: page.status_text() == "", timeout=WAIT_MS)
    assert ctx.upkeep_phases.phase(target) == ""
    staged = ctx.sources.evolution.pending(target)
    assert [c.cited for c, _why in staged.persona] == [(1,)]  # it ran for real: the rule is staged


def test_another_chats_upkeep_says_nothing_here(
    qtbot: QtBot, ctx: AppContext, target: Target, gates: dict[str, threading.Event]
) -> None:
    ctx.settings.set("evolution.everyTurns", 1)
    other = ctx.workspace.create_assistant("Rex")
    page = open_chat(qtbot, ctx, other)
    busy = open_chat(qtbot, ctx, target)
    send(qtbot, busy, LESSONS[0])
    qtbot.waitUntil(lambda: ctx.upkeep_phases.phase(target) == "persona", timeout=WAIT_MS)
    assert page.status_text() == "" and busy.status_text() == "Updating Ada's persona…"
    gates["persona"].set()
    gates["skills"].set()
    assert ctx.app.keeper.drain(20)


def test_changes_that_land_before_a_request_get_one_quiet_line(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer, target: Target
) -> None:
    server.set_default(teacher)
    ctx.settings.set("evolution.waitTurns", 0)  # staged changes land with the next message
    teach(ctx.sources, provider_for(server), target, land=False)
    page = open_chat(qtbot, ctx, target)
    send(qtbot, page, "thanks")
    assert page.last_result.status == "complete"
    expected = (
        "Ada's persona was updated: 1 change from your message #1, and Ada learnt the skill ship-it"
        " (to undo: Assistant… → Evolution)"
    )
    assert page.status_text() == expected
    assert [e.kind for e in ctx.sources.evolution.entries(target)] == ["persona", "skill"]
    assert ctx.app.keeper.drain(20)
    qtbot.wait(50)
    assert page.status_text() == expected  # stays until the next message
    send(qtbot, page, "and now?")
    assert page.status_text() == ""


def entry(kind: str, cited: tuple[int, ...], op: str = "create", name: str = "ship-it") -> LogEntry:
    change = (
        Change("add", "", "- x", "Style", cited) if kind == "persona" else SkillChange(op, name, "d", "", "x", cited)
    )
    return LogEntry(1, "", kind, "", "", cited, "", change)


def test_the_lines_wording() -> None:
    assert upkeep_text("Ada", "persona") == "Updating Ada's persona…"
    assert upkeep_text("Ada", "skills") == "Updating Ada's skills…"
    assert landed_text("Ada", []) == ""
    assert landed_text("Ada", [entry("persona", (3,))]) == (
        "Ada's persona was updated: 1 change from your message #3 (to undo: Assistant… → Evolution)"
    )
    two = [entry("persona", (9, 3)), entry("persona", (4, 5, 12))]
    assert landed_text("Ada", two).startswith(
        "Ada's persona was updated: 2 changes from your messages #3, #4, #5 and 2 more"
    )
    skills = [entry("skill", (2,)), entry("skill", (2,), name="deploy"), entry("skill", (2,), "update", "review")]
    assert landed_text("Ada", skills) == (
        "Ada learnt the skills ship-it, deploy, and Ada updated the skill review (to undo: Assistant… → Evolution)"
    )
