"""The View-context window: exactly what the model saw for one user message.

The text is ``render_markdown(build_context(target, at=message id))`` — the same function the
turn runner and ``okbot context`` use, never re-assembled here. The As-sent tab is
``as_sent_markdown`` of one request the message's turn sent, read back whole from the as-sent record
(``okbot context --at N --as-sent`` prints the same); while it is open the header and the token bar
show that request's own numbers. Building both (and reading the record and the items it names) runs
off the GUI thread through the app's :class:`~okbot.ui.tasks.TaskRunner`; an open viewer rebuilds
when SOUL.md, skills/, memory/ or the session summary change on disk.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QKeySequence,
    QPalette,
    QShortcut,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from okbot.app.context_view import TurnMember, ViewerSnapshot
from okbot.core.projection import ContextProjection
from okbot.core.render import (
    BODY_INDENT,
    DIFF_MARK,
    MISSING_BLOCK,
    MISSING_ITEM,
    as_sent_window,
    header_lines,
    health_lines,
    sent_time,
    usage_text,
)
from okbot.core.sent_request import SentRequest
from okbot.core.sources import context_files
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP, plural, translate
from okbot.storage.errors import OkBotError
from okbot.ui.app_context import AppContext
from okbot.ui.file_watch import FileWatcher
from okbot.ui.last_compression import LastCompressionView
from okbot.ui.token_bar import BarSegment, TokenBar, is_dark

log = logging.getLogger("okbot.ui.context_viewer")

CONTEXT_TAB, AS_SENT_TAB, LAST_COMPRESSION_TAB = 0, 1, 2
# The instruction blocks' titles (okbot.core.instructions.BLOCK_ORDER) as the bar's tooltips name them;
# the model reads the blocks themselves, never these words.
_BLOCK_TITLES = (
    QT_TRANSLATE_NOOP("ContextViewer", "Role"),
    QT_TRANSLATE_NOOP("ContextViewer", "Roster"),
    QT_TRANSLATE_NOOP("ContextViewer", "Tool notes"),
    QT_TRANSLATE_NOOP("ContextViewer", "Skill catalog"),
    QT_TRANSLATE_NOOP("ContextViewer", "Session summary"),
    QT_TRANSLATE_NOOP("ContextViewer", "Recalled memories"),
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("ContextViewer", text)


def bar_segments(proj: ContextProjection) -> list[BarSegment]:
    """The token bar's parts: one per instruction block, then the session items and the overhead."""
    segs = [
        BarSegment(
            b.name,
            b.tokens,
            (
                QCoreApplication.translate("ContextViewer", "{title} · stable instruction block")
                if b.stable
                else QCoreApplication.translate("ContextViewer", "{title} · volatile instruction block")
            ).format(title=_tr(b.title)),
            label=_tr(b.title),
        )
        for b in proj.blocks
    ]
    n = len(proj.items)
    held = plural(
        n,
        QCoreApplication.translate("ContextViewer", "{n} item after coverage"),
        QCoreApplication.translate("ContextViewer", "{n} items after coverage"),
    ).format(n=f"{n:,}")
    return [*segs, *_tail_segments(held, proj.items_tokens, proj.overhead_tokens)]


def sent_bar_segments(sent: SentRequest) -> list[BarSegment]:
    """The token bar's parts for a recorded request: its blocks, its items and overhead, as counted then."""
    segs = [
        BarSegment(
            str(b.get("name", "?")),
            int(b.get("tokens") or 0),
            QCoreApplication.translate("ContextViewer", "{title} · as sent").format(
                title=_tr(str(b.get("title") or b.get("name")))
            ),
            label=_tr(str(b.get("title") or b.get("name"))),
        )
        for b in sent.request.blocks
    ]
    n = len(sent.items)
    held = plural(
        n,
        QCoreApplication.translate("ContextViewer", "{n} item sent"),
        QCoreApplication.translate("ContextViewer", "{n} items sent"),
    ).format(n=f"{n:,}")
    return [*segs, *_tail_segments(held, sent.items_tokens, sent.overhead_tokens)]


