"""The crash harness (benchmarks/stress_crash.py): a small real run, and its checks catching what they must."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchmarks import stress_crash as sc
from okbot.config.settings import Settings
from okbot.core import items
from okbot.core.memory.store import MemoryStore
from okbot.core.session import SessionStore
from okbot.core.summary import SessionSummary, SummaryStore

SMALL_KILLS = 15


def _append(store: SessionStore, ledger: sc.Ledger, text: str) -> int:
    stored = store.append(items.user_message(text))
    assert ledger.take(f"A {stored['id']} {sc.digest(text)}") == ""
    return stored["id"]


def _save_summary(directory: Path, version: int) -> None:
    SummaryStore(directory / sc.SUMMARY).save(
        SessionSummary(summary=sc.summary_text(version), health={"stressVersion": version})
    )


# ------------------------------------------------------------------------------------ the real thing, small


@pytest.mark.slow
def test_small_run_survives_every_kill(tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    figs = sc.crash_run(SMALL_KILLS, seed=seed, directory=tmp_path / "data")
    assert figs.problems == [], f"seed {seed}: " + "\n".join(figs.problems)
    assert figs.kills == SMALL_KILLS
    assert figs.lost == 0
    assert figs.acked > 0
    assert figs.summary_checks == figs.memory_checks == figs.settings_checks == SMALL_KILLS
    text = sc.report(figs)
    assert "| items lost" in text and "FAILED" not in text


# ------------------------------------------------------------------------------------ session checks


def test_session_check_passes_for_intact_items(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    store = SessionStore(tmp_path / sc.SESSION)
    for n in range(5):
        _append(store, ledger, f"message {n}")
    assert sc.check_session(tmp_path, ledger, figs) == []
    assert figs.lost == 0


def test_session_check_counts_a_missing_acknowledged_item_as_lost(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    store = SessionStore(tmp_path / sc.SESSION)
    ids = [_append(store, ledger, f"message {n}") for n in range(3)]
    path = tmp_path / sc.SESSION
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[2])  # the middle item vanishes
    problems = sc.check_session(tmp_path, ledger, figs)
    assert figs.lost == 1
    assert any(str([ids[1]]) in p for p in problems)


def test_session_check_reports_changed_content(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    store = SessionStore(tmp_path / sc.SESSION)
    item_id = _append(store, ledger, "original")
    path = tmp_path / sc.SESSION
    path.write_bytes(path.read_bytes().replace(b"original", b"tampered"))
    problems = sc.check_session(tmp_path, ledger, figs)
    assert problems == [f"item {item_id} is present but its content changed"]


def test_torn_tail_is_quarantined_byte_for_byte_and_appends_work_again(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    store = SessionStore(tmp_path / sc.SESSION)
    ids = [_append(store, ledger, f"message {n} é✓") for n in range(3)]
    path = tmp_path / sc.SESSION
    whole = items.encode_item({"id": ids[-1] + 1, **items.user_message("cut off by a kill ✓✓✓")})
    fragment = whole[: len(whole) // 2 + 1]  # what a write interrupted by SIGKILL leaves
    with open(path, "ab") as fh:
        fh.write(fragment)
    assert sc._torn_fragment(path) is not None
    assert sc.check_session(tmp_path, ledger, figs) == []
    assert figs.torn_quarantined == 1 and figs.lost == 0
    assert path.read_bytes().endswith(b"\n")
    assert fragment in sc._quarantined(tmp_path / sc.QUARANTINE).values()
    new_id = _append(SessionStore(path), ledger, "after the repair")
    assert new_id > ids[-1]
    assert sc.check_session(tmp_path, ledger, figs) == []
    assert figs.torn_quarantined == 1  # counted once


def test_ledger_refuses_a_reused_id() -> None:
    ledger = sc.Ledger()
    assert ledger.take("A 7 0011223344556677") == ""
    assert "reused" in ledger.take("A 7 8899aabbccddeeff")


# ------------------------------------------------------------------------------------ summary checks


def test_summary_check_accepts_the_acknowledged_or_the_in_flight_version(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    assert sc.check_summary(tmp_path, ledger, figs) == []  # no file yet: version 0
    _save_summary(tmp_path, 1)
    ledger.take("S? 1")
    ledger.take("S 1")
    ledger.take("S? 2")  # killed before the save began
    assert sc.check_summary(tmp_path, ledger, figs) == []
    ledger.take("S? 2")
    _save_summary(tmp_path, 2)  # killed after the save, before the ack
    assert sc.check_summary(tmp_path, ledger, figs) == []
    assert ledger.summary == 2 and figs.summary_new_on_kill == 1


def test_summary_check_rejects_a_rollback_and_a_damaged_file(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    _save_summary(tmp_path, 1)
    _save_summary(tmp_path, 2)
    ledger.take("S 3")  # acknowledged, but not on disk
    assert "version 2" in sc.check_summary(tmp_path, ledger, figs)[0]
    (tmp_path / sc.SUMMARY).write_text('{"version": 1, "summ', encoding="utf-8")
    ledger = sc.Ledger(summary=2)
    assert "did not load cleanly" in sc.check_summary(tmp_path, ledger, figs)[0]


# ------------------------------------------------------------------------------------ memory checks


def test_memory_check_finds_a_lost_memory_and_adopts_the_in_flight_one(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    store = MemoryStore(tmp_path / sc.MEMORY_DIR, "global")
    kept = store.add(sc.memory_text("1-0"))
    ledger.take(f"M {kept.id} 1-0")
    ledger.take("M? 1-1")
    landed = store.add(sc.memory_text("1-1"))  # written, then killed before the ack
    assert sc.check_memory(tmp_path, ledger, figs) == []
    assert ledger.memories[landed.id] == "1-1"
    store.delete(kept.id)
    problems = sc.check_memory(tmp_path, ledger, figs)
    assert figs.lost == 1 and kept.id in problems[0]


def test_memory_check_rejects_an_unexpected_entry(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    MemoryStore(tmp_path / sc.MEMORY_DIR, "global").add("nobody acknowledged or started this")
    assert "unexpected memories" in sc.check_memory(tmp_path, ledger, figs)[0]


# ------------------------------------------------------------------------------------ settings checks


def test_settings_check_accepts_acknowledged_and_in_flight_values(tmp_path: Path) -> None:
    ledger, figs = sc.Ledger(), sc.Figures()
    settings = Settings.load(tmp_path / sc.SETTINGS)
    settings.set("tools.maxRounds", 5)
    ledger.take(f"T tools.maxRounds {json.dumps(5)}")
    ledger.take(f"T? memory.maxEntries {json.dumps(7)}")
    settings.set("memory.maxEntries", 7)
    assert sc.check_settings(tmp_path, ledger, figs) == []
    assert ledger.settings["memory.maxEntries"] == 7


@pytest.mark.parametrize("content", [b'{"version": 1, "tools.maxRo', b"", b"\xff\xfe"])
def test_settings_check_rejects_a_damaged_file(tmp_path: Path, content: bytes) -> None:
    (tmp_path / sc.SETTINGS).write_bytes(content)
    problems = sc.check_settings(tmp_path, sc.Ledger(), sc.Figures())
    assert any("settings problem" in p for p in problems)
    assert any("backed up as broken" in p for p in problems)
