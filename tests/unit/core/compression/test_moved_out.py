"""The moved-out section as text: exact ranges, the newest digests within the budget."""

from okbot.core.compression import moved_out
from okbot.core.items import user_message


def items(first, last):
    return [{**user_message(f"message {n} " + "words " * 10), "id": n} for n in range(first, last + 1)]


def test_ranges_merge_across_fallbacks_and_older_digests_go_first():
    first = moved_out.section("", items(1, 10), 0, 10_000)
    assert first.endswith(
        "- items #1–#10 moved out without a summary; a digest of each above (search_history finds the full text)."
    )
    second = moved_out.section(first, items(11, 20), 10, 700)
    assert len(second) <= 700
    marker = second.splitlines()[-1]
    assert marker.startswith("- items #1–#20 moved out without a summary; digests of #")
    shown = [line.split()[1] for line in second.splitlines()[:-1]]
    assert shown and shown[-1] == "#20" and f"digests of {shown[0]}–#20 above" in marker


def test_a_range_after_a_model_summary_stays_apart_and_a_pulled_in_call_adds_nothing():
    earlier = moved_out.section("", items(1, 5), 0, 10_000)
    later = moved_out.section(earlier, [*items(9, 9), *items(21, 24)], 20, 10_000)
    assert later.splitlines()[-1].startswith("- items #1–#5 and #21–#24 moved out")
    assert "#9 " not in later  # id 9 was covered by the model already: no digest outside the ranges
    assert moved_out.section(later, items(9, 9), 24, 10_000) == later


def test_a_tiny_budget_keeps_the_ranges_and_says_so():
    text = moved_out.section("", items(1, 30), 0, 50)
    assert text == "- items #1–#30 moved out without a summary; no room for their digests, search_history finds them."


def test_the_old_marker_format_is_read_back():
    old = "- items #1–#22 moved out without a summary (search_history finds them):\n  - #20 user: hi\n  - #22 user: yo"
    assert moved_out.parse(old) == ([(1, 22)], {20: "#20 user: hi", 22: "#22 user: yo"})
