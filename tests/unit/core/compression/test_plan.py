from hypothesis import given, settings
from hypothesis import strategies as st

from okbot.core.compression.plan import choose_keep, next_batch, safe_keep


def items_of(kinds):
    return [{"id": i + 1, "type": k} for i, k in enumerate(kinds)]


def test_keeps_the_max_when_that_is_under_the_threshold():
    items = items_of(["user", "assistant"] * 20)
    keep = choose_keep(items, [10] * 40, fixed_tokens=100, threshold=1000, limit=2000, keep_min=8, keep_max=12)
    assert keep == 12


def test_keeps_fewer_only_to_get_under_the_threshold():
    items = items_of(["user", "assistant"] * 20)
    keep = choose_keep(items, [100] * 40, fixed_tokens=100, threshold=1050, limit=5000, keep_min=8, keep_max=12)
    assert keep == 9  # 100 + 9*100 = 1000 < 1050


def test_keeps_min_when_over_threshold_but_it_fits_the_window():
    items = items_of(["user", "assistant"] * 20)
    keep = choose_keep(items, [100] * 40, fixed_tokens=100, threshold=300, limit=5000, keep_min=8, keep_max=12)
    assert keep == 8


def test_drops_below_min_only_when_min_does_not_fit_the_window():
    items = items_of(["user", "assistant"] * 20)
    keep = choose_keep(items, [1000] * 40, fixed_tokens=100, threshold=300, limit=3500, keep_min=8, keep_max=12)
    assert keep == 3


def test_a_kept_tail_never_starts_inside_a_tool_exchange():
    items = items_of(["user", "tool_call", "tool_call", "tool_result", "tool_result", "assistant"])
    assert safe_keep(items, 1) == 1
    assert safe_keep(items, 2) == 5  # starting at a result pulls in both calls
    assert safe_keep(items, 4) == 5


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["user", "assistant", "tool_call", "tool_result"]), min_size=1, max_size=60),
    st.integers(1, 5000),
    st.integers(1, 20),
    st.integers(0, 20),
)
def test_property_keep_bounds_and_pairs(kinds, limit, keep_min, extra):
    items = items_of(kinds)
    tokens = [(i * 37) % 300 + 1 for i in range(len(items))]
    keep = choose_keep(
        items, tokens, fixed_tokens=50, threshold=limit // 2, limit=limit, keep_min=keep_min, keep_max=keep_min + extra
    )
    assert 0 <= keep <= len(items)
    if 0 < keep < len(items):
        assert items[len(items) - keep]["type"] != "tool_result"
        assert items[len(items) - keep - 1]["type"] != "tool_call"


def test_next_batch_fits_the_budget_beside_the_base_and_never_parts_a_call_from_its_result():
    items = [
        {"type": "user"},
        {"type": "assistant"},
        {"type": "tool_call"},
        {"type": "tool_result"},
        {"type": "assistant"},
    ]
    cost = {"user": 10, "assistant": 10, "tool_call": 10, "tool_result": 50}
    assert next_batch(items, lambda it: cost[it["type"]], base=100, budget=125) == 2  # 100 + 10 + 10 ≤ 125
    assert next_batch(items, lambda it: cost[it["type"]], base=100, budget=130) == 4  # the call takes its result
    assert next_batch(items, lambda it: cost[it["type"]], base=500, budget=100) == 1  # at least one item
    assert next_batch(items[2:], lambda it: cost[it["type"]], base=500, budget=100) == 2  # … and its result
    assert next_batch(items, lambda it: cost[it["type"]], base=0, budget=10_000) == 5
