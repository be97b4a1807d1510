"""The search index over every chat: built, caught up by new bytes only, rebuilt when lost, CJK, odd queries."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import threading

import pytest

from okbot.core.items import encode_item, new_item, user_message
from okbot.core.search import IndexBusy, SearchIndex
from okbot.core.search.index import branch_ranges
from okbot.core.search.text import Term, parse_query, snippet
from okbot.core.session import SessionStore
from okbot.core.session.branches import branch_slices, marker
from okbot.core.workspace import Workspace
from okbot.storage import paths
from okbot.storage.datalock import FileLock


def reply(text: str, author: str = "okbot") -> dict:
    return new_item("assistant", author=author, source="app", content=text)


@pytest.fixture
def chats():
    """Two assistants and a squad, each with a few items."""
    ws = Workspace()
    ada = ws.create_assistant("Ada")
    bob = ws.create_assistant("Bob")
    squad = ws.create_squad("Team", [("Ada", "lead"), ("Bob", "help")])
    stores = {t.id: SessionStore(t.session_path) for t in (ada, bob, squad)}
    stores[ada.id].append(user_message("How does context compression work?"))
    stores[ada.id].append(reply("Older turns are folded into a summary; the tail stays verbatim."))
    stores[bob.id].append(user_message("我们的目标是上下文压缩。"))
    stores[bob.id].append(reply("好的，目标明确。", author="bob"))
    stores[squad.id].append(user_message("Deploy the build after review"))
    stores[squad.id].append(
        new_item(
            "tool_call", author="okbot", source="app", call_id="c1", name="read_file", arguments='{"path": "x.py"}'
        )
    )
    stores[squad.id].append(
        new_item(
            "tool_result", author="okbot", source="tool", call_id="c1", name="read_file", content="def handle(): pass"
        )
    )
    return ws, {"ada": ada, "bob": bob, "squad": squad}, stores


def ids(hits):
    return [(h.target_id, h.item_id) for h in hits]


def test_builds_from_scratch_over_every_chat(chats):
    ws, t, _ = chats
    index = SearchIndex(workspace=ws)
    done = index.catch_up()
    assert done.rebuilt and done.items == 7
    assert index.path == paths.search_index_file() and index.path.exists()
    hits = index.search("compression")
    assert ids(hits) == [("ada", 1)]
    hit = hits[0]
    assert (hit.kind, hit.target_name, hit.type, hit.author) == ("assistant", "Ada", "user", "user")
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["compression"]
    assert ids(index.search("read_file")) == [(t["squad"].id, 2)]  # a tool call's name and arguments
    assert ids(index.search("handle")) == [(t["squad"].id, 3)]


def test_results_newest_first_and_target_filter(chats):
    ws, t, stores = chats
    stores["ada"].append(user_message("the summary again"))
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert ids(index.search("summary")) == [("ada", 3), ("ada", 2)]
    assert ids(index.search("summary", limit=1)) == [("ada", 3)]
    assert ids(index.search("目标", target="bob")) == [("bob", 2), ("bob", 1)]
    assert index.search("目标", target="ada") == []
    assert index.search("目标", target="nobody") == []


def test_catch_up_reads_only_new_items(chats):
    ws, _, stores = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    for i in range(200):
        stores["ada"].append(user_message(f"filler {i}"))
    index.catch_up()
    before = index.parsed
    stores["ada"].append(user_message("a brand new zebra"))
    assert index.catch_up().items == 1
    assert index.parsed - before == 1  # one line parsed, not the 200 before it
    assert ids(index.search("zebra")) == [("ada", 203)]
    assert index.catch_up().items == 0 and index.parsed - before == 1


def test_catch_up_session_indexes_one_file(chats):
    ws, t, stores = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert index.catch_up_session(t["ada"].session_path) == 0
    stores["ada"].append(user_message("walrus"))
    assert index.catch_up_session(t["ada"].session_path) == 1
    assert ids(index.search("walrus")) == [("ada", 3)]
    carl = ws.create_assistant("Carl")
    SessionStore(carl.session_path).append(user_message("walrus too"))
    assert index.catch_up_session(carl.session_path) == 1
    assert ids(index.search("walrus")) == [("carl", 1), ("ada", 3)]


def test_torn_last_line_waits_and_bad_lines_are_skipped(chats):
    ws, t, _ = chats
    path = t["ada"].session_path
    good = encode_item({**user_message("penguin one"), "id": 3})
    late = encode_item({**user_message("penguin late"), "id": 5})
    with open(path, "ab") as fh:
        fh.write(b"{not json\n" + good + b'{"id": 4, "type": "nonsense"}\n' + late[:20])
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert ids(index.search("penguin")) == [("ada", 3)]
    with open(path, "ab") as fh:  # the writer finishes the line
        fh.write(late[20:])
    assert index.catch_up().items == 1
    assert ids(index.search("penguin")) == [("ada", 5), ("ada", 3)]


def test_deleted_or_corrupt_index_is_rebuilt(chats):
    ws, _, _ = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    index.close()
    for suffix in ("", "-wal", "-shm"):
        (index.path.parent / (index.path.name + suffix)).unlink(missing_ok=True)
    assert index.catch_up().rebuilt
    assert ids(index.search("compression")) == [("ada", 1)]
    index.close()
    for suffix in ("-wal", "-shm"):
        (index.path.parent / (index.path.name + suffix)).unlink(missing_ok=True)
    index.path.write_bytes(b"this is not a database at all" * 200)
    fresh = SearchIndex(workspace=ws)
    assert fresh.catch_up().rebuilt
    assert ids(fresh.search("compression")) == [("ada", 1)]


def test_index_of_another_schema_version_is_rebuilt(chats):
    ws, _, _ = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    index._conn().execute("UPDATE meta SET value='0' WHERE key='schema'")
    index.close()
    again = SearchIndex(workspace=ws)
    assert again.catch_up().rebuilt
    assert ids(again.search("compression")) == [("ada", 1)]


def test_replaced_session_is_indexed_again(chats, tmp_path):
    ws, t, stores = chats
    path = t["ada"].session_path
    index = SearchIndex(workspace=ws)
    index.catch_up()
    shutil.copy(path, tmp_path / "backup.jsonl")
    stores["ada"].append(user_message("ostrich"))
    index.catch_up()
    assert ids(index.search("ostrich")) == [("ada", 3)]
    os.replace(tmp_path / "backup.jsonl", path)  # restored: another file, shorter
    SessionStore(path).append(user_message("emu"))
    index.catch_up()
    assert index.search("ostrich") == []
    assert ids(index.search("emu")) == [("ada", 3)]
    assert ids(index.search("compression")) == [("ada", 1)]  # once, not twice


def test_rewritten_session_of_the_same_size_is_noticed(chats):
    ws, t, _ = chats
    path = t["ada"].session_path
    index = SearchIndex(workspace=ws)
    index.catch_up()
    data = path.read_bytes().replace(b"compression", b"decompressor")
    with open(path, "r+b") as fh:  # same inode, same size, then one more line
        fh.write(data)
    SessionStore(path).append(user_message("kiwi"))
    index.catch_up()
    assert index.search("compression") == []
    assert ids(index.search("decompressor")) == [("ada", 1)]


def test_removed_target_leaves_the_results(chats):
    ws, t, _ = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    shutil.rmtree(t["ada"].dir)
    index.catch_up()
    assert index.search("compression") == []


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '""',
        "*",
        "AND",
        "OR NOT",
        "(",
        ")",
        "a AND (b OR",
        'NEAR("x" "y")',
        "col:value",
        "^start",
        "-x",
        "'",
        "{body}",
        "tag:s1",
        "!@#$%",
        "\\",
        "x*y",
        '"unclosed phrase',
        "***prefix",
        "a + b",
    ],
)
def test_fts_syntax_never_raises(chats, query):
    ws, _, _ = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert isinstance(index.search(query), list)


def test_words_phrases_and_prefixes(chats):
    ws, _, _ = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert ids(index.search("COMPRESSION context")) == [("ada", 1)]
    assert ids(index.search('"context compression"')) == [("ada", 1)]
    assert index.search('"compression context"') == []
    assert index.search("compress") == []  # a whole word...
    assert ids(index.search("compress*")) == [("ada", 1)]  # ...or a prefix
    assert ids(index.search("verbatim.")) == [("ada", 2)]
    assert index.search("AND") == []  # a word, not an operator
    assert index.search("   ") == []


def test_chinese_substrings(chats):
    ws, _, _ = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert ids(index.search("上下文压缩")) == [("bob", 1)]
    assert ids(index.search("下文压")) == [("bob", 1)]
    assert ids(index.search("目标")) == [("bob", 2), ("bob", 1)]
    assert ids(index.search("缩")) == [("bob", 1)]  # one character, at a run's end
    assert ids(index.search("压")) == [("bob", 1)]  # one character, inside a run
    assert index.search("目的") == []
    hit = index.search("上下文压缩")[0]
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["上下文压缩"]


def test_mixed_scripts(chats):
    ws, t, stores = chats
    stores["ada"].append(user_message("用GPT模型写代码"))
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert ids(index.search("GPT模型")) == [("ada", 3)]
    assert ids(index.search("用GPT")) == [("ada", 3)]
    assert ids(index.search("gpt")) == [("ada", 3)]


def test_replaced_versions_are_marked(chats):
    ws, _, stores = chats
    store = stores["ada"]
    store.append(marker("regenerate", 1, "regenerated"))  # 3: a new version of reply 2
    store.append(reply("A second summary answer"))  # 4
    index = SearchIndex(workspace=ws)
    index.catch_up()
    hits = {h.item_id: h.replaced for h in index.search("summary")}
    assert hits == {4: False, 2: True}
    assert [h.replaced for h in index.search("compression")] == [False]


def test_branch_ranges():
    assert branch_ranges(10, {}) == [(0, 10)]
    assert branch_ranges(10, {6: 2}) == [(6, 10), (0, 2)]
    assert branch_ranges(10, {6: 2, 8: 7}) == [(8, 10), (6, 7), (0, 2)]


def test_snippet_is_cut_around_the_match_on_one_line():
    text = "start " + "filler words here\n" * 30 + "the Zébra line " + "tail " * 50
    shown, spans = snippet(text, parse_query("zebra"))
    assert shown.startswith("…") and shown.endswith("…") and "\n" not in shown
    assert [shown[a:b] for a, b in spans] == ["Zébra"]
    assert len(shown) <= 200
    assert snippet("nothing here", [Term("zebra")]) == ("nothing here", ())


def test_another_writer_process_makes_catch_up_wait_not_duplicate(chats):
    ws, t, stores = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    other = FileLock(index.path.with_name(index.path.name + ".lock"))  # as another process would hold it
    assert other.acquire(blocking=False)
    try:
        stores["ada"].append(user_message("heron"))
        with pytest.raises(IndexBusy):
            index.catch_up()
        assert index.catch_up_session(t["ada"].session_path) == 0
        assert ids(index.search("compression")) == [("ada", 1)]  # searching still works
    finally:
        other.release()
    assert index.catch_up().items == 1
    assert ids(index.search("heron")) == [("ada", 3)]


def test_dead_rows_past_a_third_rebuild_the_index(chats):
    ws, t, stores = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    shutil.rmtree(t["squad"].dir)  # 3 of 7 rows die
    assert not index.catch_up().rebuilt
    assert index.catch_up().rebuilt  # the next catch-up builds it again, without them
    assert index._conn().execute("SELECT max(rowid) FROM docs").fetchone()[0] == 4


def test_prefix_of_many_words_and_of_few(chats):
    ws, _, stores = chats
    stores["ada"].append(user_message(" ".join(f"zq{i}x" for i in range(100))))  # 100 words starting zq
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert ids(index.search("zq*")) == [("ada", 3)]  # more than are expanded: FTS5's own prefix query
    assert ids(index.search("zq42*")) == [("ada", 3)]  # expanded to the one word
    assert index.search("zqq*") == []  # no such word
    assert ids(index.search("Zébra* zq1x")) == [] and ids(index.search("ZQ1*")) == [("ada", 3)]


def test_searching_before_the_first_build_finds_nothing_and_builds_nothing(chats):
    ws, _, _ = chats
    index = SearchIndex(workspace=ws)
    assert index.search("compression") == []
    assert index.catch_up().rebuilt
    assert ids(index.search("compression")) == [("ada", 1)]


def test_readers_on_other_threads_while_one_writes(chats):
    ws, _, stores = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    errors: list[BaseException] = []
    seen: list[int] = []
    done = threading.Event()

    def read() -> None:
        try:
            while not done.is_set():
                seen.append(len(index.search("lemur")))
        except BaseException as exc:  # reported by the assert below
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(2)]
    for thread in readers:
        thread.start()
    for i in range(30):
        stores["ada"].append(user_message(f"lemur {i}"))
        index.catch_up()
    done.set()
    for thread in readers:
        thread.join()
    assert errors == []
    assert len(index.search("lemur")) == 30 and max(seen, default=0) <= 30


def test_a_renamed_target_and_a_moved_data_dir_are_not_indexed_again(chats, tmp_path):
    ws, t, _ = chats
    index = SearchIndex(tmp_path / "index.sqlite", workspace=ws)
    index.catch_up()
    ws.rename("Ada", "Ada Lovelace")
    assert index.catch_up().items == 0
    assert index.search("compression")[0].target_name == "Ada Lovelace"
    index.close()
    moved = tmp_path / "moved"
    shutil.move(str(ws.root), moved)
    again = SearchIndex(tmp_path / "index.sqlite", workspace=Workspace(moved))
    before = again.parsed
    assert again.catch_up().items == 0 and again.parsed == before
    hit = again.search("compression")[0]
    assert hit.snippet == "How does context compression work?"
    relative = os.path.relpath(moved / "assistants" / "ada" / "session.jsonl")
    assert again.catch_up_session(relative) == 0


def test_words_together_come_before_newer_items_holding_them_apart(chats):
    ws, _, stores = chats
    stores["bob"].append(user_message("compression of the context"))  # newer, the words apart
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert ids(index.search("context compression")) == [("ada", 1), ("bob", 3)]
    assert ids(index.search("compression context")) == [("bob", 3), ("ada", 1)]  # neither in that order: newest
    assert ids(index.search("context compression", limit=1)) == [("ada", 1)]


def test_the_index_files_are_private_like_the_records(tmp_path) -> None:
    from okbot.core.items import user_message
    from okbot.core.search import SearchIndex
    from okbot.core.session import SessionStore
    from okbot.core.workspace import Workspace

    ws = Workspace()
    SessionStore(ws.ensure_default().session_path).append(user_message("private words"))
    index = SearchIndex(workspace=ws)
    index.catch_up()
    assert [h.item_id for h in index.search("private")] == [1]
    made = [p for p in index.path.parent.iterdir() if p.name.startswith("search.sqlite")]
    assert made and {oct(p.stat().st_mode & 0o777) for p in made} == {"0o600"}
    index.close()


# ---------------------------------------------------------------- hostile index files (round 3, item 12)
MEMORY_CAP = 1024 * 1024 * 1024  # a search needs ~100 MB of address space; a runaway loop hits this in seconds


def _capped_search(home, *argv: str) -> subprocess.CompletedProcess:
    """``okbot search ...`` in a child limited to MEMORY_CAP of address space."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = {**os.environ, "OKBOT_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "okbot", "search", *argv],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=cap,
        timeout=300,
    )


