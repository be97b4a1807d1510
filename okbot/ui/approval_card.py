"""The inline card that asks the user to allow or deny a tool call.

It shows the exact arguments (never hidden or shortened: a scrollable monospace block), the reason
when a call needs approval although its tool is allowed (a path outside the workspace), and offers
Allow once / Always allow this tool / Deny. A tool of an MCP server is named with its server, and
"Always allow" for it is that server's choice for that tool (``mcp_always_allowed``). A shell command's
card also says what approving it hands over: on a system where the command runs in OkBot's sandbox,
everything the user can reach but OkBot's own files; elsewhere everything, OkBot's keys included. An unanswered
card counts as Deny when its time runs out (``tools.approvalTimeout``). Requests that arrive while
one is shown (squad members asking at the same time) wait in line and are shown one after another.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QPalette, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout

from okbot.config.mcp import TOOL_SEPARATOR
from okbot.core.local_tools import shell
from okbot.i18n import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from okbot.mcp.hub import McpTool

FindTool = Callable[[str], "McpTool | None"]  # the MCP tool offered under a name, if it is one

DEFAULT_TIMEOUT_S = 300
ARGS_MAX_LINES = 12  # the arguments box grows up to this many lines, then scrolls

# The card's sentence per built-in tool (translated in describe_call)
_DESCRIPTIONS = {
    "search_history": QT_TRANSLATE_NOOP(
        "ApprovalCard", "The assistant wants to search this chat's full original record."
    ),
    "read_file": QT_TRANSLATE_NOOP("ApprovalCard", "The assistant wants to read a file."),
    "list_dir": QT_TRANSLATE_NOOP("ApprovalCard", "The assistant wants to list a folder."),
    "write_file": QT_TRANSLATE_NOOP("ApprovalCard", "The assistant wants to write a file."),
    "edit_file": QT_TRANSLATE_NOOP("ApprovalCard", "The assistant wants to edit a file."),
    "run_shell": QT_TRANSLATE_NOOP("ApprovalCard", "The assistant wants to run a command on this computer."),
    "web_fetch": QT_TRANSLATE_NOOP("ApprovalCard", "The assistant wants to fetch a web page."),
    "web_search": QT_TRANSLATE_NOOP("ApprovalCard", "The assistant wants to search the web."),
}


def describe_call(name: str, args: dict[str, Any], mcp_tool: McpTool | None = None) -> str:
    """One sentence for the card, e.g. ``The assistant wants to run a command on this computer.``"""
    if mcp_tool is not None:
        return QCoreApplication.translate(
            "ApprovalCard", "The assistant wants to use {tool} from the MCP server “{server}”."
        ).format(tool=mcp_tool.name, server=mcp_tool.server)
    if name in _DESCRIPTIONS:
        return QCoreApplication.translate("ApprovalCard", _DESCRIPTIONS[name])
    return QCoreApplication.translate("ApprovalCard", "The assistant wants to use the tool “{name}”.").format(name=name)


def arguments_text(args: dict[str, Any]) -> str:
    """The call's arguments exactly as the tool will get them (the reason line is shown apart)."""
    shown = {k: v for k, v in args.items() if k != "reason"}
    command = shown.get("command")
    if isinstance(command, str) and set(shown) <= {"command", "cwd", "timeout"}:
        extra = "".join(f"\n# {k}: {shown[k]}" for k in ("cwd", "timeout") if k in shown)
        return command + extra
    return json.dumps(shown, ensure_ascii=False, indent=2)


@dataclass
class _Request:
    name: str
    args: dict[str, Any]
    reply: Callable[[bool], None]
    mcp_tool: McpTool | None = None


