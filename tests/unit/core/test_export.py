"""Exporting a chat: Markdown that reads like the chat, JSON that holds the records as they are."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from okbot.__main__ import main
from okbot.core import export
from okbot.core.attachments import attach
from okbot.core.inert import inert, inert_line
from okbot.core.items import delegation_tool_name, member_source, new_item, notice, user_message, with_app_note
from okbot.core.session import SessionStore
from okbot.core.session.branches import marker
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.workspace import Workspace
from okbot.storage.errors import OkBotError


def squad_chat() -> tuple[Workspace, object, SessionStore]:
    """A squad (captain + Rex) whose chat has a summary, tool calls, a delegation, reasoning, a notice, an
    attachment and an edited message."""
    ws = Workspace()
    ws.create_assistant("Rex")
    ws.create_assistant("Ann")
    squad = ws.create_squad("Crew", [("rex", "coder"), ("ann", "tester")])
    store = SessionStore(squad.session_path)
    store.append(user_message("Old question about tables"))  # 1
    store.append(new_item("assistant", author=squad.id, source="app", content="Old answer"))  # 2
    store.append(
        new_item(
            "tool_call", author=squad.id, source="app", call_id="c1", name="read_file", arguments='{"path": "notes.md"}'
        )
    )  # 3
    store.append(
        new_item(
            "tool_result",
            author=squad.id,
            source="tool",
            call_id="c1",
            name="read_file",
            content="line one\nline two",
            ok=True,
        )
    )  # 4
    first = store.append(user_message("Please fix the parser"))  # 5
    store.append(new_item("assistant", author=squad.id, source="app", content="Wrong way"))  # 6
    store.append(marker("edit", first["id"] - 1, "edited"))  # 7
    store.append(user_message("Please fix the lexer"))  # 8
    ask = delegation_tool_name("rex")
    store.append(
        new_item(
            "tool_call", author=squad.id, source="app", call_id="d1", name=ask, arguments='{"task": "fix the lexer"}'
        )
    )  # 9
    store.append(
        new_item(
            "tool_result",
            author="rex",
            source=member_source("rex"),
            call_id="d1",
            name=ask,
            content="Lexer fixed.",
            ok=True,
        )
    )  # 10
    store.append(
        new_item("assistant", author=squad.id, source="app", content="Rex fixed it.", reasoning="Rex is the coder.")
    )  # 11
    store.append(notice("The summary was updated.", "warning"))  # 12
    SummaryStore(squad.summary_path).save(SessionSummary(summary="## Goals\n1. Tables", covered_through_id=4))
    return ws, squad, store


def test_markdown_shows_names_summary_tools_reasoning_and_the_current_branch():
    ws, squad, _ = squad_chat()
    out = io.StringIO()
    written = export.write_markdown(squad, ws, out)
    md = out.getvalue()
    assert md.startswith("# Crew\n")
    assert written == 9  # items 1-4 and 8-12: the first version (5, 6) and the marker (7) are left out
    assert "Please fix the lexer" in md and "Please fix the parser" not in md and "Wrong way" not in md
    assert "only the versions on screen are exported" in md
    assert "Members: Rex, Ann" in md
    # the divider sits where coverage ends, the summary folded
    divider = md.index(export.SUMMARIZED)
    assert md.index("line two") < divider < md.index("Please fix the lexer")
    assert "(4 items above)" in md and "<details><summary>Summary</summary>\n\n## Goals\n1. Tables" in md
    # tool rows: the chat's digest as the label, the full text folded
    assert "<details><summary>⚙ read_file(path=&quot;notes.md&quot;)</summary>" in md
    assert "⚙ read_file done · 17 chars, 2 lines · line one</summary>" in md
    assert "⚙ asked Rex: fix the lexer</summary>" in md
    assert "### Rex → Captain" in md and "Lexer fixed." in md
    assert "### Captain ·" in md and "<details><summary>Reasoning</summary>\n\nRex is the coder." in md
    assert "> ⚠ The summary was updated." in md
    assert "### You ·" in md


def test_markdown_names_attachments(tmp_path):
    ws = Workspace()
    target = ws.ensure_default()
    store = SessionStore(target.session_path)
    plan = tmp_path / "plan.md"
    plan.write_text("x" * 2048, "utf-8")
    store.append(user_message("see the plan", [attach(plan, target.dir)]))
    out = io.StringIO()
    export.write_markdown(target, ws, out)
    assert "*Attached: plan.md (2.0 KB)*" in out.getvalue()
    assert f"### {target.name}" not in out.getvalue()  # no reply yet


def test_json_holds_every_item_as_it_is_on_disk():
    ws, squad, _ = squad_chat()
    out = io.StringIO()
    written = export.write_json(squad, out)
    data = json.loads(out.getvalue())
    lines = squad.session_path.read_text("utf-8").splitlines()
    assert written == len(lines) == 12
    assert data["items"] == [json.loads(line) for line in lines]  # every version, the marker, unchanged
    assert [list(it) for it in data["items"]] == [list(json.loads(line)) for line in lines]  # key order too
    assert data["format"] == "okbot-chat-export" and data["formatVersion"] == 1
    assert data["summary"] == json.loads(squad.summary_path.read_text("utf-8"))
    assert data["target"]["file"] == json.loads(squad.meta_path.read_text("utf-8"))
    assert data["target"]["kind"] == "squad" and data["target"]["name"] == "Crew"


def test_json_of_an_empty_chat_is_valid():
    ws = Workspace()
    target = ws.ensure_default()
    out = io.StringIO()
    assert export.write_json(target, out) == 0
    assert json.loads(out.getvalue())["items"] == []


def test_export_to_file_refuses_an_existing_file_unless_forced(tmp_path):
    ws, squad, _ = squad_chat()
    dest = tmp_path / "crew.md"
    dest.write_text("mine", "utf-8")
    with pytest.raises(OkBotError, match="exists"):
        export.export_to_file(squad, ws, "md", dest)
    assert dest.read_text("utf-8") == "mine"
    export.export_to_file(squad, ws, "md", dest, force=True)
    assert dest.read_text("utf-8").startswith("# Crew")
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_cli_export_stdout_and_file(capsys, tmp_path):
    squad_chat()
    assert main(["export", "Crew", "--format", "json"]) == 0
    out, _ = capsys.readouterr()
    assert len(json.loads(out)["items"]) == 12
    dest = tmp_path / "c.md"
    assert main(["export", "Crew", "-o", str(dest)]) == 0
    assert dest.read_text("utf-8").startswith("# Crew")
    assert main(["export", "Crew", "-o", str(dest)]) == 1
    _, err = capsys.readouterr()
    assert "exists" in err and "--force" in err
    assert main(["export", "Crew", "-o", str(dest), "--force", "--format", "json"]) == 0
    assert json.loads(dest.read_text("utf-8"))["target"]["id"] == "crew"


def test_markdown_labels_are_in_the_language_at_export_time():
    from okbot import i18n

    if not i18n.catalogue_file("zh_CN").is_file():
        pytest.skip("the zh_CN catalogue is not built (make)")
    ws, squad, _ = squad_chat()
    i18n.set_language("zh_CN")
    try:
        out = io.StringIO()
        export.write_markdown(squad, ws, out)
    finally:
        i18n.set_language(i18n.SOURCE_LANGUAGE)
    md = out.getvalue()
    assert "*小队对话 · 9 个条目 · " in md and "成员：Rex, Ann" in md
    assert "**较早的消息已压缩为摘要**（上方 4 个条目）" in md and "<details><summary>摘要</summary>" in md
    assert "### 你 ·" in md and "### Rex → 队长" in md and "<details><summary>推理过程</summary>" in md
    assert "Please fix the lexer" in md  # the chat itself is data: never translated


# ---------------------------------------------------------------- hostile text (round 3, item 21)
HOSTILE = {
    "script": "<script>alert(1)</script>",
    "img": "<img src=x onerror=alert(1)>",
    "iframe": '<iframe src="javascript:alert(1)"></iframe>',
    "details": "</details><b>outside the fold</b>",
    "comment": "<!-- hidden --> shown",
    "autolink": "<javascript:alert(1)>",
    "list fence": "- a\n  ```\n<script>alert(2)</script>\n  ```",
    "quoted fence": "> ```\n<img src=y onerror=alert(3)>",
    "indented fence": "1. a\n\n    ```\n<iframe src=z></iframe>",
    "unclosed fence": "```\n<div>code</div>",
    "escaped backtick": "\\`<img src=z onerror=alert(4)>`",
    "CR": "x\r<script>alert(5)</script>",
    "entity": "&lt;b&gt; as typed",
}
SHOWN = {  # what a reader must see of each, as text
    "list fence": "<script>alert(2)</script>",
    "quoted fence": "<img src=y onerror=alert(3)>",
    "indented fence": "<iframe src=z></iframe>",
    "unclosed fence": "<div>code</div>",
    "escaped backtick": "<img src=z onerror=alert(4)>",
    "CR": "<script>alert(5)</script>",
}


def _hostile_squad(text: str) -> object:
    """A squad whose every kind of text holds ``text``: the user's, a reply, reasoning, a member's answer and
    the app's note on it, a notice and the summary; the squad and its member are named with it when one line."""
    ws = Workspace()
    one_line = "\n" not in text and "\r" not in text
    rex = ws.create_assistant(f"Rex {text}" if one_line else "Rex")
    ws.create_assistant("Ann")
    squad = ws.create_squad(f"Crew {text}" if one_line else "Crew", [(rex.id, "coder"), ("ann", "tester")])
    store = SessionStore(squad.session_path)
    store.append(user_message(text))
    store.append(new_item("assistant", author=squad.id, source="app", content=text, reasoning=text))
    ask = delegation_tool_name(rex.id)
    store.append(new_item("tool_call", author=squad.id, source="app", call_id="d1", name=ask, arguments="{}"))
    answer = with_app_note(text, text)
    store.append(
        new_item(
            "tool_result", author=rex.id, source=member_source(rex.id), call_id="d1", name=ask, content=answer, ok=True
        )
    )
    store.append(notice(text, "warning"))
    store.append(new_item("assistant", author=squad.id, source="app", content="the end"))
    SummaryStore(squad.summary_path).save(SessionSummary(summary=text, covered_through_id=1))
    return squad


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_shows_html_from_the_chat_as_text_and_keeps_the_apps_folds(qapp, capsys, name):
    from PySide6.QtGui import QTextDocument

    squad = _hostile_squad(HOSTILE[name])
    assert main(["export", squad.id]) == 0
    md, _ = capsys.readouterr()
    doc = QTextDocument()
    doc.setMarkdown(md)  # md4c, a CommonMark renderer: live HTML would vanish from the text
    shown = doc.toPlainText()
    places = 7  # user, reply, reasoning, member answer, its note, notice, summary
    assert shown.count(SHOWN.get(name, HOSTILE[name])) >= places, md
    headings = []
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().headingLevel() == 3:
            headings.append(block.text())
        block = block.next()
    assert len(headings) == 4 and headings[-1].startswith("Captain"), md  # nothing swallowed the items after it
    assert "the end" in shown
    assert md.count("<details><summary>") == md.count("\n</details>") == 3  # the summary, reasoning, the task


