"""When the summarizer fails, the user's own words are the last thing lost (issue 15).

Real files in a temp dir, the real compressor and provider against the fake HTTP server, a summarizer
that always (or sometimes) fails its checks.
"""

from __future__ import annotations

import re
from itertools import count

import pytest

from okbot.core.context import MODEL_ITEM_TYPES, build_context
from okbot.core.items import new_item, user_message
from okbot.core.render import render_markdown
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from tests.helpers.fake_openai import Reply
from tests.helpers.fake_summarizer import faithful, is_summarizer_request

CONSTRAINT = "Constraint: always answer in British English, and never use bullet points."
FIRST = "Let's plan the quarterly report together."
WORDS_HEADING = "## The user's own words"
MOVED_OUT = "## Moved out without summarizing"


def failing(body):
    """A summarizer whose answers always fail the checks (and a topic check that says 'no')."""
    return Reply(text="") if is_summarizer_request(body) else Reply(text="no")


@pytest.fixture
def env(env, server):
    """The shared set-up (conftest.py) with a summarizer that always fails and a window of 4,000."""
    server.set_default(failing)
    env[1].settings.set("model.contextWindow", 4000)
    return env


def reply(text):
    return new_item("assistant", author="okbot", source="app", content=text)


def chit_chat(n):
    return f"Short message number {n} about the deadline. " + "Just thinking aloud about the week ahead. " * 6


def system_text(sources, target):
    return build_context(target, sources=sources).system_text()