def _tail_segments(held: str, items_tokens: int, overhead_tokens: int) -> list[BarSegment]:
    """The bar's last two parts: the session items (``held`` says how many) and the overhead."""
    overhead = BarSegment(
        QCoreApplication.translate("ContextViewer", "overhead"),
        overhead_tokens,
        QCoreApplication.translate("ContextViewer", "chat-format overhead per message"),
        muted=True,
    )
    return [BarSegment(QCoreApplication.translate("ContextViewer", "session items"), items_tokens, held), overhead]


# -- presentation -------------------------------------------------------------------------------
def _blend(a: QColor, b: QColor, t: float) -> QColor:
    return QColor.fromRgbF(*(x + (y - x) * t for x, y in zip(a.getRgbF()[:3], b.getRgbF()[:3], strict=True)))


# The rendered layout's own words, as okbot.core.render writes them: in the user's language, looked up in
# render's translation context (marked there, in render.py).
_HEADER_KEYS = (
    "Request of",
    "Cut-off",
    "Coverage",
    "Tokens",
    "Sent",
    "Now",
    "Provider reported",
    "Prompt cache",
    "Tools offered",
    "Instructions since sent",
)
_H2 = ("instructions", "session items", "changed since sent")
_NOTICE_LINES = (
    "(the sent text is missing from as-sent/blocks, so no diff can be shown)",
    MISSING_BLOCK,
    MISSING_ITEM,
)
_IN_DIFF = 1  # QSyntaxHighlighter block state: inside a block shown as a diff


def _layout(word: str) -> str:
    """``word`` of the rendered layout as render.py wrote it (the current language)."""
    return translate("render", word)


@dataclass(frozen=True)
class _LayoutWords:
    """What marks each kind of line of the rendered layout, in the language it was rendered in."""

    header_keys: frozenset[str]
    h2: tuple[str, ...]
    h1: tuple[str, ...]
    notices: tuple[str, ...]
    missing_item: str

    @classmethod
    def current(cls) -> _LayoutWords:
        notices = tuple(_layout(text).split("{")[0] for text in _NOTICE_LINES)  # up to the first placeholder
        return cls(
            header_keys=frozenset(_layout(key) for key in _HEADER_KEYS),
            h2=tuple("## " + _layout(word) for word in _H2),
            h1=("# " + _layout("Context") + " · ", "# " + _layout("As sent") + " · "),
            notices=(_layout("Notice") + ":", "≈ ", *notices),
            missing_item="] " + _layout("missing item"),
        )


