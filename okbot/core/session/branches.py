"""Versions of a message: edit and resend, regenerate, and which version the conversation follows.

``session.jsonl`` stays append-only, so a new version never replaces the old one on disk. Instead the
record is a tree: every item's parent is the line before it, except a **branch marker** (a ``notice``
with ``branch`` and ``parent``), whose parent is the item named. The conversation the user sees and the
model is sent is the **current branch**: the path from the last item back through parents. So:

* *edit and resend* user message ``u``: a marker whose parent is the item before ``u`` on the branch,
  then the new user message (its parent is the marker). ``u`` and what followed leave the branch.
* *regenerate* the reply to ``u``: a marker whose parent is ``u``; the new reply follows it.
* *switch* to another version: a marker whose parent is the newest item of that version's subtree.

Markers carry item schema v2 (:data:`BRANCH_VERSION`): an OkBot that knows only v1 cannot tell the
branches apart, so it opens such a chat read-only instead of sending both versions to the model.

The **versions** of an item on the branch are the items with the same effective parent (the nearest
ancestor that is not a notice) and the same role: user messages (edits), or the first item of a reply
to a user message (regenerations). A retry after a failed reply continues after the failed item, so it
is not a version. All of this is pure functions over item dicts; the store walks the same parents
through its offset index (:meth:`okbot.core.session.SessionStore.branch_ids`, with :func:`branch_slices`).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from okbot.core import items

PARENT = "parent"  # a branch marker's parent item id (0: the start of the chat)
BRANCH = "branch"  # a branch marker's kind
KINDS = ("edit", "regenerate", "switch")
BRANCH_VERSION = 2  # item schema version of a branch marker

Item = dict[str, Any]


@dataclass(frozen=True)
class Versions:
    """The versions of one position in the chat, oldest first, and which one is on the branch."""

    ids: tuple[int, ...]
    index: int  # of the one on the current branch

    @property
    def count(self) -> int:
        return len(self.ids)

    def label(self) -> str:
        return f"{self.index + 1}/{self.count}"


def marker(kind: str, parent: int, text: str) -> Item:
    """A branch marker (see the module docstring); ``text`` says what happened, for older readers and logs."""
    if kind not in KINDS:
        raise ValueError(f"unknown branch kind {kind!r}")
    item = items.notice(text)
    item.update(v=BRANCH_VERSION, parent=int(parent), branch=kind)
    return item


def is_marker(item: Item) -> bool:
    """Whether ``item`` is a branch marker (its parent an integer: ``true`` is not item 1)."""
    return item.get("type") == "notice" and item.get(BRANCH) in KINDS and type(item.get(PARENT)) is int


def explicit_parent(item: Item) -> int | None:
    """The parent a branch marker names, or None for an ordinary item (its parent is the line before).

    A parent must come before its marker; a marker naming itself or a later item (only an outside edit
    can write one) is read as an ordinary notice."""
    if not is_marker(item) or item[PARENT] < 0 or item[PARENT] >= item.get("id", item[PARENT] + 1):
        return None
    return item[PARENT]


def parents(run: Sequence[Item], before: int | None = None) -> dict[int, int | None]:
    """``id -> parent id`` for a contiguous run of items; ``before`` is the id of the line before the run."""
    out: dict[int, int | None] = {}
    previous = before
    for item in run:
        named = explicit_parent(item)
        out[item["id"]] = named if named is not None else previous
        previous = item["id"]
    return out


def current_branch(run: Sequence[Item], before: int | None = None) -> list[Item]:
    """The items of ``run`` (a contiguous run ending with the file's last item) on the current branch."""
    if not any(explicit_parent(it) is not None for it in run):
        return list(run)
    by_id = {it["id"]: it for it in run}
    parent_of = parents(run, before)
    path: list[Item] = []
    node: int | None = run[-1]["id"] if run else None
    while node is not None and node in by_id and len(path) < len(run):  # a run out of order cannot cycle it
        path.append(by_id[node])
        node = parent_of[node]
    path.reverse()
    return path


def branch_slices(ids: Sequence[int], named: dict[int, int], lo: int = 0) -> list[tuple[int, int]]:
    """The current branch as ``[start, stop)`` position ranges of ``ids`` (ascending item ids, the whole
    file), oldest first, from position ``lo`` on; ``named`` maps each branch marker's id to its parent id.

    Between two markers the branch is a contiguous run of lines, so the walk costs one step per marker on
    the path, not one per item. A range starts at its marker (the line whose parent is named). A marker
    naming itself or a later item is read as an ordinary line (as :func:`explicit_parent` does), so every
    step goes back and the walk ends."""
    marks = sorted(bisect.bisect_left(ids, marker) for marker, parent in named.items() if parent < marker)
    slices: list[tuple[int, int]] = []
    pos = len(ids) - 1
    while pos >= lo:
        k = bisect.bisect_right(marks, pos) - 1
        mark = marks[k] if k >= 0 else -1
        if mark < lo:
            slices.append((lo, pos + 1))
            break
        slices.append((mark, pos + 1))
        pos = bisect.bisect_right(ids, named[ids[mark]]) - 1
    slices.reverse()
    return slices


def effective_parent(item_id: int, by_id: dict[int, Item], parent_of: dict[int, int | None]) -> int | None:
    """The nearest ancestor of ``item_id`` that is not a notice (or what lies before the run)."""
    node = parent_of.get(item_id)
    for _ in by_id:  # at most one step per item: parents out of order cannot make it cycle
        if node is None or node not in by_id or by_id[node].get("type") != "notice":
            break
        node = parent_of.get(node)
    return node


def _role(item: Item, eff_parent: int | None, by_id: dict[int, Item]) -> str | None:
    kind = item.get("type")
    if kind == "user":
        return "user"
    if kind in ("assistant", "tool_call") and eff_parent in by_id and by_id[eff_parent].get("type") == "user":
        return "reply"
    return None


def versions(run: Sequence[Item], before: int | None = None) -> dict[int, Versions]:
    """For each item on the current branch with more than one version: its :class:`Versions`."""
    by_id = {it["id"]: it for it in run}
    parent_of = parents(run, before)
    groups: dict[tuple[int | None, str], list[int]] = {}
    for item in run:
        eff = effective_parent(item["id"], by_id, parent_of)
        role = _role(item, eff, by_id)
        if role is not None:
            groups.setdefault((eff, role), []).append(item["id"])
    out: dict[int, Versions] = {}
    for branch_item in current_branch(run, before):
        eff = effective_parent(branch_item["id"], by_id, parent_of)
        role = _role(branch_item, eff, by_id)
        group = groups.get((eff, role)) if role is not None else None
        if group and len(group) > 1:
            out[branch_item["id"]] = Versions(tuple(group), group.index(branch_item["id"]))
    return out


def newest_in_subtree(run: Sequence[Item], root: int, before: int | None = None) -> int:
    """The newest item whose ancestors include ``root`` (or ``root`` itself): where its version ends."""
    parent_of = parents(run, before)
    inside = {root}
    newest = root
    for item in run:
        item_id = item["id"]
        if item_id > root and parent_of[item_id] in inside:
            inside.add(item_id)
            newest = item_id
    return newest


def parent_on_branch(run: Sequence[Item], item_id: int, before: int | None = None) -> int:
    """The id of the item before ``item_id`` on the branch (0 at the start of the chat)."""
    parent = parents(run, before).get(item_id)
    return parent or 0
