"""The approval card on its own: exact arguments, reasons, the queue, the countdown."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from okbot.ui.approval_card import ApprovalCard, arguments_text, describe_call


def test_a_shell_command_is_shown_exactly_and_a_long_one_scrolls(qtbot: QtBot) -> None:
    card = ApprovalCard()
    qtbot.addWidget(card)
    answers: list[bool] = []
    command = "rm -rf build && " + "make -j8 " * 300
    card.ask("run_shell", {"command": command, "cwd": "/home/sam/project"}, answers.append)
    assert card.arguments.toPlainText() == command + "\n# cwd: /home/sam/project"  # never shortened
    assert card.always_button.isVisibleTo(card) and card.label.text().endswith("run a command on this computer.")
    card.deny_button.click()
    assert answers == [False] and not card.isVisibleTo(None)


def test_a_path_outside_the_workspace_shows_why_and_offers_no_always(qtbot: QtBot) -> None:
    card = ApprovalCard()
    qtbot.addWidget(card)
    answers: list[bool] = []
    card.ask("read_file", {"path": "/etc/hosts", "reason": "outside the workspace: /etc/hosts"}, answers.append)
    assert card.reason.text() == "⚠ outside the workspace: /etc/hosts"
    assert not card.always_button.isVisibleTo(card)
    assert '"reason"' not in card.arguments.toPlainText() and '"path": "/etc/hosts"' in card.arguments.toPlainText()
    card.allow_button.click()
    assert answers == [True]


def test_requests_at_the_same_time_wait_in_line_and_each_gets_its_answer(qtbot: QtBot) -> None:
    card = ApprovalCard(timeout_s=60)
    qtbot.addWidget(card)
    answers: list[tuple[str, bool]] = []
    for who in ("rex", "mia", "ola"):
        card.ask("write_file", {"path": f"{who}.txt", "content": "x"}, lambda ok, w=who: answers.append((w, ok)))
    assert card.waiting == 2 and "2 more waiting" in card.countdown.text()
    card.allow_button.click()
    assert '"rex.txt"' not in card.arguments.toPlainText() and '"mia.txt"' in card.arguments.toPlainText()
    card.deny_button.click()
    card.allow_button.click()
    assert answers == [("rex", True), ("mia", False), ("ola", True)] and not card.pending


def test_cancel_drops_every_waiting_request_without_answering(qtbot: QtBot) -> None:
    card = ApprovalCard()
    qtbot.addWidget(card)
    answers: list[bool] = []
    card.ask("run_shell", {"command": "ls"}, answers.append)
    card.ask("run_shell", {"command": "pwd"}, answers.append)
    card.cancel()
    assert answers == [] and not card.pending and card.waiting == 0


def test_arguments_text_keeps_everything_but_the_reason() -> None:
    edit = {"path": "a.txt", "old": "x", "new": "y"}
    assert arguments_text(edit) == '{\n  "path": "a.txt",\n  "old": "x",\n  "new": "y"\n}'
    assert arguments_text({"command": "ls -la", "timeout": 5}) == "ls -la\n# timeout: 5"


def test_a_shell_command_card_says_what_it_can_reach_where_there_is_no_sandbox(qtbot: QtBot) -> None:
    """Issue 13: where the namespace cannot be made, approving means handing over everything."""
    card = ApprovalCard(shell_sandboxed=False)
    qtbot.addWidget(card)
    card.ask("run_shell", {"command": "ls"}, lambda ok: None)
    assert card.reach.isVisibleTo(card)
    assert "everything you can" in card.reach.text() and "keys" in card.reach.text()
    assert "no protection" in card.reach.text()  # the denylist is not sold as one
    card.cancel()


def test_a_shell_command_card_in_the_sandbox_says_what_is_hidden(qtbot: QtBot) -> None:
    card = ApprovalCard(shell_sandboxed=True)
    qtbot.addWidget(card)
    card.ask("run_shell", {"command": "ls"}, lambda ok: None)
    assert "hidden" in card.reach.text() and "everything you can" not in card.reach.text()
    card.deny_button.click()
    card.ask("read_file", {"path": "a.txt"}, lambda ok: None)
    assert not card.reach.isVisibleTo(card) and card.reach.text() == ""


def test_in_a_narrow_chat_every_wrapped_line_and_button_of_the_card_shows_whole(qtbot: QtBot) -> None:
    """At the window's 640 × 460 the card sat under a chat that takes the rest: the lines on what a command can
    reach were cut, the buttons' words too ("ways allow run_sh")."""
    from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

    page = QWidget()
    qtbot.addWidget(page)
    layout = QVBoxLayout(page)
    layout.addWidget(QPlainTextEdit(), 1)  # the chat view: all the room there is
    card = ApprovalCard(page, shell_sandboxed=False)
    layout.addWidget(card)
    page.resize(420, 250)  # the chat column of a 640 × 460 window, between its header and its composer
    page.show()
    qtbot.waitExposed(page)
    card.ask("run_shell", {"command": "ls -la ~/projects && git status"}, lambda _ok: None)
    qtbot.waitUntil(lambda: card.reach.height() >= card.reach.heightForWidth(card.reach.width()))
    for button in (card.deny_button, card.always_button, card.allow_button):
        assert button.width() >= button.sizeHint().width(), button.text()


def test_a_web_search_card_says_the_assistant_wants_to_search_the_web() -> None:
    assert describe_call("web_search", {"query": "okbot"}) == "The assistant wants to search the web."
