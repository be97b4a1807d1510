"""The trash: a deleted assistant or squad waits here, untouched, until it is restored.

Layout (under the workspace's ``trash_root``)::

    <UTC stamp>-<kind>-<id>/manifest.json + <id>/ (the moved directory, untouched)

Nothing here deletes user data: :func:`delete` moves the whole directory into the trash and
records in the manifest where it came from (and, for an assistant, which squads it was in);
:func:`restore` moves it back and puts those memberships back. Entry names keep the target's id,
so the workspace never hands out an id the trash still holds
(:func:`okbot.core.workspace.ids_in_trash`).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from okbot.core.items import now_iso
from okbot.core.kind import Kind
from okbot.core.workspace import SCHEMA_VERSION, Target, Workspace, read_json_object, subdirs, trash_entry_name
from okbot.i18n import translate
from okbot.storage import migrations, paths
from okbot.storage.atomic import atomic_write_json
from okbot.storage.errors import NotFound, OkBotError

MANIFEST = "manifest.json"


def delete(workspace: Workspace, ref: str) -> str:
    """Move an assistant or squad to the trash and return the trash id.

    Deleting an assistant also removes it from every squad's members; the manifest records
    where it was so :func:`restore` can put it back. Squads that could not be updated are
    listed in ``workspace.problems``.
    """
    target = workspace.resolve(ref)
    memberships: list[dict] = []
    if target.is_assistant:
        for squad in workspace.squads():
            for index, member in enumerate(squad.members):
                if member["assistant"] == target.id:
                    memberships.append({"squad": squad.id, "index": index, "role": member["role"]})
    trash_root = workspace.trash_root
    paths.ensure_private_dir(trash_root)
    trash_id = _new_trash_id(trash_root, target)
    entry = trash_root / trash_id
    os.mkdir(entry, 0o700)
    manifest = {
        "version": SCHEMA_VERSION,
        "trashId": trash_id,
        "kind": target.kind,
        "id": target.id,
        "name": target.name,
        "deletedAt": now_iso(),
        "originalPath": f"{workspace.kind_root(target.kind).name}/{target.id}",
        "squadMemberships": memberships,
    }
    atomic_write_json(entry / MANIFEST, manifest)
    try:
        os.rename(target.dir, entry / target.id)
    except OSError as exc:
        with contextlib.suppress(OSError):
            (entry / MANIFEST).unlink()
            entry.rmdir()
        raise OkBotError(
            translate("trash", "Could not move {name} to the trash: {error}").format(
                name=target.name, error=exc.strerror or exc
            )
        ) from exc
    workspace.problems = []
    for squad_id in dict.fromkeys(m["squad"] for m in memberships):
        _edit_squad_members(workspace, squad_id, lambda ms: [m for m in ms if m.get("assistant") != target.id])
    return trash_id


def restore(workspace: Workspace, trash_id: str) -> Target:
    """Undo a delete: move the directory back and re-add squad memberships.

    Memberships that could not be put back are listed in ``workspace.problems``.
    """
    entry = _trash_entry(workspace.trash_root, trash_id)
    manifest = read_json_object(entry / MANIFEST)
    kind = Kind.parse(manifest.get("kind")) if manifest is not None else None
    if kind is None or not _plain_name(manifest.get("id")):
        raise OkBotError(
            translate("trash", "Trash entry '{id}' has no readable manifest; its files are in {path}.").format(
                id=trash_id, path=entry
            )
        )
    target_id = manifest["id"]
    content = entry / target_id
    if not content.is_dir():
        raise OkBotError(
            translate("trash", "Trash entry '{id}' holds no directory to restore ({path}).").format(
                id=trash_id, path=content
            )
        )
    for root in (workspace.assistants_root, workspace.squads_root):
        if (root / target_id).exists():
            raise OkBotError(
                translate("trash", "Cannot restore '{id}': that id is taken again.").format(id=target_id),
                hint=translate("trash", "rename or delete the current '{id}' first; the trash entry is kept").format(
                    id=target_id
                ),
            )
    kind_root = workspace.kind_root(kind)
    paths.ensure_private_dir(kind_root)
    try:
        os.rename(content, kind_root / target_id)
    except OSError as exc:
        raise OkBotError(
            translate("trash", "Could not restore '{id}': {error}").format(id=target_id, error=exc.strerror or exc)
        ) from exc
    workspace.problems = []
    for membership in manifest.get("squadMemberships") or []:
        _readd_membership(workspace, target_id, membership)
    with contextlib.suppress(OSError):
        (entry / MANIFEST).unlink()
        entry.rmdir()
    return workspace.load(kind, kind_root / target_id)[0]


def entries(workspace: Workspace) -> list[dict]:
    """Trash entries, newest first: ``{"id", "kind", "name", "deletedAt", "targetId"}``."""
    found = []
    for entry in subdirs(workspace.trash_root):
        manifest = read_json_object(entry / MANIFEST)
        if manifest is None:
            continue
        target_id = manifest.get("id")
        if isinstance(target_id, str) and target_id and (entry / target_id).is_dir():
            info = {k: manifest.get(k, "") for k in ("kind", "name", "deletedAt")}
            found.append({"id": entry.name, **info, "targetId": target_id})
    found.sort(key=lambda e: (str(e["deletedAt"]), e["id"]), reverse=True)
    return found


# -------------------------------------------------------------------- helpers
def _new_trash_id(trash_root: Path, target: Target) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    candidate, n = trash_entry_name(stamp, target.kind, target.id), 2
    while (trash_root / candidate).exists():
        candidate, n = trash_entry_name(f"{stamp}.{n}", target.kind, target.id), n + 1
    return candidate


def _trash_entry(trash_root: Path, trash_id: str) -> Path:
    if isinstance(trash_id, str) and trash_id in {d.name for d in subdirs(trash_root)}:
        return trash_root / trash_id
    raise NotFound(translate("trash", "No trash entry '{id}'.").format(id=trash_id))


def _edit_squad_members(workspace: Workspace, squad_id: str, edit: Callable[[list], list]) -> None:
    path = workspace.squads_root / squad_id / Kind.SQUAD.meta_file
    meta = read_json_object(path)
    if meta is None:
        workspace.problems.append(
            translate("trash", "Squad '{id}' could not be updated: squad.json is unreadable.").format(id=squad_id)
        )
        return
    meta, _ = migrations.current_form(Kind.SQUAD, meta, path)
    members = meta.get("members") if isinstance(meta.get("members"), list) else []
    meta["members"] = edit(list(members))
    try:
        migrations.write_json(path, Kind.SQUAD, meta, action="update its members")
    except OkBotError as exc:
        workspace.problems.append(
            translate("trash", "Squad '{id}' could not be updated: {error}.").format(id=squad_id, error=exc)
        )


def _readd_membership(workspace: Workspace, assistant_id: str, membership: Any) -> None:
    if not isinstance(membership, dict) or not _plain_name(membership.get("squad")):
        return
    squad_id = membership["squad"]
    if squad_id not in {d.name for d in subdirs(workspace.squads_root)}:
        workspace.problems.append(
            translate("trash", "Squad '{id}' no longer exists; {assistant} was not re-added to it.").format(
                id=squad_id, assistant=assistant_id
            )
        )
        return
    role = membership.get("role") if isinstance(membership.get("role"), str) else ""
    index = membership.get("index") if isinstance(membership.get("index"), int) else 1 << 30

    def edit(members: list) -> list:
        if any(isinstance(m, dict) and m.get("assistant") == assistant_id for m in members):
            return members
        members.insert(max(0, min(index, len(members))), {"assistant": assistant_id, "role": role})
        return members

    _edit_squad_members(workspace, squad_id, edit)


def _plain_name(value: Any) -> bool:
    """A single path component (manifests are read back from disk, so never trust them as paths)."""
    return isinstance(value, str) and value not in ("", ".", "..") and not re.search(r"[/\\\x00]", value)
