"""Import from the original (Electron) OkBot: a small data dir in its documented layout (see the
docstring of okbot.core.import_okbot) becomes assistants, a squad and chats this app opens."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from okbot.cli import main as cli
from okbot.config.settings import Settings
from okbot.core.context import build_context
from okbot.core.import_okbot import apply_settings, import_okbot
from okbot.core.items import delegation_tool_name
from okbot.core.memory.store import MemoryStore
from okbot.core.session.store import SessionStore
from okbot.core.skills import SkillCatalog
from okbot.core.sources import ContextSources
from okbot.core.summary import SummaryStore
from okbot.core.tokens import effective_context_window
from okbot.core.workspace import Workspace
from okbot.storage import paths
from okbot.storage.errors import OkBotError

ANN, BOB, SQUAD = "bot_20250101_001", "bot_20250101_002", "squad_20250102_001"
TOOL_RESULT = {
    "type": "function_call_result",
    "callId": "call_1",
    "name": "run_shell",
    "status": "completed",
    "output": {"type": "text", "text": "abc fix"},
}
PROVIDER = {
    "id": "prov_1",
    "name": "默认",
    "baseURL": "https://sam:pw-secret@api.example.com/v1",
    "apiKey": "sk-secret-never-copied",
    "models": [{"id": "gpt-4o-mini"}],
}


def _env(rec_id: str, item: dict, meta: dict | None = None, at: str = "2025-01-01T10:00:00.000Z") -> str:
    return json.dumps({"v": 2, "id": rec_id, "createdAt": at, "item": item, **({"meta": meta} if meta else {})})


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _memory_md(rows: list[dict]) -> str:
    head = "# OkBot Memory\n# 每行一条 JSON：id / bot_id / memory / expires（ISO 或 null）\n"
    return head + "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def build_sample(root: Path) -> Path:
    """A ~/.okbot at ``root`` with two assistants (AGENTS.md, a skill, memories, tool calls, a summary), a
    squad, a torn line, an unknown item type, a legacy ChatMessage line and settings holding a key."""
    _write(
        root / "bots.json",
        json.dumps(
            [
                {"id": ANN, "name": "Ann", "description": "Writes release notes"},
                {"id": BOB, "name": "Bob\tthe reviewer", "description": ""},
            ]
        ),
    )
    _write(root / ANN / "bot.json", json.dumps({"id": ANN, "providerId": "prov_1", "modelId": "gpt-4o-mini"}))
    _write(root / ANN / "resources" / "chart.png", "not really a png")
    _write(root / ANN / "schedules.json", json.dumps({"version": 1, "jobs": []}))
    _write(root / ANN / "AGENTS.md", "# 角色与目标\n\n你是「Ann」。\n\n# 用户偏好\n\n- 简洁\n")
    _write(
        root / ANN / "skills" / "okbot-notes" / "SKILL.md",
        '---\nname: "okbot-notes"\ndescription: "Write release notes"\n---\n\nSteps.\n',
    )
    _write(
        root / ANN / "memory.md",
        _memory_md(
            [
                {"id": "m1", "bot_id": ANN, "memory": "User ships on Fridays", "expires": None, "pinned": True},
                {"id": "m2", "bot_id": ANN, "memory": "Project is okbot", "expires": None},
            ]
        ),
    )
    ann_lines = [
        _env("evt_1", {"type": "message", "role": "user", "content": "Draft notes for 1.2"}, {"uiRole": "user"}),
        _env(
            "evt_2",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading the log."}]},
            {"uiRole": "assistant", "usage": {"input": 120, "output": 8, "cache": 0}},
        ),
        _env(
            "evt_3",
            {"type": "function_call", "callId": "call_1", "name": "run_shell", "arguments": '{"cmd":"git log"}'},
        ),
        _env("evt_4", TOOL_RESULT),
        _env("evt_5", {"type": "reasoning", "content": []}),
        _env("evt_6", {"type": "hosted_tool_call", "name": "web"}),
        json.dumps({"id": "old_1", "role": "user", "content": "legacy line", "createdAt": "2024-12-01T00:00:00Z"}),
        _env("evt_7", {"type": "message", "role": "assistant", "content": "<think>short</think>Done: 1.2 notes."}),
        _env("evt_8", {"type": "message", "role": "user", "content": "Thanks"}, {"uiRole": "user"}),
    ]
    _write(root / ANN / "session.jsonl", "\n".join(ann_lines) + "\n" + '{"v":2,"id":"evt_9","crea')
    _write(
        root / ANN / "session-summary.json",
        json.dumps(
            {"summary": "目标：1.2 的发布说明", "coveredThroughId": "evt_4", "updatedAt": "2025-01-01T11:00:00Z"}
        ),
    )
    _write(root / BOB / "bot.json", json.dumps({"id": BOB}))
    _write(root / BOB / "AGENTS.md", "# 角色与目标\n\n你是「Bob」。\n")
    _write(root / BOB / "memory.md", _memory_md([]))
    bob_lines = [
        _env("b1", {"type": "message", "role": "user", "content": "hi"}),
        "this is not json",
        _env("b3", {"type": "function_call", "callId": "c7", "name": "read_file", "arguments": "{}"}),
        _env("b4", {"type": "function_call_result", "callId": "gone", "name": "read_file", "output": "?"}),
        _env("b2", {"type": "message", "role": "assistant", "content": "hello"}),
    ]
    _write(root / BOB / "session.jsonl", "\n".join(bob_lines) + "\n")
    _write(
        root / "squads.json",
        json.dumps(
            [
                {
                    "id": SQUAD,
                    "name": "Release crew",
                    "description": "ship it",
                    "members": [{"botId": ANN, "role": "writer"}, {"botId": BOB, "role": "reviewer"}],
                }
            ]
        ),
    )
    squad_lines = [
        _env("s1", {"type": "message", "role": "user", "content": "Ship 1.2"}, {"uiRole": "user"}),
        _env("s1b", {"type": "message", "role": "user", "content": "Ship 1.2"}, {"uiRole": "user", "runId": "r1"}),
        _env("s1c", {"type": "function_call", "callId": "c9", "name": "ask_writer", "arguments": "{}"}),
        _env("s1d", {"type": "function_call_result", "callId": "c9", "name": "ask_writer", "output": "On it"}),
        _env("s1e", {"type": "message", "role": "assistant", "content": "Shipped."}, {"uiRole": "assistant"}),
        _env("s2", {"type": "message", "role": "assistant", "content": "On it"}, {"speakerBotId": ANN}),
        _env("s3", {"type": "message", "role": "assistant", "content": "Shipped."}, {"speakerBotId": "__captain__"}),
    ]
    _write(root / SQUAD / "session.jsonl", "\n".join(squad_lines) + "\n")
    _write(root / "memory.md", _memory_md([{"id": "g1", "bot_id": ANN, "memory": "User is Sam", "expires": None}]))
    _write(
        root / "settings.json",
        json.dumps(
            {
                "model": {
                    "providers": [PROVIDER],
                    "defaultProviderId": "prov_1",
                    "defaultModelId": "gpt-4o-mini",
                },
                "contextCompression": {"ratio": 0.6},
            }
        ),
    )
    return root


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return build_sample(tmp_path / "dot-okbot")


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


def test_import_brings_assistants_squad_and_chats(source: Path) -> None:
    before = snapshot(source)
    ws = Workspace()
    report = import_okbot(source, ws)

    assert snapshot(source) == before  # not one byte or mtime of the source changed
    by_source = {o.source_id: o for o in report.owners}
    ann, bob, squad = by_source[ANN], by_source[BOB], by_source[SQUAD]
    assert (ann.status, bob.status, squad.status) == ("imported", "imported", "imported")
    # user, assistant, tool_call, tool_result, legacy user, assistant, user
    assert ann.items == 7
    assert ann.skipped_kinds == {"reasoning": 1, "hosted_tool_call": 1}
    assert ann.skipped_lines == [{"line": 10, "reason": "torn last line"}]
    assert (ann.skills, ann.memories) == (1, 2)
    assert ann.summary.startswith("imported")
    assert any(n.startswith("resources/ (generated images and media) was not copied") for n in ann.notes)
    assert any(n.startswith("schedules.json (timed wakeups) is not imported") for n in ann.notes)
    assert ws.resolve(bob.new_id).name == "Bob the reviewer"  # a tab is no part of a name here
    assert bob.items == 4 and [s["line"] for s in bob.skipped_lines] == [2]
    assert bob.skipped_lines[0]["reason"].startswith("the line is not valid JSON")
    assert bob.skipped_kinds == {"tool result without its call": 1}
    assert squad.items == 3
    assert squad.skipped_kinds == {
        "repeated user message (the runner's copy of the one before)": 1,
        "squad runner function_call": 1,
        "squad runner function_call_result": 1,
        "squad runner message": 1,
    }
    assert report.global_memories == 1
    assert any("API keys are never imported" in n for n in report.not_imported)
    printed = json.dumps(report.to_json()) + report.text()
    assert "sk-secret" not in printed and "pw-secret" not in printed
    assert any("gpt-4o-mini at https://api.example.com/v1" in n for n in report.not_imported)

    target = ws.resolve(ann.new_id)
    assert target.name == "Ann" and target.role_line == "Writes release notes"
    assert target.meta["model"] == "gpt-4o-mini"
    assert target.meta["importedFrom"]["id"] == ANN and target.meta["importedFrom"]["complete"] is True
    assert "你是「Ann」" in (target.dir / "SOUL.md").read_text(encoding="utf-8")
    assert (target.dir / "skills" / "okbot-notes" / "SKILL.md").is_file()
    memories = {e.text: e for e in MemoryStore(target.dir / "memory", target.id).entries()}
    assert memories["User ships on Fridays"].pinned and memories["Project is okbot"].status == "durable"
    assert [e.text for e in MemoryStore(paths.global_memory_dir(), "global").entries()] == ["User is Sam"]

    items = list(SessionStore(target.session_path).iter_items())
    assert [i["type"] for i in items] == ["user", "assistant", "tool_call", "tool_result", "user", "assistant", "user"]
    assert items[1]["usage"] == {"prompt_tokens": 120, "completion_tokens": 8, "cached_tokens": 0}
    assert items[1]["content"] == "Reading the log." and items[1]["ts"] == "2025-01-01T10:00:00.000Z"
    assert items[3]["call_id"] == "call_1" and items[3]["content"] == "abc fix" and items[3]["ok"] is True
    assert (items[5]["content"], items[5]["reasoning"]) == ("Done: 1.2 notes.", "short")
    summary = SummaryStore(target.summary_path).load()
    assert summary.summary == "目标：1.2 的发布说明" and summary.covered_through_id == items[3]["id"]

    sources = ContextSources(ws)
    proj = build_context(target, sources=sources)
    instructions = "\n".join(block.text for block in proj.blocks)
    assert "目标：1.2 的发布说明" in instructions and "你是「Ann」" in instructions
    assert proj.covered_through_id == items[3]["id"]
    assert [i["id"] for i in proj.items] == [i["id"] for i in items[4:]]

    bob_items = list(SessionStore(ws.resolve(bob.new_id).session_path).iter_items())
    assert [i["type"] for i in bob_items] == ["user", "tool_call", "tool_result", "assistant"]
    assert bob_items[2]["call_id"] == "c7" and bob_items[2]["ok"] is False and bob_items[2]["source"] == "app"

    crew = ws.resolve(squad.new_id)
    assert [m["assistant"] for m in crew.members] == [ann.new_id, bob.new_id]
    said = list(SessionStore(crew.session_path).iter_items())
    assert said[1]["author"] == ann.new_id and said[1]["source"] == f"member:{ann.new_id}"
    assert said[2]["author"] == crew.id
    build_context(crew, sources=sources)


def test_reimport_does_not_duplicate(source: Path) -> None:
    ws = Workspace()
    first = import_okbot(source, ws)
    count = len(ws.list())
    again = import_okbot(source, ws)
    assert len(ws.list()) == count
    assert {o.status for o in again.owners} == {"already imported"}
    assert {o.new_id for o in again.owners} == {o.new_id for o in first.owners}
    assert again.global_memories == 0  # the same texts are not added twice


def test_not_a_source_dir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OkBotError, match="No data of the original OkBot"):
        import_okbot(tmp_path, Workspace())


def test_cli_prints_the_report(source: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    args = cli.build_parser().parse_args(["import-okbot", str(source)])
    assert cli.run(args, out, err) == 0
    assert "Ann" in out.getvalue() and "7 items" in out.getvalue()
    out = io.StringIO()
    args = cli.build_parser().parse_args(["import-okbot", str(source), "--json"])
    assert cli.run(args, out, err) == 0
    data = json.loads(out.getvalue())
    assert {o["status"] for o in data["owners"]} == {"already imported"}


def test_cli_without_a_source_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    out, err = io.StringIO(), io.StringIO()
    assert cli.run(cli.build_parser().parse_args(["import-okbot"]), out, err) == 1
    assert "No data of the original OkBot" in err.getvalue()


def test_an_import_cut_short_is_named_on_the_next_run(source: Path) -> None:
    ws = Workspace()
    first = import_okbot(source, ws)
    ann = ws.resolve(next(o.new_id for o in first.owners if o.source_id == ANN))
    ws.set_meta(ann, "importedFrom", {**ann.meta["importedFrom"], "complete": False})  # as if it stopped midway
    again = {o.source_id: o for o in import_okbot(source, ws).owners}
    assert again[ANN].status.startswith("imported before, but that import was cut short")
    assert again[BOB].status == "already imported"


# ------------------------------------------------------------------ a data dir of Chinese names (issue 34, item 23)
XM, XH, CREW = "bot_20250301_001", "bot_20250301_002", "squad_20250301_001"


CHINESE_SETTINGS = {  # AppSettings in packages/shared/src/index.ts, mcp.ts
    "language": "zh",
    "theme": "dark",
    "model": {
        "providers": [
            {
                "id": "prov_1",
                "name": "深度求索",
                "baseURL": "https://api.deepseek.com/v1",
                "apiKey": "sk-first-secret",
                "models": [{"id": "deepseek-chat", "contextWindow": 64000}],
            },
            {
                "id": "prov_2",
                "name": "本地",
                "baseURL": "http://localhost:11434/v1",
                "apiKey": "sk-second-secret",
                "models": [{"id": "qwen2.5", "contextWindow": 32768}],
            },
        ],
        "defaultProviderId": "prov_1",
        "defaultModelId": "deepseek-chat",
    },
    "mcp": {
        "enabled": True,
        "servers": [
            {
                "id": "mcp_1",
                "name": "Time Server",
                "enabled": True,
                "transport": "stdio",
                "command": "uvx",
                "args": ["mcp-server-time"],
                "env": {"TZ": "Asia/Shanghai", "API_TOKEN": "tok-never-copied"},
            },
            {
                "id": "mcp_2",
                "name": "任务",
                "enabled": True,
                "transport": "http",
                "url": "https://mcp.example.com/mcp",
                "headers": {"Authorization": "Bearer hdr-never-copied"},
            },
            {"id": "mcp_3", "name": "off", "enabled": False, "transport": "stdio", "command": "off-server"},
            {"id": "mcp_4", "name": "broken", "transport": "stdio"},
            {
                "id": "mcp_5",
                "name": "gh",
                "transport": "stdio",
                "command": "gh-mcp",
                "args": ["--token", "ghp-argv-kept-out"],
            },
        ],
    },
}


def build_chinese_sample(root: Path) -> Path:
    """A ~/.okbot whose assistants and squad have Chinese names, as most of the original's users name them."""
    _write(
        root / "bots.json",
        json.dumps(
            [
                {"id": XM, "name": "小明", "description": "写代码"},
                {"id": XH, "name": "小红", "description": "审代码"},
            ],
            ensure_ascii=False,
        ),
    )
    # bot.json names the global skills (~/.agents/skills/<slug>) it uses: FileStorage.resolveEnabledSkill
    _write(
        root / XM / "bot.json",
        json.dumps(
            {
                "id": XM,
                "providerId": "prov_1",
                "modelId": "deepseek-chat",
                "useGlobalSkills": True,
                "enabledGlobalSkills": ["pdf", "gone", "linked", "../dot-okbot"],
            }
        ),
    )
    _write(
        root / XH / "bot.json",
        json.dumps(
            {
                "id": XH,
                "providerId": "prov_2",
                "modelId": "qwen2.5",
                "useGlobalSkills": False,
                "enabledGlobalSkills": ["pdf"],
            }
        ),
    )
    for bot in (XM, XH):
        _write(root / bot / "AGENTS.md", "# 角色与目标\n\n你是助手。\n")
    xm_lines = [
        _env("x1", {"type": "message", "role": "user", "content": "你好"}, {"uiRole": "user"}),
        _env(  # a failed turn, as registerChat.ts writes it: the bubble's text is 错误：<why>
            "x2",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "错误：401 无效的 API Key"}],
            },
            {"uiRole": "assistant"},
        ),
        json.dumps({"id": "x3", "role": "assistant", "content": "错误：网络超时", "createdAt": "2025-03-01T10:00:00Z"}),
        _env("x4", {"type": "message", "role": "assistant", "content": "你好！"}, {"uiRole": "assistant"}),
    ]
    # the original loads a SKILL.md without front matter (parse.ts: its # title is the name)
    _write(root / XH / "skills" / "okbot-review" / "SKILL.md", "# 代码评审清单\n\n先看测试。\n")
    # formatSkillMarkdown writes the display name, okbot- prefixed, which need not be the folder's slug
    _write(
        root / XH / "skills" / "okbot-release-notes" / "SKILL.md",
        '---\nname: "okbot-Release Notes"\ndescription: "写发布说明"\n---\n\nSteps.\n',
    )
    _write(root / XM / "session.jsonl", "\n".join(xm_lines) + "\n")
    _write(root / "settings.json", json.dumps(CHINESE_SETTINGS, ensure_ascii=False))
    _write(
        root / "squads.json",
        json.dumps(
            [
                {
                    "id": CREW,
                    "name": "开发小队",
                    "members": [{"botId": XM, "role": "开发"}, {"botId": XH, "role": "评审"}],
                }
            ],
            ensure_ascii=False,
        ),
    )
    return root


