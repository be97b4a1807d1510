"""``okbot provider add|list|rm|models|windows|forget-window`` and ``okbot set-model``: the providers a user has,
who uses which, and the context windows their servers taught OkBot.

Keys are never printed: a provider's line says where its key is read from, not what it is. A key given
to ``provider add --key-stdin`` goes to the keyring (or the 0600 key file) under the provider's name.
Under ``--json``, ``provider add`` and ``rm`` print the provider's row as ``provider list --json`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from okbot.cli.output import add_json_flag, print_json
from okbot.config.providers import (
    DEFAULT_PROVIDER,
    KEY_SOURCES,
    MAX_SLOTS,
    ProviderConfig,
    check_base_url,
    check_name,
    parse_windows,
    resolve_model,
    split_ref,
)
from okbot.config.schema import SettingError
from okbot.config.settings import Settings
from okbot.i18n import translate
from okbot.storage.errors import OkBotError
from okbot.storage.redaction import redact_url


def add_parsers(sub: Any) -> None:
    """Declare ``provider …`` and ``set-model`` on the main parser's subcommands."""
    p = sub.add_parser(
        "provider",
        help=translate("cli_provider", "the OpenAI-compatible servers you use: add, list, rm, models, windows"),
    )
    psub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = psub.add_parser("add", help=translate("cli_provider", "add a provider (or change one of that name)"))
    a.add_argument("name", metavar="NAME")
    a.add_argument(
        "--base-url", required=True, metavar="URL", help=translate("cli_provider", "e.g. https://openrouter.ai/api/v1")
    )
    a.add_argument(
        "--key-env",
        default="",
        metavar="VAR",
        help=translate("cli_provider", "the environment variable holding its key"),
    )
    a.add_argument(
        "--key-source",
        choices=KEY_SOURCES,
        default=None,
        help=translate("cli_provider", "where its key is read from (default: env, or keyring with --key-stdin)"),
    )
    a.add_argument(
        "--key-stdin",
        action="store_true",
        help=translate("cli_provider", "read the key from stdin and keep it in the keyring"),
    )
    a.add_argument(
        "--window",
        action="append",
        default=[],
        metavar="MODEL=TOKENS",
        help=translate("cli_provider", "a model's context window on this provider (repeat for more)"),
    )
    a.add_argument(
        "--slots",
        type=int,
        default=None,
        metavar="N",
        help=translate(
            "cli_provider", "how many requests its server answers at once (default: 1 on this computer, 4 hosted)"
        ),
    )
    add_json_flag(a)
    ls = psub.add_parser(
        "list", help=translate("cli_provider", "the providers, where their keys are, their models if listed")
    )
    ls.add_argument("--json", action="store_true")
    rm = psub.add_parser("rm", help=translate("cli_provider", "remove a provider no assistant uses"))
    rm.add_argument("name", metavar="NAME")
    add_json_flag(rm)
    m = psub.add_parser(
        "models", help=translate("cli_provider", "ask a provider's server for its models and remember them")
    )
    m.add_argument("name", metavar="NAME", nargs="?", default=DEFAULT_PROVIDER)
    add_json_flag(m)
    w = psub.add_parser(
        "windows", help=translate("cli_provider", "the context windows servers stated when they refused a request")
    )
    w.add_argument("--json", action="store_true")
    f = psub.add_parser(
        "forget-window",
        help=translate("cli_provider", "forget the context window a server taught for a model: [PROVIDER/]MODEL"),
    )
    f.add_argument("model", metavar="[PROVIDER/]MODEL")
    s = sub.add_parser(
        "set-model",
        help=translate("cli_provider", "the model an assistant talks to: [PROVIDER/]MODEL, or '' for the default"),
    )
    s.add_argument("target", metavar="TARGET", help=translate("cli_provider", "an assistant id or name"))
    s.add_argument("model", metavar="[PROVIDER/]MODEL")
    add_json_flag(s)


def check_model_ref(settings: Settings, ref: str, err: TextIO) -> str:
    """``ref`` stripped; an error when it is empty, a note when its prefix is no provider or the model unlisted."""
    ref = ref.strip()
    if not ref:
        raise OkBotError(translate("cli_provider", "the model must not be empty"))
    configs = {p.name: p for p in settings.providers.all()}
    name, model = split_ref(ref, frozenset(configs))
    head, sep, _ = ref.partition("/")
    if sep and name == DEFAULT_PROVIDER and head != DEFAULT_PROVIDER:
        known = ", ".join(configs)
        text = translate(
            "cli_provider",
            "okbot: note: no provider called {name} (the providers are: {known}); "
            "{ref} goes to the default provider as a model name",
        )
        print(text.format(name=repr(head), known=known, ref=repr(ref)), file=err)
    listed = configs[name].models
    if listed and model not in listed:
        text = translate(
            "cli_provider", "okbot: note: provider {name} did not list {model} (run `okbot provider models {name}`)"
        )
        print(text.format(name=name, model=repr(model)), file=err)
    return ref


