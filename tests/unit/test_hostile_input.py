"""Hostile input (issue 9, item 4): fuzzed loaders, huge/NUL/odd messages, deep JSON, odd names, full disk.

The fuzz tests run the harness in ``benchmarks/stress_fuzz.py`` with a small count; ``make stress`` runs
the full 10,000 cases per loader. Every bad input must give a clear :class:`OkBotError` (or a reported
problem) and leave the files as they were.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import stress_fuzz
from okbot.config.settings import Settings
from okbot.core.items import user_message
from okbot.core.memory.store import MemoryStore
from okbot.core.session import SessionStore
from okbot.core.skills import parse_skill
from okbot.core.sources import ContextSources
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import MAX_NAME_CHARS, Workspace
from okbot.storage.errors import OkBotError
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import Reply
from tests.helpers.patience import PATIENT_SECONDS

REPO = Path(__file__).resolve().parents[2]
SMALL = 200
DEEP = 100_000
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _deep_json(depth: int = DEEP) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def _item(item_id: int, text: str) -> bytes:
    return json.dumps({"id": item_id, "type": "user", "content": text}).encode() + b"\n"


# ---------------------------------------------------------------- the fuzzed loaders
@pytest.mark.slow
@pytest.mark.parametrize("loader", stress_fuzz.LOADERS)
def test_fuzzed_loader_never_crashes_and_loses_no_valid_line(loader, tmp_path):
    figures = stress_fuzz.fuzz(loader, SMALL, tmp_path)
    assert figures.cases >= SMALL * 0.9
    assert figures.clean, "\n".join(figures.notes)
    assert figures.good > 0  # the strategies do offer valid records among the hostile ones


def test_harness_run_reports_a_table_per_loader():
    out = stress_fuzz.run(count=5)
    for loader in stress_fuzz.LOADERS:
        assert f"| {loader}" in out
    assert "0 crashes, 0 violations, 0 lost." in out


# ---------------------------------------------------------------- messages through the turn runner
@pytest.fixture
def env(server):
    settings_for(server)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    provider = provider_for(server, max_reply_seconds=PATIENT_SECONDS)
    return target, sources, TurnRunner(sources, provider)


def _records(target) -> list[dict]:
    return list(SessionStore(target.session_path).iter_items())


def test_a_10_mb_paste_is_refused_clearly_and_nothing_is_lost(env, server):
    target, _, runner = env
    server.enqueue(Reply(text="first answer"))
    runner.run(target, Send("keep this"))
    before = target.session_path.read_bytes()
    with pytest.raises(OkBotError) as caught:
        runner.run(target, Send("x" * (10 * 1024 * 1024)))
    assert "characters" in str(caught.value) and caught.value.hint
    assert target.session_path.read_bytes() == before
    assert len(server.chat_requests()) == 1
    server.enqueue(Reply(text="still fine"))
    assert runner.run(target, Send("next")).status == "complete"
    assert [it["content"] for it in _records(target)] == ["keep this", "first answer", "next", "still fine"]


def test_nul_bytes_in_a_message_are_stored_and_sent_unchanged(env, server):
    target, _, runner = env
    text = "before\x00after \x00\x00 end"
    server.enqueue(Reply(text="got \x00 it"))
    result = runner.run(target, Send(text))
    assert result.status == "complete"
    saved = _records(target)
    assert saved[0]["content"] == text and saved[1]["content"] == "got \x00 it"
    assert text in server.chat_requests()[0]["messages"][-1]["content"]


def test_invalid_utf8_in_soul_md_is_reported_the_turn_runs_and_the_file_is_kept(env, server):
    target, sources, runner = env
    raw = b"# Soul\nYou are \xff\xfe careful \xc3( and kind.\x00\n"
    target.soul_path.write_bytes(raw)
    server.enqueue(Reply(text="hello"))
    assert runner.run(target, Send("hi")).status == "complete"
    system = server.chat_requests()[0]["messages"][0]["content"]
    assert "careful" in system and "kind." in system and "\x00" not in system
    _, problem = sources.soul(target)
    assert problem and "not valid UTF-8" in problem and "NUL" in problem
    assert target.soul_path.read_bytes() == raw


# ---------------------------------------------------------------- deeply nested JSON (100k levels)
def test_deeply_nested_session_line_is_quarantined_and_the_others_kept(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(_item(1, "one") + _deep_json() + b"\n" + _item(2, "two"))
    store = SessionStore(path)
    found, _ = store.read_after(0)
    assert [it["content"] for it in found if it["type"] == "user"] == ["one", "two"]
    assert [it["id"] for it in SessionStore(path).iter_items()][:2] == [1, 2]
    assert store.problems and "nested too deeply" in store.quarantine_path.read_text()
    assert path.read_bytes().startswith(_item(1, "one") + _deep_json())


def test_deeply_nested_settings_are_reported_and_backed_up(tmp_path):
    path = tmp_path / "settings.json"
    path.write_bytes(_deep_json())
    settings = Settings.load(path)
    assert settings.problems and settings.get("provider.model") == "gpt-4o-mini"
    assert sum(p.read_bytes() == _deep_json() for p in tmp_path.iterdir()) >= 2  # original + backup


def test_deeply_nested_summary_falls_back_to_its_backup(tmp_path):
    store = SummaryStore(tmp_path / "session-summary.json")
    store.save(SessionSummary(summary="the good one", covered_through_id=4))
    store.backup_path.write_bytes(store.path.read_bytes())
    store.path.write_bytes(_deep_json())
    got = store.load()
    assert got.summary == "the good one" and got.covered_through_id == 4 and store.problems
    assert store.path.read_bytes() == _deep_json()
    alone = SummaryStore(tmp_path / "alone.json")
    alone.path.write_bytes(_deep_json())
    assert alone.load() == SessionSummary() and alone.problems


def test_deeply_nested_memory_line_is_reported_and_the_others_load(tmp_path):
    good = json.dumps({"id": "m-1", "text": "likes tea"}).encode()
    (tmp_path / "memories.jsonl").write_bytes(_deep_json() + b"\n" + good + b"\n")
    store = MemoryStore(tmp_path, "global")
    assert [e.text for e in store.entries()] == ["likes tea"] and store.problems
    store.add("likes cake")
    assert _deep_json() in store.bad_path.read_bytes()
    assert [e.text for e in MemoryStore(tmp_path, "global").entries()] == ["likes tea", "likes cake"]


def test_deeply_nested_assistant_json_is_listed_with_a_problem(tmp_path):
    ws = Workspace(tmp_path)
    target = ws.create_assistant("Deep")
    target.meta_path.write_bytes(_deep_json())
    listed = ws.list()
    assert [t.id for t in listed] == [target.id] and ws.problems
    assert target.meta_path.read_bytes() == _deep_json()


# ---------------------------------------------------------------- odd names
ODD_NAMES = [
    "Zoë 🦊",
    "  spaced   name  ",
    "quote\"s 'and' `ticks`",
    "ملف عربي",
    "名前",
    "a" * MAX_NAME_CHARS,
    "../../etc/passwd",
    "con",
    "NUL.txt",
    "\u200bzero width",
    "back\\slash/and/slash",
    "$(rm -rf ~)",
]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_assistant_names_with_odd_characters_stay_inside_and_round_trip(tmp_path, name):
    ws = Workspace(tmp_path)
    target = ws.create_assistant(name)
    assert target.dir.parent == ws.assistants_root and target.dir.is_dir()
    assert target.id and "/" not in target.id and target.id not in (".", "..")
    assert ws.resolve(name).id == target.id and ws.resolve(name).name == name.strip()
    SessionStore(target.session_path).append(user_message(f"hello from {name}"))
    assert SessionStore(target.session_path).tail(1)[0]["content"] == f"hello from {name}"


@pytest.mark.parametrize("name", ["a" * (MAX_NAME_CHARS + 1), "", "   ", "line\nbreak", "tab\there", 42, None])
def test_bad_assistant_names_are_refused_clearly_and_create_nothing(tmp_path, name):
    ws = Workspace(tmp_path)
    with pytest.raises(OkBotError):
        ws.create_assistant(name)
    assert ws.list() == [] and not any(ws.assistants_root.glob("*")) if ws.assistants_root.exists() else True


@pytest.mark.parametrize("folder", ["my skill ✨", "dé-jà vu", 'quote\'d "one"', "x" * 200, "数据"])
def test_session_and_skill_files_under_odd_folder_names(tmp_path, folder):
    directory = tmp_path / folder
    directory.mkdir()
    store = SessionStore(directory / "session.jsonl")
    assert store.append(user_message("hi"))["id"] == 1
    skill = directory / "SKILL.md"
    skill.write_text(f"---\nname: {folder}\ndescription: does things\n---\nbody\n", encoding="utf-8")
    parsed = parse_skill(skill)
    assert parsed.name == folder
    if "'" not in folder and '"' not in folder:
        assert parsed.problem is None and parsed.description == "does things"


def test_a_file_name_too_long_for_the_file_system_gives_a_clear_error(tmp_path):
    with pytest.raises(OkBotError):
        SessionStore(tmp_path / ("n" * 300 + ".jsonl")).append(user_message("hi"))


# ---------------------------------------------------------------- read-only data dir and a full disk
def _populate(home: Path) -> None:
    ws = Workspace(home)
    target = ws.create_assistant("Keeper")
    session = SessionStore(target.session_path)
    for n in range(3):
        session.append(user_message(f"message {n}"))
    SummaryStore(target.summary_path).save(SessionSummary(summary="so far", covered_through_id=2))
    MemoryStore(target.memory_dir, target.id).add("likes tea")
    Settings.load(home / "settings.json").set("provider.model", "gpt-4o")


def _attempt_writes(home: Path) -> dict[str, str]:
    """Try one write of each kind; the outcome per kind: "ok", "OkBotError: …" or "CRASH …"."""
    ws = Workspace(home)
    target = ws.resolve("Keeper")
    attempts = {
        "session.append": lambda: SessionStore(target.session_path).append(user_message("n" * 20_000)),
        "summary.save": lambda: SummaryStore(target.summary_path).save(SessionSummary(summary="new " * 500)),
        "memory.add": lambda: MemoryStore(target.memory_dir, target.id).add("likes coffee " * 50),
        "settings.set": lambda: Settings.load(home / "settings.json").set("provider.model", "gpt-4.1" * 40),
        "workspace.create": lambda: ws.create_assistant("Newcomer"),
        "workspace.rename": lambda: ws.rename("Keeper", "Keeper renamed " * 3),
    }
    out = {}
    for label, attempt in attempts.items():
        try:
            attempt()
            out[label] = "ok"
        except OkBotError as exc:
            out[label] = f"OkBotError: {exc}"
        except Exception as exc:  # noqa: BLE001 - reported to the parent as a crash
            out[label] = f"CRASH {type(exc).__name__}: {exc}"
    return out


def full_disk_child(home: str, limit: int) -> None:
    """Child process body: cap the file size (writes fail with EFBIG), attempt every write, print outcomes."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    print(json.dumps(_attempt_writes(Path(home))))