def build_global_skills(skills: Path) -> Path:
    """``~/.agents/skills`` at ``skills``: one skill a bot enables (with a script and a link), one no bot does."""
    _write(skills / "pdf" / "SKILL.md", "---\nname: pdf\ndescription: Read PDF files\n---\n\nRun scripts/pdf.py.\n")
    _write(skills / "pdf" / "scripts" / "pdf.py", "print('pdf')\n")
    (skills / "pdf" / "secret").symlink_to(skills.parent / "elsewhere")
    _write(skills / "unused" / "SKILL.md", "---\nname: unused\ndescription: Nobody enables it\n---\n")
    (skills / "linked").symlink_to(skills / "unused", target_is_directory=True)  # not followed either
    return skills


@pytest.fixture
def chinese(tmp_path: Path) -> Path:
    return build_chinese_sample(tmp_path / "dot-okbot")


@pytest.fixture
def global_skills(tmp_path: Path) -> Path:
    return build_global_skills(tmp_path / "home" / ".agents" / "skills")


def test_chinese_names_get_distinct_ids_not_the_fallbacks(chinese: Path) -> None:
    ws = Workspace()
    report = import_okbot(chinese, ws)
    ids = {o.source_id: o.new_id for o in report.owners}
    assert ids[XM] and ids[XH] and ids[CREW]
    assert len(set(ids.values())) == 3
    assert not {ids[XM], ids[XH]} & {"assistant", "assistant-2"} and ids[CREW] != "squad"
    tools = {delegation_tool_name(m["assistant"]) for m in ws.resolve(ids[CREW]).members}
    assert len(tools) == 2 and "ask_assistant" not in tools
    assert ws.resolve(ids[XM]).name == "小明"  # the name itself stays as it was


