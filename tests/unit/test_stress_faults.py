"""The provider-fault harness (benchmarks/stress_faults.py) in full: every fault survived."""

from __future__ import annotations

import pytest

from benchmarks import stress_faults

pytestmark = pytest.mark.slow  # the whole harness, a 50 MB reply among its faults


def test_every_listed_provider_fault_is_survived_with_a_clear_message_and_nothing_lost() -> None:
    outcomes = stress_faults.outcomes()
    assert len(outcomes) == 10
    for outcome in outcomes:
        assert outcome.survived, outcome
        assert outcome.status in ("error", "interrupted", "complete")
        if outcome.status != "complete":
            assert outcome.message.endswith((".", ")")) and "sk-" not in outcome.message
    huge = next(o for o in outcomes if o.fault == "50 MB reply")
    assert 2_000_000 < huge.kept_chars < 2_100_000  # stopped at the size guard, kept up to there