def _run_full_disk(home: Path, limit: int) -> dict[str, str]:
    code = (
        "import sys; from tests.unit.test_hostile_input import full_disk_child as child; "
        "child(sys.argv[1], int(sys.argv[2]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(home), str(limit)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OKBOT_HOME": str(home)},
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    changed = [name for name, data in before.items() if after.get(name) != data]
    added = [name for name, data in after.items() if name not in before and data and not name.endswith(".lock")]
    return changed + added


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="RLIMIT_FSIZE/EFBIG on Linux")
def test_a_full_disk_gives_clear_errors_and_leaves_every_file_as_it_was(okbot_home):
    _populate(okbot_home)
    before = _snapshot(okbot_home)
    outcomes = _run_full_disk(okbot_home, limit=1)  # nothing new can be written at all
    outcomes.pop("workspace.create")  # a known bug: see the next test
    crashes = {k: v for k, v in outcomes.items() if not v.startswith("OkBotError")}
    assert not crashes, crashes
    assert _changed(before, _snapshot(okbot_home)) == []
    assert [it["content"] for it in SessionStore(Workspace(okbot_home).resolve("Keeper").session_path).tail(5)] == [
        "message 0",
        "message 1",
        "message 2",
    ]


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="RLIMIT_FSIZE/EFBIG on Linux")
def test_creating_an_assistant_on_a_full_disk_gives_a_clear_error(okbot_home):
    _populate(okbot_home)
    before = _snapshot(okbot_home)
    assert _run_full_disk(okbot_home, limit=1)["workspace.create"].startswith("OkBotError")
    assert _changed(before, _snapshot(okbot_home)) == []


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="RLIMIT_FSIZE/EFBIG on Linux")
def test_a_disk_filling_up_mid_append_leaves_the_session_as_it_was(okbot_home):
    _populate(okbot_home)
    session = Workspace(okbot_home).resolve("Keeper").session_path
    before = session.read_bytes()
    outcomes = _run_full_disk(okbot_home, limit=len(before) + 100)  # room for part of the 20 KB line
    assert outcomes["session.append"].startswith("OkBotError")
    assert session.read_bytes() == before


