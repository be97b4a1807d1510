"""The summarizer as a pure object: a scripted `complete` callable and a word-count tokenizer."""

import json

import pytest

from okbot.core.compression import structure
from okbot.core.compression.summarizer import Summarizer, SummaryRejected

PREV = structure.render({"Goals": "- [active] ship v2 (#2)", "References": "- PR #812"})
COVERED = [
    {"id": 10, "type": "user", "source": "user", "content": "Never touch the prod db; report daily."},
    {"id": 11, "type": "assistant", "author": "okbot", "content": "Understood. Working on PR #812 now."},
    {"id": 12, "type": "user", "source": "user", "content": "ok"},
    {"id": 13, "type": "tool_result", "source": "tool", "name": "read_file", "content": "Plan: drop the db"},
]
CHECKLIST = [COVERED[0]]
GOOD = "AGREEMENT: never touch the prod db; report daily\nPROGRESS: working on PR #812\nKEEP: 10"
EDITS = {
    "new_goals": [],
    "goal_status": [],
    "agreements": ["never touch the prod db; report daily"],
    "decisions": [],
    "progress": ["working on PR #812"],
    "drop_progress": [],
    "references": [],
    "keep": [10],
    "release": [],
}


def words(text):
    return len(text.split())


class Script:
    """A scripted summarizer model: returns the queued answers in order and records the prompts."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.prompts = []

    def __call__(self, messages):
        self.prompts.append(messages)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def run(*answers, max_chars=2000):
    script = Script(*answers)
    summarizer = Summarizer(script, words, max_chars=max_chars)
    return summarizer.summarize(
        PREV, COVERED, CHECKLIST, sources=[f"#{c['id']} {c['content']}" for c in COVERED]
    ), script


def test_good_answer_is_accepted_first_time_and_only_ids_are_kept():
    outcome, script = run(GOOD)
    assert outcome.calls == 1 and outcome.keep_ids == [10] and not outcome.notes
    assert "- never touch the prod db; report daily" in outcome.summary
    assert outcome.summary.startswith("## Goals\n- [active] ship v2 (#2)\n")  # untouched, byte for byte
    prompt = script.prompts[0][1]["content"]
    assert "[10] Never touch the prod db" in prompt and "[12]" not in prompt  # "ok" is not offered
    assert "1. [active] ship v2 (#2)" in prompt  # goals numbered for the edits
    assert "GOAL <number>: done" in script.prompts[0][0]["content"]


def test_a_json_answer_gives_the_same_summary_as_lines():
    from_lines, _ = run(GOOD)
    from_json, _ = run("```json\n" + json.dumps(EDITS) + "\n```")
    assert from_json.summary == from_lines.summary and from_json.keep_ids == from_lines.keep_ids == [10]
    assert Summarizer.RESPONSE_FORMAT["json_schema"]["strict"] is True
    schema = Summarizer.RESPONSE_FORMAT["json_schema"]["schema"]
    assert set(schema["required"]) == set(schema["properties"]) == set(EDITS)


@pytest.mark.parametrize(
    "cited, accepted",
    [(10, True), (12, True), (11, False), (13, False), (99, False)],  # the user's, an assistant's, a tool's, unknown
)
def test_a_new_goal_must_cite_the_users_own_message(cited, accepted):
    answer = f"GOAL: keep the prod db safe #{cited}\n{GOOD}"
    outcome, script = run(answer, answer)
    assert ("- [active] keep the prod db safe (#" in outcome.summary) is accepted
    assert "- never touch the prod db; report daily" in outcome.summary  # the other edits apply either way
    assert outcome.calls == (1 if accepted else 2)  # a refused edit is named in the one repair request
    if not accepted:
        assert script.prompts[1][-1]["content"].startswith("These edits were refused")
        assert any("refused edit" in note for note in outcome.notes)


@pytest.mark.parametrize(
    "bad",
    [
        "",  # empty
        "x" * 4001,  # over twice the limit
        '{"summary": "all good", "keep_these": [10]}',  # JSON of another shape
        "[" * 1000 + "]" * 1000,  # nested brackets
        "{" * 1000 + "}" * 1000,
        "Sorry, I cannot help with that.",
    ],
)
def test_unreadable_answers_get_one_repair_that_names_the_problem(bad):
    outcome, script = run(bad, GOOD)
    assert outcome.calls == 2 and "- never touch the prod db" in outcome.summary
    assert script.prompts[1][-1]["content"].startswith("Your answer could not be read")


def test_still_unreadable_after_repair_is_rejected():
    with pytest.raises(SummaryRejected) as exc:
        run("", "still nothing useful")
    assert exc.value.problems


def test_a_readable_first_answer_survives_an_unreadable_repair():
    outcome, _ = run(GOOD.replace("PROGRESS: working on PR #812", "REFERENCE: PR #813"), "garbage")
    assert "- never touch the prod db" in outcome.summary and "#813" not in outcome.summary
    assert outcome.calls == 2


def test_exception_or_timeout_is_a_rejection():
    with pytest.raises(SummaryRejected, match="call failed"):
        run(TimeoutError("timed out"))


def test_the_previous_summary_enters_the_request_cut_to_its_budget():
    decisions = "\n".join(f"- decision {i} — because" for i in range(200))
    previous = structure.render({"Goals": "- [active] ship v2 (#2)", "Decisions": decisions})
    summarizer = Summarizer(Script(), words, max_chars=1000)
    prompt = summarizer.build_messages(previous, COVERED, CHECKLIST)[1]["content"]
    shown = prompt.split("PREVIOUS SUMMARY:\n")[1].split("\n\nNEWLY COVERED ITEMS")[0]
    assert len(shown) <= 1000 and "- decision 199 — because" in shown and "session-summary.json" in shown


def test_ids_not_on_the_checklist_are_ignored_and_missing_keep_keeps_more():
    outcome, _ = run(GOOD.replace("KEEP: 10", "KEEP: 10, 11, 999"))
    assert outcome.keep_ids == [10] and any("999" in n for n in outcome.notes)
    outcome, _ = run(GOOD.replace("\nKEEP: 10", ""))
    assert outcome.keep_ids == [10] and any("no KEEP" in n for n in outcome.notes)


def test_a_directive_the_summarizer_forgot_is_kept_unless_released():
    outcome, _ = run(GOOD.replace("KEEP: 10", "KEEP: none"))
    assert outcome.keep_ids == [10]  # "Never touch the prod db" looks like a constraint: keep more, never less
    outcome, _ = run(GOOD.replace("KEEP: 10", "KEEP: none\nRELEASE: 10"))
    assert outcome.keep_ids == []


def test_previously_kept_words_go_only_when_released():
    plain = {"id": 5, "type": "user", "source": "user", "content": "Let us use the blue theme for the site."}
    script = Script(GOOD.replace("KEEP: 10", "KEEP: none"), GOOD.replace("KEEP: 10", "KEEP: none\nRELEASE: 5"))
    summarizer = Summarizer(script, words, max_chars=2000)
    sources = [c["content"] for c in COVERED]
    assert summarizer.summarize(PREV, COVERED, [plain, *CHECKLIST], sources=sources, previously_kept=[5]).keep_ids == [
        5,
        10,
    ]
    assert summarizer.summarize(PREV, COVERED, [plain, *CHECKLIST], sources=sources, previously_kept=[5]).keep_ids == [
        10
    ]


def test_input_is_proportional_to_the_new_items_not_the_history():
    summarizer = Summarizer(Script(), words, max_chars=2000)
    small = summarizer.input_cost(PREV, COVERED, CHECKLIST)
    assert summarizer.input_cost(PREV, COVERED, CHECKLIST) == small
    many = [{"id": i, "type": "assistant", "author": "a", "content": "word " * 50} for i in range(100)]
    assert summarizer.input_cost(PREV, many[:10], []) < summarizer.input_cost(PREV, many, []) / 5


def test_with_no_progress_line_from_the_model_the_app_writes_how_far_it_reaches_from_the_record():
    """A small model often adds nothing to Progress; the summary must not keep saying where things stood
    long ago. The app's own line quotes the record and replaces its previous one."""
    outcome, _ = run("AGREEMENT: never touch the prod db; report daily\nKEEP: 10")
    progress = structure.parse_sections(outcome.summary)[0]["Progress and next steps"].splitlines()
    assert progress == ["- (from the record) covers items up to #13; the user's last request there (#12): ok"]
    later = [{"id": 20, "type": "user", "source": "user", "content": "Now do PR #813."}]
    again = Summarizer(Script("KEEP: none"), words, max_chars=2000).summarize(
        outcome.summary, later, later, sources=["#20 Now do PR #813."]
    )
    progress = structure.parse_sections(again.summary)[0]["Progress and next steps"].splitlines()
    assert progress == [
        "- (from the record) covers items up to #20; the user's last request there (#20): Now do PR #813."
    ]


def test_a_progress_line_from_the_model_is_left_alone():
    outcome, _ = run(GOOD)
    progress = structure.parse_sections(outcome.summary)[0]["Progress and next steps"]
    assert "working on PR #812" in progress and "(from the record)" not in progress
