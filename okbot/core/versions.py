"""Which messages can get a new version, and where it branches off (the turn itself is the runner's).

Only the uncompressed tail can change: a message the summary already covers is no longer read by the
model word for word, so a new version of it could not change what the model knows. Every refusal says
why in words. The tree and its markers are :mod:`okbot.core.session.branches`.
"""

from __future__ import annotations

from typing import Any

from okbot.core.session import branches
from okbot.core.session.branches import Versions
from okbot.core.summary import SessionSummary
from okbot.storage.errors import NotFound, OkBotError

Item = dict[str, Any]


class Tail:
    """The uncompressed tail of one session, every version of it, read once."""

    def __init__(self, session: Any, summary: SessionSummary) -> None:
        self.session = session
        self.covered = summary.covered_through_id
        run, exists = session.read_after(self.covered, all_versions=True)
        self.before = self.covered if exists else None
        self.run: list[Item] = run
        self.by_id = {it["id"]: it for it in run}
        self.branch = branches.current_branch(run, self.before)
        self.on_branch = {it["id"] for it in self.branch}

    def versions(self) -> dict[int, Versions]:
        return branches.versions(self.run, self.before)

    def shown_versions(self) -> dict[int, Versions]:
        """Where a chat shows each version switch: under the message itself, or for a reply (which may
        start with a tool call) under its first reply bubble. Keys are ids on the branch."""
        out: dict[int, Versions] = {}
        index = {it["id"]: i for i, it in enumerate(self.branch)}
        for item_id, found in self.versions().items():
            shown = item_id
            if self.by_id[item_id].get("type") != "user":
                for later in self.branch[index[item_id] :]:
                    if later.get("type") == "user":
                        break
                    if later.get("type") == "assistant":
                        shown = later["id"]
                        break
            out[shown] = found
        return out

    def item(self, item_id: int, action: str) -> Item:
        """The item ``item_id`` if it is on the branch in the tail; otherwise say why ``action`` cannot be done."""
        if item_id not in self.by_id:
            if item_id <= self.covered and self.session.get(item_id) is not None:
                raise OkBotError(
                    f"Message #{item_id} is already folded into the summary (items up to #{self.covered} are "
                    f"summarized), so the model no longer reads it word for word: {action} it could not change "
                    "what the model knows.",
                    hint="send a new message instead",
                )
            raise NotFound(f"no item #{item_id} in this chat", hint=f"the last item is #{self.session.last_id()}")
        if item_id not in self.on_branch:
            raise OkBotError(
                f"Item #{item_id} is an earlier version the chat no longer follows.",
                hint="switch to that version first",
            )
        return self.by_id[item_id]

    def turn_of(self, item_id: int) -> Item:
        """The user message whose turn holds ``item_id`` (itself when it is one)."""
        index = next(i for i, it in enumerate(self.branch) if it["id"] == item_id)
        for item in reversed(self.branch[: index + 1]):
            if item.get("type") == "user":
                return item
        raise OkBotError(
            f"Item #{item_id} answers a message the summary already covers, so its reply cannot be regenerated.",
            hint="send a new message instead",
        )


def edit_parent(tail: Tail, item_id: int) -> int:
    """Where an edited version of user message ``item_id`` branches off: the item before it on the branch."""
    item = tail.item(item_id, "editing")
    if item.get("type") != "user" or item.get("source") != "user":
        raise OkBotError(f"Only your own messages can be edited; item #{item_id} is not one.")
    return branches.parent_on_branch(tail.run, item_id, tail.before)


def regenerate_point(tail: Tail, item_id: int) -> Item:
    """The user message whose reply a regeneration of ``item_id`` (a reply item or the message) replaces."""
    tail.item(item_id, "regenerating")
    return tail.turn_of(item_id)


def switch_marker(tail: Tail, item_id: int, index: int) -> Item | None:
    """The marker that makes version ``index`` (0-based) of the position of ``item_id`` current (None: it is)."""
    tail.item(item_id, "switching versions of")
    found = tail.versions().get(item_id)
    if found is None:
        raise OkBotError(f"Item #{item_id} has no other version.")
    if not 0 <= index < found.count:
        raise OkBotError(f"Item #{item_id} has {found.count} versions; there is no version {index + 1}.")
    if index == found.index:
        return None
    leaf = branches.newest_in_subtree(tail.run, found.ids[index], tail.before)
    return branches.marker(
        "switch", leaf, f"Switched to version {index + 1} of {found.count} of item #{found.ids[found.index]}."
    )


def switch(session: Any, summary: SessionSummary, item_id: int, index: int) -> Item | None:
    """Make version ``index`` of the position of ``item_id`` current: append its marker (None: it already is)."""
    mark = switch_marker(Tail(session, summary), item_id, index)
    return None if mark is None else session.append(mark)
