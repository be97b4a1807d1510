"""One chat of the original (``session.jsonl`` and ``session-summary.json``) written as this app's items.

The session is streamed, never held: it is read line by line, each line bounded by the longest line
this app's session store reads (:attr:`SessionStore.max_line_bytes`), in two passes over the same open
file. The first only learns which tool calls and results exist (so :func:`~records.whole_pairs` can
pair them); the second converts and appends each item as it comes. What the import keeps per chat is
then a set of call ids and the first skipped lines, whatever the size of the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from okbot.core.import_okbot.records import Converter, parse_record, text_of, whole_pairs
from okbot.core.import_okbot.report import OwnerReport
from okbot.core.import_okbot.source import SourceFolder, bounded_lines, open_file, read_json, size_text
from okbot.core.items import now_iso
from okbot.core.session.store import SessionStore
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.workspace import Target
from okbot.i18n import plural, translate
from okbot.storage import jsontext
from okbot.storage.errors import OkBotError

MAX_JSON_BYTES = 8 * 1024 * 1024  # a JSON file of the original (roster, settings, a summary): far above real ones
MAX_PROMPT_BYTES = 64 * 1024  # a persona or a summary: text the model reads on every turn


def import_chat(folder: SourceFolder, target: Target, members: dict[str, str] | None, owner: OwnerReport) -> None:
    """Convert the chat in ``folder`` into ``target``'s session (a squad's when ``members`` is given)."""
    summary = _read_summary(folder, owner)
    covered = text_of(summary.get("coveredThroughId")) if summary else ""
    found, covered_new = False, 0
    fh = open_file(folder, "session.jsonl", None, owner.notes)
    if fh is not None:
        with fh:
            calls, answered = _first_pass(fh, Converter(target.id, members))
            fh.seek(0)
            store: SessionStore | None = None
            last_new = 0
            converted = _converted(fh, Converter(target.id, members), owner)
            for number, rec_id, item in whole_pairs(converted, calls, answered, owner):
                if item is not None:
                    store = store or SessionStore(target.session_path)
                    try:
                        last_new = store.append(item)["id"]
                        owner.items += 1
                    except OkBotError as exc:
                        owner.skip_line(number, str(exc))
                if rec_id and rec_id == covered:
                    found, covered_new = True, last_new
    if summary:
        _save_summary(summary, found, covered_new, target, owner)


def _records(
    fh: BinaryIO, owner: OwnerReport | None, *, worth: Callable[[bytes], bool] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each session record in ``fh``; lines that are not, into ``owner``.

    With ``worth``, a line it says no to is passed over unparsed.
    """
    limit = SessionStore.max_line_bytes
    for number, raw, torn in bounded_lines(fh, limit):
        if raw is None:
            reason = translate("import_okbot", "longer than {n} bytes").format(n=f"{limit:,}")
        elif not raw.strip() or (worth is not None and not worth(raw)):
            continue
        else:
            try:
                rec = parse_record(jsontext.loads(raw.decode("utf-8"), what="the line"))
            except ValueError as exc:  # bad UTF-8, not JSON, nested too deeply
                reason = translate("import_okbot", "torn last line") if torn else str(exc)
            else:
                if rec is not None:
                    yield number, rec
                    continue
                reason = translate("import_okbot", "not a session record")
        if owner is not None:
            owner.skip_line(number, reason)


def _may_be_tool(raw: bytes) -> bool:
    """Whether the line can hold a tool call or result: it names one, or hides a name behind an escape."""
    return b"function_call" in raw or b"\\u" in raw


def _first_pass(fh: BinaryIO, converter: Converter) -> tuple[set[str], set[str]]:
    """The call ids of the tool calls and of the results the chat's records convert to."""
    calls: set[str] = set()
    answered: set[str] = set()
    for _, rec in _records(fh, None, worth=_may_be_tool):
        item, _ = converter.convert(rec)
        if item is not None and item["type"] == "tool_call":
            calls.add(item["call_id"])
        elif item is not None and item["type"] == "tool_result":
            answered.add(item["call_id"])
    return calls, answered


def _converted(
    fh: BinaryIO, converter: Converter, owner: OwnerReport
) -> Iterator[tuple[int, str, dict[str, Any] | None]]:
    """``(line number, original id, item or None)`` per record; the kinds not imported counted in ``owner``,
    and, once all are read, the attachments named."""
    attached = 0
    for number, rec in _records(fh, owner):
        meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
        attachments = meta.get("attachments")
        attached += len(attachments) if isinstance(attachments, list) else 0
        item, kind = converter.convert(rec)
        if item is None:
            owner.skipped_kinds[kind] = owner.skipped_kinds.get(kind, 0) + 1
        yield number, rec["id"], item
    if attached:
        text = plural(
            attached,
            translate("import_okbot", "{n} attachment: its file was not copied; the path stays in the text"),
            translate("import_okbot", "{n} attachments: their files were not copied; the paths stay in the text"),
        )
        owner.notes.append(text.format(n=attached))


def _read_summary(folder: SourceFolder, owner: OwnerReport) -> dict[str, Any] | None:
    """The original's summary when it has text the model can take on every turn, else None (and a note why)."""
    raw = read_json(folder, "session-summary.json", MAX_JSON_BYTES, owner.notes)
    if not isinstance(raw, dict) or not isinstance(raw.get("summary"), str) or not raw["summary"].strip():
        return None
    size = len(raw["summary"].encode("utf-8", errors="replace"))
    if size > MAX_PROMPT_BYTES:
        text = translate(
            "import_okbot", "the summary is {size}, over the {limit} the model reads on every turn; not imported"
        )
        owner.summary = text.format(size=size_text(size), limit=size_text(MAX_PROMPT_BYTES))
        return None
    return raw


def _save_summary(raw: dict[str, Any], found: bool, covered_new: int, target: Target, owner: OwnerReport) -> None:
    if not found:
        owner.summary = translate(
            "import_okbot", "text kept, coverage not found (the model sees the summary and the whole chat)"
        )
    elif covered_new == 0:
        owner.summary = translate("import_okbot", "text kept, covering nothing imported")
    else:
        owner.summary = translate("import_okbot", "imported (covers through item {id})").format(id=covered_new)
    updated = text_of(raw.get("updatedAt")) or now_iso()
    summary = SessionSummary(summary=raw["summary"].strip(), covered_through_id=covered_new, updated_at=updated)
    try:
        SummaryStore(target.summary_path).save(summary)
    except OkBotError as exc:
        owner.summary = translate("import_okbot", "not imported: {why}").format(why=exc)
