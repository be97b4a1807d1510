"""The as-sent record: what was actually sent, request by request.

Each instruction block's text is stored once, content-addressed (``as-sent/blocks/<sha>.txt``),
and so is each distinct list of blocks (names, hashes, token counts: ``blocks/<sha>.json``).
``as-sent/requests.jsonl`` gets one small line per request (the blocks, the ids of the items sent as
runs of consecutive ids, model, window, token counts, tools offered, the round within its attempt)
and, when the reply finished, a line with the usage the provider reported. The items themselves are
not copied: ``session.jsonl`` is append-only, so the ids read them back as they were
(:mod:`okbot.core.sent_request`). Storage grows with the number of *distinct* block texts, not with turns.

A turn can send several requests: one per tool round, and again for each Retry. :meth:`AsSentStore.turn`
groups them into attempts (a request of round 1 starts one) so the View-context window can offer each,
beside the live projection, and show that SOUL.md (or a skill, or memory) changed since it was sent.

``requests.jsonl`` is written the way every record is (:class:`okbot.storage.datalock.AppendLog`): under
the sidecar lock ``requests.jsonl.lock`` the next request id is taken from the last one on disk, so a
CLI run beside the GUI never repeats an id; the line is appended and fsynced, a torn last line never
swallows it, and a full disk is an :class:`~okbot.storage.errors.OkBotError` that leaves the file as it was.

Every line of ``requests.jsonl`` carries ``"v"`` (:data:`AS_SENT_VERSION`). The log is append-only and
each line describes itself, so nothing is ever migrated or rewritten: lines without ``v`` (format 0,
the same fields as 1) and a newer OkBot's lines are read for the fields this build knows. Format 2
added ``ids`` (runs ``[first, last]`` of the item ids sent), ``hidden`` (ids sent as a stub),
``round``, ``window``, ``ratio``, ``itemTokens`` and ``overhead``, and a ``title`` (and ``uncut``) per block; an older
line has only the id range, and its attempts are told apart by how each request ended. Format 3 added
``pinned`` (the current request's message(s) sent at the head of the tail, marked) and ``cut`` (``{id: chars}``,
tool results sent cut to fit the window), so a request of a turn compressed inside itself reads back as sent,
and ``retryOf``: the request a server refused as too long for its window, which this one (made to fit) sent again
in the same attempt.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okbot.core.items import now_iso
from okbot.core.projection import ContextProjection
from okbot.core.wire_names import NO_NAMES, WireNames
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage import migrations, paths
from okbot.storage.atomic import atomic_write_bytes, to_utf8
from okbot.storage.datalock import AppendLog, storage_error

AS_SENT_VERSION = migrations.CURRENT["as-sent"]
_ADDRESS = re.compile(r"[0-9a-f]{32}")


@dataclass
class AsSentRequest:
    """One recorded request, with its block texts resolved from the content store."""

    id: int
    ts: str
    model: str
    user_id: int | None
    first_item_id: int | None
    last_item_id: int | None
    item_count: int
    covered_through_id: int
    blocks: list[dict[str, Any]]  # name, sha, tokens (+ text when loaded)
    tools: list[str]
    estimate: int
    usage: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # format 2 (None on older lines)
    round_no: int | None = None  # the request's round within its attempt (1: the attempt's first request)
    item_ids: list[int] | None = None  # every item id sent, in order
    hidden_ids: list[int] = field(default_factory=list)  # items sent as a stub (output hidden to fit)
    pinned_ids: list[int] = field(default_factory=list)  # format 3: the current request, pinned and marked
    cut_chars: dict[int, int] = field(default_factory=dict)  # format 3: tool results sent cut, id -> chars shown
    retry_of: int | None = None  # format 3: the refused request (too long for the window) this one sent again
    names: WireNames = NO_NAMES  # a squad's members as the model knew them when it was sent
    member: str | None = None  # a squad member's request (None: the captain's, or an assistant's)
    own_sha: str | None = None  # a member's own tool rounds sent after the items (content address)
    window: int | None = None
    ratio: float | None = None
    items_tokens: int | None = None
    overhead_tokens: int | None = None
    # where it sits in its turn (set by AsSentStore.turn)
    attempt: int = 1
    attempts: int = 1
    round_in_attempt: int = 1
    rounds: int = 1

    @property
    def status(self) -> str | None:
        """How the reply to it ended (``complete``, ``interrupted``, ``error``); None when never recorded."""
        status = self.extra.get("status")
        return status if isinstance(status, str) else None

    @property
    def produced_reply(self) -> bool:
        """The last request of its attempt, answered completely: the one the turn's reply came from."""
        return self.status == "complete" and self.round_in_attempt == self.rounds

    @property
    def prompt_tokens(self) -> int | None:
        """The prompt tokens the provider reported for it (None when not reported, or only estimated)."""
        usage = self.usage if isinstance(self.usage, dict) else {}
        value = usage.get("prompt_tokens")
        if usage.get("estimated") or not isinstance(value, int) or isinstance(value, bool):
            return None
        return value

    def outcome(self) -> str:
        """In words, how this request ended (English; each marked for :meth:`label`)."""
        if self.produced_reply:
            return QT_TRANSLATE_NOOP("assent", "produced the reply")
        if self.status == "complete":
            return QT_TRANSLATE_NOOP("assent", "asked for tools")
        if self.status == "interrupted":
            return QT_TRANSLATE_NOOP("assent", "interrupted")
        if self.status == "error":
            return QT_TRANSLATE_NOOP("assent", "failed")
        return QT_TRANSLATE_NOOP("assent", "no reply recorded")

    def label(self) -> str:
        """``Attempt 2 of 2 — produced the reply · round 1 of 3``: how the View-context window offers it
        (in the user's language; :meth:`outcome` stays English, a value of the JSON export)."""
        return translate("assent", "Attempt {attempt} of {attempts} — {outcome} · round {round} of {rounds}").format(
            attempt=self.attempt,
            attempts=self.attempts,
            outcome=translate("assent", self.outcome()),
            round=self.round_in_attempt,
            rounds=self.rounds,
        )


