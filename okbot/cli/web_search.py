"""``okbot web-search``: the search service web_search uses, from the command line.

``okbot web-search set SERVICE [--key-stdin] [--url URL]`` chooses the service (``webSearch.provider``) and
keeps a hosted service's key, read from stdin, in the keyring (or the 0600 key file) — never as an argument,
where ``ps`` and the shell history would show it; ``--url`` is SearXNG's address. ``okbot web-search status``
says which service is chosen and whether it is ready (never a key); ``okbot web-search rm-key SERVICE`` forgets
a key. ``okbot config set webSearch.provider off`` turns web search off.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from okbot.cli.output import add_json_flag, print_json
from okbot.config.settings import Settings
from okbot.core.local_tools.web.search_providers import SERVICES
from okbot.core.local_tools.web.search_setup import chosen, delete_key, has_key, key_changed, save_key, searxng_base
from okbot.i18n import translate
from okbot.llm.keys import MAX_KEY_CHARS
from okbot.llm.keystore import KeyStore
from okbot.storage.errors import OkBotError

SERVICE_IDS = ("tavily", "brave", "serper", "searxng")


def add_parsers(sub: Any) -> None:
    """Declare ``web-search`` on the main parser's subcommands."""
    p = sub.add_parser(
        "web-search", help=translate("cli_web_search", "the search service of the web_search tool: set, status, rm-key")
    )
    wsub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = wsub.add_parser("set", help=translate("cli_web_search", "use SERVICE for web search (its key from stdin)"))
    s.add_argument("service", metavar="SERVICE", choices=SERVICE_IDS, help=", ".join(SERVICE_IDS))
    s.add_argument(
        "--key-stdin",
        action="store_true",
        help=translate("cli_web_search", "read the service's API key from stdin and keep it in the keyring"),
    )
    s.add_argument("--url", metavar="URL", help=translate("cli_web_search", "searxng: your server's address"))
    add_json_flag(s)
    st = wsub.add_parser("status", help=translate("cli_web_search", "the service chosen and whether it is ready"))
    st.add_argument("--json", action="store_true")
    r = wsub.add_parser("rm-key", help=translate("cli_web_search", "forget the API key saved for SERVICE"))
    r.add_argument("service", metavar="SERVICE", choices=SERVICE_IDS[:-1], help=", ".join(SERVICE_IDS[:-1]))
    add_json_flag(r)


def cmd_web_search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``okbot web-search ACTION``."""
    settings, store = Settings.load(), KeyStore()
    if args.action == "rm-key":
        delete_key(store, args.service)
        if args.json:
            print_json({"service": args.service, "keyRemoved": True}, out)
        else:
            text = translate("cli_web_search", "key for {service} removed")
            print(text.format(service=SERVICES[args.service].name), file=out)
        return 0
    if args.action == "set":
        service = SERVICES[args.service]
        if args.url is not None and service.needs_key:
            raise OkBotError(translate("cli_web_search", "--url is for searxng; hosted services have a fixed address"))
        if args.key_stdin and not service.needs_key:
            raise OkBotError(translate("cli_web_search", "searxng takes no key; give its address with --url"))
        where = ""
        if args.key_stdin:
            key = sys.stdin.readline(MAX_KEY_CHARS + 1).strip()  # one past the bound: save refuses it, in words
            if not key:
                raise OkBotError(translate("cli_web_search", "no key on stdin; nothing was changed"))
            where = save_key(store, service.id, key)
        if args.url is not None:
            settings.set("webSearch.searxngUrl", args.url.strip())
        settings.set("webSearch.provider", service.id)
    key_changed()
    row = _status(settings, store)
    if getattr(args, "json", False):
        print_json(row | ({"keySavedIn": where or None} if args.action == "set" else {}), out)
        return 0
    print(_status_line(row, store), file=out)
    return 0


def _status(settings: Settings, store: KeyStore) -> dict[str, Any]:
    """What ``status`` says (never a key): the service, whether it is ready, where its key or URL is."""
    service = chosen(settings)
    row: dict[str, Any] = {
        "service": service.id if service else "off",
        "maxResults": settings.get("webSearch.maxResults"),
    }
    if service is None:
        return row | {"ready": False}
    if not service.needs_key:
        base = searxng_base(settings.get("webSearch.searxngUrl"))
        return row | {"ready": bool(base), "url": base or None}
    present = has_key(store, service.id)
    return row | {"ready": present, "key": store.where() if present else None}


def _status_line(row: dict[str, Any], store: KeyStore) -> str:
    if row["service"] == "off":
        return translate("cli_web_search", "web search: off (okbot web-search set SERVICE to turn it on)")
    name = SERVICES[row["service"]].name
    if row["service"] == "searxng":
        if not row["ready"]:
            return translate(
                "cli_web_search", "web search: SearXNG, no URL yet (okbot web-search set searxng --url URL)"
            )
        text = translate("cli_web_search", "web search: SearXNG at {url}, {n} results per search")
        return text.format(url=row["url"], n=row["maxResults"])
    if not row["ready"]:
        text = translate("cli_web_search", "web search: {service}, no key yet (okbot web-search set {id} --key-stdin)")
        return text.format(service=name, id=row["service"])
    text = translate("cli_web_search", "web search: {service}, key in {where}, {n} results per search")
    return text.format(service=name, where=store.place(row["key"]), n=row["maxResults"])
