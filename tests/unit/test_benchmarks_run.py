"""The benchmarks stay runnable: a short fidelity run through the real runner, compressor and fake server."""

from __future__ import annotations

from benchmarks import bench_fidelity


def test_a_short_fidelity_run_reports_its_figures() -> None:
    text = bench_fidelity.run(40)
    assert "### Fidelity summary" in text
    assert "constraint messages byte-for-byte after each compression (min)" in text and "| 100%" in text