def kept_words_shown(text):
    """``{id: text}`` of the user's words the summary block shows."""
    words = text.split(WORDS_HEADING, 1)[1]
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\[#(\d+)\] (.*)$", words, re.MULTILINE)}


def test_run_one_a_constraint_among_deadline_chit_chat_survives_three_fallbacks(env, server):
    target, sources, compressor, events = env
    session = sources.session(target)
    session.append(user_message(FIRST))
    session.append(reply("Happy to."))
    constraint = session.append(user_message(CONSTRAINT))["id"]
    session.append(reply("Understood."))
    for n in count(1):
        session.append(user_message(chit_chat(n)))
        session.append(reply(f"Noted, point {n}. " + "Some longer thoughts on it. " * 12))
        compressor.before_run(target, "and?")
        if len(events) >= 3 and n >= 25:
            break
        assert n < 200, "three fallbacks never happened"
    stored = SummaryStore(target.summary_path).load()
    assert stored.health["lastFallback"] == "moved out without the model" and stored.health["failures"] >= 1
    text = system_text(sources, target)
    shown = kept_words_shown(text)
    assert shown[constraint] == CONSTRAINT  # verbatim, not "[#3] [20 more kept message(s) …]"
    assert text.index(CONSTRAINT) < text.index("## Goals") < text.index(MOVED_OUT)
    chit = [i for i, t in shown.items() if t.startswith("Short message")]
    assert len(chit) < 20, "chit-chat that only mentions a deadline is not kept ahead of the constraint"


def test_run_two_the_first_message_constraint_is_in_the_request_and_in_okbot_context(env, server):
    target, sources, compressor, events = env
    runner = TurnRunner(sources, compressor.provider, compression=compressor)
    result = runner.run(target, Send(CONSTRAINT))
    assert result.status == "complete"
    for n in range(1, 30):
        result = runner.run(target, Send(chit_chat(n)))
        assert result.status == "complete"
    assert events  # moved out without the model (the summarizer never passes)
    sent = [b for b in server.chat_requests() if not is_summarizer_request(b) and b.get("stream")]
    assert CONSTRAINT in sent[-1]["messages"][0]["content"]
    proj = build_context(target, sources=sources)
    assert proj.covered_through_id > 1 and kept_words_shown(proj.system_text())[1] == CONSTRAINT
    summary_block = next(b for b in proj.blocks if b.name == "summary")
    assert len(summary_block.text) > 2000  # what `okbot context` used to cut inside the digests
    view = render_markdown(proj)
    assert f"[#1] {CONSTRAINT}" in view
    assert view.index(CONSTRAINT) < view.index(MOVED_OUT)


def moved_out_claims(summary_text):
    """(ids claimed moved out, ids claimed to have a digest, ids that do have one) from the text."""
    if MOVED_OUT not in summary_text:
        return set(), set(), set()
    section = summary_text.split(MOVED_OUT, 1)[1]
    moved, claimed = set(), set()
    for line in section.splitlines():
        marker = re.match(r"^- items (.+?) moved out without a summary(.*)$", line)
        if not marker:
            continue
        moved |= ids_in(marker.group(1))
        rest = marker.group(2)
        if "a digest of each above" in rest:
            claimed |= ids_in(marker.group(1))
        elif "digests of" in rest:
            assert "the older ones only by search_history" in rest
            claimed |= ids_in(rest.split("digests of", 1)[1].split("above", 1)[0])
        else:
            assert "search_history finds them" in rest
    digests = {int(m.group(1)) for m in re.finditer(r"^\s+- #(\d+) ", section, re.MULTILINE)}
    return moved, claimed, digests


def ids_in(ranges_text):
    out = set()
    for a, b in re.findall(r"#(\d+)(?:–#(\d+))?", ranges_text):
        out |= set(range(int(a), int(b or a) + 1))
    return out


def assert_every_item_accounted(sources, target, model_covered):
    session = sources.session(target)
    stored = SummaryStore(target.summary_path).load()
    proj = build_context(target, sources=sources)
    moved, claimed, digests = moved_out_claims(stored.summary)
    model_ids = {it["id"] for it in session.iter_items() if it.get("type") in MODEL_ITEM_TYPES}
    assert claimed <= moved
    assert digests == claimed & model_ids, "the digests listed are exactly the ones the marker names"
    assert moved_out_claims(proj.system_text())[0] == moved, "the request names the same ranges"
    tail = {it["id"] for it in proj.items}
    for item_id in sorted(model_ids):
        assert item_id <= model_covered or item_id in moved or item_id in tail, (
            f"item #{item_id} is in neither the summary's coverage (#{model_covered}), "
            f"a moved-out range ({sorted(moved)[:3]}…) nor the tail"
        )
    return moved


@pytest.mark.parametrize("succeed_every", [0, 3])
def test_every_item_is_in_the_summary_a_moved_out_range_or_the_tail_after_each_compression(env, server, succeed_every):
    target, sources, compressor, events = env
    sources.settings.set("model.contextWindow", 3000)
    calls = []

    def sometimes(body):
        if not is_summarizer_request(body):
            return Reply(text="no")
        calls.append(body)
        return faithful(body) if succeed_every and len(calls) % succeed_every == 0 else Reply(text="")

    server.set_default(sometimes)
    session = sources.session(target)
    session.append(user_message(CONSTRAINT))
    session.append(reply("Understood."))
    model_covered, fallbacks, successes = 0, 0, 0
    for n in range(60):
        before = len(events)
        report = compressor.before_run(target, "next?")
        if report is not None and report.ok:
            model_covered, successes = report.new_ids[-1], successes + 1
        fallbacks += len(events) - before - (1 if report is not None and report.ok else 0)
        moved = assert_every_item_accounted(sources, target, model_covered)
        if moved and not successes:
            assert min(moved) == 1  # ranges merge: one run from the first item
        session.append(user_message(chit_chat(n)))
        session.append(reply(f"Noted, point {n}. " + "Some longer thoughts on it. " * 15))
    assert fallbacks >= (2 if succeed_every else 5)
    assert successes >= (1 if succeed_every else 0)
    assert CONSTRAINT in system_text(sources, target)
    assert f"[#1] {CONSTRAINT}" in render_markdown(build_context(target, sources=sources))


def test_the_moved_out_section_keeps_its_budget_and_says_which_digests_it_dropped(env, server):
    target, sources, compressor, _ = env
    sources.settings.set("model.contextWindow", 3000)
    session = sources.session(target)
    for n in range(40):
        session.append(user_message(chit_chat(n)))
        session.append(reply(f"Noted, point {n}. " + "Some longer thoughts on it. " * 15))
        compressor.before_run(target, "next?")
    stored = SummaryStore(target.summary_path).load()
    max_chars = sources.settings.get("contextCompression.summaryMaxChars")
    assert len(stored.summary) <= max_chars
    moved, claimed, digests = moved_out_claims(stored.summary)
    assert min(moved) == 1 and max(moved) == stored.covered_through_id
    assert claimed and min(claimed) > 1 and digests == claimed  # the older ones only by search_history
    assert "the older ones only by search_history" in stored.summary


def test_chit_chat_never_pushes_a_directive_out_of_the_kept_words(env):
    target, sources, _, _ = env
    session = sources.session(target)
    first = session.append(user_message(FIRST))["id"]
    chat = [session.append(user_message(chit_chat(n)))["id"] for n in range(12)]
    constraint = session.append(user_message(CONSTRAINT))["id"]
    chat += [session.append(user_message(chit_chat(n)))["id"] for n in range(12, 25)]
    session.append(user_message("And the newest question."))
    SummaryStore(target.summary_path).save(
        SessionSummary(
            summary="## Goals\n- [active] report",
            covered_through_id=chat[-1],
            kept_user_ids=sorted([first, constraint, *chat]),
        )
    )
    text = system_text(sources, target)
    shown = kept_words_shown(text)
    assert shown[constraint] == CONSTRAINT and shown[first] == FIRST
    newest_chat = [i for i in chat if i in shown]
    assert newest_chat and newest_chat == chat[-len(newest_chat) :]  # then the newest
    assert "Also kept, not shown for room (search_history finds them): #" in text
    assert text.index(CONSTRAINT) < text.index("## Goals")


def test_the_request_keeps_the_moved_out_ranges_when_the_summary_is_over_its_length(env, server):
    target, sources, compressor, _ = env
    sources.settings.set("model.contextWindow", 3000)
    session = sources.session(target)
    session.append(user_message(CONSTRAINT))
    covered = session.append(reply("Understood."))["id"]
    long_progress = "\n".join(f"- step {n}: checked the ledger and wrote it down" for n in range(60))
    SummaryStore(target.summary_path).save(
        SessionSummary(
            summary=f"## Goals\n- [active] ledger\n\n## Progress and next steps\n{long_progress}",
            covered_through_id=covered,
            kept_user_ids=[1],
        )
    )
    for n in range(12):
        session.append(user_message(chit_chat(n)))
        session.append(reply(f"Noted, point {n}. " + "Some longer thoughts on it. " * 15))
        compressor.before_run(target, "next?")
    stored = SummaryStore(target.summary_path).load()
    moved = moved_out_claims(stored.summary)[0]
    assert moved and min(moved) == covered + 1 and max(moved) == stored.covered_through_id
    text = system_text(sources, target)
    assert moved_out_claims(text)[0] == moved
    assert kept_words_shown(text)[1] == CONSTRAINT


def test_a_long_constraint_is_not_shortened_to_make_room_for_chit_chat(env):
    target, sources, _, _ = env
    session = sources.session(target)
    rules = CONSTRAINT + " " + " ".join(f"Rule {n}: never touch table {n} without asking me first." for n in range(14))
    constraint = session.append(user_message(rules))["id"]
    chat = [session.append(user_message(chit_chat(n)))["id"] for n in range(20)]
    session.append(user_message("And the newest question."))
    SummaryStore(target.summary_path).save(
        SessionSummary(
            summary="## Goals\n- [active] report", covered_through_id=chat[-1], kept_user_ids=[constraint, *chat]
        )
    )
    counter = sources.counter(sources.model_for(target))
    assert 150 < counter.count_text(rules) < 280
    shown = kept_words_shown(system_text(sources, target))
    assert shown[constraint] == rules  # whole: the chit-chat gets only what is left
    assert all(i in chat[-len(shown) :] for i in shown if i != constraint)
