"""Tool calls waiting for the user's approval, kept on disk so a restart does not drop them.

A turn that asks about a call writes it here first (``pending-approvals.json`` in the chat's folder) and
removes it once answered. When OkBot quits (or dies) while a card is shown, the call stays: the chat shows
the card again on its next start, the answer is written beside the call, and once every call of that turn is
answered the turn goes on (:class:`okbot.core.turn.request.Resume`) — the call runs, or is refused, and the
model goes on from its result, as if OkBot had never closed.

A squad member's call is kept with the captain's call that asked the member (``parent``): the member's own
rounds lived only in memory, so on resume the member is asked again with what it had called and its result.

The file is small and rewritten whole (atomically, under a sidecar lock, so the CLI and the desktop never
interleave). A hand-edited or damaged file is set aside (``.bad``) and read as empty: nothing waits then, and
the calls are closed with their note as before.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from okbot.core.items import now_iso
from okbot.storage import migrations
from okbot.storage.atomic import atomic_write_json
from okbot.storage.datalock import FileLock, storage_error

log = logging.getLogger("okbot.runner")

FILE_NAME = "pending-approvals.json"
KIND = "pending-approvals"
VERSION = migrations.CURRENT[KIND]
MAX_ARGUMENT_CHARS = 200_000  # a call's arguments as the model wrote them; a longer one is not kept (closed)


@dataclass(frozen=True)
class PendingCall:
    """One call that waits (``answer`` None) or was answered while no turn ran."""

    call_id: str
    tool: str
    arguments: str  # the JSON the model wrote, as recorded
    user_id: int  # the message whose turn made the call
    member: str | None = None  # the squad member that made it (None: the assistant or the captain)
    parent: str | None = None  # for a member's call: the captain's call that asked the member
    asked: str = ""
    answer: bool | None = None

    @property
    def chat_call(self) -> str:
        """The call of the chat's record this one belongs to (its own, or the captain's that asked the member)."""
        return self.parent or self.call_id

    def args(self) -> dict[str, Any]:
        try:
            value = json.loads(self.arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    @classmethod
    def from_json(cls, obj: Any) -> PendingCall | None:
        if not isinstance(obj, dict):
            return None
        text = {k: obj.get(k) for k in ("call_id", "tool", "arguments")}
        if not all(isinstance(v, str) and v for v in (text["call_id"], text["tool"])) or not isinstance(
            text["arguments"], str
        ):
            return None
        user_id, answer = obj.get("user_id"), obj.get("answer")
        if not isinstance(user_id, int) or isinstance(user_id, bool) or answer not in (None, True, False):
            return None
        member, parent = obj.get("member"), obj.get("parent")
        if not (member is None or isinstance(member, str)) or not (parent is None or isinstance(parent, str)):
            return None
        return cls(
            call_id=text["call_id"],
            tool=text["tool"],
            arguments=text["arguments"],
            user_id=user_id,
            member=member,
            parent=parent,
            asked=str(obj.get("asked", "")),
            answer=answer,
        )


class PendingApprovals:
    """The calls of one chat that wait for an answer (``folder``: the chat's folder)."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / FILE_NAME
        self._lock = threading.Lock()  # parallel members of one turn ask at the same time
        self._file_lock = FileLock(self.path.with_name(FILE_NAME + ".lock"))
        self._newer = False  # a newer OkBot's file: read as none, never written over

    def calls(self) -> list[PendingCall]:
        """Every call kept, oldest first (a damaged file is set aside and reads as none)."""
        with self._lock:
            return self._read()

    def add(self, call: PendingCall) -> None:
        """Keep ``call`` (replacing one with its id); a call too long to keep is not kept."""
        if len(call.arguments) > MAX_ARGUMENT_CHARS:
            log.warning("the %s call's arguments are too long to keep across a restart", call.tool)
            return
        stamped = call if call.asked else PendingCall(**{**asdict(call), "asked": now_iso()})
        self._change(lambda calls: [c for c in calls if c.call_id != call.call_id] + [stamped])

    def answer(self, call_id: str, approved: bool) -> bool:
        """Write the user's answer to a kept call; False when no such call waits."""
        found = [False]

        def answered(calls: list[PendingCall]) -> list[PendingCall]:
            out = []
            for c in calls:
                if c.call_id == call_id:
                    found[0] = True
                    c = PendingCall(**{**asdict(c), "answer": bool(approved)})
                out.append(c)
            return out

        self._change(answered)
        return found[0]

    def remove(self, call_id: str) -> None:
        self._change(lambda calls: [c for c in calls if c.call_id != call_id])

    def clear(self) -> None:
        """Forget every kept call (the user moved on: a new message, a retry)."""
        with self._lock, self._file_lock:
            self._read()  # is it a newer OkBot's?
            if self.path.exists() and not self._newer:
                try:
                    self.path.unlink()
                except OSError as exc:
                    raise storage_error(self.path, exc) from exc

    # -- the file ---------------------------------------------------------------------------
    def _change(self, change: Any) -> None:
        with self._lock, self._file_lock:
            calls = change(self._read())
            if self._newer:
                log.warning("%s is a newer OkBot's; the calls of this turn are not kept across a restart", self.path)
                return
            try:
                if calls:
                    atomic_write_json(self.path, {"v": VERSION, "calls": [asdict(c) for c in calls]})
                elif self.path.exists():
                    self.path.unlink()
            except OSError as exc:
                raise storage_error(self.path, exc) from exc

    def _read(self) -> list[PendingCall]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.warning("could not read %s: %s", self.path, exc)
            return []
        self._newer = False
        try:
            obj = json.loads(raw.decode("utf-8"))
            version = obj.get("v") if isinstance(obj, dict) else None
            if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
                self._newer = True
                return []
            if not isinstance(obj, dict) or version != VERSION or not isinstance(obj.get("calls"), list):
                raise ValueError("not a list of pending approvals of this format")
            calls = [PendingCall.from_json(c) for c in obj["calls"]]
            if any(c is None for c in calls):
                raise ValueError("a call without its id, tool, arguments or message")
        except ValueError as exc:
            self._set_aside(exc)
            return []
        return [c for c in calls if c is not None]

    def _set_aside(self, why: Exception) -> None:
        bad = self.path.with_name(FILE_NAME + ".bad")
        log.warning("%s could not be read (%s); set aside as %s, nothing waits for approval", self.path, why, bad.name)
        try:
            self.path.replace(bad)
        except OSError as exc:
            log.warning("could not set %s aside: %s", self.path, exc)