def test_an_error_row_comes_over_as_a_failed_reply(chinese: Path) -> None:
    ws = Workspace()
    owner = next(o for o in import_okbot(chinese, ws).owners if o.source_id == XM)
    items = list(SessionStore(ws.resolve(owner.new_id).session_path).iter_items())
    assert [(i["type"], i.get("status")) for i in items] == [
        ("user", None),
        ("assistant", "error"),
        ("assistant", "error"),
        ("assistant", "complete"),
    ]
    assert (items[1]["content"], items[1]["error"]) == ("", "401 无效的 API Key")
    assert items[2]["error"] == "网络超时" and items[3]["content"] == "你好！"


def test_a_skill_without_front_matter_is_made_loadable(chinese: Path) -> None:
    ws = Workspace()
    owner = next(o for o in import_okbot(chinese, ws).owners if o.source_id == XH)
    catalog = SkillCatalog(ws.resolve(owner.new_id).skills_dir)
    assert catalog.problems() == [] and owner.skills == 2
    assert ("okbot-review", "代码评审清单") in catalog.catalog()
    assert catalog.load("okbot-review").rstrip().endswith("# 代码评审清单\n\n先看测试。")
    assert any("front matter" in n and "okbot-review" in n for n in owner.notes)  # and the report says so


def test_global_skills_a_bot_enables_come_over_or_are_named(chinese: Path, global_skills: Path) -> None:
    ws = Workspace()
    owners = {o.source_id: o for o in import_okbot(chinese, ws, global_skills=global_skills).owners}
    xm, xh = ws.resolve(owners[XM].new_id), ws.resolve(owners[XH].new_id)
    assert sorted(p.name for p in xm.skills_dir.iterdir()) == ["pdf"]  # enabled, and there
    assert (xm.skills_dir / "pdf" / "scripts" / "pdf.py").read_text() == "print('pdf')\n"
    assert not (xm.skills_dir / "pdf" / "secret").exists()  # a link is not followed
    assert SkillCatalog(xm.skills_dir).catalog() == [("pdf", "Read PDF files")]
    assert owners[XM].skills == 1
    notes = "\n".join(owners[XM].notes)
    assert "global skill pdf" in notes and "gone" in notes and "not found" in notes
    assert "secret is a symlink" in notes and "linked is a symlink" in notes
    assert "'../dot-okbot' is enabled but not found" in notes  # a slug is one folder, never a path
    assert sorted(p.name for p in xh.skills_dir.iterdir()) == ["okbot-release-notes", "okbot-review"]  # no pdf


