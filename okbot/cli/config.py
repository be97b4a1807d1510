"""``okbot config``: read and change settings."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from okbot.cli.common import report_problems
from okbot.cli.output import print_json
from okbot.i18n import translate


def cmd_config(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.config.schema import setting
    from okbot.config.settings import Settings

    settings = Settings.load()
    report_problems(settings.problems, err)

    def shown(key: str) -> Any:  # a password in OKBOT_BASE_URL is never printed
        return setting(key).shown(settings.get(key))

    if args.action == "get":
        if args.key is None:
            values = {key: shown(key) for key in settings.as_dict()}
            if args.json:
                print(json.dumps(values, ensure_ascii=False, indent=2), file=out)
            else:
                for key, value in values.items():
                    print(f"{key} = {json.dumps(value, ensure_ascii=False)}", file=out)
            return 0
        setting(args.key)  # unknown keys: a clear error with suggestions
        value = shown(args.key)
        print(
            json.dumps(value, ensure_ascii=False) if args.json or not isinstance(value, str) else value,
            file=out,
        )
    elif args.action == "set":
        settings.set_text(args.key, args.value)
        if args.json:
            print_json({"key": args.key, "value": shown(args.key)}, out)
        else:
            print(f"{args.key} = {json.dumps(shown(args.key), ensure_ascii=False)}", file=out)
    else:
        settings.reset(args.key)
        if args.json:
            print_json({"key": args.key, "value": shown(args.key), "default": True}, out)
        else:
            value = json.dumps(shown(args.key), ensure_ascii=False)
            print(translate("cli", "{key} = {value} (default)").format(key=args.key, value=value), file=out)
    return 0
