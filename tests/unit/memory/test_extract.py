"""Checking the extractor's answer: only grounded, cited, secret-free memories get through."""

from __future__ import annotations

import json

from okbot.core.memory.extract import build_messages, looks_secret, parse_answer

ITEMS = [
    {"id": 12, "type": "user", "source": "user", "content": "I'm Dana, I deploy with Ansible to port 8443."},
    {"id": 13, "type": "assistant", "content": "Noted: Ansible, port 8443."},
    {"id": 14, "type": "user", "source": "user", "content": "Please keep answers short, I read them on my phone."},
]


def answer(memories: list, confirm: list | None = None, retire: list | None = None) -> str:
    return json.dumps({"memories": memories, "confirm": confirm or [], "retire": retire or []})


def test_a_grounded_cited_memory_is_accepted_with_its_sources_and_scope() -> None:
    text = answer([{"text": "Dana deploys with Ansible to port 8443.", "from": [12, 13], "scope": "user"}])
    result = parse_answer(text, ITEMS, [])
    assert [(c.text, c.sources, c.scope) for c in result.candidates] == [
        ("Dana deploys with Ansible to port 8443.", (12, 13), "user")
    ]
    assert result.rejected == [] and not result.problem


def test_citing_ids_it_was_not_given_is_refused() -> None:
    result = parse_answer(answer([{"text": "The user likes short answers.", "from": [14, 99]}]), ITEMS, [])
    assert result.candidates == []
    assert "99" in result.rejected[0][1]


def test_an_invented_number_or_name_is_refused() -> None:
    memories = [
        {"text": "The user deploys to port 8080.", "from": [12]},
        {"text": "The user deploys with Terraform.", "from": [12]},
        {"text": "The user prefers short answers.", "from": []},
    ]
    result = parse_answer(answer(memories), ITEMS, [])
    assert result.candidates == []
    reasons = [reason for _, reason in result.rejected]
    assert "8080" in reasons[0] and "Terraform" in reasons[1] and "cites no item ids" in reasons[2]


def test_a_reference_must_be_in_the_cited_items_not_just_somewhere() -> None:
    result = parse_answer(answer([{"text": "The user reads on a phone; port 8443.", "from": [14]}]), ITEMS, [])
    assert result.candidates == [] and "8443" in result.rejected[0][1]


def test_secrets_are_never_extracted() -> None:
    said = "my key is sk-abcdefghijklmnop1234 and password hunter2"
    items = [{"id": 1, "type": "user", "source": "user", "content": said}]
    memories = [{"text": "The user's key is sk-abcdefghijklmnop1234.", "from": [1]},
                {"text": "The user's password is hunter2.", "from": [1]}]
    result = parse_answer(answer(memories), items, [])
    assert result.candidates == [] and all(r == "looks like a secret" for _, r in result.rejected)
    assert looks_secret("token ghp_0123456789abcdefABCDEF") and not looks_secret("The user prefers tabs.")


def test_junk_answers_give_a_problem_and_nothing_else() -> None:
    for junk in ["", "Sure! Here are the memories:", "{not json", "[1, 2]", '{"memories": "lots"}', "[" * 100_000]:
        result = parse_answer(junk, ITEMS, [])
        assert result.empty, junk[:20]
    assert parse_answer("Sure!", ITEMS, []).problem.startswith("the answer is not a JSON object")


def test_fenced_json_and_string_ids_are_read() -> None:
    body = answer([{"text": "The user reads answers on a phone.", "from": ["#14"]}])
    result = parse_answer(f"Here you go:\n```json\n{body}\n```", ITEMS, [])
    assert [c.sources for c in result.candidates] == [(14,)]


def test_confirm_and_retire_only_name_known_entries_and_retire_needs_evidence() -> None:
    text = answer([], confirm=["m-00000001", "m-unknown"],
                  retire=[{"id": "m-00000002", "from": [14], "why": "now wants short answers"},
                          {"id": "m-00000003", "from": [], "why": "no reason"},
                          {"id": "m-nothere", "from": [14]}])
    result = parse_answer(text, ITEMS, ["m-00000001", "m-00000002", "m-00000003"])
    assert result.confirm == ["m-00000001"]
    assert result.retire == [("m-00000002", "now wants short answers")]
    assert ("retire m-00000003", "no valid item ids cited") in result.rejected


def test_expiry_is_kept_only_when_it_is_a_sane_number_of_days() -> None:
    memories = [{"text": "The user reads answers on a phone.", "from": [14], "expires_in_days": d}
                for d in (14, 0, -3, "7", True, 10**9)]
    result = parse_answer(answer(memories), ITEMS, [])
    assert [c.expires_in_days for c in result.candidates] == [14, None, None, None, None, None]


def test_the_request_shows_items_with_ids_known_entries_and_agreements() -> None:
    messages = build_messages(ITEMS, [("m-00000001", "The user is Dana.")], "- reply in English", explicit=True)
    user = messages[1]["content"]
    assert "[#12 user] I'm Dana" in user and "[m-00000001] The user is Dana." in user
    assert "- reply in English" in user and "explicitly asked to remember" in user


def test_a_memory_the_cited_items_do_not_say_is_refused() -> None:
    items = [{"id": 5, "type": "user", "source": "user", "content": "My API key is secret, can you keep it?"}]
    claim = [{"text": "The user prefers answers in metric units, always.", "from": [5]}]
    result = parse_answer(answer(claim), items, [])
    assert result.candidates == [] and result.rejected[0][1] == "the cited items do not say this"
    # inflections still count as said: "deploys" is in "I deploy"
    said = parse_answer(answer([{"text": "The user deploys with Ansible.", "from": [12]}]), ITEMS, [])
    assert [c.text for c in said.candidates] == ["The user deploys with Ansible."]