def test_every_provider_is_named_without_its_key(chinese: Path) -> None:
    report = import_okbot(chinese, Workspace())
    said = "\n".join(report.not_imported)
    assert "深度求索 at https://api.deepseek.com/v1" in said and "本地 at http://localhost:11434/v1" in said
    assert "qwen2.5" in said  # what it serves, so the user can add it here
    printed = json.dumps(report.to_json(), ensure_ascii=False) + report.text()
    assert "secret" not in printed and "never-copied" not in printed


def test_language_and_theme_are_mapped_unless_chosen_here(chinese: Path) -> None:
    ws = Workspace()
    settings = Settings.load()
    settings.set("ui.theme", "light")  # the user chose one here already: it stays
    report = import_okbot(chinese, ws)
    apply_settings(report, settings, ws)
    assert settings.get("ui.language") == "zh_CN" and Settings.load().get("ui.language") == "zh_CN"
    assert settings.get("ui.theme") == "light"
    said = report.text()
    assert "ui.language set to zh_CN (the original's language: zh)" in said
    assert "ui.theme stays light (chosen here); the original's theme: dark" in said


def test_the_original_per_model_context_window_comes_over(chinese: Path) -> None:
    ws = Workspace()
    settings = Settings.load()
    settings.set_for_model("model.contextWindow", "qwen2.5", 16000)  # set here already: it stays
    report = import_okbot(chinese, ws)
    apply_settings(report, settings, ws)
    xm = ws.resolve(next(o.new_id for o in report.owners if o.source_id == XM))
    assert xm.meta["model"] == "deepseek-chat"
    assert effective_context_window(settings, "deepseek-chat") == 64000
    assert effective_context_window(Settings.load(), "deepseek-chat") == 64000  # saved
    assert effective_context_window(settings, "qwen2.5") == 16000
    said = report.text()
    assert "context window of deepseek-chat set to 64,000 tokens (the original's, provider 深度求索)" in said
    assert "context window of qwen2.5 stays 16,000 tokens (chosen here); the original's: 32,768" in said


