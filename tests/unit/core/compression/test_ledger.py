"""The app's own part of the summary: files, pitfalls, skills, the turn in progress and the goal pointer.

Realistic sessions in a temp dir, compressed by the real compressor against the fake server. The
summarizer is the 1.5B case unless a test says otherwise: it answers, but with nothing useful
(``KEEP: none``), so everything these tests find was written by the app from the record.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from okbot.core.compression import edits, ledger, structure
from okbot.core.context import build_context
from okbot.core.items import new_item, user_message
from okbot.core.summary import SessionSummary, SummaryStore
from tests.helpers.fake_openai import Reply
from tests.helpers.fake_summarizer import faithful, is_summarizer_request

FACTS_REQUEST = "Read part0.txt to part9.txt one by one and list every FACT- number you find."
MISSING = "read_file: no such file: part3.text (the folder has part0.txt … part9.txt)"


def useless(body: dict[str, Any]) -> Reply:
    """What the real 1.5B often answers: a readable answer that changes nothing and keeps nothing."""
    if is_summarizer_request(body):
        return Reply(text="KEEP: none\nRELEASE: none")
    return Reply(text="no")


def call(session, name: str, args: dict[str, Any], result: str, *, ok: bool = True) -> None:
    """A tool call and its result, as the runner records them."""
    call_id = f"call-{session.last_id() + 1}"
    session.append(
        new_item("tool_call", author="okbot", source="app", call_id=call_id, name=name, arguments=json.dumps(args))
    )
    session.append(
        new_item("tool_result", author="okbot", source="tool", call_id=call_id, name=name, content=result, ok=ok)
    )


def say(session, text: str) -> None:
    session.append(new_item("assistant", author="okbot", source="app", content=text))


def facts_turn(session, files: range = range(10)) -> None:
    """One long turn: the request, a skill loaded, the files read one by one (a typo fails once)."""
    session.append(user_message(FACTS_REQUEST))
    call(session, "load_skill", {"name": "fact-finding"}, "Skill 'fact-finding' (skills/fact-finding/SKILL.md):\n…")
    for i in files:
        if i == 3:
            call(session, "read_file", {"path": "part3.text"}, MISSING, ok=False)
        call(session, "read_file", {"path": f"part{i}.txt"}, f"FACT-{i}00 is here.\n" + "filler line\n" * 40)


def stored(target) -> SessionSummary:
    return SummaryStore(target.summary_path).load()


def sections_of(target) -> dict[str, str]:
    sections, problems = structure.parse_sections(stored(target).summary)
    assert problems == []
    return sections


def lines(body: str) -> list[str]:
    return body.splitlines()


def test_a_small_model_that_writes_nothing_still_leaves_goal_queue_files_pitfalls_skills_and_turn(env, server):
    target, sources, compressor, _ = env
    server.set_default(useless)
    session = sources.session(target)
    facts_turn(session)  # 1 request, 12 calls (one failed), no answer yet: the turn goes on
    report = compressor.compress_now(target)  # the newest 8 items stay: part6–part9 are not covered
    assert report.ok
    summary = stored(target)
    covered = summary.covered_through_id
    last = session.get(covered)
    assert last["type"] == "tool_result" and "FACT-500" in last["content"]
    sections = sections_of(target)

    goals = lines(sections["Goals"])
    assert goals[0] == "- [active] (from the record) the user's message #1, quoted word for word in this request"
    assert goals[1] == "- (from the record) queue in #1: at part5.txt, 6 of 10 (part0.txt–part9.txt)"
    assert 1 in summary.kept_user_ids  # "quoted word for word" is true: the app keeps it, whatever the model ticked

    files = lines(sections["Files"])
    assert [f.split(" ")[1] for f in files] == [f"part{i}.txt" for i in (5, 4, 3, 2, 1, 0)]
    assert files[0] == f"- part5.txt (read #{covered})"
    assert "part3.text" not in sections["Files"]  # a failed read read nothing

    assert lines(sections["Pitfalls"]) == [f'- read_file(path="part3.text") → {MISSING} (#11)']
    assert lines(sections["Skills loaded"]) == ['- fact-finding — load_skill("fact-finding") reloads it (#3)']
    assert lines(sections["Turn in progress"]) == [
        f'- turn of request #1 in progress at #{covered}: 8 tool calls so far, the last read_file(path="part5.txt")'
    ]
    # and the model is sent all of it, with the user's words
    block = next(b.text for b in build_context(target, sources=sources).blocks if b.name == "summary")
    assert FACTS_REQUEST in block and "## Files" in block and "## Turn in progress" in block and MISSING in block


def test_the_turn_carries_on_across_compressions_and_ends_when_the_answer_is_covered(env, server):
    target, sources, compressor, _ = env
    server.set_default(useless)
    session = sources.session(target)
    facts_turn(session, range(6))
    assert compressor.compress_now(target).ok
    first = sections_of(target)["Turn in progress"]
    assert "4 tool calls so far" in first  # the skill and part0–part2; the newest 8 items are not covered
    for i in range(6, 10):
        call(session, "read_file", {"path": f"part{i}.txt"}, f"FACT-{i}00 is here.\n" + "filler line\n" * 40)
    assert compressor.compress_now(target).ok
    sections = sections_of(target)
    covered = stored(target).covered_through_id
    assert lines(sections["Turn in progress"]) == [
        f'- turn of request #1 in progress at #{covered}: 8 tool calls so far, the last read_file(path="part5.txt")'
    ]
    assert "at part5.txt, 6 of 10" in sections["Goals"]
    say(session, "FACT-000 … FACT-900: ten facts.")
    session.append(user_message("Thanks. Now write them to facts.md."))
    call(session, "write_file", {"path": "facts.md", "content": "FACT-000 …"}, "wrote facts.md (120 bytes)")
    say(session, "Written.")
    for i in range(4):
        session.append(user_message(f"question {i}?"))
        say(session, f"answer {i}")
    assert compressor.compress_now(target).ok
    sections = sections_of(target)
    assert "Turn in progress" not in sections  # both turns ended with an answer inside the covered items
    assert lines(sections["Files"])[0].startswith("- facts.md (written #")
    assert "at part9.txt, 10 of 10" in sections["Goals"]


def test_the_models_own_goal_citing_the_message_replaces_the_pointer_and_the_queue_stays(env, server):
    target, sources, compressor, _ = env
    server.set_default(faithful)  # a careful model: a goal citing the first request
    session = sources.session(target)
    facts_turn(session)
    assert compressor.compress_now(target).ok
    goals = lines(sections_of(target)["Goals"])
    assert not any("the user's message #1" in g for g in goals)
    own = [g for g in goals if g.endswith("(#1)")]
    assert len(own) == 1 and own[0].startswith("- [active] Read part0.txt to part9.txt")
    assert goals[0] == "- (from the record) queue in #1: at part5.txt, 6 of 10 (part0.txt–part9.txt)"


def test_a_queue_of_ids_is_tracked_from_what_the_user_and_the_assistant_named(env, server):
    target, sources, compressor, _ = env
    server.set_default(useless)
    session = sources.session(target)
    session.append(user_message("Review PR #101, PR #102, PR #103, PR #104 and PR #105, one at a time."))
    say(session, "PR #101: fine, merged.")
    session.append(user_message("next"))
    say(session, "PR #102: two issues, commented. Next comes #103.")
    session.append(user_message("skip #103 for now, go back to #102 later"))
    say(session, "Noted.")
    for i in range(5):
        session.append(user_message(f"an aside {i}"))
        say(session, f"aside answer {i}")
    assert compressor.compress_now(target).ok
    goals = lines(sections_of(target)["Goals"])
    # the last item named is #102 (the user's own message names #103, then #102)
    assert goals[1] == "- (from the record) queue in #1: at #102, 2 of 5 (#101, #102, #103, #104, #105)"


def test_files_pitfalls_and_skills_stay_bounded_newest_first(env, server):
    target, sources, compressor, _ = env
    server.set_default(useless)
    session = sources.session(target)
    session.append(user_message("Tidy the src folder."))
    for i in range(30):
        call(session, "edit_file", {"path": f"src/mod{i}.py", "old": "a", "new": "b"}, f"edited src/mod{i}.py")
        call(session, "run_shell", {"command": f"ruff check src/mod{i}.py"}, f"E501 line too long ({i})", ok=False)
        call(session, "run_shell", {"command": "pytest"}, "exit 1: 3 failed", ok=False)
        call(session, "load_skill", {"name": f"skill-{i % 10}"}, f"Skill 'skill-{i % 10}' (skills/…):\n…")
    say(session, "Tidied.")
    for i in range(5):
        session.append(user_message(f"question {i}?"))
        say(session, f"answer {i}")
    assert compressor.compress_now(target).ok
    sections = sections_of(target)
    files = lines(sections["Files"])
    assert len(files) == ledger.FILES_MAX and files[0].startswith("- src/mod29.py (edited #")
    pitfalls = lines(sections["Pitfalls"])
    assert len(pitfalls) == ledger.PITFALLS_MAX
    assert pitfalls[0].startswith('- run_shell(command="pytest") → exit 1: 3 failed (#')  # newest first
    assert sum("pytest" in p for p in pitfalls) == 1  # the same error, once
    skills = lines(sections["Skills loaded"])
    assert len(skills) == ledger.SKILLS_MAX and skills[0].startswith("- skill-9 — ")
    assert len(stored(target).summary) < 2 * sources.settings.get("contextCompression.summaryMaxChars")


def test_attached_and_mcp_files_are_listed(env, server):
    target, sources, compressor, _ = env
    server.set_default(useless)
    session = sources.session(target)
    record = {
        "name": "report.pdf",
        "kind": "pdf",
        "size": 1200,
        "sha256": "ab" * 32,
        "path": "attachments/abababababab-report.pdf",
        "chars": 10,
        "pages": 1,
    }
    session.append(user_message("Compare the attached report with notes/q3.md.", [record]))
    call(session, "fs__read_text_file", {"path": "/home/me/notes/q3.md"}, "Q3 notes …")
    call(session, "fs__read_multiple_files", {"paths": ["/home/me/a.md", "/home/me/b.md"]}, "a … b …")
    call(session, "fs__list_directory", {"path": "/home/me"}, "a.md\nb.md")  # a folder listing is no file
    call(session, "web_fetch", {"url": "https://example.com/x.txt"}, "text")  # nor is a URL
    say(session, "They agree.")
    for i in range(5):
        session.append(user_message(f"question {i}?"))
        say(session, f"answer {i}")
    assert compressor.compress_now(target).ok
    files = [f.split(" (")[0][2:] for f in lines(sections_of(target)["Files"])]
    assert files == ["/home/me/b.md", "/home/me/a.md", "/home/me/notes/q3.md", "report.pdf"]
    assert "report.pdf (attached #1)" in sections_of(target)["Files"]


def test_a_chinese_conversation_gets_the_app_lines_in_chinese(env, server):
    target, sources, compressor, _ = env
    server.set_default(useless)
    session = sources.session(target)
    session.append(user_message("请逐个读取 part0.txt 到 part7.txt，列出每个 FACT- 编号。"))
    for i in range(8):
        if i == 1:
            call(session, "read_file", {"path": "part1.text"}, "read_file: no such file: part1.text", ok=False)
        call(session, "read_file", {"path": f"part{i}.txt"}, f"FACT-{i}00\n" + "填充\n" * 40)
    assert compressor.compress_now(target).ok  # covers up to part3.txt's result
    text = stored(target).summary
    assert structure.heading_language(text) == "zh_CN"
    sections = sections_of(target)
    goals = lines(sections["Goals"])
    assert goals[0] == "- [active] （据记录）用户的消息 #1，原文见本请求"
    assert goals[1] == "- （据记录）#1 中的队列：到 part3.txt，第 4 项，共 8 项（part0.txt–part7.txt）"
    assert "## 文件" in text and "## 失败与报错" in text and "## 进行中的回合" in text
    assert lines(sections["Files"])[0].startswith("- part3.txt（读取 #")
    assert "read_file: no such file: part1.text" in sections["Pitfalls"]
    assert lines(sections["Turn in progress"])[0].startswith("- 请求 #1 的回合在 #")


def test_a_turn_waiting_on_a_tool_call_says_so(env, server):
    target, sources, _, _ = env
    server.set_default(useless)
    session = sources.session(target)
    session.append(user_message("Deploy it."))
    call(session, "read_file", {"path": "deploy.md"}, "steps …")
    session.append(
        new_item(
            "tool_call",
            author="okbot",
            source="app",
            call_id="c-x",
            name="run_shell",
            arguments='{"command": "make deploy"}',
        )
    )
    summary = ledger.carry(
        SessionSummary(summary=structure.empty_summary(), covered_through_id=session.last_id()),
        list(session.iter_items()),
        since=0,
        session=session,
    )
    sections, _ = structure.parse_sections(summary.summary)
    last, shell = session.last_id(), 'run_shell(command="make deploy")'
    assert lines(sections["Turn in progress"]) == [
        f"- turn of request #1 in progress at #{last}: 2 tool calls so far, the last {shell}",
        f"- waiting for {shell} (#{last}): no result yet (an approval or the tool itself)",
    ]


def test_the_plain_move_out_carries_the_ledger_too(env, server):
    target, sources, compressor, _ = env
    server.set_default(lambda body: Reply(text="") if is_summarizer_request(body) else Reply(text="no"))
    session = sources.session(target)
    facts_turn(session)
    say(session, "FACT-000 to FACT-900.")
    for i in range(8):  # the user's long messages: no digest of tool output can make room for them
        session.append(user_message(f"More detail on fact {i}: " + "detail " * 150))
        say(session, f"Fact {i} explained.")
    compressor.before_run(target, "next?")  # the summarizer fails; the request must fit: moved out plainly
    summary = stored(target)
    assert summary.covered_through_id > 0 and "moved out without a summary" in summary.summary
    sections = sections_of(target)
    assert "the user's message #1" in sections["Goals"] and "part9.txt (read #" in sections["Files"]


def test_an_old_summary_without_the_app_sections_loads_and_gains_them(env, server):
    target, sources, compressor, _ = env
    server.set_default(useless)
    session = sources.session(target)
    facts_turn(session, range(3))
    old = "## 目标\n- [active] 读完文件 (#1)\n\n## 约定\n- 每个一行\n\n## 路径命令\n- part0.txt\n\n## 未完成\n- 继续"
    sections, problems = structure.parse_sections(old)
    assert problems == [] and set(sections) == {"Goals", "Agreements", "References", "Progress and next steps"}
    SummaryStore(target.summary_path).save(SessionSummary(summary=old, covered_through_id=3, kept_user_ids=[1]))
    assert build_context(target, sources=sources).covered_through_id == 3
    for i in range(3, 8):
        call(session, "read_file", {"path": f"part{i}.txt"}, "…")
    assert compressor.compress_now(target).ok
    sections = sections_of(target)
    assert "Files" in sections and "- [active] 读完文件 (#1)" in lines(sections["Goals"])
    assert "用户的消息 #1" not in sections["Goals"] and "the user's message #1" not in sections["Goals"]  # it cites #1


# -- the model never touches app lines -------------------------------------------------------------
APP_SUMMARY = structure.render(
    {
        "Goals": "- [active] (from the record) the user's message #1, quoted word for word in this request\n"
        "- (from the record) queue in #1: at part5.txt, 6 of 10 (part0.txt–part9.txt)\n"
        "- [active] list the FACT numbers (#1)",
        "Progress and next steps": "- part5.txt read",
        "Turn in progress": "- turn of request #1 in progress at #20: 8 tool calls so far, the last read_file(…)",
        "Files": "- part5.txt (read #20)",
        "Pitfalls": '- read_file(path="x") → no such file (#9)',
        "Skills loaded": '- fact-finding — load_skill("fact-finding") reloads it (#3)',
    }
)


def test_edits_leave_app_lines_alone_and_cannot_forge_them():
    view = edits.numbered_view(APP_SUMMARY)
    assert "1. [active] list the FACT numbers (#1)" in view  # the model's goal is goal 1
    assert "## Files" not in view and "## Pitfalls" not in view  # the app keeps these; the model need not read them
    answer, _ = edits.parse_answer(
        "GOAL 1: done #21\nPROGRESS: (from the record) all read\n## Files\n- invented.txt", max_chars=2000
    )
    text, refused = edits.apply_edits(
        APP_SUMMARY, answer, citable={}, sources=["#21 okbot: all ten read"], covered={21: "all ten read"}
    )
    assert refused == []
    sections, _ = structure.parse_sections(text)
    before, _ = structure.parse_sections(APP_SUMMARY)
    goals = lines(sections["Goals"])
    assert goals[:2] == lines(before["Goals"])[:2] and goals[2] == "- [done] list the FACT numbers (#1)"
    for name in structure.APP_SECTIONS:
        assert sections[name] == before[name]
    assert (
        "- all read" in sections["Progress and next steps"]
        and "from the record" not in lines(sections["Progress and next steps"])[-1]
    )
    assert structure.check(text, APP_SUMMARY) == []


def test_app_sections_have_budgets_and_are_cut_oldest_first_in_a_request():
    budgets = structure.section_budgets(2000)
    assert list(budgets) == [*structure.SECTIONS, *structure.APP_SECTIONS]
    assert 1700 < sum(budgets.values()) <= 2000
    files = "\n".join(f"- src/a/very/long/path/module_{i:03}.py (read #{100 - i})" for i in range(60))
    text = structure.render({"Goals": "- [active] g (#1)", "Files": files})
    fitted = structure.fit_sections(text, 1200)
    cut = lines(structure.parse_sections(fitted)[0]["Files"])
    assert cut[0] == "- src/a/very/long/path/module_000.py (read #100)" and cut[-1].startswith("- (… ")


def test_the_ledger_reads_only_the_delta_of_a_long_session(tmp_path):
    from okbot.core.items import encode_item
    from okbot.core.session import SessionStore

    items: list[dict[str, Any]] = [{**user_message(FACTS_REQUEST), "id": 1}]

    def add(kind: str, **fields: Any) -> None:
        items.append({**new_item(kind, author="okbot", source="app", **fields), "id": len(items) + 1})

    for i in range(5000):
        add("tool_call", call_id=f"r{i}", name="read_file", arguments=json.dumps({"path": f"dir{i % 50}/part{i}.txt"}))
        add("tool_result", call_id=f"r{i}", name="read_file", content="x", ok=True)
        if i % 7 == 0:
            add("tool_call", call_id=f"s{i}", name="run_shell", arguments=json.dumps({"command": f"cat part{i}"}))
            add("tool_result", call_id=f"s{i}", name="run_shell", content=f"error {i}", ok=False)
    (tmp_path / "session.jsonl").write_bytes(b"".join(encode_item(it) for it in items))
    session = SessionStore(tmp_path / "session.jsonl")
    assert len(session) > 10_000

    class Counting:
        """The real store, counting what the ledger reads of it."""

        def __init__(self, store):
            self.store, self.reads = store, 0

        def get(self, item_id):
            self.reads += 1
            return self.store.get(item_id)

        def iter_items(self, start_id=None, end_id=None):
            for item in self.store.iter_items(start_id, end_id):
                self.reads += 1
                yield item

    summary = SessionSummary(summary=structure.empty_summary(), covered_through_id=0)
    counting = Counting(session)
    step = 500
    compressions = 0
    for end in range(step, len(items) + step, step):
        since, last = summary.covered_through_id, items[min(end, len(items)) - 1]["id"]
        summary = ledger.carry(
            SessionSummary(summary=summary.summary, covered_through_id=last, kept_user_ids=[1]),
            items[since:last],
            since=since,
            session=counting,
        )
        compressions += 1
    assert counting.reads <= 2 * compressions  # the queue's message once a compression: never a scan
    sections, problems = structure.parse_sections(summary.summary)
    assert problems == []
    assert len(lines(sections["Files"])) == ledger.FILES_MAX and len(lines(sections["Pitfalls"])) == ledger.PITFALLS_MAX
    assert len(sections["Files"]) <= ledger.FILES_CHARS
    calls = 5000 + len(range(0, 5000, 7))
    assert f"{calls:,} tool calls so far" in sections["Turn in progress"]
    assert "at part9.txt, 10 of 10" in sections["Goals"]  # dir9/part9.txt was the last of the ten named
    assert len(summary.summary) < 3000


def test_a_queue_of_paths_ends_where_the_sentence_does():
    request = {"id": 1, "type": "user", "source": "user", "content": "Fix tests/a.py, tests/b.py and tests/c.py."}
    read = {"id": 2, "type": "tool_call", "call_id": "c", "name": "read_file", "arguments": '{"path": "tests/c.py"}'}
    summary = ledger.carry(SessionSummary(summary="", covered_through_id=2), [request, read], since=0, session=None)
    goals = lines(structure.parse_sections(summary.summary)[0]["Goals"])
    assert goals[1] == "- (from the record) queue in #1: at tests/c.py, 3 of 3 (tests/a.py, tests/b.py, tests/c.py)"


@pytest.mark.parametrize("text", ["", "## Goals\n- (none yet)"])
def test_no_direction_no_pointer(text):
    summary = ledger.carry(
        SessionSummary(summary=text, covered_through_id=2),
        [{"id": 1, "type": "user", "source": "user", "content": "ok"}, {"id": 2, "type": "assistant", "content": "hi"}],
        since=0,
        session=None,
    )
    assert "the user's message" not in summary.summary


def test_okbot_compress_then_okbot_context_prints_the_app_sections_in_chinese(env, server, capsys):
    from okbot.__main__ import main

    target, sources, _, _ = env
    server.set_default(useless)
    session = sources.session(target)
    session.append(user_message("请逐个读取 part0.txt 到 part7.txt，列出每个 FACT- 编号。"))
    for i in range(8):
        call(session, "read_file", {"path": f"part{i}.txt"}, f"FACT-{i}00\n" + "填充\n" * 40)
    assert main(["compress", target.id]) == 0
    capsys.readouterr()
    assert main(["context", target.id]) == 0
    out = capsys.readouterr().out
    for heading in ("## 目标", "## 进行中的回合", "## 文件"):
        assert f"    {heading}\n" in out  # a body line of the summary block, indented like every body line
    assert "（据记录）#1 中的队列：到 part3.txt，第 4 项，共 8 项" in out


def test_a_failed_result_shown_as_a_digest_keeps_its_exact_error_from_the_record(tmp_path):
    from okbot.core.context import hidden_stub
    from okbot.core.session import SessionStore

    session = SessionStore(tmp_path / "session.jsonl")
    session.append(user_message("Build it."))
    call(session, "run_shell", {"command": "make"}, "make: *** No rule to make target 'all'.  Stop.\n…", ok=False)
    request, shell, failed = list(session.iter_items())
    shown = [request, shell, hidden_stub(failed)]  # the request showed it as a digest to fit the window
    summary = ledger.carry(SessionSummary(summary="", covered_through_id=3), shown, since=0, session=session)
    pitfalls = structure.parse_sections(summary.summary)[0]["Pitfalls"]
    assert pitfalls == "- run_shell(command=\"make\") → make: *** No rule to make target 'all'.  Stop. (#3)"


@pytest.mark.parametrize(
    ("request_text", "named", "queue"),
    [
        ("Triage BUG-101 to BUG-140.", "BUG-107 is a duplicate", "at BUG-107, 7 of 40 (BUG-101–BUG-140)"),
        ("Review PRs 101 to 105", "PR #103 merged", "at 103, 3 of 5 (101–105)"),
        ("请处理 #7 至 #9", "#8 已完成", "到 #8，第 2 项，共 3 项（#7–#9）"),
        (
            "逐个读取part01.txt到part12.txt",
            "part03.txt 读完了",
            "到 part03.txt，第 3 项，共 12 项（part01.txt–part12.txt）",
        ),
        ("Fix the bug in lines 10-12 of app.py", "done", None),
        ("Since 2024-05 the job is slow", "done", None),
    ],
)
def test_queues_are_ranges_or_lists_the_request_names(request_text, named, queue):
    items = [
        {"id": 1, "type": "user", "source": "user", "content": request_text},
        {"id": 2, "type": "assistant", "content": named},
    ]
    summary = ledger.carry(SessionSummary(summary="", covered_through_id=2), items, since=0, session=None)
    goals = structure.parse_sections(summary.summary)[0]["Goals"]
    if queue is None:
        assert "queue" not in goals and "队列" not in goals
    else:
        assert lines(goals)[1].endswith(queue)
