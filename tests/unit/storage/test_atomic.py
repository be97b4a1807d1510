"""Atomic replacement: old or new, never a mix; temp files a killed writer left behind are swept."""

from __future__ import annotations

import os
import time

from okbot.storage.atomic import STALE_TEMP_SECONDS, atomic_write_bytes


def test_replace_keeps_a_backup_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "deep" / "er" / "settings.json"
    atomic_write_bytes(target, b"one")
    atomic_write_bytes(target, b"two", backup=True)
    assert target.read_bytes() == b"two" and target.with_name("settings.json.bak").read_bytes() == b"one"
    assert sorted(p.name for p in target.parent.iterdir()) == ["settings.json", "settings.json.bak"]


def test_stale_temps_of_a_killed_writer_are_swept_fresh_ones_are_not(tmp_path):
    target = tmp_path / "session-summary.json"
    stale = tmp_path / ".session-summary.json.abc123.tmp"
    fresh = tmp_path / ".session-summary.json.def456.tmp"  # another writer, right now
    other = tmp_path / ".settings.json.xyz.tmp"  # a different file's temp is not ours to judge
    for p in (stale, fresh, other):
        p.write_bytes(b"half")
    old = time.time() - STALE_TEMP_SECONDS - 5
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    atomic_write_bytes(target, b"{}")
    assert not stale.exists() and fresh.exists() and other.exists()