def test_mcp_servers_are_declared_without_their_secrets_and_named(chinese: Path) -> None:
    ws = Workspace()
    settings = Settings.load()
    report = import_okbot(chinese, ws)
    apply_settings(report, settings, ws)
    servers = {c.name: c for c in settings.mcp_servers.all()}
    names = sorted(servers)
    assert "time-server" in names and "off" in names and len(names) == 3 and "broken" not in names
    task = next(n for n in names if n.startswith("mcp-"))  # 任务 has no ASCII: a digest names it
    time_server = servers["time-server"]
    assert (time_server.command, time_server.args) == ("uvx", ("mcp-server-time",))
    assert time_server.env == ("TZ", "API_TOKEN") and time_server.approval == "ask"
    assert servers[task].url == "https://mcp.example.com/mcp" and servers[task].headers == ("Authorization",)
    stored = paths.settings_file().read_text(encoding="utf-8")
    said = report.text()
    for value in ("Asia/Shanghai", "tok-never-copied", "hdr-never-copied"):
        assert value not in stored and value not in said
    # the original gave every bot its enabled servers: the imported assistants may use them
    for owner in report.owners:
        if owner.kind == "assistant":
            assert ws.resolve(owner.new_id).mcp_servers == ("time-server", task)
    assert "MCP server time-server (the original's Time Server) added" in said
    assert "values of TZ, API_TOKEN were not imported" in said
    assert "MCP server off (the original's off) added; it was off there" in said
    assert any("MCP server broken" in n for n in report.not_imported)
    assert not any("mcp is not mapped" in n for n in report.not_imported)


