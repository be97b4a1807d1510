"""What counts as a teaching the user states outright: a table of real phrasings, positives and negatives."""

from __future__ import annotations

import pytest

from okbot.core.digest import STRONG_DIRECTIVE, directive_grade
from okbot.core.evolution.teachings import PERMISSION, PROCEDURE, PROHIBITION, RULE, detect, detect_item
from okbot.core.items import new_item, notice, user_message

# (message, kind, the lines it offers as written)
RULES = [
    ("From now on, always answer in British English.", RULE, ["From now on, always answer in British English."]),
    ("Always answer in British English.", RULE, ["Always answer in British English."]),
    (
        "Thanks! From now on, keep answers under five sentences.",
        RULE,
        ["From now on, keep answers under five sentences."],
    ),
    ("Use metric units from now on.", RULE, ["Use metric units from now on."]),
    ("Going forward, sign off every reply with '— Ada'.", RULE, ["Going forward, sign off every reply with '— Ada'."]),
    (
        "ok, please always cite the file and line you got a fact from",
        RULE,
        ["ok, please always cite the file and line you got a fact from"],
    ),
    (
        "You should always run the tests before you tell me something works.",
        RULE,
        ["You should always run the tests before you tell me something works."],
    ),
    ("I want you to always reply in a formal tone.", RULE, ["I want you to always reply in a formal tone."]),
    (
        "Whenever I ask for code, add a short test with it.",
        RULE,
        ["Whenever I ask for code, add a short test with it."],
    ),
    ("When I say brief, keep it to three lines.", RULE, ["When I say brief, keep it to three lines."]),
    ("From now on you answer as a pirate.", RULE, ["From now on you answer as a pirate."]),
    ("Never use emoji.", PROHIBITION, ["Never use emoji."]),
    ("Please never push to main.", PROHIBITION, ["Please never push to main."]),
    ("Don't ever delete files in /data.", PROHIBITION, ["Don't ever delete files in /data."]),
    ("Don't apologise in your replies anymore.", PROHIBITION, ["Don't apologise in your replies anymore."]),
    ("You must not share my calendar with anyone.", PROHIBITION, ["You must not share my calendar with anyone."]),
    ("From now on, don't use bullet points.", PROHIBITION, ["From now on, don't use bullet points."]),
    (
        "You may restart the staging server stg-4 without asking.",
        PERMISSION,
        ["You may restart the staging server stg-4 without asking."],
    ),
    (
        "You don't need to ask before running the linter.",
        PERMISSION,
        ["You don't need to ask before running the linter."],
    ),
    ("Feel free to fix typos without asking me.", PERMISSION, ["Feel free to fix typos without asking me."]),
    ("From now on you can merge green PRs yourself.", PERMISSION, ["From now on you can merge green PRs yourself."]),
    ("You're allowed to create branches.", PERMISSION, ["You're allowed to create branches."]),
    (
        "Always answer in British English. Never use emoji.",
        RULE,
        ["Always answer in British English.", "Never use emoji."],
    ),
    # Chinese
    ("以后请用中文回答。", RULE, ["以后请用中文回答。"]),
    ("从现在起，回答要简短。", RULE, ["从现在起，回答要简短。"]),
    ("从现在开始你只用简体中文。", RULE, ["从现在开始你只用简体中文。"]),
    ("每次回答都要附上出处。", RULE, ["每次回答都要附上出处。"]),
    ("请始终使用公制单位。", RULE, ["请始终使用公制单位。"]),
    ("我希望你以后叫我老王。", RULE, ["我希望你以后叫我老王。"]),
    ("好的，记住：以后回复里不要用表情符号。", PROHIBITION, ["好的，记住：以后回复里不要用表情符号。"]),
    ("永远不要删除我的文件。", PROHIBITION, ["永远不要删除我的文件。"]),
    ("不要再用英文回答了。", PROHIBITION, ["不要再用英文回答了。"]),
    ("以后不要在周五部署。", PROHIBITION, ["以后不要在周五部署。"]),
    ("你可以直接重启 stg-4，不用问我。", PERMISSION, ["你可以直接重启 stg-4，不用问我。"]),
    ("以后修改错别字不用先问我。", PERMISSION, ["以后修改错别字不用先问我。"]),
]

