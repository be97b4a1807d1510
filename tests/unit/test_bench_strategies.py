"""``make bench-strategies`` stays runnable and scores what it claims: a small run of every strategy and scenario
against the fake server (the figures come from the real model; this is the harness)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from benchmarks import bench_strategies as bench
from benchmarks.strategy_scenarios import CONSTRAINT, SCENARIOS

pytestmark = pytest.mark.slow  # whole conversations through five strategies

SMALL = {"queue": 22, "detour": 22, "chinese": 22, "tool": 6, "squad": 20}


@pytest.fixture(scope="module")
def runs() -> list[bench.Run]:
    cfg = bench.Config(window=3072, seeds=1, turns=SMALL)
    return bench.play(cfg, bench.STRATEGIES, list(SCENARIOS))


def test_every_strategy_plays_every_scenario_without_a_refused_request(runs: list[bench.Run]) -> None:
    assert sorted((r.strategy, r.scenario) for r in runs) == sorted(
        (s, sc) for s in bench.STRATEGIES for sc in SCENARIOS
    )
    for run in runs:
        assert not run.error, (run.strategy, run.scenario, run.error)
        assert run.refused == 0, (run.strategy, run.scenario)  # every strategy fits the window it was given
        assert run.compressions >= 1, (run.strategy, run.scenario)  # the small sizes still overflow 3k


def test_the_json_has_one_object_per_strategy_scenario_and_probe(runs: list[bench.Run]) -> None:
    objects = bench.as_json(runs)
    probes = [o for o in objects if "probe" in o]
    for o in probes:
        assert set(o) >= {"strategy", "scenario", "probe", "score", "runs"}
        assert 0.0 <= o["score"] <= 1.0 and len(o["runs"]) == 1
    for scenario in SCENARIOS:
        names = {o["probe"] for o in probes if o["scenario"] == scenario and o["strategy"] == "okbot"}
        assert names and all(
            names == {o["probe"] for o in probes if o["scenario"] == scenario and o["strategy"] == s}
            for s in bench.STRATEGIES
        )
    costs = {(o["strategy"], o["scenario"]): o["cost"][0] for o in objects if "cost" in o}
    assert costs["truncation", "queue"]["summarizer_tokens"] == 0  # truncation never asks for a summary
    assert costs["okbot", "queue"]["summarizer_tokens"] > 0 and costs["rewrite", "queue"]["summarizer_tokens"] > 0
    for cost in costs.values():
        assert 0.0 < cost["prefix_share"] <= 1.0
        assert cost["cached_tokens"] is not None and cost["cached_tokens"] <= cost["chat_prompt_tokens"]


def test_the_probes_tell_a_kept_rule_from_a_lost_one(runs: list[bench.Run]) -> None:
    """Truncation drops the goal and the constraint once the window is full; OkBot keeps the user's rule byte for
    byte in every request after a compression, in English and in Chinese."""
    scores = bench.probe_scores(runs)
    assert scores["truncation", "queue", "goal"]["present"]["max"] < 0.5
    assert scores["truncation", "queue", "goal"]["answered"]["max"] == 0.0
    for scenario in ("queue", "chinese"):
        assert scores["okbot", scenario, "constraint"]["present"]["min"] == 1.0, scenario
        assert scores["okbot", scenario, "constraint"]["answered"]["min"] == 1.0, scenario
    okbot_queue = next(r for r in runs if (r.strategy, r.scenario) == ("okbot", "queue"))
    last = okbot_queue.read()[-1][1]
    assert CONSTRAINT in last.text


def test_the_report_prints_each_table_and_the_plot_is_an_image(runs: list[bench.Run], tmp_path: Path, qapp) -> None:
    cfg = bench.Config(window=3072, seeds=1, turns=SMALL)
    text = bench.report(runs, cfg, bench.STRATEGIES, list(SCENARIOS))
    for scenario in SCENARIOS:
        assert f"### {scenario}: present in the request / answered" in text
    assert "### OkBot against each strategy" in text
    assert "### queue: present in the request / answered (fake model, window 3,072, 1 seed)" in text
    # A loaded set where one scenario was played with more seeds (a real run stopped early) says so per table.
    uneven = runs + [replace(r, seed=2) for r in runs if r.scenario == "queue"]
    assert bench.seeds_played(uneven).startswith("queue 2 seeds, ") and "chinese 1 seed" in bench.seeds_played(uneven)
    assert "window 3,072, 2 seeds)" in bench.report(uneven, cfg, bench.STRATEGIES, ["queue"])
    path = bench.plot(runs, bench.STRATEGIES, tmp_path / "plot.png", "test")
    image = QImage(str(path))
    assert not image.isNull() and image.width() > 500


def test_saved_runs_read_back_and_a_resumed_run_plays_only_what_is_missing(
    runs: list[bench.Run], tmp_path: Path
) -> None:
    path = tmp_path / "runs.jsonl"
    kept = [r for r in runs if r.scenario == "tool"]
    for run in kept:
        bench.save_run(run, path)
    back = bench.load_runs([path])
    assert [(r.strategy, r.seed, r.checkpoints, r.answered, len(r.sent)) for r in back] == [
        (r.strategy, r.seed, r.checkpoints, r.answered, len(r.sent)) for r in kept
    ]
    broken = bench.Run("okbot", "tool", 1, error="SettingError: a run that broke")  # played again
    played: list[bench.Run] = []
    cfg = bench.Config(window=3072, seeds=1, turns=SMALL)
    done = [r for r in back if r.strategy != "okbot"] + [broken]
    again = bench.play(cfg, bench.STRATEGIES, ["tool"], lambda run, _front: played.append(run), done=done)
    assert [r.strategy for r in played] == ["okbot"] and not played[0].error
    assert [r.strategy for r in again] == list(bench.STRATEGIES)
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(SystemExit, match=r"runs.jsonl:6: not a saved run"):
        bench.load_runs([path])
