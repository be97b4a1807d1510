"""Import from the original OkBot, fed a hostile data dir: links out of it, odd files, bad ids, deep or huge JSON.

Every test runs the real CLI (``okbot import-okbot``) on real files; a secret planted outside the source
(the destination's keys.json, a private file) must never reach anything the import writes.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from okbot.cli import main as cli
from okbot.core.session.store import SessionStore
from okbot.core.workspace import Workspace
from okbot.llm.keystore import KEY_FILE_NAME
from okbot.storage import paths
from tests.helpers.processes import PeakRun
from tests.unit.core.import_okbot.test_import import ANN, BOB, SQUAD, build_sample

SECRET = "sk-planted-SECRET-7f3a9"
ROOT = Path(__file__).resolve().parents[4]


def run_import(source: Path, *extra: str) -> tuple[int, str, str]:
    """``okbot import-okbot SOURCE`` through the CLI's own entry: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = cli.run(cli.build_parser().parse_args(["import-okbot", str(source), *extra]), out, err)
    return code, out.getvalue(), err.getvalue()


def report_of(source: Path) -> dict:
    code, out, err = run_import(source, "--json")
    assert code == 0, err
    return json.loads(out)


def owner(report: dict, source_id: str) -> dict:
    return next(o for o in report["owners"] if o["source_id"] == source_id)


def written_anywhere(needle: str) -> list[Path]:
    """Files of the data dir (the key file itself aside) that hold ``needle``."""
    data = paths.data_dir()
    return [
        p
        for p in data.rglob("*")
        if p.is_file() and not p.is_symlink() and p.name != KEY_FILE_NAME and needle.encode() in p.read_bytes()
    ]


@pytest.fixture
def keys_file() -> Path:
    """The destination's key file, holding :data:`SECRET`."""
    path = paths.data_dir() / KEY_FILE_NAME
    path.write_text(json.dumps({"version": 1, "keys": {"default": SECRET}}), encoding="utf-8")
    path.chmod(0o600)
    return path


