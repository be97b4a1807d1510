"""The benchmarks stay runnable: a short fidelity run through the real runner, compressor and fake server."""

from __future__ import annotations

import re

import pytest

from benchmarks import bench_agentic, bench_fidelity, bench_real, bench_real_zh
from tests.helpers.fake_openai import FakeOpenAIServer
from tests.helpers.fake_summarizer import faithful

pytestmark = pytest.mark.slow  # whole benchmark runs: fidelity, real-model and runaway-reply stress


def test_a_short_fidelity_run_reports_its_figures() -> None:
    text = bench_fidelity.run(40)
    assert "### Fidelity summary" in text
    assert "constraint messages byte-for-byte after each compression (min)" in text and "| 100%" in text


def test_the_real_model_run_works_against_the_fake_server(server: FakeOpenAIServer) -> None:
    """``make bench-real`` drives real chat turns and compress-ahead; here the fake server stands in."""
    server.set_default(faithful)
    text = bench_real.run(server.base_url, "fake-small", turns=24, window=2500)
    assert "### Real-model Summary + Buffer" in text
    assert re.search(r"summaries accepted / model compressions attempted\s*\|\s*([1-9]\d*)/\1 \(100%\)", text)
    assert re.search(r"user constraint messages byte for byte after each compression\s*\|\s*([1-9]\d*)/\1 ", text)


def test_the_real_model_run_compares_background_calls_on_and_off(server: FakeOpenAIServer) -> None:
    """``make bench-real`` runs the chat with OkBot's own calls off, then on as the desktop app runs them."""
    server.set_default(faithful)
    text = bench_real.run_modes(server.base_url, "fake-small", 24, 2500, (False, True), typing=0.05)
    assert "### Background calls on against off" in text
    assert re.search(r"\| off\s*\| 0 of 24\s*\| 0 of 24\s*\| 0 of [1-9]\d*\s*\|", text), text
    assert re.search(r"\| on\s*\| \d+ of 24", text), text
    assert re.search(r"background calls on / off \(goal <= 1\.2x\): median [\d.]+x", text), text
    assert re.search(r"Goals section non-empty after each compression\s*\|\s*([1-9]\d*)/\1\s", text), text


def test_the_agentic_run_reads_every_part_and_scores_what_the_last_request_shows() -> None:
    """``make bench-agentic``: one turn of tool rounds over part files, the fake server acting as the agent."""
    text = bench_agentic.run_fake([4], [8192])
    assert "### Agentic turn: fake, 4 files, window 8,192" in text
    assert re.search(r"tool rounds completed / parts read\s*\|\s*5 / 4 of 4", text), text
    assert re.search(r"requests over the window \(goal 0\)\s*\|\s*\d+ of [1-9]\d*", text), text
    assert re.search(r"user's goal answerable at the end\s*\|\s*yes \(", text), text
    assert re.search(r"FACT numbers answerable at the end \(answer or last request read\)\s*\|\s*12/12", text), text


def test_the_chinese_real_model_run_works_against_the_fake_server(server: FakeOpenAIServer) -> None:
    """``make bench-real``'s Chinese chat; the fake server writes Chinese when it is asked to, as a model does."""
    server.set_default(faithful)
    text = bench_real_zh.run(server.base_url, "fake-small", turns=30, window=2500)
    assert re.search(r"summaries accepted / model compressions\s*\|\s*([1-9]\d*)/\1\s", text), text
    assert re.search(r"summary headings\s*\|\s*zh_CN\s", text), text
    assert re.search(r"user's constraint byte for byte after each compression\s*\|\s*([1-9]\d*)/\1\s", text), text


def test_the_fidelity_run_against_a_reasoning_model_applies_every_compression() -> None:
    """The fake server answers as gpt-5-mini does (max_tokens and temperature 0 refused word for word)."""
    text = bench_fidelity.run(60, window=6000, reasoning=True)
    assert re.search(r"model compressions applied / attempted\s*\|\s*([1-9]\d*)/\1\s", text), text
    assert re.search(r"parameters the server refused \(400s learnt\)\s*\|\s*0\s", text)


def test_the_runaway_reply_stress_counts_what_one_reply_could_make_okbot_write() -> None:
    from benchmarks import stress_runaway

    text = stress_runaway.run(200)
    assert re.search(r"\| complete\s*\|\s*[\d.]+\s*\|\s*83\s*\|\s*40\s*\|\s*40\s*\|\s*1\s*\|", text), text


def test_the_evolution_run_applies_only_grounded_changes_and_keeps_the_prefix() -> None:
    from benchmarks import bench_evolution

    text = bench_evolution.run()
    upkeep_table, prefix_table = text.split("### ")[1:3]
    rows = {line.split("|")[1].strip(): line for line in upkeep_table.splitlines() if line.startswith("| ")}
    for run in ("careful, structured", "careful, lines", "reckless, structured", "reckless, lines"):
        cells = [c.strip() for c in rows[run].split("|")]
        assert cells[6:8] == ["0", "0"], rows[run]  # ungrounded, widened
        assert "style procedure prohibition" in cells[8]
    shares = [line for line in prefix_table.splitlines() if line.startswith("| careful, structured")]
    assert shares and "| 100.0%" in shares[0], shares  # every landing at a compression


def test_the_mcp_benchmark_starts_real_servers_and_compares_with_no_mcp_tools() -> None:
    from benchmarks import bench_mcp

    text = bench_mcp.run()
    assert re.search(r"\| build_context with 10 MCP tools\s*\|\s*[\d.]+\s*\|\s*[\d.]+x", text), text
    assert re.search(r"\| call round trip \(echo\)\s*\|\s*[\d.]+", text), text
