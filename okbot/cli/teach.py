"""``okbot teach``: what the chat's teaching cards do, from the command line.

``okbot teach list TARGET`` lists the messages offered to keep as written (``okbot chat`` prints one
note line when it offers one), with their state; ``okbot teach keep TARGET ID`` keeps message ID as a
persona rule (or a skill, for a procedure) in the user's words, as *Keep as a rule* does;
``okbot teach not-now TARGET ID`` is *Not now*. See :mod:`okbot.core.evolution.offers`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from okbot.cli.common import target_and_sources
from okbot.core.evolution import offers
from okbot.core.evolution.teachings import PERMISSION, PROCEDURE, PROHIBITION
from okbot.i18n import translate

WORDS_SHOWN = 100


def add_parsers(sub: Any) -> None:
    """Declare ``teach`` on the main parser's subcommands."""
    p = sub.add_parser(
        "teach", help=translate("cli_teach", "keep a rule or procedure you taught, as you wrote it (the chat's cards)")
    )
    tsub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    target_help = translate("cli_teach", "an assistant id or name")
    a = tsub.add_parser("list", help=translate("cli_teach", "the messages offered to keep, and what became of them"))
    a.add_argument("target", metavar="TARGET", help=target_help)
    a.add_argument("--json", action="store_true", help=translate("cli_teach", "machine-readable output"))
    for name, help_text in (
        ("keep", translate("cli_teach", "keep message ID as a rule (a procedure: as a skill), in your words")),
        ("not-now", translate("cli_teach", "do not keep message ID; it is not offered again")),
    ):
        a = tsub.add_parser(name, help=help_text)
        a.add_argument("target", metavar="TARGET", help=target_help)
        a.add_argument("id", type=int, metavar="ID", help=translate("cli_teach", "the id of your message"))
        a.add_argument("--json", action="store_true", help=translate("cli_teach", "machine-readable output"))


def cmd_teach(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``okbot teach ACTION``."""
    sources, target = target_and_sources(args.target, err)
    if args.action == "list":
        found = sorted(offers.offers(sources, target).values(), key=lambda o: o.of)
        if args.json:
            print(json.dumps([o.to_json() for o in found], ensure_ascii=False, indent=2), file=out)
        elif not found:
            print(translate("cli_teach", "{name}: nothing offered to keep yet.").format(name=target.name), file=out)
        for offer in [] if args.json else found:
            print(_offer_line(offer), file=out)
        return 0
    if args.action == "keep":
        entries = offers.keep(sources, target, args.id)
        if args.json:
            print(json.dumps([{"id": e.id, "kind": e.kind, "summary": e.summary} for e in entries]), file=out)
        for entry in [] if args.json else entries:
            text = translate(
                "cli_teach", "kept #{of} as change #{id} {kind}: {summary} (okbot evolve {target} --undo {id})"
            )
            print(
                text.format(of=args.id, id=entry.id, kind=entry.kind, summary=entry.summary, target=target.id), file=out
            )
        return 0
    offer = offers.decline(sources, target, args.id)
    if args.json:
        print(json.dumps(offer.to_json(), ensure_ascii=False), file=out)
    else:
        print(translate("cli_teach", "not kept: #{of}; it will not be offered again").format(of=offer.of), file=out)
    return 0


def note_line(card: dict[str, Any], target_id: str) -> str:
    """The one line ``okbot chat`` prints when its turn offered a card: what, from which message, and the command."""
    if card["kind"] == PROCEDURE:
        text = translate("cli_teach", "okbot: note: keep #{of} as a skill? “{words}” — okbot teach keep {target} {of}")
    else:
        text = translate("cli_teach", "okbot: note: keep #{of} as a rule? “{words}” — okbot teach keep {target} {of}")
    return text.format(of=card["of"], words=_short(card["words"]), target=target_id)


def _offer_line(offer: offers.Offer) -> str:
    state = {
        offers.OFFERED: translate("cli_teach", "offered"),
        offers.KEPT: translate("cli_teach", "kept"),
        offers.DECLINED: translate("cli_teach", "not now"),
    }[offer.state]
    kind = {
        PROCEDURE: translate("cli_teach", "procedure"),
        PROHIBITION: translate("cli_teach", "prohibition"),
        PERMISSION: translate("cli_teach", "permission"),
    }.get(offer.kind, translate("cli_teach", "rule"))
    changes = " " + ", ".join(f"→ #{i}" for i in offer.entries) if offer.entries else ""
    return f"#{offer.of}  {state:<8}  {kind:<11}  “{_short(offer.words)}”{changes}"


def _short(words: str) -> str:
    return words if len(words) <= WORDS_SHOWN else words[: WORDS_SHOWN - 1] + "…"
