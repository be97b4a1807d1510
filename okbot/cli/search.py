"""``okbot search QUERY [--target T] [--limit N] [--json]``: find items in every chat from the command line.

The index is caught up first (built from the records when missing, with a progress line on stderr when
that is a long read). Each hit is one line, ``name · date · #id · snippet``, the matched words in bold on a
terminal; ``--json`` prints a list of objects with the keys ``kind``, ``target``, ``targetName``,
``itemId``, ``ts``, ``type``, ``author``, ``snippet``, ``spans`` (``[start, end]`` of each match in the
snippet) and ``replaced`` (an earlier version of a message, edited or regenerated away). No match exits 1,
as grep and rg do.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any, TextIO

from okbot.cli.output import styled
from okbot.i18n import translate
from okbot.storage.errors import OkBotError

PROGRESS_BYTES = 16 * 1024 * 1024  # a catch-up reading more than this shows its progress
_BOLD, _PLAIN = "\x1b[1m", "\x1b[0m"


def add_parsers(sub: Any) -> None:
    """Declare ``search`` on the main parser's subcommands."""
    p = sub.add_parser(
        "search", help=translate("cli_search", "find words in every chat (the words together first, then newest first)")
    )
    p.add_argument(
        "query",
        metavar="QUERY",
        help=translate("cli_search", 'words (all must occur), "a phrase", prefix*; Chinese substrings'),
    )
    p.add_argument("--target", metavar="T", help=translate("cli_search", "only this assistant or squad (id or name)"))
    p.add_argument(
        "--limit", type=int, default=50, metavar="N", help=translate("cli_search", "at most N hits (default 50)")
    )
    p.add_argument("--json", action="store_true", help=translate("cli_search", "machine-readable output"))


def cmd_search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core.search import SearchIndex
    from okbot.core.search.text import parse_query
    from okbot.core.workspace import Workspace

    if not parse_query(args.query):
        raise OkBotError(
            translate("cli_search", "nothing to search for"), hint=translate("cli_search", "give one or more words")
        )
    if args.limit < 1:
        raise OkBotError(translate("cli_search", "--limit must be at least 1"))
    ws = Workspace()
    target = ws.resolve(args.target).id if args.target is not None else None
    index = SearchIndex(workspace=ws)
    try:
        try:
            index.catch_up(progress=_progress(err))
        except OkBotError as exc:  # another OkBot is indexing: search what is there
            text = translate("cli_search", "okbot: note: {why}; results may miss the newest items")
            print(text.format(why=exc), file=err)
        hits = index.search(args.query, target=target, limit=args.limit)
    finally:
        index.close()
        for problem in index.problems:
            print(f"okbot: {problem}", file=err)
    if args.json:
        rows = [
            {
                "kind": h.kind,
                "target": h.target_id,
                "targetName": h.target_name,
                "itemId": h.item_id,
                "ts": h.ts,
                "type": h.type,
                "author": h.author,
                "snippet": h.snippet,
                "spans": [list(span) for span in h.spans],
                "replaced": h.replaced,
            }
            for h in hits
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=out)
        return 0 if hits else 1
    bold = styled(out)
    for h in hits:
        earlier = translate("cli_search", " (earlier version)") if h.replaced else ""
        text = _marked(h.snippet, h.spans) if bold else h.snippet
        print(f"{h.target_name} · {_date(h.ts)} · #{h.item_id}{earlier} · {text}", file=out)
    if not hits:  # as grep and rg: no match exits 1
        print(translate("cli_search", "no matches"), file=err)
        return 1
    return 0


def _marked(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    parts, pos = [], 0
    for start, end in spans:
        if start < pos:
            continue
        parts += [text[pos:start], _BOLD, text[start:end], _PLAIN]
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def _date(ts: str) -> str:
    """``2026-01-02 14:03`` in local time (the raw text when it cannot be read)."""
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ts or "?"
    return (moment.astimezone() if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M")


def _progress(err: TextIO) -> Any:
    shown = [False]

    def report(done: int, total: int) -> None:
        if total < PROGRESS_BYTES:
            return
        shown[0] = True
        end = "\n" if done >= total else ""
        text = translate("cli_search", "indexing chats: {percent}% of {size} MB")
        print(
            "\r" + text.format(percent=done * 100 // total, size=f"{total / 1e6:,.0f}"), end=end, file=err, flush=True
        )

    return report