@pytest.mark.parametrize("forged", [(1, 5), (2, 2), (3, 9), (2, "x")], ids=["forward", "itself", "beyond", "text"])
def test_a_forged_marker_row_cannot_make_search_loop(chats, okbot_home, forged):
    ws, t, stores = chats
    stores["ada"].append(user_message("compression again"))
    index = SearchIndex(workspace=ws)
    index.catch_up()
    sid = index._conn().execute("SELECT sid FROM files WHERE target_id='ada'").fetchone()[0]
    index._conn().execute("INSERT INTO markers VALUES (?,?,?)", (sid, *forged))
    index.close()
    proc = _capped_search(okbot_home, "compression", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [(h["target"], h["itemId"]) for h in json.loads(proc.stdout)] == [("ada", 3), ("ada", 1)]


def test_branch_walks_are_bounded_whatever_the_markers_say():
    assert branch_ranges(5, {3: 4, 2: 2, 4: 9}) == [(0, 5)]
    assert branch_slices([1, 2, 3, 4, 5], {3: 4, 4: 4}) == [(0, 5)]


def _not_a_file(kind: str, where, outside) -> None:
    if kind == "dangling symlink":
        where.symlink_to(outside / "elsewhere.sqlite")
    elif kind == "symlink to a file":
        (outside / "elsewhere.sqlite").write_bytes(b"")
        where.symlink_to(outside / "elsewhere.sqlite")
    elif kind == "folder":
        where.mkdir()
        (where / "keep.txt").write_text("mine")
    else:
        os.mkfifo(where)


@pytest.mark.parametrize("kind", ["dangling symlink", "symlink to a file", "folder", "fifo"])
@pytest.mark.parametrize("name", ["search.sqlite", "search.sqlite-wal", "search.sqlite.lock"])
def test_what_is_not_a_regular_file_at_the_index_is_moved_aside_and_the_index_rebuilt(
    chats, okbot_home, tmp_path, kind, name
):
    outside = tmp_path / "outside"
    outside.mkdir()
    where = paths.search_index_file().with_name(name)
    paths.ensure_private_dir(where.parent)
    _not_a_file(kind, where, outside)
    proc = _capped_search(okbot_home, "compression")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Ada" in proc.stdout
    assert sorted(p.name for p in outside.iterdir()) == (["elsewhere.sqlite"] if kind == "symlink to a file" else [])
    if kind == "symlink to a file":
        assert (outside / "elsewhere.sqlite").read_bytes() == b""
    aside = [p for p in where.parent.iterdir() if p.name.startswith(f"{name}.not-a-file-")]
    assert len(aside) == 1 and proc.stderr.count(aside[0].name) == 1
    if kind == "folder":
        assert (aside[0] / "keep.txt").read_text() == "mine"
    assert paths.search_index_file().is_file() and not paths.search_index_file().is_symlink()
    again = _capped_search(okbot_home, "compression")
    assert again.returncode == 0 and "Ada" in again.stdout and "not-a-file" not in again.stderr


@pytest.mark.parametrize("kind", ["symlink to a folder", "dangling symlink", "file"])
def test_an_index_folder_that_is_not_a_folder_is_moved_aside_and_the_index_rebuilt(chats, okbot_home, tmp_path, kind):
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = paths.search_index_file().parent
    if kind == "file":
        folder.write_text("mine")
    else:
        folder.symlink_to(outside if kind == "symlink to a folder" else outside / "gone")
    proc = _capped_search(okbot_home, "compression")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Ada" in proc.stdout
    assert list(outside.iterdir()) == []  # nothing made outside the data dir
    aside = [p for p in folder.parent.iterdir() if p.name.startswith("index.not-a-file-")]
    assert len(aside) == 1 and proc.stderr.count(aside[0].name) == 1
    if kind == "file":
        assert aside[0].read_text() == "mine"
    assert folder.is_dir() and not folder.is_symlink() and paths.search_index_file().is_file()


@pytest.mark.parametrize("dead", ["x", "", "1e999"])
def test_a_forged_count_in_the_index_is_a_damaged_index_built_again(chats, okbot_home, dead):
    ws, t, stores = chats
    index = SearchIndex(workspace=ws)
    index.catch_up()
    index._conn().execute("UPDATE meta SET value=? WHERE key='dead'", (dead,))
    index.close()
    proc = _capped_search(okbot_home, "compression")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Ada" in proc.stdout and "Traceback" not in proc.stderr
