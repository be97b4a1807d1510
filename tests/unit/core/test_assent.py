"""The as-sent record: content-addressed blocks, per-request lines, comparison with the live projection."""

import os

from okbot.core.assent import AsSentStore, compare_blocks
from okbot.core.context import build_context
from okbot.core.items import user_message
from okbot.core.sources import ContextSources
from okbot.core.workspace import Workspace


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
