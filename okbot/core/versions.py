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
from okbot.i18n import QT_TRANSLATE_NOOP, translate
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
                    translate(
                        "versions",
                        "Message #{id} is already folded into the summary (items up to #{covered} are "
                        "summarized), so the model no longer reads it word for word: {action} it could not change "
                        "what the model knows.",
                    ).format(id=item_id, covered=self.covered, action=translate("versions", action)),
                    hint=translate("versions", "send a new message instead"),
                )
            raise NotFound(
                translate("versions", "no item #{id} in this chat").format(id=item_id),
                hint=translate("versions", "the last item is #{id}").format(id=self.session.last_id()),
            )
        if item_id not in self.on_branch:
            raise OkBotError(
                translate("versions", "Item #{id} is an earlier version the chat no longer follows.").format(
                    id=item_id
                ),
                hint=translate("versions", "switch to that version first"),
            )
        return self.by_id[item_id]

    def turn_of(self, item_id: int) -> Item:
        """The user message whose turn holds ``item_id`` (itself when it is one)."""
        index = next(i for i, it in enumerate(self.branch) if it["id"] == item_id)
        for item in reversed(self.branch[: index + 1]):
            if item.get("type") == "user":
                return item
        raise OkBotError(
            translate(
                "versions",
                "Item #{id} answers a message the summary already covers, so its reply cannot be regenerated.",
            ).format(id=item_id),
            hint=translate("versions", "send a new message instead"),
        )


def edit_parent(tail: Tail, item_id: int) -> int:
    """Where an edited version of user message ``item_id`` branches off: the item before it on the branch."""
    item = tail.item(item_id, QT_TRANSLATE_NOOP("versions", "editing"))
    if item.get("type") != "user" or item.get("source") != "user":
        raise OkBotError(
            translate("versions", "Only your own messages can be edited; item #{id} is not one.").format(id=item_id)
        )
    return branches.parent_on_branch(tail.run, item_id, tail.before)


def regenerate_point(tail: Tail, item_id: int) -> Item:
    """The user message whose reply a regeneration of ``item_id`` (a reply item or the message) replaces."""
    tail.item(item_id, QT_TRANSLATE_NOOP("versions", "regenerating"))
    return tail.turn_of(item_id)


def switch_marker(tail: Tail, item_id: int, index: int) -> Item | None:
    """The marker that makes version ``index`` (0-based) of the position of ``item_id`` current (None: it is)."""
    tail.item(item_id, QT_TRANSLATE_NOOP("versions", "switching versions of"))
    found = tail.versions().get(item_id)
    if found is None:
        raise OkBotError(translate("versions", "Item #{id} has no other version.").format(id=item_id))
    if not 0 <= index < found.count:
        raise OkBotError(
            translate("versions", "Item #{id} has {count} versions; there is no version {number}.").format(
                id=item_id, count=found.count, number=index + 1
            )
        )
    if index == found.index:
        return None
    leaf = branches.newest_in_subtree(tail.run, found.ids[index], tail.before)
    return branches.marker(
        "switch",
        leaf,
        translate("versions", "Switched to version {number} of {count} of item #{id}.").format(
            number=index + 1, count=found.count, id=found.ids[found.index]
        ),
    )


def switch(session: Any, summary: SessionSummary, item_id: int, index: int) -> Item | None:
    """Make version ``index`` of the position of ``item_id`` current: append its marker (None: it already is)."""
    mark = switch_marker(Tail(session, summary), item_id, index)
    return None if mark is None else session.append(mark)