def test_markdown_keeps_code_as_written():
    ws = Workspace()
    target = ws.ensure_default()
    store = SessionStore(target.session_path)
    code = '```html\n<div class="a">&amp; <b>x</b></div>\n```\nand `<b>inline</b>` & R&D, a < b, &copy;'
    store.append(new_item("assistant", author=target.id, source="app", content=code))
    out = io.StringIO()
    export.write_markdown(target, ws, out)
    md = out.getvalue()
    assert '```html\n<div class="a">&amp; <b>x</b></div>\n```\n' in md
    assert "and `<b>inline</b>` & R&D, a < b, &amp;copy;" in md


PIECES = [
    *("```", "~~~", "````", "  ```", "   ~~~", "- ", "> ", "1. ", "    ", "\t", "`", "``", "\\", "\\`", " ", "a"),
    *("\n", "\n\n", "\r", "\r\n", "|", "| --- |", "---", "===", "#", "*", "[x]: ", "[a](", ")", "&amp;", "&lt;"),
    *("<img src=q onerror=1>", "</details>", "<!--", "-->", "<div>", "<https://x.y>"),
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_no_text_renders_live_html_or_breaks_the_apps_fold(qapp, text):
    """Whatever the text, md4c (a CommonMark renderer) shows no image from it, and the heading after the
    fold it sits in is still a heading (nothing swallowed the app's markup)."""
    from PySide6.QtGui import QTextDocument

    md = f"<details><summary>R</summary>\n\n{inert(text)}\n\n</details>\n\n### {inert_line(text)} END\n"
    doc = QTextDocument()
    doc.setMarkdown(md)
    assert "<img" not in doc.toHtml(), md
    last = doc.lastBlock()
    assert last.blockFormat().headingLevel() == 3 and last.text().endswith("END"), md