@pytest.mark.skipif(ROOT, reason="root ignores file permissions")
def test_a_read_only_data_dir_gives_clear_errors_and_changes_nothing(okbot_home):
    _populate(okbot_home)
    before = _snapshot(okbot_home)
    dirs = [okbot_home, *[p for p in okbot_home.rglob("*") if p.is_dir()]]
    files = [p for p in okbot_home.rglob("*") if p.is_file()]
    for path in files:
        path.chmod(0o400)
    for path in dirs:
        path.chmod(0o500)
    try:
        outcomes = _attempt_writes(okbot_home)
    finally:
        for path in dirs:
            path.chmod(0o700)
        for path in files:
            path.chmod(0o600)
    assert all(v.startswith("OkBotError") for v in outcomes.values()), outcomes
    assert _changed(before, _snapshot(okbot_home)) == []


# ---------------------------------------------------------------- lone surrogates (known bugs)


def test_a_lone_surrogate_in_a_message_is_stored_as_a_replacement_character(tmp_path):
    store = SessionStore(tmp_path / "session.jsonl")
    stored = store.append(user_message("pasted \ud800 half an emoji"))  # half an emoji from a broken paste
    (reread,) = SessionStore(tmp_path / "session.jsonl").iter_items()
    assert reread["id"] == stored["id"] and reread["content"] == "pasted \ufffd half an emoji"