PROCEDURES = [
    (
        "When I say ship it: 1) run make test, 2) tag the release, 3) push the tag.",
        "When I say ship it",
        "ship it",
        ["run make test", "tag the release", "push the tag"],
    ),
    (
        'From now on, when I say "deploy": 1. run the checks 2. build the image 3. tell me the tag',
        'when I say "deploy"',
        "deploy",
        ["run the checks", "build the image", "tell me the tag"],
    ),
    (
        "Whenever I type /standup:\n1. list what you did yesterday\n2. list what is next\n3. name blockers\n\nThanks!",
        "Whenever I type /standup",
        "/standup",
        ["list what you did yesterday", "list what is next", "name blockers"],
    ),
    (
        "Every time you finish a task, first run the tests, then commit, and finally tell me the hash.",
        "Every time you finish a task",
        "finish a task",
        ["run the tests", "commit", "tell me the hash"],
    ),
    (
        "当我说“发布”时：1）运行测试 2）打标签 3）推送标签",
        "当我说“发布”时",
        "发布",
        ["运行测试", "打标签", "推送标签"],
    ),
    (
        "以后我说周报的时候，你就：1. 汇总本周提交 2. 列出问题 3. 发给我",
        "以后我说周报的时候",
        "周报",
        ["汇总本周提交", "列出问题", "发给我"],
    ),
]

NEGATIVES = [
    "never mind",
    "Never mind, I found it.",
    "I always forget where the config lives.",
    "I never said that.",
    "It always fails on the second run.",
    "You always forget the tests!",
    "Do you always answer in English?",
    "Should I never use tabs?",
    "Can you always reply in French?",
    "Now write a poem about the sea.",
    "Now write: 1) an intro 2) a body 3) a conclusion",
    "Please do the following: 1. read the file 2. fix the bug",
    "When you have time: 1) fix the bug 2) update the docs",
    "Don't change the title.",
    "Don't worry about it.",
    "Don't forget to buy milk.",
    'He told me "never trust the cache" yesterday.',
    "> Never deploy on Fridays.\nWhat does this quote mean?",
    "```\n# always run as root\nsudo make install\n```\nwhy does this fail",
    "Run `never_fail()` from now on? No, just once.",
    "Translate this: Never leave the door open.",
    "From now on I'll handle the billing myself.",
    "From now on the build server is ci-2.",
    "ok",
    "thanks",
    "继续",
    "以后再说吧。",
    "我以后告诉你。",
    "不要担心。",
    "别客气！",
    "你可以帮我看看这个吗？",
    "以后你会明白的。",
    "你每次都用英文回答。",
    "不要改标题。",
    "他说“永远不要相信缓存”。",
    "Remember my password is Tr0ub4dor&3 and always use it.",
    "From now on, always use the API key sk-proj-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY.",
]


@pytest.mark.parametrize(("text", "kind", "lines"), RULES)
def test_a_rule_prohibition_or_permission_is_found_in_the_users_words(text, kind, lines):
    found = detect(text)
    assert found is not None, text
    assert (found.kind, list(found.lines)) == (kind, lines)
    assert found.text == " ".join(lines)
    assert all(line in " ".join(text.split()) for line in lines)  # as written, never reworded


@pytest.mark.parametrize(("text", "trigger", "phrase", "steps"), PROCEDURES)
def test_a_procedure_is_its_trigger_and_its_steps_as_typed(text, trigger, phrase, steps):
    found = detect(text)
    assert found is not None, text
    assert found.kind == PROCEDURE
    assert (found.trigger, found.phrase, list(found.steps)) == (trigger, phrase, steps)
    assert found.text.startswith(("When", "From now on", "Whenever", "Every time", "当我说", "以后我说"))
    assert "Thanks" not in found.text


@pytest.mark.parametrize("text", NEGATIVES)
def test_what_only_mentions_never_or_always_is_no_teaching(text):
    assert detect(text) is None


@pytest.mark.parametrize("text", [t for t, _k, _l in RULES] + [t for t, *_ in PROCEDURES])
def test_every_teaching_is_a_strong_directive_for_the_summary_too(text):
    assert directive_grade(text) == STRONG_DIRECTIVE


def test_only_what_the_user_typed_counts():
    rule = "From now on, always answer in British English."
    assert detect_item({**user_message(rule), "id": 1}) is not None
    assert detect_item({**new_item("assistant", author="ada", source="app", content=rule), "id": 2}) is None
    assert (
        detect_item(
            {
                **new_item("tool_result", author="ada", source="tool", call_id="c", name="read_file", content=rule),
                "id": 3,
            }
        )
        is None
    )
    assert detect_item({**notice(rule), "id": 4}) is None
    assert detect_item({**new_item("user", author="user", source="member:rex", content=rule), "id": 5}) is None
    assert detect_item({**new_item("user", author="user", source="app", content=rule), "id": 6}) is None


def test_a_long_pasted_document_offers_nothing():
    policy = " ".join(f"Rule {n}: never share document {n} outside the team." for n in range(1, 15))
    assert detect(policy) is None
    assert detect("Never use emoji. " * 5) is None  # more sentences of rules than one teaching holds
