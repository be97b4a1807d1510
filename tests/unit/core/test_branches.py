"""The branch walk: the store's indexed walk and its backwards readers agree with a plain walk of parents."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from okbot.core.items import user_message
from okbot.core.session import SessionStore
from okbot.core.session.branches import current_branch, marker, versions

# each step: None appends an ordinary item; k appends a marker whose parent is the k-th item so far
steps = st.lists(st.one_of(st.none(), st.integers(min_value=0, max_value=60)), min_size=1, max_size=60)


def plain_walk(rows: list[dict]) -> list[int]:
    parent = {}
    previous = 0
    for row in rows:
        parent[row["id"]] = row.get("parent", previous) if row.get("branch") else previous
        previous = row["id"]
    path, node = [], rows[-1]["id"]
    while node:
        path.append(node)
        node = parent[node]
    return path[::-1]


@settings(max_examples=60, deadline=None)
@given(steps)
def test_every_reader_follows_the_same_branch(tmp_path_factory, plan):
    path = tmp_path_factory.mktemp("branch") / "session.jsonl"
    store = SessionStore(path)
    rows = []
    for step in plan:
        if step is None or not rows:
            rows.append(store.append(user_message(f"m{len(rows)}")))
        else:
            rows.append(store.append(marker("switch", rows[step % len(rows)]["id"], "switch")))
    expected = plain_walk(rows)
    assert list(store.branch_ids()) == expected
    marks = {row["id"] for row in rows if row.get("branch")}
    assert list(store.branch_ids(markers=False)) == [i for i in expected if i not in marks]
    assert [it["id"] for it in current_branch(rows)] == expected
    for after in (0, rows[len(rows) // 2]["id"]):
        want = [i for i in expected if i > after]
        fresh = SessionStore(path)  # backwards reader, no index
        assert [it["id"] for it in fresh.read_after(after)[0]] == want
        assert list(fresh.branch_ids(after)) == want
        assert [it["id"] for it in store.read_after(after)[0]] == want  # indexed reader
    assert [it["id"] for it in SessionStore(path).tail(10)] == [i for i in expected if i > rows[-1]["id"] - 10]


def test_a_message_and_its_edit_are_two_versions_of_one_position():
    rows = [
        {"id": 1, "type": "user", "content": "q1"},
        {"id": 2, "type": "assistant", "content": "a1"},
        {"id": 3, "type": "user", "content": "q2"},
        {"id": 4, "type": "assistant", "content": "a2"},
        {"id": 5, "type": "notice", "content": "edit", "branch": "edit", "parent": 2},
        {"id": 6, "type": "user", "content": "q2b"},
        {"id": 7, "type": "assistant", "content": "a2b"},
        {"id": 8, "type": "notice", "content": "regen", "branch": "regenerate", "parent": 6},
        {"id": 9, "type": "assistant", "content": "a2c"},
    ]
    found = versions(rows)
    assert found[6].ids == (3, 6) and found[6].label() == "2/2"
    assert found[9].ids == (7, 9) and found[9].label() == "2/2"
    assert set(found) == {6, 9}  # q1 and a1 have one version each


def test_a_marker_naming_a_later_item_is_read_as_an_ordinary_notice(tmp_path):
    """Only an outside edit can write one; it must not send the walk in circles."""
    store = SessionStore(tmp_path / "session.jsonl")
    for n in range(3):
        store.append(user_message(f"m{n}"))
    store.append({**marker("switch", 1, "x"), "parent": 99})
    store.append(user_message("last"))
    assert list(store.branch_ids()) == [1, 2, 3, 4, 5]
    assert [it["id"] for it in SessionStore(tmp_path / "session.jsonl").read_after(0)[0]] == [1, 2, 3, 4, 5]
