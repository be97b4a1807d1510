"""Versions on a long chat: what edits and regenerations cost the readers that follow the current branch.

A 100k-item session (12-item tail) is copied twice: as it is, and with 40 edits and regenerations in its
uncompressed tail (each a branch marker and a new version, as the runner writes them). Figures: the
chat view's row snapshot (branch ids and version switches, cold: a fresh store builds its index),
``read_after`` of the tail, and ``build_context`` — each with versions against the same session without.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from benchmarks.bench_core import _context_ms
from benchmarks.common import bench_dir, median_ms, setup_env, table

COUNT = 100_000
EDITS = 40


def _with_versions(source: Path, target: Path) -> None:
    """Copy ``source``'s session and summary to ``target``, then branch its tail EDITS times."""
    from okbot.core.items import new_item, user_message
    from okbot.core.session import SessionStore
    from okbot.core.session.branches import marker
    from okbot.core.summary import SummaryStore

    target.mkdir(parents=True, exist_ok=True)
    for name in ("session.jsonl", "session-summary.json"):
        shutil.copyfile(source / name, target / name)
    store = SessionStore(target / "session.jsonl")
    covered = SummaryStore(target / "session-summary.json").load().covered_through_id
    for n in range(EDITS):
        if n % 2:  # regenerate the reply to the newest message
            last_user = next(it for it in reversed(store.read_after(covered)[0]) if it["type"] == "user")
            store.append(marker("regenerate", last_user["id"], "regenerated"))
        else:  # edit the newest message: branch off the item before it
            branch = store.read_after(covered)[0]
            last_user = max(i for i, it in enumerate(branch) if it["type"] == "user")
            parent = branch[last_user - 1]["id"] if last_user else covered
            store.append(marker("edit", parent, "edited"))
            store.append(user_message(f"edited question {n}"))
        store.append(new_item("assistant", author="okbot", source="app", content=f"answer {n}"))


def run() -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-")))
    from benchmarks.synth import write_session
    from okbot.core.session import SessionStore
    from okbot.core.summary import SummaryStore
    from okbot.ui.chat.model import snapshot_ids

    plain = bench_dir() / f"session-{COUNT}"
    write_session(plain, COUNT)
    branched = Path(tempfile.mkdtemp(prefix="okbot-bench-versions-"))
    _with_versions(plain, branched)
    rows = []
    figures = {}
    for label, directory in (("no versions", plain), (f"{EDITS} new versions in the tail", branched)):
        path = directory / "session.jsonl"
        summary = SummaryStore(directory / "session-summary.json").load()
        snap = snapshot_ids(SessionStore(path), summary)
        cold = median_ms(lambda p=path, s=summary: snapshot_ids(SessionStore(p), s), repeat=5, warmup=0)
        store = SessionStore(path)
        store.ensure_index()
        warm = median_ms(lambda st=store, s=summary: snapshot_ids(st, s), repeat=20)
        tail = median_ms(lambda p=path, c=summary.covered_through_id: SessionStore(p).read_after(c), repeat=20)
        ctx, _items, _tokens = _context_ms(directory)
        figures[label] = (cold, warm, tail, ctx)
        rows.append(
            [
                label,
                f"{len(snap.ids):,}",
                str(len(snap.versions)),
                f"{cold:.0f}",
                f"{warm:.1f}",
                f"{tail:.2f}",
                f"{ctx:.3f}",
            ]
        )
    base, with_versions = figures["no versions"], figures[f"{EDITS} new versions in the tail"]
    rows.append(["ratio"] + [""] * 2 + [f"{b / a:.2f}x" for a, b in zip(base, with_versions, strict=True)])
    shutil.rmtree(branched, ignore_errors=True)
    return table(
        f"Versions on a {COUNT:,}-item chat (snapshot: the chat rows; cold = a fresh store scans its index)",
        ["session", "rows", "switches", "snapshot cold ms", "snapshot warm ms", "read_after ms", "build_context ms"],
        rows,
    )


if __name__ == "__main__":
    print(run())
