"""The summarizer as a pure object: a scripted `complete` callable and a word-count tokenizer."""

import pytest

from okbot.core.compression import structure
from okbot.core.compression.summarizer import Summarizer, SummaryRejected, parse_answer

PREV = structure.render({"Goals": "- [active] ship v2", "References": "- PR #812"})
COVERED = [
    {"id": 10, "type": "user", "source": "user", "content": "Never touch the prod db; report daily."},
    {"id": 11, "type": "assistant", "author": "okbot", "content": "Understood. Working on PR #812 now."},
    {"id": 12, "type": "user", "source": "user", "content": "ok"},
]
CHECKLIST = [COVERED[0]]
GOOD = structure.render({"Goals": "- [active] ship v2", "Agreements": "- never touch the prod db; report daily",
                         "References": "- PR #812"}) + "\nKEEP: 10"


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
    return summarizer.summarize(PREV, COVERED, CHECKLIST, sources=[c["content"] for c in COVERED]), script


def test_good_answer_is_accepted_first_time_and_only_ids_are_kept():
    outcome, script = run(GOOD)
    assert outcome.calls == 1 and outcome.keep_ids == [10]
    assert "never touch the prod db" in outcome.summary
    prompt = script.prompts[0][1]["content"]
    assert "[10] Never touch the prod db" in prompt and "[12]" not in prompt  # "ok" is not offered


@pytest.mark.parametrize("bad", [
    "",                                                   # empty
    "x" * 3000,                                           # over the limit
    '{"summary": "all good", "keep": [10]}',              # JSON where text is expected
    structure.render({"Goals": "- (none)"}) + "\nKEEP: 10",  # a goal dropped
    GOOD.replace("#812", "#813"),                         # a shifted reference
])
def test_bad_answers_get_one_repair_that_names_the_problem(bad):
    outcome, script = run(bad, GOOD)
    assert outcome.calls == 2
    repair = script.prompts[1][-1]["content"]
    assert repair.startswith("Your answer has these problems")


def test_still_bad_after_repair_is_rejected():
    with pytest.raises(SummaryRejected) as exc:
        run("", "still nothing useful")
    assert exc.value.problems


def test_exception_or_timeout_is_a_rejection():
    with pytest.raises(SummaryRejected, match="call failed"):
        run(TimeoutError("timed out"))


def test_ids_not_on_the_checklist_are_ignored_and_missing_keep_keeps_more():
    outcome, _ = run(GOOD.replace("KEEP: 10", "KEEP: 10, 11, 999"))
    assert outcome.keep_ids == [10] and any("999" in n for n in outcome.notes)
    outcome, _ = run(GOOD.replace("\nKEEP: 10", ""))
    assert outcome.keep_ids == [10]


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
    assert summarizer.summarize(PREV, COVERED, [plain, *CHECKLIST], sources=sources,
                                previously_kept=[5]).keep_ids == [5, 10]
    assert summarizer.summarize(PREV, COVERED, [plain, *CHECKLIST], sources=sources,
                                previously_kept=[5]).keep_ids == [10]


def test_parse_answer_handles_fences_and_keep_none():
    summary, keep, release, problems = parse_answer(
        "```markdown\n" + GOOD.replace("KEEP: 10", "KEEP: none\nRELEASE: 10") + "\n```")
    assert keep == [] and release == [10] and summary.startswith("## Goals") and not problems


def test_input_is_proportional_to_the_new_items_not_the_history():
    summarizer = Summarizer(Script(), words, max_chars=2000)
    small = summarizer.input_cost(PREV, COVERED, CHECKLIST)
    assert summarizer.input_cost(PREV, COVERED, CHECKLIST) == small
    many = [{"id": i, "type": "assistant", "author": "a", "content": "word " * 50} for i in range(100)]
    assert summarizer.input_cost(PREV, many[:10], []) < summarizer.input_cost(PREV, many, []) / 5
