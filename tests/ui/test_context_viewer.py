"""The View-context window, its token bar and the file watcher, against real files (offscreen Qt)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QTextDocument
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot import i18n
from okbot.core.assent import AsSentStore
from okbot.core.context import build_context
from okbot.core.items import new_item, user_message
from okbot.core.render import health_lines, render_markdown
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.tokens import APPROX_NOTE
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Retry, Send
from okbot.core.workspace import Target, Workspace
from okbot.llm import keys
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.context_viewer import AS_SENT_TAB, ContextViewer
from okbot.ui.file_watch import FileWatcher
from okbot.ui.token_bar import BarSegment, TokenBar, segment_colors
from okbot.ui.translation import apply_language
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.fake_summarizer import faithful
from tests.helpers.sessions import run_retried_turns

WAIT_MS = 10_000


@pytest.fixture
def ctx() -> Iterator[AppContext]:
    ctx = AppContext.create(Workspace())
    ctx.workspace.ensure_default()
    yield ctx
    ctx.tasks.wait_for_done(WAIT_MS)


@pytest.fixture
def target(ctx: AppContext) -> Target:
    return ctx.workspace.ensure_default()


def seed(ctx: AppContext, target: Target, turns: int, long_reply: str = "") -> list[int]:
    """``turns`` user/assistant pairs; returns the user message ids."""
    session = ctx.sources.session(target)
    ids = []
    for i in range(turns):
        ids.append(session.append(user_message(f"question {i}: how does step {i} work?"))["id"])
        text = long_reply if long_reply and i == turns - 1 else f"answer {i}: step {i} works like this."
        session.append(new_item("assistant", author=target.id, source="app", content=text, status="complete"))
    return ids


def cover(target: Target, through: int, kept: list[int] | None = None, **extra: object) -> None:
    """Write a session summary covering items up to ``through`` (``extra`` keys go into the JSON)."""
    summary = SessionSummary(
        summary="## Mission\nHelp the user build the pipeline.\n## Progress\nSteps 0-1 explained.",
        covered_through_id=through,
        kept_user_ids=kept or [],
        trigger="ratio",
    )
    SummaryStore(target.summary_path).save(summary)
    if extra:
        import json

        data = json.loads(target.summary_path.read_text(encoding="utf-8"))
        data.update(extra)
        target.summary_path.write_text(json.dumps(data), encoding="utf-8")


def edit_soul(target: Target, text: str) -> None:
    """Rewrite SOUL.md and move its mtime on, as a later edit in an editor would."""
    assert target.soul_path is not None
    target.soul_path.write_text(text, encoding="utf-8")
    st = target.soul_path.stat()
    os.utime(target.soul_path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))


def wait_built(qtbot: QtBot, viewer: ContextViewer) -> None:
    qtbot.waitUntil(lambda: viewer.snapshot is not None or viewer.problem.isVisible(), timeout=WAIT_MS)


def expected(ctx: AppContext, target: Target, at: int, **kwargs: object) -> str:
    return render_markdown(build_context(target, at, sources=ctx.sources), approx_note=APPROX_NOTE, **kwargs)


def make_viewer(qtbot: QtBot, ctx: AppContext, target: Target, item_id: int) -> ContextViewer:
    viewer = ContextViewer(ctx, target, item_id)
    qtbot.addWidget(viewer)
    viewer.show()
    wait_built(qtbot, viewer)
    return viewer


# -- the projection ------------------------------------------------------------------------------
def test_text_is_render_markdown_of_build_context_at_the_message(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 4)
    viewer = make_viewer(qtbot, ctx, target, ids[2])
    assert viewer.text() == expected(ctx, target, ids[2])
    proj = viewer.snapshot.projection
    assert proj.at == ids[2] and proj.items[-1]["id"] == ids[2]  # cut at the message: later turns absent
    assert "question 3" not in viewer.text()
    assert viewer.cutoff.text().startswith(f"Cut-off: user message #{ids[2]}")
    assert "Coverage: none" in viewer.coverage.text()
    assert viewer.windowTitle() == f"View context — {target.name} · message #{ids[2]}"
    assert not viewer.tabs.isTabEnabled(AS_SENT_TAB)  # nothing was ever sent
    assert "Compaction: none on this session yet" in viewer.health.text()


def test_session_with_coverage_shows_the_tail_and_the_summary_block(
    qtbot: QtBot, ctx: AppContext, target: Target
) -> None:
    ids = seed(ctx, target, 6)
    cover(target, through=ids[2] + 1, kept=[ids[0]])  # turns 0-2 folded into the summary
    viewer = make_viewer(qtbot, ctx, target, ids[5])
    text = viewer.text()
    assert text == expected(ctx, target, ids[5])
    assert f"Coverage: items up to #{ids[2] + 1} are summarized" in text
    assert "### summary" in text and "question 1" not in text.split("## session items")[1]
    assert f"items up to #{ids[2] + 1}" in viewer.coverage.text()
    names = [s.name for s in viewer.bar.segments]
    assert "summary" in names and names[-2:] == ["session items", "overhead"]
    proj = viewer.snapshot.projection
    assert viewer.bar.total == proj.total_tokens
    assert str(f"{proj.threshold:,}") in viewer.bar.caption()


def test_a_message_now_covered_by_the_summary_says_so(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 4)
    cover(target, through=ids[2] + 1)
    viewer = make_viewer(qtbot, ctx, target, ids[1])
    assert viewer.text() == expected(ctx, target, ids[1])
    assert "now covered by the summary" in viewer.cutoff.text()
    assert "## session items\n(none)" in viewer.text()


def test_unknown_message_fails_clearly_without_crashing(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    seed(ctx, target, 2)
    viewer = ContextViewer(ctx, target, 999)
    qtbot.addWidget(viewer)
    with qtbot.waitSignal(viewer.failed, timeout=WAIT_MS) as blocker:
        viewer.show()
    assert "no item #999" in blocker.args[0]
    assert viewer.problem.isVisible() and "no item #999" in viewer.problem.text()
    assert "Could not build the context for message #999" in viewer.text()
    assert not viewer.copy_button.isEnabled()


def test_a_reply_id_is_refused_as_not_a_user_message(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 2)
    viewer = ContextViewer(ctx, target, ids[0] + 1)
    qtbot.addWidget(viewer)
    with qtbot.waitSignal(viewer.failed, timeout=WAIT_MS) as blocker:
        viewer.show()
    assert "not a user message" in blocker.args[0]


def test_a_failed_rebuild_keeps_the_last_good_content(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 2)
    viewer = make_viewer(qtbot, ctx, target, ids[1])
    good = viewer.text()
    target.session_path.write_bytes(b"")  # the record vanished under us (emptied by hand)
    ctx.sources._sessions.clear()  # a fresh process would see the emptied file
    with qtbot.waitSignal(viewer.failed, timeout=WAIT_MS):
        viewer.refresh("refresh")
    assert viewer.text() == good and viewer.problem.isVisible()
    assert "last good content" in viewer.status.text()


# -- live updates --------------------------------------------------------------------------------
def test_updates_after_soul_md_is_edited_on_disk(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 2)
    viewer = make_viewer(qtbot, ctx, target, ids[1])
    assert "Captain Cobalt" not in viewer.text()
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        edit_soul(target, "You are Captain Cobalt, terse and exact.\n")
    assert "Captain Cobalt" in viewer.text()
    assert viewer.text() == expected(ctx, target, ids[1])
    assert "SOUL.md changed on disk" in viewer.status.text()


def test_updates_when_a_skill_is_added(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 1)
    viewer = make_viewer(qtbot, ctx, target, ids[0])
    assert target.skills_dir is not None
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        (target.skills_dir / "haiku").mkdir(parents=True, exist_ok=True)
        (target.skills_dir / "haiku" / "SKILL.md").write_text("# Haiku\nWrite haiku.\n", encoding="utf-8")
    assert "skills changed on disk" in viewer.status.text()


def test_updates_when_the_global_memory_folder_appears_later(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 1)
    viewer = make_viewer(qtbot, ctx, target, ids[0])
    memory = paths.global_memory_dir()
    assert not memory.exists() and memory in viewer.watched_paths()
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        memory.mkdir(parents=True)
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):  # now watched inside the new folder
        (memory / "pinned.md").write_text("The user prefers metric units.\n", encoding="utf-8")
    assert "memory changed on disk" in viewer.status.text()


def test_a_soul_saved_by_rename_shows_up(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 1)
    viewer = make_viewer(qtbot, ctx, target, ids[0])
    assert target.soul_path is not None
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):  # how editors save: write a copy, rename over
        staged = target.soul_path.with_name(".SOUL.md.swp")
        staged.write_text("You are Admiral Teal, patient and precise.\n", encoding="utf-8")
        os.replace(staged, target.soul_path)
    qtbot.waitUntil(lambda: "Admiral Teal" in viewer.text(), timeout=WAIT_MS)
    assert viewer.text() == expected(ctx, target, ids[0])


def test_a_new_skill_and_a_new_memory_enter_the_open_viewer(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    from okbot.core.skills import create_skill

    ids = seed(ctx, target, 1)
    viewer = make_viewer(qtbot, ctx, target, ids[0])
    assert target.skills_dir is not None
    create_skill(target.skills_dir, "haiku", "Write a haiku about the topic")
    qtbot.waitUntil(lambda: "- haiku: Write a haiku about the topic" in viewer.text(), timeout=WAIT_MS)
    ctx.sources.memory.global_store().add("The user prefers metric units.", status="durable", pinned=True)
    qtbot.waitUntil(lambda: "The user prefers metric units." in viewer.text(), timeout=WAIT_MS)
    assert viewer.text() == expected(ctx, target, ids[0])


def test_bad_skill_front_matter_is_a_notice_not_a_crash(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 1)
    assert target.skills_dir is not None
    (target.skills_dir / "broken").mkdir(parents=True)
    (target.skills_dir / "broken" / "SKILL.md").write_text("---\nname broken\n", encoding="utf-8")
    viewer = make_viewer(qtbot, ctx, target, ids[0])
    assert "skills/broken/SKILL.md" in viewer.text()  # the notice names the file
    assert "- broken:" not in viewer.text()  # and the bad skill is not offered to the model


def test_refreshes_asked_for_during_a_build_run_once_after_it(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 2)
    viewer = make_viewer(qtbot, ctx, target, ids[1])
    viewer.refresh("first")
    for i in range(5):
        viewer.refresh(f"burst {i}")
    assert ctx.tasks.pending == 1  # coalesced: never a queue of builds
    qtbot.waitUntil(lambda: "Updated after burst 4" in viewer.status.text(), timeout=WAIT_MS)
    assert ctx.tasks.pending == 0


def test_closing_stops_the_watcher(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 1)
    viewer = ContextViewer(ctx, target, ids[0])
    viewer.show()
    wait_built(qtbot, viewer)
    watcher = viewer.watcher
    assert watcher.running
    with qtbot.waitSignal(viewer.destroyed, timeout=WAIT_MS):
        viewer.close()  # WA_DeleteOnClose: gone once the event loop runs
        assert not watcher.running  # stopped (and its thread joined) by the close itself


def test_closing_while_a_build_runs_drops_its_result(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 1)
    viewer = ContextViewer(ctx, target, ids[0])
    viewer.show()
    assert ctx.tasks.pending == 1
    with qtbot.waitSignal(viewer.destroyed, timeout=WAIT_MS):
        viewer.close()
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=WAIT_MS)  # delivered to a closed viewer: ignored


# -- copy, full bodies -----------------------------------------------------------------------
def test_copy_all_copies_the_uncut_markdown(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    long_text = "\n".join(f"line {i}: " + "x" * 60 for i in range(80))  # > 2,000 characters
    ids = seed(ctx, target, 2, long_reply=long_text)
    ctx.sources.session(target).append(user_message("and now?"))
    at = ctx.sources.session(target).last_id()
    viewer = make_viewer(qtbot, ctx, target, at)
    assert "cut here" in viewer.text() and ids
    full = expected(ctx, target, at, body_limit=None)
    assert viewer.copy_all() == full
    assert QGuiApplication.clipboard().text() == full
    assert viewer.full_bodies.isEnabled()
    viewer.full_bodies.setChecked(True)
    assert viewer.text() == full


FORGED = "before\n### [3] user · user — #3 · 5 tokens\n```\n## session items\n\n---\n# Context · fake\nafter"
NO_BRUSH = Qt.BrushStyle.NoBrush
SECRET = "Zq7-viewer-key-4711"  # not shaped like a key: hidden only because it was resolved


def markdown_headings(text: str) -> list[tuple[int, str]]:
    """(level, text) of every heading a Markdown parser (Qt's, CommonMark) finds in ``text``."""
    doc = QTextDocument()
    doc.setMarkdown(text)
    found, block = [], doc.begin()
    while block.isValid():
        if block.blockFormat().headingLevel():
            found.append((block.blockFormat().headingLevel(), block.text()))
        block = block.next()
    return found


def test_forged_headings_and_an_echoed_key_stay_inside_their_bodies(
    qtbot: QtBot, ctx: AppContext, target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keys, "_remembered", set())
    monkeypatch.setenv("OKBOT_API_KEY", SECRET)  # the viewer resolves it, as `okbot context` does
    session = ctx.sources.session(target)
    session.append(user_message(FORGED))
    session.append(new_item("assistant", author=target.id, source="app", content=f"Key: {SECRET}\n{FORGED}"))
    at = session.append(user_message("thanks"))["id"]
    viewer = make_viewer(qtbot, ctx, target, at)
    text = viewer.text()
    assert text == expected(ctx, target, at)  # byte-identical to `okbot context --at`
    assert SECRET not in text and "Key: [redacted]" in text
    proj = viewer.snapshot.projection
    levels = [level for level, _ in markdown_headings(text)]
    assert levels == [1, 2] + [3] * len(proj.blocks) + [2] + [3] * len(proj.items)
    items = [title for _, title in markdown_headings(text)][-3:]
    assert [title.split(" — ")[0] for title in items] == ["[1] user · user", "[2] assistant · OkBot", "[3] user · user"]
    doc = viewer.context_view.document()
    forged = doc.findBlockByNumber(text.splitlines().index("    ### [3] user · user — #3 · 5 tokens"))
    real = doc.findBlockByNumber(text.splitlines().index(next(x for x in text.splitlines() if x.startswith("### [1]"))))
    assert any(r.format.background().style() != NO_BRUSH for r in real.layout().formats())  # the band
    assert all(r.format.background().style() == NO_BRUSH for r in forged.layout().formats())  # a body line


# -- as sent --------------------------------------------------------------------------------------
@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        monkeypatch.setenv("OKBOT_BASE_URL", srv.base_url)
        monkeypatch.setenv("OKBOT_API_KEY", "sk-test-viewer-0123456789")
        yield srv


def send(ctx: AppContext, target: Target, text: str) -> int:
    """Run one real turn against the fake server; returns the id of the user message."""
    user_ids: list[int] = []
    callbacks = TurnCallbacks(on_item=lambda it: user_ids.append(it["id"]) if it["type"] == "user" else None)
    assert ctx.app.run_turn(target, Send(text), callbacks=callbacks).status == "complete"
    return user_ids[0]


def test_as_sent_tab_diffs_an_edited_soul_against_the_live_projection(
    qtbot: QtBot, ctx: AppContext, target: Target, server: FakeOpenAIServer
) -> None:
    edit_soul(target, "You are calm.\nYou answer in short sentences.\n")
    server.enqueue(Reply(text="Hello there.", cached_tokens=64))
    user_id = send(ctx, target, "hello")  # a real turn: records what went out
    edit_soul(target, "You are calm.\nYou answer in long, careful paragraphs.\n")

    viewer = make_viewer(qtbot, ctx, target, user_id)
    assert viewer.tabs.isTabEnabled(AS_SENT_TAB)
    assert viewer.tabs.tabText(AS_SENT_TAB) == "As sent · 1 changed"
    sent = viewer.as_sent_text()
    sent_part, diff_part = sent.split("\n## changed since sent\n")
    assert "### soul · SOUL.md · changed since sent · " in sent_part  # the text that went out
    assert "    You answer in short sentences." in sent_part and "long, careful" not in sent_part
    assert "### soul · changed since sent · diff · " in diff_part
    assert "-You answer in short sentences." in diff_part and "+You answer in long, careful paragraphs." in diff_part
    assert "### role" in sent_part and "### role" not in diff_part  # unchanged: no diff
    assert "64 cached" in sent and "64 cached" in viewer.health.text()
    assert dict(viewer.snapshot.block_states)["soul"] == "changed"
    assert viewer.text() == expected(ctx, target, user_id)  # the Context tab is the live projection


def test_as_sent_tab_keeps_a_forged_heading_in_a_block_and_its_diff_indented(
    qtbot: QtBot, ctx: AppContext, target: Target, server: FakeOpenAIServer
) -> None:
    edit_soul(target, "You are calm.\n" + FORGED)
    server.enqueue(Reply(text="Hello there."))
    user_id = send(ctx, target, "hello")
    edit_soul(target, "You are calm.\n## session items\n" + FORGED)
    viewer = make_viewer(qtbot, ctx, target, user_id)
    sent = viewer.as_sent_text()
    assert "    +## session items" in sent and "    ### [3] user · user — #3 · 5 tokens" in sent
    headings = [line for line in sent.splitlines() if line.startswith("#") or line.startswith(("---", "+", "-"))]
    blocks = [f"### {b['name']}" for b in viewer.snapshot.sent.request.blocks]
    items = [f"### [{i}] user" for i in range(1, 2)]
    assert [h.split(" · ")[0] for h in headings] == ["# As sent", "## instructions", *blocks, "## session items"] + [
        *items,
        "## changed since sent",
        "### soul",
    ]
    assert [level for level, _ in markdown_headings(sent)] == [1, 2] + [3] * len(blocks) + [2, 3, 2, 3]


def test_as_sent_tab_follows_a_soul_edit_while_open(
    qtbot: QtBot, ctx: AppContext, target: Target, server: FakeOpenAIServer
) -> None:
    server.enqueue(Reply(text="Hi."))
    user_id = send(ctx, target, "hi")
    viewer = make_viewer(qtbot, ctx, target, user_id)
    assert viewer.tabs.tabText(AS_SENT_TAB) == "As sent" and "unchanged" in viewer.as_sent_text()
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        edit_soul(target, "A brand-new persona line.\n")
    assert viewer.tabs.tabText(AS_SENT_TAB) == "As sent · 1 changed"
    assert "+A brand-new persona line." in viewer.as_sent_text()


def record_sent(ctx: AppContext, target: Target, user_id: int) -> AsSentStore:
    """Record the request for ``user_id`` as the runner does (no network needed)."""
    store = AsSentStore(target.dir / "as-sent")
    store.record(build_context(target, sources=ctx.sources), user_id=user_id, tools=["search_history"])
    return store


def test_a_summary_written_after_sending_shows_as_an_added_block(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 4)
    record_sent(ctx, target, ids[3])
    cover(target, through=ids[1] + 1)  # compressed after the request went out
    viewer = make_viewer(qtbot, ctx, target, ids[3])
    sent = viewer.as_sent_text()
    assert "### summary · added since sent · diff · 0 → " in sent and "+# Session summary" in sent
    assert f"coverage through #{ids[1] + 1} (the summary or the turn moved on since this was sent)" in sent
    assert "no usage recorded" in sent  # the reply never finished: said, not guessed


def test_a_missing_as_sent_blob_is_reported_not_fatal(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 1)
    store = record_sent(ctx, target, ids[0])
    soul_sha = next(b["sha"] for b in store.requests()[0].blocks if b["name"] == "soul")
    (store.blocks_dir / f"{soul_sha}.txt").unlink()
    edit_soul(target, "Someone else now.\n")
    viewer = make_viewer(qtbot, ctx, target, ids[0])
    assert "### soul · changed since sent" in viewer.as_sent_text()
    assert "the sent text is missing from as-sent/blocks" in viewer.as_sent_text()
    assert viewer.text() == expected(ctx, target, ids[0])


def test_a_damaged_summary_file_shows_the_notice(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 2)
    target.summary_path.write_text("{not json", encoding="utf-8")
    viewer = make_viewer(qtbot, ctx, target, ids[1])
    assert viewer.text() == expected(ctx, target, ids[1])
    assert "Notice: The session summary" in viewer.text()
    assert viewer.problem.isVisible() and "is damaged" in viewer.problem.text()


# -- as sent, whole: a covered message, its attempts, its own numbers (issue 19) ----------------------
def retried_then_covered(ctx: AppContext, target: Target, server: FakeOpenAIServer) -> tuple[int, list[dict]]:
    """Turn 1 answered; turn 2: a tool round, then the stream is cut (an error), then Retry answers; three more
    turns; then a real compression covers turn 2. Returns turn 2's user id and the chat requests the server saw."""
    ctx.settings.set("contextCompression.keepRecentMin", 2)
    ctx.settings.set("contextCompression.keepRecentMax", 4)
    chats = run_retried_turns(ctx.app.runner, target, server)
    server.set_default(faithful)
    compressor = ctx.app.compressor
    assert compressor is not None and compressor.compress_now(target).ok
    users = [it["id"] for it in ctx.sources.session(target).iter_items() if it["type"] == "user"]
    assert ctx.sources.summary(target)[0].covered_through_id > users[1]
    return users[1], chats


def item_headings(text: str) -> list[tuple[int, str]]:
    """``(id, type)`` of every item heading of the layout's ``## session items``."""
    section = text.split("\n## session items\n")[1].split("\n## changed since sent\n")[0]
    found = re.findall(r"^### \[\d+\] (\S+) .*— #(\d+)", section, re.MULTILINE)
    return [(int(item_id), kind) for kind, item_id in found]


def test_as_sent_for_a_covered_message_lists_every_item_that_went_out_with_its_own_numbers(
    qtbot: QtBot, ctx: AppContext, target: Target, server: FakeOpenAIServer
) -> None:
    turn2, chats = retried_then_covered(ctx, target, server)
    viewer = make_viewer(qtbot, ctx, target, turn2)
    snap = viewer.snapshot
    assert "## session items\n(none)" in viewer.text()  # today: the message is covered by the summary
    live_caption, live_total = viewer.bar.caption(), viewer.bar.shown_total

    viewer.tabs.setCurrentIndex(AS_SENT_TAB)
    sent = snap.sent
    assert viewer.attempts() == [
        "Attempt 1 of 2 — asked for tools · round 1 of 2",
        "Attempt 1 of 2 — failed · round 2 of 2",
        "Attempt 2 of 2 — produced the reply · round 1 of 1",
    ]
    assert viewer.attempt.currentIndex() == 2 and viewer.attempt.isEnabled()
    # exactly the request the answer came from: what the server received, item by item
    assert sent.to_messages() == chats[3]["messages"]
    text = viewer.as_sent_text()
    session = ctx.sources.session(target)
    assert item_headings(text) == [(s.id, session.get(s.id)["type"]) for s in sent.items]
    received = [m["content"] for m in chats[3]["messages"] if m["role"] == "user"]
    assert "Look up what we said about step one." in received[-1]
    for message in received:
        assert message.splitlines()[-1] in text
    cut = session.get(sent.items[-1].id)
    assert cut["status"] == "error" and cut["content"] and f"    {cut['content']}" in text  # went out with the Retry
    assert f"assistant · OkBot · error — #{cut['id']}" in text
    assert all("### " + b["name"] in text for b in sent.request.blocks)
    # its own numbers: header and bar, not today's
    assert viewer.title.text().startswith(f"As sent for message #{turn2}")
    assert "Attempt 2 of 2 — produced the reply" in viewer.cutoff.text()
    assert viewer.bar.caption().startswith("As sent: ") and viewer.bar.shown_total == sent.request.prompt_tokens
    assert viewer.bar.shown_total != live_total
    assert [s.name for s in viewer.bar.segments] == [b["name"] for b in sent.request.blocks] + [
        "session items",
        "overhead",
    ]
    assert "prompt tokens reported by the provider" in viewer.prepare.text()
    viewer.tabs.setCurrentIndex(0)  # back to Context: today's numbers
    assert viewer.bar.caption() == live_caption and viewer.title.text().startswith("Context for message")


def test_each_attempt_of_a_retried_turn_can_be_chosen(
    qtbot: QtBot, ctx: AppContext, target: Target, server: FakeOpenAIServer
) -> None:
    turn2, chats = retried_then_covered(ctx, target, server)
    viewer = make_viewer(qtbot, ctx, target, turn2)
    viewer.tabs.setCurrentIndex(AS_SENT_TAB)
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        viewer.attempt.setCurrentIndex(1)  # the interrupted attempt's second round
    sent = viewer.snapshot.sent
    assert sent.request.label() == "Attempt 1 of 2 — failed · round 2 of 2"
    assert sent.to_messages() == chats[2]["messages"]
    assert viewer.attempt.currentIndex() == 1 and viewer.tabs.currentIndex() == AS_SENT_TAB
    assert "Attempt 1 of 2 — failed · round 2 of 2" in viewer.cutoff.text()
    assert "· error — #" not in viewer.as_sent_text()  # sent before the cut reply existed
    # the prompt cache: round 2 repeats round 1 whole, then adds the tool call and its result
    cache_line = next(x for x in viewer.as_sent_text().splitlines() if x.startswith("Prompt cache: "))
    assert f"repeats request #{sent.choices[0].id} exactly · then adds what is new" in cache_line
    assert [kind for _, kind in item_headings(viewer.as_sent_text())][-2:] == ["tool_call", "tool_result"]
    assert viewer.bar.shown_total == sent.total_tokens
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        viewer.attempt.setCurrentIndex(0)
    assert viewer.snapshot.sent.to_messages() == chats[1]["messages"]
    assert viewer.copy_all() == viewer.snapshot.as_sent_full_markdown  # copies the tab on show


def test_a_retry_sent_while_the_viewer_is_open_is_offered(
    qtbot: QtBot, ctx: AppContext, target: Target, server: FakeOpenAIServer
) -> None:
    server.enqueue(Reply(text="Half an ans", chunk_chars=4, cut_after_chunks=1), Reply(text="A whole answer."))
    runner = ctx.app.runner
    assert runner.run(target, Send("question")).status == "error"
    viewer = make_viewer(qtbot, ctx, target, 1)
    assert viewer.attempts() == ["Attempt 1 of 1 — failed · round 1 of 1"] and not viewer.attempt.isEnabled()
    viewer.tabs.setCurrentIndex(AS_SENT_TAB)
    with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
        assert runner.run(target, Retry()).status == "complete"
    qtbot.waitUntil(lambda: len(viewer.attempts()) == 2, timeout=WAIT_MS)
    assert viewer.attempts()[1] == "Attempt 2 of 2 — produced the reply · round 1 of 1"
    assert (
        viewer.attempt.currentIndex() == 1
        and viewer.snapshot.sent.to_messages() == server.chat_requests()[1]["messages"]
    )
    assert "Attempt 2 of 2" in viewer.cutoff.text()  # still on As sent, now with the new request's numbers


def test_as_sent_says_where_an_item_was_lost_and_keeps_keys_hidden(
    qtbot: QtBot, ctx: AppContext, target: Target, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keys, "_remembered", set())
    session = ctx.sources.session(target)
    leaked = session.append(user_message(f"my key is {SECRET}"))["id"]  # stored as typed: no key was known
    server.enqueue(Reply(text="First answer."), Reply(text="Second answer."))
    first = send(ctx, target, "first")
    second = send(ctx, target, "second")
    raw = target.session_path.read_bytes()
    assert SECRET.encode() in raw
    start = raw.index(b'"first"')  # damage that message's line in place, as a bad sector would
    target.session_path.write_bytes(raw[:start] + b"\x00" * 7 + raw[start + 7 :])
    monkeypatch.setenv("OKBOT_API_KEY", SECRET)  # the viewer resolves it, as `okbot context` does
    fresh = AppContext.create(ctx.workspace, ctx.settings)
    viewer = make_viewer(qtbot, fresh, target, second)
    text = viewer.as_sent_text()
    index = [s.id for s in viewer.snapshot.sent.items].index(first) + 1
    assert f"### [{index}] missing item — #{first}" in text and "no longer holds it" in text
    assert "Notice: 1 item of this request is no longer in session.jsonl" in text
    assert f"— #{leaked} ·" in text and "my key is [redacted]" in text
    assert SECRET not in text and SECRET not in viewer.snapshot.as_sent_full_markdown
    fresh.tasks.wait_for_done(WAIT_MS)


# -- in Chinese ----------------------------------------------------------------------------------
@pytest.fixture
def zh_cn(qapp: QApplication) -> Iterator[None]:
    """The UI in Simplified Chinese (the catalogue `make` builds), English again after."""
    if not i18n.catalogue_file("zh_CN").exists():
        pytest.fail("the zh_CN catalogue is not built: `make translations` (make test builds it)")
    apply_language("zh_CN")
    yield
    apply_language("en")


def test_in_chinese_the_window_is_translated_and_the_request_is_not(
    qtbot: QtBot, ctx: AppContext, target: Target, zh_cn: None
) -> None:
    edit_soul(target, "You are Captain Cobalt, terse and exact.\n")
    ids = seed(ctx, target, 2)
    viewer = make_viewer(qtbot, ctx, target, ids[1])
    assert viewer.windowTitle() == f"查看上下文 — {target.name} · 消息 #{ids[1]}"
    assert viewer.title.text() == f"消息 #{ids[1]} 的上下文 · {target.name}"
    assert [viewer.tabs.tabText(i) for i in range(viewer.tabs.count())] == ["上下文", "发送时", "上次压缩"]
    assert (viewer.refresh_button.text(), viewer.full_bodies.text()) == ("刷新", "完整正文")
    assert [s.name for s in viewer.bar.segments][-2:] == ["会话条目", "开销"]
    # the legend names every part in Chinese: the blocks by their translated titles, not "role", "tool_notes"
    legend = [s.shown_name for s in viewer.bar.segments]
    assert legend[:2] == ["角色", "成员名单"] and "工具说明" in legend, legend
    assert not {"role", "roster", "soul", "tool_notes"} & set(legend)
    text = viewer.text()
    assert text == expected(ctx, target, ids[1])  # the layout as render.py writes it in this language
    for sent in ("You are Captain Cobalt, terse and exact.", "question 1: how does step 1 work?", "answer 0: step 0"):
        assert sent in text  # what the model saw, word for word


# -- compaction health ----------------------------------------------------------------------------
HEALTH = {
    "count": 3,
    "lastTrigger": "ratio",
    "lastAt": "2025-11-30T13:04:05Z",
    "tokensBefore": 45120,
    "tokensAfter": 12300,
    "summarizerTokens": 2100,
    "lastFailure": "summary over length; kept the previous",
}


def test_health_lines_read_every_field_and_tolerate_bad_values() -> None:
    line, failure = health_lines(HEALTH, None)
    assert "3 runs" in line and "last ratio at 2025-11-30 13:04" in line
    assert "45,120 → 12,300 tokens" in line and "summarizer used 2,100 tokens" in line
    assert failure == "Last compaction failure: summary over length; kept the previous"
    line, failure = health_lines({"count": "three", "tokensBefore": None, "lastFailure": {"message": "boom"}}, None)
    assert line == "Compaction: none on this session yet" and failure.endswith("boom")


@pytest.mark.skipif(not hasattr(SessionSummary(), "health"), reason="SessionSummary.health not added yet")
def test_health_from_the_session_summary_is_shown(qtbot: QtBot, ctx: AppContext, target: Target) -> None:
    ids = seed(ctx, target, 4)
    cover(target, through=ids[1] + 1, health=HEALTH)
    viewer = make_viewer(qtbot, ctx, target, ids[3])
    assert "3 runs" in viewer.health.text()
    assert "summary over length" in viewer.problem.text()


# -- token bar ------------------------------------------------------------------------------------
def test_token_bar_stacks_blocks_against_the_window(qtbot: QtBot) -> None:
    bar = TokenBar()
    qtbot.addWidget(bar)
    bar.resize(400, bar.heightForWidth(400))
    bar.set_usage(
        [BarSegment("soul", 100), BarSegment("items", 300), BarSegment("empty", 0)], window=1000, threshold=600
    )
    assert [s.name for s in bar.segments] == ["soul", "items"]  # empty parts are not drawn
    assert bar.caption().startswith("400 of 1,000 tokens (40.0%)") and "compression at 600 (60%)" in bar.caption()
    left, right = bar.x_for(0), bar.x_for(1000)
    assert bar.x_for(600) == pytest.approx(left + 0.6 * (right - left))
    assert bar.segment_at(bar.x_for(50)) == 0 and bar.segment_at(bar.x_for(250)) == 1
    assert bar.segment_at(bar.x_for(700)) is None  # free space
    bar.set_usage([BarSegment("items", 1500)], window=1000, threshold=600, approximate=True)
    assert bar.scale == 1500 and "over the window" in bar.caption() and bar.caption().startswith("≈ ")
    assert not bar.grab().isNull()


def test_token_bar_legend_wraps_when_narrow(qtbot: QtBot) -> None:
    bar = TokenBar()
    qtbot.addWidget(bar)
    bar.set_usage([BarSegment(f"block {i}", 10 * (i + 1)) for i in range(8)], window=1000, threshold=600)
    assert bar.heightForWidth(160) > bar.heightForWidth(2000)


def test_segment_colours_follow_light_and_dark_palettes() -> None:
    light, dark = QPalette(QColor("#f4f4f4")), QPalette(QColor("#202124"))
    lights, darks = segment_colors(light, 5), segment_colors(dark, 5)
    assert len({c.name() for c in lights}) == 5
    assert all(d.lightnessF() > lt.lightnessF() for d, lt in zip(darks, lights, strict=True))


# -- file watcher --------------------------------------------------------------------------------
def test_watcher_debounces_a_burst_into_one_change_and_ignores_other_files(qtbot: QtBot, tmp_path: Path) -> None:
    soul, other = tmp_path / "SOUL.md", tmp_path / "session.jsonl"
    soul.write_text("v0", encoding="utf-8")
    watcher = FileWatcher(debounce_ms=150)
    watcher.set_paths([soul])
    emitted: list[list[str]] = []
    watcher.changed.connect(emitted.append)
    try:
        with qtbot.waitSignal(watcher.changed, timeout=WAIT_MS):
            for i in range(5):
                soul.write_text(f"v{i + 1}" * (i + 1), encoding="utf-8")
        qtbot.wait(400)
        assert emitted == [[str(soul)]]
        with qtbot.assertNotEmitted(watcher.changed, wait=400):
            other.write_text("not watched", encoding="utf-8")
            soul.read_text(encoding="utf-8")  # reading is not a change
    finally:
        watcher.stop()
    assert not watcher.running


def test_watcher_arms_a_folder_that_appears_later(qtbot: QtBot, tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    watcher = FileWatcher(debounce_ms=100)
    watcher.set_paths([memory])
    try:
        assert watcher.watched_dirs() == {str(tmp_path): False}
        with qtbot.waitSignal(watcher.changed, timeout=WAIT_MS):
            memory.mkdir()
        assert watcher.watched_dirs()[str(memory)] is True
        with qtbot.waitSignal(watcher.changed, timeout=WAIT_MS) as blocker:
            (memory / "durable").mkdir()
            (memory / "durable" / "m1.md").write_text("likes tea", encoding="utf-8")
        assert blocker.args == [[str(memory)]]
    finally:
        watcher.stop()