def _saved_in() -> str:
    """Where a saved key is kept on this machine: ``keyring``, or ``file`` without a system keyring."""
    from okbot.llm.keystore import KeyStore

    return KeyStore().where()


def _row(config: ProviderConfig, saved_in: str) -> dict[str, Any]:
    return {
        "name": config.name,
        "baseUrl": redact_url(config.base_url),
        "keySource": config.key_source,
        "keyEnv": config.key_env,
        "key": config.key_where(saved_in),
        "models": list(config.models),
        "slots": config.slots,  # None: automatic (1 on this computer, 4 hosted)
        "default": config.name == DEFAULT_PROVIDER,
    }


def cmd_provider(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``okbot provider ACTION …``."""
    settings = Settings.load()
    for problem in settings.problems:
        print(translate("cli_provider", "okbot: note: {text}").format(text=problem), file=err)
    if args.action == "list":
        saved_in = _saved_in()
        rows = [_row(config, saved_in) for config in settings.providers.all()]
        if args.json:
            print_json(rows, out)
        for row in [] if args.json else rows:
            mark = translate("cli_provider", " (default)") if row["default"] else ""
            models = ", ".join(row["models"])
            models = translate("cli_provider", "  models: {models}").format(models=models) if models else ""
            text = translate("cli_provider", "{name}{default}  {url}  key: {key}{models}")
            print(
                text.format(name=row["name"], default=mark, url=row["baseUrl"], key=row["key"], models=models), file=out
            )
        return 0
    if args.action == "add":
        return _add(settings, args, out)
    if args.action == "rm":
        return _remove(settings, args.name, args.json, out)
    if args.action == "windows":
        return _learnt_windows(settings, args.json, out)
    if args.action == "forget-window":
        return _forget_window(settings, args.model, out)
    return _models(settings, args.name, args.json, out)


def _learnt_windows(settings: Settings, as_json: bool, out: TextIO) -> int:
    from okbot.core.learnt_windows import LearntWindows, provider_key
    from okbot.storage import paths

    names = {provider_key(config.base_url): config.name for config in settings.providers.all()}
    rows = [
        {
            "provider": names.get(entry.base_url, ""),
            "baseUrl": redact_url(entry.base_url),
            "model": entry.model,
            "window": entry.window,
            "learntAt": entry.learnt_at,
            "promptTokens": entry.prompt_tokens,
        }
        for entry in LearntWindows(paths.learnt_windows_file()).entries()
    ]
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=out)
        return 0
    text = translate("cli_provider", "{provider}  {model}  {window} tokens  (learnt {when}, {url})")
    for row in rows:
        provider = row["provider"] or translate("cli_provider", "(no provider)")
        shown = text.format(
            provider=provider, model=row["model"], window=f"{row['window']:,}", when=row["learntAt"], url=row["baseUrl"]
        )
        print(shown, file=out)
    return 0


def _forget_window(settings: Settings, ref: str, out: TextIO) -> int:
    from okbot.core.learnt_windows import LearntWindows
    from okbot.storage import paths

    config, model = resolve_model(settings, ref.strip())
    if not LearntWindows(paths.learnt_windows_file()).forget(config.base_url, model):
        raise OkBotError(
            translate("cli_provider", "no window was learnt for {model} on provider {name}").format(
                model=model, name=config.name
            )
        )
    text = translate("cli_provider", "forgot the window learnt for {model} on provider {name}")
    print(text.format(model=model, name=config.name), file=out)
    return 0


def _add(settings: Settings, args: argparse.Namespace, out: TextIO) -> int:
    name = check_name(args.name)
    source = args.key_source or ("keyring" if args.key_stdin else "env")
    if args.key_stdin and source != "keyring":
        raise OkBotError(
            translate("cli_provider", "--key-stdin keeps the key in the keyring: use it with --key-source keyring")
        )
    if args.key_env and source != "env":
        raise OkBotError(translate("cli_provider", "--key-env names where the key is for --key-source env"))
    windows = _windows(args.window)
    if windows and name == DEFAULT_PROVIDER:
        raise OkBotError(
            translate("cli_provider", "the default provider's windows are set per model"),
            hint="`okbot config set model.contextWindow N`",
        )
    if args.slots is not None and not 1 <= args.slots <= MAX_SLOTS:
        raise OkBotError(translate("cli_provider", "--slots is a whole number from 1 to {most}").format(most=MAX_SLOTS))
    config = ProviderConfig(
        name, check_base_url(args.base_url), source, args.key_env.strip(), context_windows=windows, slots=args.slots
    )
    if name != DEFAULT_PROVIDER:
        try:
            old = settings.providers.get(name)
        except OkBotError:
            old = None
        if old is not None and old.base_url == config.base_url:  # same server: keep what it listed
            merged = {**old.context_windows, **windows}
            slots = args.slots if args.slots is not None else old.slots
            config = ProviderConfig(name, config.base_url, source, config.key_env, old.models, merged, slots)
    from okbot.llm.keystore import FILE, KeyStore

    store = KeyStore()
    where = ""  # where the key given on stdin went
    if args.key_stdin:
        from okbot.llm.keys import MAX_KEY_CHARS

        key = sys.stdin.readline(MAX_KEY_CHARS + 1).strip()  # one past the bound: save() refuses it, in words
        if not key:
            raise OkBotError(translate("cli_provider", "no key on stdin; nothing was changed"))
        where = store.save(key, name)
        if not args.json:
            text = translate("cli_provider", "key for {name} saved in {where}")
            text = text.format(name=name, where=store.place(where))
            if where == FILE:
                text += translate("cli_provider", " (no system keyring here; only you can read that file)")
            print(text, file=out)
    if name == DEFAULT_PROVIDER:
        settings.set("provider.baseUrl", config.base_url)
        settings.set("provider.keySource", source)
        if args.slots is not None:
            settings.set("provider.slots", args.slots)
    else:
        settings.providers.add(config)
    if args.json:
        key_file = str(store.key_file) if where == FILE else None
        print_json(
            _row(settings.providers.get(name), store.where()) | {"keySavedIn": where or None, "keyFile": key_file}, out
        )
        return 0
    text = translate("cli_provider", "provider {name}: {url}, key: {key}")
    print(text.format(name=name, url=redact_url(config.base_url), key=config.key_where(store.where())), file=out)
    return 0


def _windows(specs: list[str]) -> dict[str, int]:
    try:
        return parse_windows(specs)
    except SettingError as exc:
        raise OkBotError(translate("cli_provider", "--window {why}").format(why=exc)) from None


def _remove(settings: Settings, name: str, as_json: bool, out: TextIO) -> int:
    from okbot.core.provider_use import provider_users
    from okbot.core.workspace import Workspace

    config = settings.providers.get(name)  # an unknown name: an error naming the known ones
    if name == DEFAULT_PROVIDER:
        raise OkBotError(
            translate("cli_provider", "the default provider cannot be removed"),
            hint=translate("cli_provider", "change it with `okbot provider add default`"),
        )
    users = provider_users(settings, Workspace(), name)
    if users:
        raise OkBotError(
            translate("cli_provider", "provider {name} is in use by {users}; nothing was removed").format(
                name=name, users=", ".join(users)
            ),
            hint=translate("cli_provider", "give them another model first (`okbot set-model TARGET MODEL`)"),
        )
    row = _row(config, _saved_in())
    settings.providers.remove(name)
    if config.key_source == "keyring":
        from okbot.llm.keystore import KeyStore

        KeyStore().delete(name)
    if as_json:
        print_json(row | {"keyDeleted": config.key_source == "keyring"}, out)
    else:
        print(translate("cli_provider", "removed provider {name}").format(name=name), file=out)
    return 0


def _models(settings: Settings, name: str, as_json: bool, out: TextIO) -> int:
    from okbot.llm.providers import build_backend
    from okbot.llm.slots import listed_models

    backend = build_backend(settings, settings.providers.get(name), max_retries=0)
    try:
        models = listed_models(backend)
    finally:
        backend.close()
    settings.providers.set_models(name, models)
    if as_json:
        print_json({"provider": name, "models": list(models)}, out)
        return 0
    for model in models:
        print(model, file=out)
    return 0


def cmd_set_model(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``okbot set-model TARGET [PROVIDER/]MODEL`` (``''``: back to the default model)."""
    from okbot.core.workspace import Workspace

    ws = Workspace()
    target = ws.resolve(args.target)
    if not target.is_assistant:
        raise OkBotError(
            translate("cli_provider", "{name} is a squad: its captain uses the default model (provider.model)").format(
                name=target.name
            ),
            hint=translate("cli_provider", "set each member's model instead"),
        )
    settings = Settings.load()
    ref = check_model_ref(settings, args.model, err) if args.model.strip() else None
    ws.set_meta(target, "model", ref)
    if args.json:
        print_json({"id": target.id, "name": target.name, "model": ref}, out)
        return 0
    if ref:
        text = translate("cli_provider", "{name} ({id}) uses {model}")
    else:
        text = translate("cli_provider", "{name} ({id}) uses the default model")
    print(text.format(name=target.name, id=target.id, model=ref), file=out)
    return 0