def _digest(text: str) -> str:
    """128 bits of SHA-256: content addresses that never collide in practice, half the bytes."""
    return hashlib.sha256(to_utf8(text)).hexdigest()[:32]


class AsSentStore:
    """Per-target as-sent record in ``<target dir>/as-sent/``."""

    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        self.blocks_dir = self.dir / "blocks"
        self.log_path = self.dir / "requests.jsonl"
        self._log = AppendLog(self.log_path)
        self._last_id = 0  # the highest id this store wrote: ids never go back, even if the file is cut
        self._known: set[str] = set()

    def record(
        self,
        proj: ContextProjection,
        *,
        user_id: int | None,
        tools: list[str],
        round_no: int | None = None,
        retry_of: int | None = None,
        own: list[dict[str, Any]] | None = None,
    ) -> int:
        """Store the request ``proj`` describes (``round_no``: its round in the attempt, 1 for the first;
        ``retry_of``: the request refused as too long that this one sends again); returns its request id.
        A squad member's request (``proj.member``) is recorded under the member, with ``own``: the messages
        of its own earlier tool rounds that followed the chat's items (they are not in the chat's record).
        OkBotError when the disk refuses."""
        try:
            paths.ensure_private_dir(self.dir)
        except OSError as exc:
            raise storage_error(self.dir, exc) from exc
        blocks = []
        for block in proj.blocks:
            sha = _digest(block.text)
            self._store(sha, ".txt", block.text)
            entry = {"name": block.name, "title": block.title, "sha": sha, "tokens": block.tokens}
            if block.uncut:  # leading characters a view must show whole (the user's kept words)
                entry["uncut"] = block.uncut
            blocks.append(entry)
        listing = json.dumps(blocks, ensure_ascii=False, separators=(",", ":"))
        block_set = _digest(listing)
        self._store(block_set, ".json", listing)
        with self._log.writing() as log:
            request_id = max(self._last_id, _last_request_id(log.lines_backward())) + 1
            line = {
                "id": request_id,
                "v": AS_SENT_VERSION,
                "ts": now_iso(),
                "model": proj.model,
                "userId": user_id,
                "items": [proj.items[0]["id"], proj.items[-1]["id"]] if proj.items else None,
                "itemCount": len(proj.items),
                "coveredThroughId": proj.covered_through_id,
                "blocks": blocks,
                "tools": tools,
                "estimate": proj.total_tokens,
                "itemTokens": proj.items_tokens,
                "overhead": proj.overhead_tokens,
                "window": proj.window,
                "ratio": proj.ratio,
                "ids": id_runs([item["id"] for item in proj.items]),
            }
            hidden = [item["id"] for item in proj.items if item.get("hidden")]
            if hidden:
                line["hidden"] = hidden
            if proj.pinned_ids:
                line["pinned"] = proj.pinned_ids
            cut = {str(item["id"]): item["cut"] for item in proj.items if "cut" in item}
            if cut:
                line["cut"] = cut
            if round_no is not None:
                line["round"] = round_no
            if retry_of is not None:
                line["retryOf"] = retry_of
            if proj.names:
                line["names"] = proj.names.to_json()
            if proj.member is not None:
                line["member"] = proj.member
            if own:
                text = json.dumps(own, ensure_ascii=False, separators=(",", ":"))
                line["own"] = _digest(text)
                self._store(line["own"], ".json", text)
            log.append(_encode(line))
            self._last_id = request_id
        return request_id

    def record_usage(self, request_id: int, usage: dict[str, Any] | None, status: str) -> None:
        """Attach what the provider reported (or the failure) to a recorded request."""
        self._log.append(_encode({"usageFor": request_id, "v": AS_SENT_VERSION, "usage": usage, "status": status}))

    def requests(self) -> list[AsSentRequest]:
        """Every recorded request, oldest first, usage merged in. Unreadable lines are skipped."""
        out: dict[int, AsSentRequest] = {}
        for line in self._lines():
            if "usageFor" in line:
                req = out.get(line["usageFor"])
                if req is not None:
                    req.usage = line.get("usage")
                    req.extra["status"] = line.get("status")
                continue
            items = line.get("items") or [None, None]
            out[line["id"]] = AsSentRequest(
                id=line["id"],
                ts=line.get("ts", ""),
                model=line.get("model", ""),
                user_id=line.get("userId"),
                first_item_id=items[0],
                last_item_id=items[1],
                item_count=line.get("itemCount", 0),
                covered_through_id=line.get("coveredThroughId", 0),
                blocks=line.get("blocks", []),
                tools=line.get("tools", []),
                estimate=line.get("estimate", 0),
                round_no=_int_or_none(line.get("round")),
                item_ids=expand_runs(line.get("ids")),
                hidden_ids=[i for i in line.get("hidden") or [] if _is_id(i)],
                pinned_ids=[i for i in line.get("pinned") or [] if _is_id(i)],
                cut_chars=_cut_chars(line.get("cut")),
                retry_of=_int_or_none(line.get("retryOf")),
                names=WireNames.from_json(line.get("names")),
                member=line.get("member") if isinstance(line.get("member"), str) else None,
                own_sha=line.get("own") if isinstance(line.get("own"), str) else None,
                window=_int_or_none(line.get("window")),
                ratio=line.get("ratio") if isinstance(line.get("ratio"), (int, float)) else None,
                items_tokens=_int_or_none(line.get("itemTokens")),
                overhead_tokens=_int_or_none(line.get("overhead")),
            )
        return list(out.values())

    def turn(self, user_id: int, member: str | None = None) -> list[AsSentRequest]:
        """Every request sent for the turn of user message ``user_id``, in order, numbered by attempt and round
        (block texts not loaded: :meth:`load_texts`): the captain's (or the assistant's), or with ``member``
        that squad member's, each time it was asked an attempt of its own.

        A request of round 1 starts an attempt (a Retry, or a regenerated reply), unless it sends a refused
        request again (``retryOf``: the same attempt, one more request). An older line has no
        round: there a request starts a new attempt when the one before it did not complete (a tool round
        follows a complete reply that asked for tools; a Retry follows an interrupted or failed one).
        """
        found = [req for req in self.requests() if req.user_id == user_id and req.member == member]
        groups: list[list[AsSentRequest]] = []
        for req in found:
            if req.round_no is not None:
                new_attempt = req.round_no <= 1 and req.retry_of is None
            else:
                new_attempt = not groups or groups[-1][-1].status != "complete"
            if new_attempt or not groups:
                groups.append([])
            groups[-1].append(req)
        for number, group in enumerate(groups, start=1):
            for position, req in enumerate(group, start=1):
                req.attempt, req.attempts = number, len(groups)
                req.round_in_attempt, req.rounds = position, len(group)
        return found

    def load_texts(self, req: AsSentRequest) -> AsSentRequest:
        """``req`` with each block's ``text`` read from the content store (None for a missing file)."""
        for block in req.blocks:
            block["text"] = self.block_text(str(block.get("sha")))
        return req

    def for_user_message(self, user_id: int) -> AsSentRequest | None:
        """The request that produced the reply to user message ``user_id`` (else its last one), block texts
        loaded; None when nothing was recorded for it."""
        turn = self.turn(user_id)
        return self.load_texts(turn[default_choice(turn)]) if turn else None

    def block_text(self, sha: str) -> str | None:
        """A stored block text by its content address; None when missing, unreadable or not an address."""
        if not _ADDRESS.fullmatch(sha):  # a damaged line never points outside blocks/
            return None
        try:
            return (self.blocks_dir / f"{sha}.txt").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def own_messages(self, req: AsSentRequest) -> list[dict[str, Any]] | None:
        """A member request's own tool-round messages ([] when it had none); None when the file is lost."""
        if req.own_sha is None:
            return []
        if not _ADDRESS.fullmatch(req.own_sha):
            return None
        try:
            data = json.loads((self.blocks_dir / f"{req.own_sha}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else None

    def disk_bytes(self) -> int:
        total = 0
        for root, _dirs, files in os.walk(self.dir):
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        return total

    # -- internals --------------------------------------------------------------------------
    def _store(self, sha: str, suffix: str, text: str) -> None:
        if sha in self._known:
            return
        path = self.blocks_dir / f"{sha}{suffix}"
        if not path.exists():
            try:
                atomic_write_bytes(path, to_utf8(text))
            except OSError as exc:
                raise storage_error(path, exc) from exc
        self._known.add(sha)

    def _lines(self) -> list[dict[str, Any]]:
        try:
            raw = self.log_path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise storage_error(self.log_path, exc) from exc
        return [obj for obj in map(_parse, raw.split(b"\n")) if obj is not None]


def _encode(obj: dict[str, Any]) -> bytes:
    return to_utf8(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")


def _parse(line: bytes) -> dict[str, Any] | None:
    """A request or usage line as a dict; None for a torn or damaged line (this record is informational)."""
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if isinstance(obj, dict) and (_is_id(obj.get("id")) or _is_id(obj.get("usageFor"))):
        return obj
    return None


def _cut_chars(value: Any) -> dict[int, int]:
    """A line's ``cut`` read back (a damaged entry is passed over: this record is informational)."""
    if not isinstance(value, dict):
        return {}
    return {int(k): v for k, v in value.items() if isinstance(k, str) and k.isdigit() and _is_id(v) and v > 0}


def _is_id(value: Any) -> bool:
    return type(value) is int


def _int_or_none(value: Any) -> int | None:
    return value if _is_id(value) else None


def id_runs(ids: list[int]) -> list[list[int]]:
    """Ascending ids as runs ``[first, last]`` of consecutive ids (a turn's tail is mostly one run)."""
    runs: list[list[int]] = []
    for item_id in ids:
        if runs and item_id == runs[-1][1] + 1:
            runs[-1][1] = item_id
        else:
            runs.append([item_id, item_id])
    return runs


MAX_RUN = 1_000_000  # a damaged run never makes a reader build a list of billions of ids


def expand_runs(runs: Any) -> list[int] | None:
    """The ids a line's ``ids`` runs name; None when the line has none (older) or they are damaged."""
    if not isinstance(runs, list):
        return None
    out: list[int] = []
    for run in runs:
        if not (isinstance(run, list) and len(run) == 2 and all(_is_id(x) for x in run)):
            return None
        first, last = run
        if not 0 < first <= last or last - first > MAX_RUN or len(out) > MAX_RUN:
            return None
        out.extend(range(first, last + 1))
    return out


def default_choice(turn: list[AsSentRequest]) -> int:
    """The index in ``turn`` of the request that produced the reply (the last such), else of the last one."""
    for index in range(len(turn) - 1, -1, -1):
        if turn[index].produced_reply:
            return index
    return len(turn) - 1


def _last_request_id(lines_backward: Iterator[bytes]) -> int:
    """The id of the last request line (usage lines and damaged lines are passed over); 0 when none."""
    for line in lines_backward:
        obj = _parse(line)
        if obj is not None and "id" in obj and _is_id(obj["id"]):
            return obj["id"]
    return 0


def compare_blocks(sent: AsSentRequest, live: ContextProjection) -> list[tuple[str, str]]:
    """Per block name: ``same``, ``changed`` (e.g. SOUL.md edited since), ``added`` or ``removed``."""
    before = {b["name"]: b["sha"] for b in sent.blocks}
    after = {b.name: _digest(b.text) for b in live.blocks}
    names = [b["name"] for b in sent.blocks] + [n for n in after if n not in before]
    out = []
    for name in names:
        if name not in after:
            out.append((name, "removed"))
        elif name not in before:
            out.append((name, "added"))
        else:
            out.append((name, "same" if before[name] == after[name] else "changed"))
    return out