class _MarkdownHighlighter(QSyntaxHighlighter):
    """Colours the rendered projection's own structure (not the Markdown inside block bodies).

    The layout's headings (``## instructions``, ``### <block> · N tokens``, ``### [i] <item> …``)
    get the accent colour; header keys are bold; notices use a warning colour. With ``diff`` on
    (the As-sent tab), lines of a block shown as a unified diff get added/removed backgrounds —
    only inside such a block, so a Markdown list item elsewhere is never mistaken for a removal.
    Body lines are indented (``BODY_INDENT``), so none of them is ever taken for the layout.
    """

    def __init__(self, document: QTextDocument, palette: QPalette, *, diff: bool = False) -> None:
        super().__init__(document)
        self._diff = diff
        self._words = _LayoutWords.current()
        self.set_palette(palette)

    def set_palette(self, pal: QPalette) -> None:
        dark = is_dark(pal)
        text, base = pal.color(QPalette.ColorRole.Text), pal.color(QPalette.ColorRole.Base)
        accent = pal.color(QPalette.ColorRole.Highlight)
        accent = _blend(accent, text, 0.25) if dark else _blend(accent, text, 0.15)

        def fmt(color: QColor | None = None, bold: bool = False, bg: QColor | None = None) -> QTextCharFormat:
            f = QTextCharFormat()
            if color is not None:
                f.setForeground(color)
            if bg is not None:
                f.setBackground(bg)
            if bold:
                f.setFontWeight(QFont.Weight.Bold)
            return f

        warn = QColor.fromHslF(0.08, 0.85, 0.65 if dark else 0.38)
        band = _blend(base, pal.color(QPalette.ColorRole.Highlight), 0.13 if dark else 0.10)
        self._formats = {
            "h1": fmt(text, True),
            "h2": fmt(accent, True),
            "h3": fmt(accent, True, band),
            "changed": fmt(warn, True, _blend(base, warn, 0.14)),
            "content_heading": fmt(text, True),
            "key": fmt(text, True),
            "notice": fmt(warn),
            "add": fmt(text, bg=_blend(base, QColor.fromHslF(0.33, 0.6, 0.45), 0.30 if dark else 0.22)),
            "del": fmt(text, bg=_blend(base, QColor.fromHslF(0.0, 0.7, 0.55), 0.30 if dark else 0.20)),
            "hunk": fmt(pal.color(QPalette.ColorRole.PlaceholderText), True),
        }
        self.rehighlight()

    def highlightBlock(self, line: str) -> None:
        f, n = self._formats, len(line)
        state = max(self.previousBlockState(), 0)
        if line.startswith("### "):  # one block or item of the layout (bodies are indented)
            in_diff = self._diff and DIFF_MARK in line
            self.setCurrentBlockState(_IN_DIFF if in_diff else 0)
            missing = line.split(" — ")[0].endswith(self._words.missing_item)
            self.setFormat(0, n, f["changed" if in_diff or missing else "h3"])
            return
        if line in self._words.h2:
            self.setCurrentBlockState(0)
            self.setFormat(0, n, f["h2"])
            return
        self.setCurrentBlockState(state)
        body = line[len(BODY_INDENT) :] if line.startswith(BODY_INDENT) else None  # bodies are indented
        if state == _IN_DIFF and body is not None:
            if body.startswith(("+++ ", "--- ", "@@")):
                self.setFormat(0, n, f["hunk"])
            elif body.startswith("+"):
                self.setFormat(0, n, f["add"])
            elif body.startswith("-"):
                self.setFormat(0, n, f["del"])
        elif body is not None:
            if body.startswith("#"):  # a Markdown heading inside a block body: bold, not the layout's accent
                self.setFormat(0, n, f["content_heading"])
        elif line.startswith(self._words.h1):
            self.setFormat(0, n, f["h1"])
        elif line.startswith(self._words.notices):
            self.setFormat(0, n, f["notice"])
        else:
            key = line.split(":", 1)[0]
            if key in self._words.header_keys:
                self.setFormat(0, len(key) + 1, f["key"])


def _text_view(name: str) -> QPlainTextEdit:
    view = QPlainTextEdit(objectName=name)
    view.setReadOnly(True)
    flags = Qt.TextInteractionFlag
    view.setTextInteractionFlags(flags.TextSelectableByMouse | flags.TextSelectableByKeyboard)
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    view.setFont(font)
    view.setTabStopDistance(4 * view.fontMetrics().horizontalAdvance(" "))
    view.document().setDocumentMargin(10)
    return view


