"""search_history: the whole record, covered items included, bounded output."""

from okbot.core.items import new_item, notice, user_message
from okbot.core.search_history import MAX_LIMIT, OUTPUT_CAP_CHARS, search
from okbot.core.session import SessionStore
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.tools import ToolContext
from okbot.core.workspace import Workspace


def make(n=30):
    target = Workspace().ensure_default()
    store = SessionStore(target.session_path)
    for i in range(n):
        store.append(user_message(f"message {i} about {'Banana' if i % 3 == 0 else 'apple'} pie"))
        store.append(new_item("assistant", author="okbot", source="app", content=f"reply {i}"))
    return target, store


def run(target, store, **args):
    return search(args, ToolContext(target=target, session=store))


def test_finds_covered_items_case_insensitively_newest_first():
    target, store = make()
    SummaryStore(target.summary_path).save(SessionSummary(summary="s", covered_through_id=50))
    out = run(target, store, query="banana", limit=3)
    assert out.ok
    ids = [int(line.split()[1][1:]) for line in out.content.splitlines()[1:]]
    assert ids == sorted(ids, reverse=True) and len(ids) == 3
    assert all(store.get(i)["content"].lower().count("banana") for i in ids)


def test_more_matching_terms_rank_first_and_id_range_limits():
    target, store = make()
    store.append(user_message("banana bread recipe"))
    out = run(target, store, query="bread banana")
    assert out.content.splitlines()[1].startswith(f"- #{store.last_id()} ")
    ranged = run(target, store, query="banana", from_id=1, to_id=10)
    ids = [int(line.split()[1][1:]) for line in ranged.content.splitlines()[1:]]
    assert ids and all(1 <= i <= 10 for i in ids)


def test_bounded_output_and_limits():
    target = Workspace().ensure_default()
    store = SessionStore(target.session_path)
    for _ in range(40):
        store.append(user_message("needle " + "x" * 5000))
    out = run(target, store, query="needle", limit=999)
    assert len(out.content) <= OUTPUT_CAP_CHARS + 200
    assert len(out.content.splitlines()) <= MAX_LIMIT + 2


def test_bad_arguments_and_no_match_and_notices_skipped():
    target, store = make(3)
    store.append(notice("quarantined a line with banana"))
    assert not run(target, store, query="  ").ok
    assert not run(target, store, query="x", limit="many").ok
    assert "No items" in run(target, store, query="zebra").content
    assert f"#{store.last_id()}" not in run(target, store, query="banana").content


def test_searches_do_not_find_themselves():
    target, store = make(3)
    store.append(
        new_item(
            "tool_call",
            author="okbot",
            source="app",
            call_id="c9",
            name="search_history",
            arguments='{"query": "banana"}',
        )
    )
    out = run(target, store, query="banana")
    assert f"#{store.last_id()}" not in out.content and "#1 " in out.content