class ApprovalCard(QFrame):
    """Shows pending requests one at a time; each button answers once and moves on to the next.

    ``find_tool`` tells which requested names are tools of MCP servers (none when not given);
    ``shell_sandboxed`` whether shell commands run in the sandbox (default: whether this system makes one).
    """

    answered = Signal(bool)
    always_allowed = Signal(str)  # tool name: the user chose "Always allow this tool"
    mcp_always_allowed = Signal(str, str)  # server, its own tool name: "Always allow" for an MCP tool

    def __init__(
        self,
        parent: Any = None,
        *,
        timeout_s: int = DEFAULT_TIMEOUT_S,
        find_tool: FindTool | None = None,
        shell_sandboxed: bool | None = None,
    ) -> None:
        super().__init__(parent)
        self._find_tool = find_tool
        self._shell_sandboxed = shell_sandboxed
        self.setObjectName("approvalCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.timeout_s = timeout_s
        self._current: _Request | None = None
        self._queue: deque[_Request] = deque()
        self._left = 0

        self.title = QLabel(self.tr("Allow this tool call?"), self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.reach = QLabel(self, objectName="approvalReach")  # what a shell command can reach
        self.reach.setWordWrap(True)
        self.reason = QLabel(self, objectName="approvalReason")
        self.reason.setWordWrap(True)
        self.reason.setForegroundRole(QPalette.ColorRole.Link)
        self.arguments = QPlainTextEdit(self, objectName="approvalArguments")
        self.arguments.setReadOnly(True)
        self.arguments.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.arguments.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.countdown = QLabel(self, objectName="approvalCountdown")
        self.countdown.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.allow_button = QPushButton(self.tr("Allow once"), self, objectName="approveButton")
        self.always_button = QPushButton(self.tr("Always allow"), self, objectName="alwaysButton")
        self.deny_button = QPushButton(self.tr("Deny"), self, objectName="denyButton")
        self.allow_button.clicked.connect(lambda: self._answer(True))
        self.always_button.clicked.connect(self._on_always_button_clicked)
        self.deny_button.clicked.connect(lambda: self._answer(False))
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._on_timer_timeout)

        heading = QHBoxLayout()  # the countdown beside the title: the buttons' row keeps its width for them
        heading.addWidget(self.title)
        heading.addStretch(1)
        heading.addWidget(self.countdown)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.deny_button)
        buttons.addWidget(self.always_button)
        buttons.addWidget(self.allow_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addLayout(heading)
        layout.addWidget(self.label)
        layout.addWidget(self.reach)
        layout.addWidget(self.reason)
        layout.addWidget(self.arguments)
        layout.addLayout(buttons)
        self.hide()

    @property
    def pending(self) -> bool:
        return self._current is not None

    @property
    def waiting(self) -> int:
        """Requests queued behind the one shown."""
        return len(self._queue)

    def ask(self, name: str, args: dict[str, Any], reply: Callable[[bool], None]) -> None:
        """Show the request now, or after the ones already waiting."""
        mcp_tool = self._find_tool(name) if self._find_tool is not None and TOOL_SEPARATOR in name else None
        self._queue.append(_Request(name, dict(args), reply, mcp_tool))
        if self._current is None:
            self._show_next()
        else:
            self._update_countdown()  # says how many wait

    def cancel(self) -> None:
        """Hide without answering (the turn was stopped, which answers "no" itself)."""
        self._current = None
        self._queue.clear()
        self._timer.stop()
        self.hide()

    # ------------------------------------------------------------------ internals
    def _show_next(self) -> None:
        if not self._queue:
            self._current = None
            self._timer.stop()
            self.hide()
            return
        self._current = request = self._queue.popleft()
        reason = request.args.get("reason")
        self.label.setText(describe_call(request.name, request.args, request.mcp_tool))
        is_shell = request.mcp_tool is None and request.name == shell.NAME
        self.reach.setText(shell.approval_note(self._sandboxed()) if is_shell else "")
        self.reach.setVisible(is_shell)
        self.reason.setText(f"⚠ {reason}" if isinstance(reason, str) and reason else "")
        self.reason.setVisible(bool(self.reason.text()))
        # approval for one path outside the workspace is about that call, not about the tool
        self.always_button.setVisible(not self.reason.text())
        own_name = request.mcp_tool.name if request.mcp_tool is not None else request.name
        self.always_button.setText(self.tr("Always allow {tool}").format(tool=own_name))
        text = arguments_text(request.args)
        self.arguments.setPlainText(text)
        lines = min(ARGS_MAX_LINES, max(1, text.count("\n") + 1))
        height = self.arguments.fontMetrics().lineSpacing() * lines + 12
        self.arguments.setFixedHeight(height)
        self._left = self.timeout_s
        self._update_countdown()
        self._timer.start()
        self.show()
        self._fit_height()
        self.allow_button.setFocus()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        """Never shorter than its wrapped lines need at its width: the chat page's layout gives it its size
        hint, which wraps them at another width, so at 640 px the lines on what a command can reach were cut."""
        need = self.layout().totalHeightForWidth(self.width())
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)

    def _sandboxed(self) -> bool:
        if self._shell_sandboxed is None:
            self._shell_sandboxed = shell.detect() is not None
        return self._shell_sandboxed

    def _update_countdown(self) -> None:
        minutes, seconds = divmod(max(0, self._left), 60)
        time_left = f"{minutes}:{seconds:02d}"
        if self._queue:
            text = self.tr("Denied in {time} if unanswered · {n} more waiting").format(
                time=time_left, n=len(self._queue)
            )
        else:
            text = self.tr("Denied in {time} if unanswered").format(time=time_left)
        self.countdown.setText(text)

    def _on_timer_timeout(self) -> None:
        self._left -= 1
        if self._left <= 0:
            self._answer(False)
        else:
            self._update_countdown()

    def _on_always_button_clicked(self) -> None:
        tool = self._current.mcp_tool if self._current is not None else None
        if tool is not None:
            self.mcp_always_allowed.emit(tool.server, tool.name)
        elif self._current is not None:
            self.always_allowed.emit(self._current.name)
        self._answer(True)

    def _answer(self, approved: bool) -> None:
        request, self._current = self._current, None
        self._timer.stop()
        if request is not None:
            request.reply(approved)
            self.answered.emit(approved)
        self._show_next()
