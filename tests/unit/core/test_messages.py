from okbot.core.items import new_item
from okbot.core.messages import INTERRUPTED_MARK, MISSING_RESULT, items_to_messages


def _item(kind, i, **fields):
    item = new_item(
        kind, author="user" if kind == "user" else "ada", source="user" if kind == "user" else "app", **fields
    )
    item["id"] = i
    return item


def test_text_then_calls_then_results_make_one_assistant_message():
    msgs = items_to_messages(
        [
            _item("user", 1, content="look"),
            _item("assistant", 2, content="Let me check."),
            _item("tool_call", 3, call_id="c1", name="search_history", arguments='{"query":"x"}'),
            _item("tool_call", 4, call_id="c2", name="search_history", arguments='{"query":"y"}'),
            _item("tool_result", 5, call_id="c1", name="search_history", content="r1", ok=True),
            _item("tool_result", 6, call_id="c2", name="search_history", content="r2", ok=True),
            _item("assistant", 7, content="Done."),
        ]
    )
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "tool", "assistant"]
    assert msgs[1]["content"] == "Let me check."
    assert [c["id"] for c in msgs[1]["tool_calls"]] == ["c1", "c2"]
    assert msgs[2] == {"role": "tool", "tool_call_id": "c1", "content": "r1"}


def test_call_without_result_gets_an_app_written_result():
    msgs = items_to_messages(
        [
            _item("user", 1, content="go"),
            _item("tool_call", 2, call_id="c1", name="t", arguments="{}"),
            _item("user", 3, content="hello?"),
        ]
    )
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "user"]
    assert msgs[2]["content"] == MISSING_RESULT


def test_result_without_call_is_dropped_and_notices_are_not_sent():
    msgs = items_to_messages(
        [
            _item("tool_result", 1, call_id="zz", name="t", content="orphan", ok=True),
            _item("notice", 2, content="quarantined a line"),
            _item("user", 3, content="hi"),
        ]
    )
    assert msgs == [{"role": "user", "content": "hi"}]


def test_interrupted_reply_is_marked_for_the_model():
    msgs = items_to_messages([_item("assistant", 1, content="Partial", status="interrupted")])
    assert msgs[0]["content"].startswith("Partial") and INTERRUPTED_MARK in msgs[0]["content"]
