"""The record's squad vocabulary: member sources, delegation tool names, the app's notes."""

from __future__ import annotations

from okbot.core.items import (
    asked_member,
    delegation_tool_name,
    is_delegation,
    is_member_answer,
    member_of,
    member_source,
    new_item,
    split_app_note,
    with_app_note,
)


def test_a_member_source_reads_back_as_that_member() -> None:
    said = new_item("assistant", author="rex", source=member_source("rex"), content="hi")
    assert said["source"] == "member:rex" and member_of(said) == "rex"
    assert member_of({"source": "user"}) == member_of({"source": "tool"}) == member_of({}) == ""
    assert member_of({"source": "member:"}) == ""  # no id: nobody


def test_a_member_answer_is_a_tool_result_from_a_member() -> None:
    answer = new_item(
        "tool_result", author="rex", source=member_source("rex"), call_id="c1", name="ask_rex", content="done"
    )
    assert is_member_answer(answer)
    assert not is_member_answer({**answer, "type": "assistant"})  # said to the user directly
    assert not is_member_answer({**answer, "source": "tool"})  # a tool's result


def test_delegation_tool_names_read_back() -> None:
    assert delegation_tool_name("rex") == "ask_rex" and asked_member("ask_rex") == "rex"
    assert delegation_tool_name("a.b c") == "ask_a_b_c" and len(delegation_tool_name("x" * 100)) == 64
    assert asked_member("read_file") == asked_member("ask_") == ""
    call = {"type": "tool_call", "name": "ask_rex", "call_id": "c1", "arguments": "{}"}
    assert is_delegation(call) and is_delegation({**call, "type": "tool_result"})
    assert not is_delegation({**call, "name": "ask_"}) and not is_delegation({**call, "type": "assistant"})


def test_the_apps_note_on_an_answer_splits_back_off() -> None:
    assert with_app_note("half an answer", "Rex was stopped by the user") == (
        "half an answer\n\n[app note: Rex was stopped by the user]"
    )
    assert split_app_note(with_app_note("half an answer", "Rex was stopped by the user")) == (
        "half an answer",
        "Rex was stopped by the user",
    )
    assert split_app_note(with_app_note("", "Rex returned no answer")) == ("", "Rex returned no answer")
    assert split_app_note("plain [text]") == ("plain [text]", "")