def _secondary(label: QLabel) -> QLabel:
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ContextViewer(QWidget):
    """A top-level window showing the projection the model saw for user message ``item_id``.

    Tabs: **Context** (``render_markdown`` of the projection) and **As sent** (one recorded request of
    the message's turn, whole: every block and item it held, then a diff of each block changed since;
    disabled when there is no record). A choice above it offers each request of the turn (each
    attempt, each tool round), defaulting to the one the reply came from. The header and the token bar
    show the numbers of the tab on show: today's projection, or that request's. For a squad, a
    "Request of" switch lists the captain and every member who worked in that turn; choosing a member
    rebuilds with ``build_context(..., member=)`` and As sent shows that member's requests. A third tab,
    **Last compression** (:class:`~okbot.ui.last_compression.LastCompressionView`), shows what the newest
    compression changed.
    Emits ``refreshed`` after new content is shown and ``failed`` (with the message) when a build fails;
    the last good content stays on screen. Closing the window stops its file watcher.
    """

    refreshed = Signal()
    failed = Signal(str)

    def __init__(
        self, ctx: AppContext, target: Target, item_id: int, parent: QWidget | None = None, *, member: str | None = None
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.ctx, self.target, self.item_id = ctx, target, item_id
        self._member = member if target.is_squad else None
        self._request_id: int | None = None  # the request of the turn on the As-sent tab (None: the reply's)
        self._turn_members: list[TurnMember] = []
        self._snapshot: ViewerSnapshot | None = None
        self._generation = 0
        self._loading = False
        self._again: str | None = None  # a refresh asked for while one was running: its reason
        self._closed = False
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setObjectName("contextViewer")
        self.resize(980, 760)
        self._build()
        self.watcher = FileWatcher(parent=self)
        self.watcher.changed.connect(self._on_watcher_changed)
        self.watcher.set_paths(self.watched_paths())
        self.refresh("opened")

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.title = QLabel(objectName="viewerTitle")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.seat_label = QLabel(self.tr("Request of"), objectName="viewerSeatLabel")
        self.seat_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.seat = QComboBox(objectName="viewerSeat")
        self.seat.setToolTip(self.tr("Whose request to show: the captain's, or a member's for this turn"))
        self.seat.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.seat.currentIndexChanged.connect(self._on_seat_current_index_changed)
        self._fill_seats()
        self._name_window()
        self.cutoff = _secondary(QLabel(objectName="viewerCutoff"))
        self.coverage = QLabel(objectName="viewerCoverage")
        self.coverage.setWordWrap(True)
        self.coverage.setTextFormat(Qt.TextFormat.RichText)
        self.bar = TokenBar()
        self.prepare = _secondary(QLabel(objectName="viewerPrepare"))
        self.prepare.setWordWrap(True)
        self.health = _secondary(QLabel(objectName="viewerHealth"))
        self.problem = QLabel(objectName="viewerProblem")
        self.problem.setWordWrap(True)
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problem.hide()

        self.context_view = _text_view("contextText")
        self.context_view.setPlainText(self.tr("Building the context…"))
        self.as_sent_view = _text_view("asSentText")
        self._highlighters = [
            _MarkdownHighlighter(self.context_view.document(), self.palette()),
            _MarkdownHighlighter(self.as_sent_view.document(), self.palette(), diff=True),
        ]
        self.attempt = QComboBox(objectName="viewerAttempt")
        self.attempt.setToolTip(
            self.tr("Which request of this turn to show: each attempt (a Retry sends again) and tool round")
        )
        self.attempt.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.attempt.currentIndexChanged.connect(self._on_attempt_current_index_changed)
        attempt_label = QLabel(self.tr("Request"), objectName="viewerAttemptLabel")
        attempt_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        attempt_row = QHBoxLayout()
        attempt_row.setContentsMargins(10, 6, 10, 2)
        attempt_row.addWidget(attempt_label)
        attempt_row.addWidget(self.attempt)
        attempt_row.addStretch(1)
        as_sent_page = QWidget(objectName="asSentPage")
        page_layout = QVBoxLayout(as_sent_page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.setSpacing(0)
        page_layout.addLayout(attempt_row)
        page_layout.addWidget(self.as_sent_view, 1)
        self.tabs = QTabWidget(objectName="viewerTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.context_view, self.tr("Context"))
        self.tabs.addTab(as_sent_page, self.tr("As sent"))
        self.tabs.setTabEnabled(AS_SENT_TAB, False)
        self.last_compression = LastCompressionView(self.ctx, self.target)
        self.tabs.addTab(self.last_compression, self.tr("Last compression"))
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)

        self.status = _secondary(QLabel(objectName="viewerStatus"))
        self.full_bodies = QCheckBox(self.tr("Full bodies"))
        self.full_bodies.setToolTip(
            self.tr("Show long message and block bodies whole instead of cut at 2,000 characters")
        )

        self.full_bodies.toggled.connect(self._on_full_bodies_toggled)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.setToolTip(self.tr("Rebuild from disk (F5)"))
        self.refresh_button.clicked.connect(self._on_refresh_button_clicked)
        self.copy_button = QPushButton(self.tr("Copy all as Markdown"))
        self.copy_button.setToolTip(self.tr("Copy the whole tab on show, bodies uncut (Ctrl+Shift+C)"))
        self.copy_button.clicked.connect(self._on_copy_button_clicked)
        self.copy_button.setEnabled(False)
        QShortcut(QKeySequence("F5"), self, activated=self._on_refresh_button_clicked)
        QShortcut(QKeySequence("Ctrl+Shift+C"), self, activated=self._on_copy_button_clicked)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.close)

        footer = QHBoxLayout()
        footer.addWidget(self.status, 1)
        footer.addWidget(self.full_bodies)
        footer.addWidget(self.refresh_button)
        footer.addWidget(self.copy_button)

        heading = QHBoxLayout()
        heading.setSpacing(8)
        heading.addWidget(self.title, 1)
        heading.addWidget(self.seat_label)
        heading.addWidget(self.seat)
        squad = self.target.is_squad
        self.seat_label.setVisible(squad)
        self.seat.setVisible(squad)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 12)
        layout.setSpacing(6)
        layout.addLayout(heading)
        layout.addWidget(self.cutoff)
        layout.addWidget(self.coverage)
        layout.addSpacing(4)
        layout.addWidget(self.bar)
        layout.addWidget(self.prepare)
        layout.addWidget(self.health)
        layout.addWidget(self.problem)
        layout.addSpacing(2)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(footer)
        self._style_problem()

    def _style_problem(self) -> None:
        dark = is_dark(self.palette())
        warn = QColor.fromHslF(0.08, 0.85, 0.65 if dark else 0.38)
        pal = self.problem.palette()
        pal.setColor(QPalette.ColorRole.WindowText, warn)
        self.problem.setPalette(pal)

    # -- public ----------------------------------------------------------------------------
    @property
    def snapshot(self) -> ViewerSnapshot | None:
        """The content on show (``None`` until the first build finished)."""
        return self._snapshot

    def text(self) -> str:
        """The Context tab's text."""
        return self.context_view.toPlainText()

    def as_sent_text(self) -> str:
        """The As-sent tab's text."""
        return self.as_sent_view.toPlainText()

    @property
    def request_id(self) -> int | None:
        """The request shown on the As-sent tab (``None`` before a record was read)."""
        sent = self._snapshot.sent if self._snapshot is not None else None
        return sent.request.id if sent is not None else None

    def attempts(self) -> list[str]:
        """The request choice's entries, in order (one per request of the turn)."""
        return [self.attempt.itemText(i) for i in range(self.attempt.count())]

    def set_request(self, request_id: int) -> None:
        """Show request ``request_id`` of this turn on the As-sent tab; rebuilds off the GUI thread."""
        if request_id == self.request_id:
            return
        self._request_id = request_id
        index = self.attempt.findData(request_id)
        if index >= 0 and index != self.attempt.currentIndex():
            self.attempt.blockSignals(True)
            self.attempt.setCurrentIndex(index)
            self.attempt.blockSignals(False)
        self.refresh("switched")

    def watched_paths(self) -> list[Path]:
        """The files and folders whose changes rebuild the view (a member's own too, when shown), and the
        as-sent log (a Retry sent while the window is open is offered at once)."""
        found = context_files(self.target) + [self.ctx.sources.as_sent(self.target).log_path]
        if self._member is not None:
            try:
                found += context_files(self.ctx.workspace.resolve(self._member))
            except OkBotError:
                pass  # no longer there: the build says so
        return found

    @property
    def member(self) -> str | None:
        """The squad member whose request is shown (``None``: the captain's, or an assistant's)."""
        return self._member

    def seats(self) -> list[tuple[str, str | None, bool]]:
        """The switch's entries: ``(label, member id or None for the captain, enabled)``."""
        model = self.seat.model()
        return [
            (self.seat.itemText(i), self.seat.itemData(i), model.item(i).isEnabled()) for i in range(self.seat.count())
        ]

    def set_member(self, member: str | None) -> None:
        """Show ``member``'s request for this turn (``None``: the captain's); rebuilds off the GUI thread."""
        if not self.target.is_squad or member == self._member:
            return
        self._member = member
        index = self.seat.findData(member)
        if index >= 0 and index != self.seat.currentIndex():
            self.seat.blockSignals(True)
            self.seat.setCurrentIndex(index)
            self.seat.blockSignals(False)
        self._name_window()
        self.watcher.set_paths(self.watched_paths())
        self.refresh("switched")

    def refresh(self, reason: str = "") -> None:
        """Rebuild off the GUI thread; a refresh asked for during a build runs once it ends."""
        if self._closed:
            return
        if self._loading:
            self._again = reason or self._again or self.tr("changed")
            return
        self._loading = True
        self._generation += 1
        generation = self._generation
        ctx, target, item_id, member = self.ctx, self.target, self.item_id, self._member
        request_id = self._request_id
        self.status.setText(self.tr("Building the context…"))
        self.last_compression.refresh()
        self.ctx.tasks.run(
            lambda: ctx.app.view_context(target, item_id, member=member, request_id=request_id),
            lambda snap: self._on_tasks_done(generation, reason, snap),
            lambda exc: self._on_tasks_error(generation, exc),
        )

    def copy_all(self) -> str:
        """Copy the tab on show (the projection, or the request as sent), bodies uncut, to the clipboard as
        Markdown; returns it."""
        snap = self._snapshot
        text = ""
        if snap is not None:
            text = snap.as_sent_full_markdown if self._as_sent_on_show() else snap.full_markdown
        if text:
            QGuiApplication.clipboard().setText(text)
            self.status.setText(self.tr("Copied {n} characters of Markdown").format(n=f"{len(text):,}"))
        return text

    # -- slots -----------------------------------------------------------------------------
    def _on_tasks_done(self, generation: int, reason: str, snap: ViewerSnapshot) -> None:
        if self._closed:
            return
        self._finish_run()
        if generation != self._generation:
            return
        self._snapshot = snap
        self._show(snap)
        when = time.strftime("%H:%M:%S")
        quiet = reason in ("", "opened", "switched")
        self.status.setText(
            self.tr("Built {when}").format(when=when)
            if quiet
            else self.tr("Updated after {reason} · {when}").format(reason=reason, when=when)
        )
        self.refreshed.emit()

    def _on_tasks_error(self, generation: int, exc: BaseException) -> None:
        if self._closed:
            return
        self._finish_run()
        if generation != self._generation:
            return
        message = str(exc) or exc.__class__.__name__
        if not isinstance(exc, OkBotError):  # a bug, not a user-facing problem
            log.error("building the context failed", exc_info=exc)
        self.problem.setText(self.tr("⚠ Could not build the context: {message}").format(message=message))
        self.problem.show()
        if self._snapshot is None:
            self.context_view.setPlainText(
                self.tr("Could not build the context for message #{id}.").format(id=self.item_id) + f"\n\n{message}"
            )
        self.status.setText(
            self.tr("Build failed — showing the last good content") if self._snapshot else self.tr("Build failed")
        )
        self.failed.emit(message)

    def _on_watcher_changed(self, changed: list[str]) -> None:
        names = sorted({Path(p).name for p in changed})
        self.refresh(self.tr("{names} changed on disk").format(names=", ".join(names)))

    def _on_seat_current_index_changed(self, index: int) -> None:
        if index >= 0:
            self.set_member(self.seat.itemData(index))

    def _on_refresh_button_clicked(self) -> None:
        self.refresh(self.tr("refresh"))

    def _on_copy_button_clicked(self) -> None:
        self.copy_all()

    def _on_full_bodies_toggled(self, _checked: bool) -> None:
        if self._snapshot is not None:
            self._set_text(self.context_view, self._context_text(self._snapshot))
            self._set_text(self.as_sent_view, self._as_sent_text(self._snapshot))

    def _on_tabs_current_changed(self, _index: int) -> None:
        if self._snapshot is not None:
            self._show_numbers(self._snapshot)

    def _on_attempt_current_index_changed(self, index: int) -> None:
        if index >= 0:
            self.set_request(self.attempt.itemData(index))

    # -- internals -------------------------------------------------------------------------
    def _finish_run(self) -> None:
        self._loading = False
        again, self._again = self._again, None
        if again is not None:
            self.refresh(again)

    def _context_text(self, snap: ViewerSnapshot) -> str:
        return snap.full_markdown if self.full_bodies.isChecked() else snap.markdown

    def _as_sent_text(self, snap: ViewerSnapshot) -> str:
        return snap.as_sent_full_markdown if self.full_bodies.isChecked() else snap.as_sent_markdown

    def _as_sent_on_show(self) -> bool:
        snap = self._snapshot
        return self.tabs.currentIndex() == AS_SENT_TAB and snap is not None and snap.sent is not None

    def _fill_seats(self, members: list[TurnMember] | None = None) -> None:
        """The captain, then each member who worked in this turn (a removed one listed but disabled)."""
        if members is not None:
            self._turn_members = members
        self.seat.blockSignals(True)
        self.seat.clear()
        self.seat.addItem(self.tr("Captain"), None)
        known = {m.id for m in self._turn_members}
        entries = list(self._turn_members)
        if self._member is not None and self._member not in known:
            entries.append(TurnMember(self._member, self._member, True))
        for member in entries:
            label = member.name if member.present else self.tr("{name} (no longer a member)").format(name=member.name)
            self.seat.addItem(label, member.id)
            if not member.present:
                self.seat.model().item(self.seat.count() - 1).setEnabled(False)
        self.seat.setCurrentIndex(max(0, self.seat.findData(self._member)))
        self.seat.setEnabled(self.seat.count() > 1)
        self.seat.setToolTip(
            self.tr("Whose request to show: the captain's, or a member's for this turn")
            if self.seat.count() > 1
            else self.tr("No member worked in this turn")
        )
        self.seat.blockSignals(False)

    def _name_window(self) -> None:
        whose = ""
        if self._member is not None:
            name = next((m.name for m in self._turn_members if m.id == self._member), self._member)
            whose = self.tr(" · {name}'s request").format(name=name)
        where = {"target": self.target.name, "id": self.item_id}
        self.setWindowTitle(self.tr("View context — {target} · message #{id}").format(**where) + whose)
        self.title.setText(self.tr("Context for message #{id} · {target}").format(**where) + whose)

    def _show(self, snap: ViewerSnapshot) -> None:
        proj = snap.projection
        if self.target.is_squad and snap.turn_members != self._turn_members:
            self._fill_seats(snap.turn_members)
            self._name_window()
        line, failure = health_lines(snap.health, snap.as_sent, proj.summary)
        self.health.setText(line)
        problems = [failure] if failure else []
        problems += [self.tr("Notice: {notice}").format(notice=n) for n in proj.notices]
        self.problem.setText("\n".join(f"⚠ {p}" for p in problems))
        self.problem.setVisible(bool(problems))

        self._set_text(self.context_view, self._context_text(snap))
        self.full_bodies.setEnabled(
            snap.full_markdown != snap.markdown or snap.as_sent_full_markdown != snap.as_sent_markdown
        )
        self.copy_button.setEnabled(True)
        self._fill_attempts(snap.sent)
        if snap.sent is None:
            if self.tabs.currentIndex() == AS_SENT_TAB:
                # Before disabling it: Qt would move to the next enabled tab (Last compression)
                self.tabs.setCurrentIndex(CONTEXT_TAB)  # shows today's numbers
            self.tabs.setTabEnabled(AS_SENT_TAB, False)
            self.tabs.setTabText(AS_SENT_TAB, self.tr("As sent"))
            self.tabs.setTabToolTip(
                AS_SENT_TAB,
                self.tr("No as-sent record for message #{id} (sent before OkBot kept one, or never sent).").format(
                    id=self.item_id
                ),
            )
            self._set_text(self.as_sent_view, "")
        else:
            changed = len(snap.changed_blocks)
            self.tabs.setTabEnabled(AS_SENT_TAB, True)
            self.tabs.setTabText(
                AS_SENT_TAB, self.tr("As sent · {n} changed").format(n=changed) if changed else self.tr("As sent")
            )
            self.tabs.setTabToolTip(
                AS_SENT_TAB,
                self.tr("The request as it went out, whole, with its own numbers; blocks changed since as a diff"),
            )
            self._set_text(self.as_sent_view, self._as_sent_text(snap))
        self._show_numbers(snap)

    def _show_numbers(self, snap: ViewerSnapshot) -> None:
        """The header and the token bar for the tab on show: today's projection, or the request as sent."""
        if self._as_sent_on_show():
            assert snap.sent is not None
            self._show_sent_numbers(snap.sent, snap.projection)
            return
        proj = snap.projection
        self._name_window()
        lines = header_lines(proj)
        self.cutoff.setText(_line(lines, _layout("Cut-off") + ":"))
        self._set_coverage(proj.covered_through_id > 0, _line(lines, _layout("Coverage") + ":"))
        calibrated = proj.calibration_factor != 1.0
        note = (
            self.tr("{counted} counted × {factor} (calibrated by what the provider reported for this model)").format(
                counted=f"{proj.total_tokens:,}", factor=f"{proj.calibration_factor:.2f}"
            )
            if calibrated
            else ""
        )
        self.bar.set_usage(
            bar_segments(proj),
            window=proj.window,
            threshold=proj.threshold,
            approximate=proj.approximate,
            total=proj.calibrated_tokens,
            total_note=note,
        )
        self.prepare.setText(prepare_text(proj))

    def _show_sent_numbers(self, sent: SentRequest, live: ContextProjection) -> None:
        req = sent.request
        self.title.setText(
            self.tr("As sent for message #{id} · {target}").format(id=self.item_id, target=self.target.name)
        )
        self.cutoff.setText(
            self.tr("Request #{id} · {label} · model {model} · sent {when}").format(
                id=req.id, label=req.label(), model=req.model or "?", when=sent_time(req)
            )
        )
        now = (
            self.tr(" (now through #{id})").format(id=live.covered_through_id)
            if live.covered_through_id != req.covered_through_id
            else ""
        )
        coverage = (
            self.tr("Coverage then: items up to #{id} were summarized").format(id=req.covered_through_id)
            if req.covered_through_id
            else self.tr("Coverage then: none — every item was sent")
        ) + now
        self._set_coverage(req.covered_through_id > 0, coverage)
        window, threshold, recorded = as_sent_window(sent, live)
        reported = req.prompt_tokens
        note = (
            self.tr("{reported} prompt tokens reported by the provider (OkBot estimated {estimate})").format(
                reported=f"{reported:,}", estimate=f"{req.estimate:,}"
            )
            if reported is not None
            else self.tr("OkBot's estimate when it was sent: the provider reported no prompt tokens ({usage})").format(
                usage=usage_text(req)
            )
        )
        self.bar.set_usage(
            sent_bar_segments(sent),
            window=window,
            threshold=threshold,
            approximate=reported is None,
            total=sent.total_tokens,
            total_note=note,
            label=self.tr("As sent"),
        )
        numbers = {"window": f"{window:,}", "threshold": f"{threshold:,}", "note": note}
        self.prepare.setText(
            self.tr("Window and threshold when it was sent: {window} · {threshold} · {note}").format(**numbers)
            if recorded
            else self.tr("Window and threshold of today (not recorded then): {window} · {threshold} · {note}").format(
                **numbers
            )
        )

    def _set_coverage(self, covered: bool, text: str) -> None:
        marker = self.palette().color(QPalette.ColorRole.Highlight).name()
        self.coverage.setText(f'<span style="color:{marker}">{"◆" if covered else "◇"}</span>&nbsp;{_html(text)}')

    def _fill_attempts(self, sent: SentRequest | None) -> None:
        """One entry per request of the turn, the one on show selected."""
        self.attempt.blockSignals(True)
        self.attempt.clear()
        for req in sent.choices if sent is not None else []:
            self.attempt.addItem(req.label(), req.id)
        if sent is not None:
            self.attempt.setCurrentIndex(max(0, self.attempt.findData(sent.request.id)))
        self.attempt.setEnabled(self.attempt.count() > 1)
        self.attempt.blockSignals(False)

    def _set_text(self, view: QPlainTextEdit, text: str) -> None:
        """Replace the text, keeping the reader's scroll position."""
        if view.toPlainText() == text:
            return
        bar = view.verticalScrollBar()
        position = bar.value()
        view.setPlainText(text)
        bar.setValue(min(position, bar.maximum()))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "_highlighters"):
            for highlighter in self._highlighters:
                highlighter.set_palette(self.palette())
            self._style_problem()
            if self._snapshot is not None:
                self._show(self._snapshot)
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self._closed = True
        self.watcher.stop()
        super().closeEvent(event)


def prepare_text(proj: ContextProjection) -> str:
    """Where compression runs ahead (after a reply, in the background) and where a request waits for it."""
    return QCoreApplication.translate(
        "ContextViewer",
        "Prepare mark {prepare} tokens: after a reply, when the next request is predicted "
        "to reach it, the summary is updated in the background · at {threshold} a request is "
        "compressed before it is sent",
    ).format(prepare=f"{proj.prepare_threshold:,}", threshold=f"{proj.threshold:,}")


def _line(lines: list[str], prefix: str) -> str:
    """The header line starting with ``prefix`` (``""`` when the header has none)."""
    return next((line for line in lines if line.startswith(prefix)), "")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