def test_a_surrogate_read_from_settings_json_does_not_break_the_next_set(tmp_path):
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"version": 1, "provider.model": "gpt-\\ud800"}')
    settings = Settings.load(path)
    settings.set("provider.keySource", "none")  # must save, or refuse with a SettingError
    assert Settings.load(path).get("provider.keySource") == "none"


def test_a_surrogate_read_from_memories_jsonl_does_not_break_the_next_write(tmp_path):
    (tmp_path / "memories.jsonl").write_bytes(b'{"id": "m-1", "text": "half \\ud800 emoji"}\n')
    store = MemoryStore(tmp_path, "global")
    try:
        store.add("likes tea")
    except OkBotError:
        pass
    assert [e.id for e in MemoryStore(tmp_path, "global").entries()][0] == "m-1"


# ---------------------------------------------------------------- values the app cannot carry (round 3, item 7)
OUT_OF_RANGE = {
    "id 10**20": b'{"id":100000000000000000000,"type":"user","content":"forged hello"}',
    "id 2**63": b'{"id":9223372036854775808,"type":"user","content":"forged hello"}',
    "negative id": b'{"id":-5,"type":"user","content":"forged hello"}',
    "bool id": b'{"id":true,"type":"user","content":"forged hello"}',
    "bool v": b'{"id":2,"v":true,"type":"user","content":"forged hello"}',
    "huge v": b'{"id":2,"v":100000000000000000000,"type":"user","content":"forged hello"}',
    "huge usage": b'{"id":2,"type":"assistant","content":"forged hello","usage":{"total_tokens":10000000000000000000}}',
    "NaN": b'{"id":2,"type":"assistant","content":"forged hello","reasoning":"r","reasoningSeconds":NaN}',
    "Infinity": b'{"id":2,"type":"assistant","content":"forged hello","reasoning":"r","reasoningSeconds":Infinity}',
    "1e400": b'{"id":2,"type":"assistant","content":"forged hello","reasoning":"r","reasoningSeconds":1e400}',
    "5000 digits": b'{"id":2,"type":"user","content":"forged hello","n":' + b"9" * 5000 + b"}",
    "ts out of range": b'{"id":2,"ts":"0001-01-01T00:00:00+14:00","type":"user","content":"forged hello"}',
    "ts at the end of time": b'{"id":2,"ts":"9999-12-31T23:59:59-23:59","type":"user","content":"forged hello"}',
    "huge ts": b'{"id":2,"ts":"2026-01-01T00:00:00' + b"0" * 100_000 + b'Z","type":"user","content":"forged hello"}',
}


