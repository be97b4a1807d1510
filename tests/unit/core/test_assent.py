"""The as-sent record: content-addressed blocks, per-request lines, comparison with the live projection."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from okbot.core.assent import AsSentStore, compare_blocks
from okbot.core.context import build_context
from okbot.core.items import user_message
from okbot.core.sources import ContextSources
from okbot.core.workspace import Workspace
from okbot.storage.errors import OkBotError


def setup():
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    return target, sources, AsSentStore(target.dir / "as-sent")


def test_record_then_soul_edit_shows_as_changed_block():
    target, sources, store = setup()
    user = sources.session(target).append(user_message("hello"))
    proj = build_context(target, sources=sources)
    request_id = store.record(proj, user_id=user["id"], tools=["search_history"])
    store.record_usage(request_id, {"prompt_tokens": 120}, "complete")
    target.soul_path.write_text("A different persona entirely.", encoding="utf-8")
    st = target.soul_path.stat()  # edits within one mtime tick: move the clock on, as a later edit would
    os.utime(target.soul_path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    live = build_context(target, sources=sources)
    sent = store.for_user_message(user["id"])
    assert sent.usage == {"prompt_tokens": 120} and sent.tools == ["search_history"]
    assert [b["text"] for b in sent.blocks] == [b.text for b in proj.blocks]
    states = dict(compare_blocks(sent, live))
    assert states["soul"] == "changed" and states["role"] == "same"


def test_torn_line_is_skipped_and_does_not_swallow_the_next_record():
    target, sources, store = setup()
    user = sources.session(target).append(user_message("hello"))
    proj = build_context(target, sources=sources)
    store.record(proj, user_id=user["id"], tools=[])
    with open(store.log_path, "ab") as fh:
        fh.write(b'{"id": 99, "ts": "tor')
    second = AsSentStore(store.dir).record(proj, user_id=user["id"], tools=[])
    ids = [r.id for r in AsSentStore(store.dir).requests()]
    assert ids == [1, second] and second == 2


def test_unknown_user_message_has_no_record():
    target, sources, store = setup()
    assert store.for_user_message(12345) is None
    assert store.requests() == []


def test_one_store_per_target_so_a_turn_does_not_reread_the_log():
    target, sources, _ = setup()
    assert sources.as_sent(target) is sources.as_sent(target)
    user = sources.session(target).append(user_message("hello"))
    proj = build_context(target, sources=sources)
    first = sources.as_sent(target).record(proj, user_id=user["id"], tools=[])
    sources.as_sent(target).log_path.write_bytes(b"")  # a fresh store would restart ids from 1
    assert sources.as_sent(target).record(proj, user_id=user["id"], tools=[]) == first + 1


def test_two_stores_on_one_record_never_repeat_a_request_id():
    # the GUI and a CLI run each hold their own store: ids come from the file, under its lock
    target, sources, first = setup()
    second = AsSentStore(first.dir)
    user = sources.session(target).append(user_message("hello"))
    proj = build_context(target, sources=sources)
    ids = [store.record(proj, user_id=user["id"], tools=[]) for store in (first, second, first, second, second)]
    assert ids == [1, 2, 3, 4, 5]
    first.record_usage(3, {"prompt_tokens": 7}, "complete")
    assert [r.id for r in AsSentStore(first.dir).requests()] == [1, 2, 3, 4, 5]
    assert AsSentStore(first.dir).requests()[2].usage == {"prompt_tokens": 7}
    assert second.record(proj, user_id=user["id"], tools=[]) == 6  # a usage line last does not hide the id


REPO = Path(__file__).resolve().parents[3]

_CHILD = textwrap.dedent("""
    import resource, signal, sys, time
    from pathlib import Path
    from okbot.core.assent import AsSentStore
    from okbot.core.context import build_context
    from okbot.storage.errors import OkBotError
    from okbot.core.sources import ContextSources
    from okbot.core.workspace import Workspace

    mode = sys.argv[1]
    workspace = Workspace()
    target = workspace.ensure_default()
    proj = build_context(target, sources=ContextSources(workspace))
    store = AsSentStore(target.dir / "as-sent")
    if mode == "race":
        go, count = Path(sys.argv[2]), int(sys.argv[3])
        print("ready", flush=True)
        while not go.exists():
            time.sleep(0.001)
        for _ in range(count):
            print(store.record(proj, user_id=1, tools=[]), flush=True)
    else:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
        try:
            if mode == "usage":
                store.record_usage(1, {"prompt_tokens": 1, "note": "x" * 5000}, "complete")
            else:
                store.record(proj, user_id=1, tools=[])
        except OkBotError as exc:
            print("refused:", exc)
""")


def _child(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, *map(str, args)],
        cwd=REPO,
        env={**os.environ},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_recording_at_once_get_distinct_ids(tmp_path):
    target, sources, store = setup()
    sources.session(target).append(user_message("hello"))
    go = tmp_path / "go"
    procs = [_child("race", go, 40) for _ in range(2)]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    go.touch()
    returned = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        ids = [int(x) for x in out.split()]
        assert ids == sorted(ids)
        returned += ids
    assert sorted(returned) == list(range(1, 81))  # none repeated, none lost
    assert [r.id for r in store.requests()] == list(range(1, 81))
    assert all(line.startswith(b"{") for line in store.log_path.read_bytes().splitlines())  # no interleaving


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE/EFBIG as on Linux")
@pytest.mark.parametrize("mode", ["request", "usage", "block"])
def test_a_full_disk_while_recording_is_a_clear_error_and_leaves_the_record_as_it_was(mode):
    target, sources, store = setup()
    user = sources.session(target).append(user_message("hello"))
    store.record(build_context(target, sources=sources), user_id=user["id"], tools=[])
    if mode == "block":  # a block text not stored yet, bigger than the disk has room for
        target.soul_path.write_text("A persona that does not fit. " * 400, encoding="utf-8")
    before = store.log_path.read_bytes()
    blocks = sorted(p.name for p in store.blocks_dir.iterdir())
    proc = _child(mode, len(before) + 40)  # room for part of a line: the write fails half way
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err  # no raw OSError
    assert out.startswith("refused: Cannot use "), err
    assert "File too large" in out and "free some space" in out
    assert store.log_path.read_bytes() == before  # no torn line left behind
    after = sorted(p.name for p in store.blocks_dir.iterdir())
    assert set(blocks) <= set(after) and not [name for name in after if name.endswith(".tmp")]
    again = AsSentStore(store.dir).record(build_context(target, sources=sources), user_id=user["id"], tools=[])
    assert again == 2 and [r.id for r in AsSentStore(store.dir).requests()] == [1, 2]


def test_an_unwritable_record_is_a_clear_error(tmp_path):
    target, sources, store = setup()
    user = sources.session(target).append(user_message("hello"))
    proj = build_context(target, sources=sources)
    store.dir.mkdir(parents=True, exist_ok=True)
    store.log_path.mkdir()  # the OS refuses the file (root ignores permissions, so not chmod)
    with pytest.raises(OkBotError, match="Cannot use .*requests.jsonl"):
        store.record(proj, user_id=user["id"], tools=[])
    with pytest.raises(OkBotError, match="Cannot use .*requests.jsonl"):
        store.record_usage(1, None, "error")