def test_a_skill_named_unlike_its_folder_is_made_loadable(chinese: Path) -> None:
    ws = Workspace()
    owner = next(o for o in import_okbot(chinese, ws).owners if o.source_id == XH)
    catalog = SkillCatalog(ws.resolve(owner.new_id).skills_dir)
    assert ("okbot-release-notes", "写发布说明") in catalog.catalog() and catalog.problems() == []
    assert catalog.load("okbot-release-notes").rstrip().endswith("Steps.")
    assert any("okbot-Release Notes" in n and "okbot-release-notes" in n for n in owner.notes)


def test_an_mcp_server_with_a_credential_on_its_command_line_is_named_not_declared(chinese: Path) -> None:
    ws = Workspace()
    settings = Settings.load()
    report = import_okbot(chinese, ws)
    apply_settings(report, settings, ws)
    assert "gh" not in {c.name for c in settings.mcp_servers.all()}
    assert any("MCP server gh is not mapped" in n and "credential" in n for n in report.not_imported)
    printed = json.dumps(report.to_json(), ensure_ascii=False) + report.text() + paths.settings_file().read_text()
    assert "argv-kept-out" not in printed


def test_a_second_run_does_not_apply_the_settings_again(chinese: Path) -> None:
    ws = Workspace()
    settings = Settings.load()
    apply_settings(import_okbot(chinese, ws), settings, ws)
    settings.mcp_servers.remove("off")  # the user did not want these after all
    settings.reset("ui.language")
    again = import_okbot(chinese, ws)
    apply_settings(again, settings, ws)
    assert "off" not in {c.name for c in settings.mcp_servers.all()} and settings.get("ui.language") == "system"
    assert any("not applied again" in line for line in again.settings)
