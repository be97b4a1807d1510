"""``okbot context``: what the model saw for a message, rebuilt now or as it was sent."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from okbot.cli.common import target_and_sources
from okbot.i18n import translate
from okbot.storage.errors import OkBotError


def cmd_context(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core.context import build_context
    from okbot.core.render import remember_api_keys, render_json, render_markdown
    from okbot.core.tokens import APPROX_NOTE

    sources, target = target_and_sources(args.target, err)
    remember_api_keys(sources.settings)  # no provider is built here: the key must be known to redact it
    if args.as_sent or args.attempt is not None or args.round is not None:
        _check_as_sent_args(args)
    proj = build_context(target, args.at, sources=sources, member=args.member)
    if args.as_sent:
        return _print_as_sent(args, sources, target, proj, out)
    if args.json:
        print(render_json(proj, *_turn_facts(sources, target, proj)), file=out)
    else:
        out.write(render_markdown(proj, body_limit=None if args.full else 2000, approx_note=APPROX_NOTE))
    return 0


def _turn_facts(sources: Any, target: Any, proj: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``okbot context --json``'s ``promptCache`` (that of the request the message's turn answered with) and
    ``timing`` (where the turn's time went), of the message asked for or else the last one."""
    from okbot.app.context_view import sent_request, turn_timing_of

    at = (
        proj.at
        if proj.at is not None
        else next((it["id"] for it in reversed(proj.items) if it.get("type") == "user"), None)
    )
    if at is None:
        return None, None
    sent = sent_request(sources, target, at)
    cache = sent.cache.to_json() if sent is not None and sent.cache is not None else None
    return cache, turn_timing_of(sources, target, at)


def _check_as_sent_args(args: argparse.Namespace) -> None:
    if not args.as_sent:
        raise OkBotError(
            translate("cli", "--attempt and --round choose a request of --as-sent"),
            hint=translate("cli", "add --as-sent"),
        )
    if args.at is None:
        raise OkBotError(
            translate("cli", "--as-sent needs --at"),
            hint=translate("cli", "give the id of the message you typed (--at ID)"),
        )


def _print_as_sent(args: argparse.Namespace, sources: Any, target: Any, proj: Any, out: TextIO) -> int:
    """``okbot context --at N --as-sent``: the recorded request, as the viewer's As-sent tab shows it."""
    from okbot.app.context_view import sent_request
    from okbot.core.assent import compare_blocks
    from okbot.core.render import as_sent_json, as_sent_markdown
    from okbot.core.sent_request import choose

    turn = sources.as_sent(target).turn(args.at, args.member)
    if not turn:
        raise OkBotError(
            translate("cli", "no as-sent record for message #{id}").format(id=args.at),
            hint=translate("cli", "it was sent before OkBot kept one, or never sent"),
        )
    sent = sent_request(sources, target, args.at, choose(turn, args.attempt, args.round).id, args.member)
    assert sent is not None  # the turn has it
    states = compare_blocks(sent.request, proj)
    if args.json:
        print(as_sent_json(sent, states), file=out)
    else:
        out.write(as_sent_markdown(sent, proj, states, body_limit=None if args.full else 2000))
    return 0