def _hostile_session(line: bytes) -> Path:
    target = Workspace().ensure_default()
    good = [
        {"id": 1, "v": 1, "ts": "2026-01-01T10:00:00.000Z", "type": "user", "author": "user", "content": "kept hello"},
        {"id": 3, "v": 1, "ts": "2026-01-01T10:00:01.000Z", "type": "assistant", "author": "okbot", "content": "hi"},
    ]
    target.session_path.write_bytes(
        json.dumps(good[0]).encode() + b"\n" + line + b"\n" + json.dumps(good[1]).encode() + b"\n"
    )
    return target.session_path


def _cli(*argv: str) -> tuple[int, str, str]:
    from okbot.cli.main import build_parser, run

    out, err = io.StringIO(), io.StringIO()
    code = run(build_parser().parse_args(list(argv)), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("line", OUT_OF_RANGE.values(), ids=OUT_OF_RANGE.keys())
def test_a_value_out_of_range_is_quarantined_and_export_and_search_carry_on(line):
    path = _hostile_session(line)
    code, md, err = _cli("export", "okbot", "--format", "md")
    assert (code, err) == (0, ""), err
    assert "kept hello" in md and "forged hello" not in md
    code, text, err = _cli("export", "okbot", "--format", "json")
    assert (code, err) == (0, ""), err
    exported = json.loads(text)["items"]
    assert [it["id"] for it in exported][:2] == [1, 3] and "forged hello" not in text
    code, out, err = _cli("search", "hello")
    assert code == 0, err
    assert "kept hello" in out and "forged hello" not in out
    quarantined = [json.loads(r) for r in path.with_name("session.quarantine.jsonl").read_text().splitlines()]
    assert len(quarantined) == 1 and quarantined[0]["offset"] == path.read_bytes().index(line[:12])
    assert path.read_bytes().count(line) == 1  # nothing rewritten


def _chat(okbot_home: Path, server, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OKBOT_HOME": str(okbot_home), "OKBOT_BASE_URL": server.base_url}
    return subprocess.run(
        [sys.executable, "-m", "okbot", "chat", "okbot", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_an_item_id_of_10_to_the_20_leaves_chat_and_regenerate_working(okbot_home, server):
    path = _hostile_session(OUT_OF_RANGE["id 10**20"])
    server.enqueue(Reply(text="fresh answer"), Reply(text="another version"))
    sent = _chat(okbot_home, server, "-m", "next question")
    assert sent.returncode == 0 and sent.stdout.strip() == "fresh answer", sent.stderr
    again = _chat(okbot_home, server, "--regenerate")
    assert again.returncode == 0 and again.stdout.strip() == "another version", again.stderr
    ids = [it["id"] for it in SessionStore(path).iter_items()]
    assert ids[:2] == [1, 3] and ids == sorted(ids) and max(ids) < 100
    assert not list((okbot_home / "logs").glob("crash-*"))


def test_the_highest_id_is_kept_and_appending_past_it_is_refused_clearly(tmp_path):
    from okbot.core.session.parse import MAX_ID

    path = tmp_path / "session.jsonl"
    path.write_bytes(_item(MAX_ID, "the last one"))
    store = SessionStore(path)
    assert [it["id"] for it in store.iter_items()] == [MAX_ID]
    with pytest.raises(OkBotError) as caught:
        store.append(user_message("one more"))
    assert "id" in str(caught.value) and caught.value.hint
    assert path.read_bytes() == _item(MAX_ID, "the last one")