@pytest.fixture
def private(tmp_path: Path) -> Path:
    """A private file outside the source, holding :data:`SECRET` in every shape the import reads."""
    path = tmp_path / "private.txt"
    row = {"id": "x", "bot_id": ANN, "memory": SECRET, "expires": None}
    env = {"v": 2, "id": "e", "createdAt": "2025-01-01T00:00:00Z", "item": {"type": "message", "role": "user"}}
    env["item"]["content"] = SECRET
    path.write_text(json.dumps(row) + "\n" + json.dumps(env) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return build_sample(tmp_path / "dot-okbot")


def _relink(path: Path, to: Path) -> None:
    """Replace ``path`` (a file or a folder) with a symlink to ``to``."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(to)


# ------------------------------------------------------------------------------- 1. links and odd files
@pytest.mark.parametrize("name", ["AGENTS.md", "SOUL.md", "memory.md", "session.jsonl", "bot.json"])
def test_a_file_linked_to_the_key_file_is_not_read(source: Path, keys_file: Path, name: str) -> None:
    _relink(source / ANN / name, keys_file)
    report = report_of(source)
    assert written_anywhere(SECRET) == []
    ann = owner(report, ANN)
    assert ann["status"] == "imported"
    assert any(name in n and "symlink" in n for n in ann["notes"]), ann["notes"]


@pytest.mark.parametrize("name", ["AGENTS.md", "memory.md", "session.jsonl", "session-summary.json"])
def test_a_file_linked_to_a_private_file_outside_is_not_read(source: Path, private: Path, name: str) -> None:
    _relink(source / ANN / name, private)
    report = report_of(source)
    assert written_anywhere(SECRET) == []
    assert any(name in n and "symlink" in n for n in owner(report, ANN)["notes"])


def test_top_level_files_linked_out_are_not_read(source: Path, private: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside-bots.json"
    outside.write_text(json.dumps([{"id": ANN, "name": SECRET}]), encoding="utf-8")
    _relink(source / "bots.json", outside)
    _relink(source / "memory.md", private)
    report = report_of(source)
    assert written_anywhere(SECRET) == []
    assert SECRET not in json.dumps(report)
    assert any("bots.json" in n and "symlink" in n for n in report["not_imported"])
    assert any("memory.md" in n and "symlink" in n for n in report["not_imported"])


def test_linked_folders_are_not_followed(source: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "okbot-leak").mkdir(parents=True)
    (elsewhere / "okbot-leak" / "SKILL.md").write_text(f"---\nname: leak\ndescription: {SECRET}\n---\n")
    (elsewhere / "AGENTS.md").write_text(SECRET)
    (elsewhere / "session.jsonl").write_text("")
    _relink(source / ANN / "skills" / "okbot-leak", elsewhere / "okbot-leak")  # a skill folder that is a link
    _relink(source / BOB, elsewhere)  # a bot folder that is a link
    notes_skill = tmp_path / "realskill"
    notes_skill.mkdir()
    (notes_skill / "ref.md").write_text(SECRET)
    _relink(source / ANN / "skills" / "okbot-notes" / "ref.md", notes_skill / "ref.md")  # a file in a skill
    report = report_of(source)
    assert written_anywhere(SECRET) == []
    ann, bob = owner(report, ANN), owner(report, BOB)
    assert ann["skills"] == 1  # okbot-notes, without its linked file
    assert any("okbot-leak" in n and "symlink" in n for n in ann["notes"])
    assert any("ref.md" in n and "symlink" in n for n in ann["notes"])
    assert bob["status"] == "skipped" and any("symlink" in n for n in bob["notes"])

    fresh = build_sample(tmp_path / "second")
    _relink(fresh / ANN / "skills", elsewhere)  # the skills folder itself is a link
    again = owner(report_of(fresh), ANN)
    assert again["skills"] == 0 and any("skills" in n and "symlink" in n for n in again["notes"])
    assert written_anywhere(SECRET) == []


def test_a_hard_link_to_the_key_file_is_not_read(source: Path, keys_file: Path) -> None:
    target = source / ANN / "AGENTS.md"
    target.unlink()
    try:
        os.link(keys_file, target)
    except OSError as exc:  # another file system (a tmp dir on its own mount)
        pytest.skip(f"no hard link from {target} to {keys_file}: {exc}")
    report = report_of(source)
    assert written_anywhere(SECRET) == []
    assert any("AGENTS.md" in n and KEY_FILE_NAME in n for n in owner(report, ANN)["notes"])


def test_fifos_and_devices_are_skipped_without_blocking(source: Path, tmp_path: Path) -> None:
    for name in ("AGENTS.md", "session.jsonl"):
        (source / ANN / name).unlink()
        os.mkfifo(source / ANN / name)
    (source / BOB / "memory.md").unlink()
    (source / BOB / "memory.md").symlink_to("/dev/zero")
    os.mkfifo(source / ANN / "skills" / "okbot-notes" / "pipe.md")
    home = tmp_path / "child-home"
    env = {**os.environ, "OKBOT_HOME": str(home), "LANGUAGE": "en"}
    # a bound only so a regression fails instead of hanging: idle, this takes about a second
    proc = subprocess.run(
        [sys.executable, "-m", "okbot", "import-okbot", str(source), "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    ann = owner(report, ANN)
    assert ann["status"] == "imported" and ann["items"] == 0
    assert any("AGENTS.md" in n and "not a regular file" in n for n in ann["notes"])
    assert any("session.jsonl" in n and "not a regular file" in n for n in ann["notes"])
    assert any("pipe.md" in n for n in ann["notes"])
    assert any("memory.md" in n and "symlink" in n for n in owner(report, BOB)["notes"])


# ------------------------------------------------------------------------------- 8. bad ids, deep and huge input
@pytest.mark.parametrize("bad_id", ["bot_\x00_001", "bot_" + "x" * 10_000, "bot_a\nb", " ", "..", "a/b"])
def test_a_bad_bot_id_is_skipped_and_named(source: Path, bad_id: str) -> None:
    roster = json.loads((source / "bots.json").read_text())
    (source / "bots.json").write_text(json.dumps([{"id": bad_id, "name": "Bad"}, *roster]))
    squads = json.loads((source / "squads.json").read_text())
    (source / "squads.json").write_text(json.dumps([{"id": bad_id, "name": "Bad squad"}, *squads]))
    for _ in range(2):  # and on every re-run
        code, out, err = run_import(source)
        assert code == 0, err
        assert "a bots.json entry without a usable id was skipped" in out
        assert "a squads.json entry without a usable id was skipped" in out
        assert "\x00" not in out and "x" * 200 not in out
    report = report_of(source)
    assert {o["source_id"] for o in report["owners"]} == {ANN, BOB, SQUAD}


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "where",
    [
        "bots.json",
        "squads.json",
        "settings.json",
        "memory.md",
        f"{ANN}/bot.json",
        f"{ANN}/memory.md",
        f"{ANN}/session.jsonl",
        f"{ANN}/session-summary.json",
    ],
)
def test_deep_json_is_skipped_and_named(source: Path, where: str) -> None:
    path = source / where
    if path.name == "memory.md":
        path.write_text(path.read_text() + '{"memory": ' + DEEP + "}\n")
    elif path.name == "session.jsonl":
        path.write_text('{"v": 2, "id": "deep", "item": ' + DEEP + "}\n" + path.read_text())
    else:
        path.write_text(DEEP)
    code, out, err = run_import(source)
    assert code == 0, err
    assert "nested" in out, out
    assert "Ann" in out or where == "bots.json"


def test_an_oversized_persona_is_not_copied(source: Path) -> None:
    from okbot.core.import_okbot import MAX_SOUL_BYTES

    (source / ANN / "AGENTS.md").write_bytes(b"# big\n" + b"x" * MAX_SOUL_BYTES)
    (source / BOB / "SOUL.md").write_bytes(b"y" * (MAX_SOUL_BYTES // 2 + 1))
    (source / BOB / "AGENTS.md").write_bytes(b"z" * (MAX_SOUL_BYTES // 2 + 1))
    report = report_of(source)
    ws = Workspace()
    for bot in (ANN, BOB):
        imported = owner(report, bot)
        soul = ws.resolve(imported["new_id"]).soul_path
        assert soul is not None and soul.stat().st_size <= MAX_SOUL_BYTES
        assert any("SOUL.md" in n and "KB" in n for n in imported["notes"]), imported["notes"]


def test_an_oversized_file_is_skipped_unread(source: Path) -> None:
    from okbot.core.import_okbot import MAX_JSON_BYTES

    with open(source / ANN / "bot.json", "r+b") as fh:  # sparse: no disk or memory spent
        fh.truncate(MAX_JSON_BYTES + 1)
    with open(source / ANN / "memory.md", "r+b") as fh:
        fh.truncate(MAX_JSON_BYTES + 1)
    report = report_of(source)
    notes = owner(report, ANN)["notes"]
    assert any("bot.json" in n and "MB" in n for n in notes), notes
    assert any("memory.md" in n and "MB" in n for n in notes), notes


def test_an_over_long_session_line_is_skipped_and_named(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SessionStore, "max_line_bytes", 4096)
    lines = (source / ANN / "session.jsonl").read_text().split("\n")
    huge = json.dumps({"v": 2, "id": "big", "item": {"type": "message", "role": "user", "content": "w" * 10_000}})
    lines.insert(1, huge)
    (source / ANN / "session.jsonl").write_text("\n".join(lines))
    ann = owner(report_of(source), ANN)
    assert ann["items"] == 7  # the sample's seven, the long one aside
    assert {"line": 2, "reason": "longer than 4,096 bytes"} in ann["skipped_lines"]


CHILD = """
import sys
from pathlib import Path
from okbot.core.import_okbot import import_okbot
from okbot.core.workspace import Workspace
report = import_okbot(Path(sys.argv[1]), Workspace())
print(sum(o.items for o in report.owners))
"""


def _big_session(source: Path, megabytes: int) -> int:
    """Replace Ann's chat with about ``megabytes`` MB of user/assistant pairs; return the line count."""
    text = "lorem ipsum dolor sit amet " * 1200  # ~32 KB a line
    count = 0
    with open(source / ANN / "session.jsonl", "w", encoding="utf-8") as fh:
        while fh.tell() < megabytes * 1024 * 1024:
            role = "user" if count % 2 == 0 else "assistant"
            item = {"type": "message", "role": role, "content": f"{count} {text}"}
            fh.write(json.dumps({"v": 2, "id": f"evt_{count}", "createdAt": "2025-01-01T00:00:00Z", "item": item}))
            fh.write("\n")
            count += 1
    return count


def _peak_rss_mb(source: Path, home: Path) -> tuple[int, float]:
    """Import ``source`` in a child (address space capped at 2 GB); (items imported, its peak RSS in MB)."""
    env = {**os.environ, "OKBOT_HOME": str(home), "LANGUAGE": "en"}
    run = PeakRun(
        [sys.executable, "-c", CHILD, str(source)],
        memory_cap=2 * 1024**3,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = run.proc.communicate(timeout=300)
    code, peak_mb = run.result()
    assert code == 0, err[-2000:]
    return int(out), peak_mb


@pytest.mark.slow
def test_a_large_session_is_streamed(source: Path, tmp_path: Path) -> None:
    small = build_sample(tmp_path / "small")
    _, baseline = _peak_rss_mb(small, tmp_path / "home-small")
    lines = _big_session(source, 24)
    items, peak = _peak_rss_mb(source, tmp_path / "home-big")
    assert items == lines + 4 + 3  # Ann's chat, then Bob's four and the squad's three
    # whole-file reading held the 24 MB twice over, plus every converted item; streaming adds a few MB
    assert peak - baseline < 16, (baseline, peak)


def test_okbots_own_data_dir_is_no_source() -> None:
    inside = paths.data_dir() / "copied-okbot"
    inside.mkdir()
    (inside / "bots.json").write_text(json.dumps([{"id": ANN, "name": "Ann"}]))
    code, _, err = run_import(inside)
    assert code == 1 and "is not imported from" in err
    assert Workspace().list() == []


def test_skipped_lines_are_listed_up_to_a_bound(source: Path) -> None:
    from okbot.core.import_okbot.report import LISTED_SKIPPED_LINES

    with open(source / BOB / "session.jsonl", "a", encoding="utf-8") as fh:
        fh.write("not json\n" * (LISTED_SKIPPED_LINES + 50))
    code, out, err = run_import(source)
    assert code == 0, err
    assert f"and {LISTED_SKIPPED_LINES + 51 - 20} more skipped lines (--json lists the first" in out
    fresh = owner(report_of(build_sample(source.parent / "again")), BOB)
    assert len(fresh["skipped_lines"]) == 1 and fresh["skipped_unlisted"] == 0


def test_skill_files_are_bounded(source: Path) -> None:
    from okbot.core.import_okbot.skills import MAX_SKILL_FILES

    skill = source / ANN / "skills" / "okbot-notes"
    for n in range(MAX_SKILL_FILES + 5):
        (skill / f"ref-{n:04}.md").write_text("x")
    ann = owner(report_of(source), ANN)
    copied = Workspace().resolve(ann["new_id"]).skills_dir / "okbot-notes"
    assert len(list(copied.iterdir())) == MAX_SKILL_FILES
    assert any(f"more than {MAX_SKILL_FILES} files" in n for n in ann["notes"])


@pytest.mark.slow  # each memory added is a durable rewrite of the memory file: 20-40 s for 1,000
def test_memory_rows_are_bounded(source: Path) -> None:
    from okbot.core.import_okbot import MAX_MEMORY_ROWS

    rows = [{"id": f"m{n}", "bot_id": BOB, "memory": f"fact {n}", "expires": None} for n in range(MAX_MEMORY_ROWS + 5)]
    (source / BOB / "memory.md").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bob = owner(report_of(source), BOB)
    assert bob["memories"] == MAX_MEMORY_ROWS
    assert any(f"only the first {MAX_MEMORY_ROWS} memories" in n for n in bob["notes"])


def test_a_tool_call_spelt_with_escapes_keeps_its_result(source: Path) -> None:
    call = {"v": 2, "id": "c1", "item": {"type": "function_call", "callId": "k1", "name": "ls", "arguments": "{}"}}
    result = {"v": 2, "id": "c2", "item": {"type": "function_call_result", "callId": "k1", "name": "ls", "output": "a"}}
    escaped = json.dumps(call).replace('"function_call"', '"\\u0066unction_call"')
    (source / BOB / "session.jsonl").write_text(escaped + "\n" + json.dumps(result) + "\n")
    bob = owner(report_of(source), BOB)
    items = list(SessionStore(Workspace().resolve(bob["new_id"]).session_path).iter_items())
    assert [(i["type"], i.get("ok")) for i in items] == [("tool_call", None), ("tool_result", True)]
