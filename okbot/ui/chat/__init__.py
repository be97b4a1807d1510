"""The chat view: one conversation as a virtualised list (model + delegate), never one widget per message.

Public API (what the chat page embeds)::

    view = ChatView(parent)
    view.set_session(store: SessionStore | None, *, summary: SessionSummary | None = None,
                     target_name_by_id: Callable[[str], str] | None = None,
                     tasks: TaskRunner | None = None, show_authors: bool = False)
        # show a session; its index is built on a TaskRunner thread, rows appear on `loaded`.
        # show_authors=True for squads (name + avatar above each assistant bubble).
    view.set_roster(roster: SquadRoster | None)   # squads (okbot.core.roster): "Captain" and member names
                                     # and colours on bubbles; a member's answer to the captain is that
                                     # member's bubble; ask_<member> calls are "asked Rex: task" rows that
                                     # expand on click; a failed answer carries an error line
    view.set_stream_author(id)       # a member addressed directly streams its reply ("" = the captain)
    view.append_item(item: dict)     # an item the turn wrote (TurnWorker.item); a user item scrolls down
    view.stream_delta(text: str)     # TurnWorker.delta: grows the streaming row at the bottom
    view.end_stream()                # TurnWorker.finished/failed: drop the streaming row if still there
                                     # (an appended assistant item replaces it by itself)
    view.set_summary(summary)        # coverage moved (Compress now, auto compression): moves the divider
    view.set_developer_mode(bool)    # hovering a user bubble offers "View context" only when on
    view.set_retry_enabled(bool)     # hide Retry while a turn runs
    view.set_placeholder(text)       # what an empty conversation says
    view.scroll_to_bottom() / scroll_to_top() / is_at_bottom() / copy_row(row) / select_text(row)
    view.open_find() / close_find()  # Ctrl+F: the find bar over the top right (the chat page binds Ctrl+F)
    view.find_next() / find_previous()  # Enter / Shift+Enter: older / newer match ("3 of 41", newest = 1)
    view.show_match(item_id, occurrence) / match_rect(item_id, occurrence)

    Signals:
    view.retry_requested()               # Retry on the latest interrupted / failed reply
    view.view_context_requested(int)     # item id of the user message (developer mode)
    view.summary_requested()             # the coverage divider was opened (it shows the summary inline)
    view.copied(str)                     # text put on the clipboard (for a status-bar note)
    view.loaded(int)                     # rows ready after set_session (row count)
    view.teaching_requested(int, int, str)  # a teaching card's Keep / Not now: card id, message id, answer
    view.chat_model().set_teaching_states({card id: state})  # offered | kept | declined | busy

How it stays smooth with 100k items: :class:`ChatModel` gets the row -> id index from the store
off the GUI thread and reads only requested rows (a block of 32 at a time, LRU-cached);
:class:`ChatView` keeps row heights in a Fenwick tree (estimates until a row is first shown), so
appending, streaming and scrolling cost O(log n) and only on-screen rows are laid out;
:class:`ChatDelegate` caches each row's layout per (row key, width).

Reading aids: find in chat (:mod:`okbot.ui.chat.find`: the record is scanned from the newest back,
in chunks on a TaskRunner thread, searching what rows show; :mod:`okbot.ui.chat.find_bar`); matches
are painted as document selections, the current one stronger. Scrolled up, a "Jump to latest" pill
(:mod:`okbot.ui.chat.jump_button`) turns into "New messages" when something arrives, and nothing
moves. Code blocks are coloured by Pygments off the GUI thread (:mod:`okbot.ui.chat.syntax`). A
message taller than 25 lines shows collapsed with "Show more" (ExpandedRole, per item).

Squads: :class:`okbot.ui.chat.activity.WorkingLine` is the "Rex and Mia are working…" line the
chat page feeds with the turn's ``MemberActivity`` events.

Copy and select in a delegate-based view: buttons are painted by the delegate and hit-tested
from the same cached layout (Copy on every code block's header; Copy / View context in the hover
footer; Retry; Ctrl+C and the context menu copy the message's Markdown). To select part of a
message, double-click it (or "Select text" in its menu): Qt's editor mechanism opens a read-only,
frameless QTextBrowser holding a copy of that row's own document exactly over the painted text,
so selection looks in place; Esc or clicking elsewhere closes it.

The view's classes load on first use (:func:`__getattr__`), so importing the plain-Python
``okbot.ui.chat.heights`` does not load Qt through this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from okbot.ui.chat.delegate import ChatDelegate
    from okbot.ui.chat.model import ChatModel
    from okbot.ui.chat.view import ChatView

_HOMES = {
    "ChatDelegate": "okbot.ui.chat.delegate",
    "ChatModel": "okbot.ui.chat.model",
    "ChatView": "okbot.ui.chat.view",
}
__all__ = ["ChatDelegate", "ChatModel", "ChatView"]


def __getattr__(name: str) -> Any:
    """``ChatView`` and the rest, imported when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
