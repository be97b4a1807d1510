"""The original's ``settings.json``: what of it maps to this app's settings, and what is only named.

Its shape (``AppSettings`` in ``packages/shared/src/index.ts``): ``model.providers[] {id, name, baseURL,
apiKey, apiFormat, models[{id, contextWindow, …}]}``, ``defaultProviderId``, ``defaultModelId``, ``language``
(``system`` | ``zh`` | ``en``), ``theme`` (``system`` | ``light`` | ``dark``), ``mcp {enabled, servers[]}``
(``mcp.ts``), ``contextCompression``, tools, … API keys live there in plain text; none is ever imported,
nor printed.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from okbot.config.mcp import MCP_KEY, server_from_json
from okbot.config.schema import SettingError
from okbot.config.settings import Settings
from okbot.config.values import CONTEXT_WINDOW_KEY
from okbot.core.import_okbot.chat import MAX_JSON_BYTES
from okbot.core.import_okbot.records import text_of
from okbot.core.import_okbot.report import IMPORTED, ImportReport
from okbot.core.import_okbot.source import SourceFolder, read_json
from okbot.core.kind import Kind
from okbot.core.workspace import MAX_NAME_CHARS, Workspace
from okbot.i18n import translate

MAX_LISTED_MODELS = 10  # per provider in its note
MAX_SERVERS = 20  # MCP servers the original keeps at most (mcp.ts MAX_MCP_SERVERS)
MAX_SERVER_NAME = 24  # the longest MCP server name here (okbot.config.mcp)
# words of a flag or query key that name a credential, and values that look like one (after mcp.ts)
_SECRET_WORDS = {"token", "secret", "password", "passwd", "pwd", "apikey", "key", "bearer", "auth", "authorization"}
_SECRET_WORDS |= {"credential", "credentials", "cookie", "sig", "signature"}
_PLACE_WORDS = {"file", "path", "dir", "directory", "env", "mode", "type", "url", "uri", "endpoint", "name"}
_PLACE_WORDS |= {"header", "headers", "through", "sort", "provider", "method", "flow", "scheme"}
_TOKEN_LIKE = re.compile(r"^(sk-|sk_|rk_|pk_live_|ghp_|gho_|ghs_|github_pat_|xox[abposr]-|glpat-|AKIA|eyJ)")
LANGUAGES = {"system": "system", "zh": "zh_CN", "en": "en"}  # its LanguageCode -> ui.language
THEMES = {"system": "system", "light": "light", "dark": "dark"}  # its ThemeMode -> ui.theme


def _providers(raw: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``settings.json``'s ``model`` object and its providers (the entries that are objects)."""
    model = raw.get("model") if isinstance(raw.get("model"), dict) else {}
    providers = model.get("providers") if isinstance(model.get("providers"), list) else []
    return model, [p for p in providers if isinstance(p, dict)]


def _model_ids(provider: dict[str, Any]) -> list[str]:
    models = provider.get("models") if isinstance(provider.get("models"), list) else []
    return [text_of(m.get("id")) for m in models if isinstance(m, dict) and text_of(m.get("id"))]


def _without_userinfo(provider: dict) -> str:
    """The provider's base URL without a ``user:password@`` part (a credential is never printed)."""
    url = text_of(provider.get("baseURL"))
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL at all (an unclosed IPv6 bracket)
        return "?"
    if "@" in parts.netloc:
        return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    return url


def _windows(raw: dict[str, Any], uses: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Model id -> ``{"value": tokens, "provider": name}``: the window the original's catalog gives each model
    in ``uses`` (model id -> provider id) and its default model, as ``resolveModelConfig`` picks the entry."""
    model, providers = _providers(raw)
    wanted = dict(uses)
    if text_of(model.get("defaultModelId")):
        wanted.setdefault(text_of(model["defaultModelId"]), text_of(model.get("defaultProviderId")))
    out: dict[str, dict[str, Any]] = {}
    for model_id, provider_id in wanted.items():
        owners = [p for p in providers if text_of(p.get("id")) == provider_id] or providers
        for provider in owners:
            entries = provider.get("models") if isinstance(provider.get("models"), list) else []
            entry = next((m for m in entries if isinstance(m, dict) and text_of(m.get("id")) == model_id), None)
            if entry is None:
                continue
            window = entry.get("contextWindow")
            # normalizeContextWindow: a number of at least 1000 tokens (anything else read as its default)
            if isinstance(window, (int, float)) and not isinstance(window, bool) and 1000 <= window < 1e12:
                name = text_of(provider.get("name"))[:MAX_NAME_CHARS] or text_of(provider.get("id"))[:MAX_NAME_CHARS]
                out[model_id] = {"value": int(window), "provider": name}
            break
    return out


def _server_name(name: str, taken: set[str]) -> str:
    """A name this app takes for an MCP server (:func:`check_server_name`) from the original's display name."""
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:MAX_SERVER_NAME].rstrip("-")
    if not base:  # 任务: nothing ASCII in it
        base = "mcp-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:6]
    candidate, n = base, 2
    while candidate in taken:
        suffix = f"-{n}"
        candidate, n = base[: MAX_SERVER_NAME - len(suffix)].rstrip("-") + suffix, n + 1
    return candidate


def _secret_name(name: str) -> bool:
    """Whether a flag, variable or query key (``--api-key``, ``API_TOKEN``) names a credential, not a place."""
    words = set(re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name).lower()))
    return bool(words & _SECRET_WORDS) and not words & _PLACE_WORDS


def _looks_secret(args: list[str], url: str) -> bool:
    """Whether a command line or URL seems to carry a credential (``--api-key=…``, ``--token x``, ``sk-…``,
    ``?token=…``): the original blanks those in its backups (``mcp.ts`` ``redactSecretArgs``), and here the
    command line is stored in settings.json and printed."""
    expect_value = False
    for arg in args:
        name, eq, value = arg.partition("=")
        if expect_value and not arg.startswith("-"):
            return True
        expect_value = False
        if _TOKEN_LIKE.match(value if eq else arg):
            return True
        if eq and value and _secret_name(name):  # --api-key=…, API_KEY=…
            return True
        if not eq and arg.startswith("-") and _secret_name(arg):  # --token …
            expect_value = True
    query = urlsplit(url).query if url else ""
    return any(value and _secret_name(key) for key, _, value in (pair.partition("=") for pair in query.split("&")))


def _servers(raw: Any, notes: list[str]) -> list[dict[str, Any]]:
    """The original's MCP servers (``mcp.ts`` ``McpServerEntry``) as ``mcpServers`` entries of this app.

    Only the names of their ``env`` and ``headers`` are kept, never a value (the original treats them as
    secrets): each entry says which values were left behind. ``use`` is whether the original ran it
    (its master switch and the server's own on), so the imported assistants may use it here too.
    """
    if not isinstance(raw, dict) or not isinstance(raw.get("servers"), list):
        return []
    out: list[dict[str, Any]] = []
    taken: set[str] = set()
    for server in raw["servers"][:MAX_SERVERS]:
        if not isinstance(server, dict):
            continue
        label = (text_of(server.get("name")) or text_of(server.get("id")))[:MAX_NAME_CHARS] or "?"
        name = _server_name(label, taken)
        remote = server.get("transport") == "http"
        valued = server.get("headers" if remote else "env")
        value_names = (
            [k.strip() for k in valued if isinstance(k, str) and k.strip()] if isinstance(valued, dict) else []
        )
        entry: dict[str, Any] = {"name": name}
        if remote:
            entry.update(url=text_of(server.get("url")), headers=value_names)
        else:
            args = server.get("args") if isinstance(server.get("args"), list) else []
            entry.update(command=text_of(server.get("command")), args=[a for a in args if isinstance(a, str)])
            entry["env"] = value_names
        if _looks_secret(entry.get("args", []), entry.get("url", "")):
            text = translate(
                "import_okbot",
                "settings: MCP server {name} is not mapped: its command line or URL seems to hold a credential, "
                "which would be stored and shown in plain text; add it with `okbot mcp add`, giving that with --env",
            )
            notes.append(text.format(name=label))
            continue
        try:
            config = server_from_json(entry)
        except SettingError as exc:
            text = translate("import_okbot", "settings: MCP server {name} is not mapped: {why}")
            notes.append(text.format(name=label, why=exc.message))
            continue
        taken.add(name)
        use = raw.get("enabled") is True and server.get("enabled") is not False
        out.append({"entry": config.to_json(), "from": label, "use": use, "left_behind": value_names})
    return out


def read_settings(root: SourceFolder, uses: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """What of the original's settings.json maps here (the plan :func:`apply_settings` applies), and
    notes on what does not (never a key's value). ``uses`` maps the model ids the imported assistants
    use to their provider ids."""
    notes: list[str] = []
    plan: dict[str, Any] = {"values": {}, "windows": {}, "servers": []}
    raw = read_json(root, "settings.json", MAX_JSON_BYTES, notes)
    if not isinstance(raw, dict):
        return plan, notes
    plan["windows"] = _windows(raw, uses)
    plan["servers"] = _servers(raw.get("mcp"), notes)
    for source_key, key, choices in (("language", "ui.language", LANGUAGES), ("theme", "ui.theme", THEMES)):
        if source_key not in raw:
            continue
        value = raw[source_key]
        if isinstance(value, str) and value in choices:
            plan["values"][key] = {"value": choices[value], "from": f"{source_key}: {value}"}
        else:
            text = translate("import_okbot", "settings: {key} {value} has no match here; not mapped")
            notes.append(text.format(key=source_key, value=repr(value)[:40]))
    model, providers = _providers(raw)
    default = next((p for p in providers if p.get("id") == model.get("defaultProviderId")), None)
    if default is not None:
        model_id = text_of(model.get("defaultModelId"))[:MAX_NAME_CHARS] or "?"
        text = translate(
            "import_okbot",
            "settings: its default model {model} at {url} is not applied; "
            "set it in Settings → Models or with `okbot provider`",
        )
        notes.append(text.format(model=model_id, url=_without_userinfo(default)[:200]))
    for provider in providers:
        models = _model_ids(provider)
        listed = ", ".join(m[:MAX_NAME_CHARS] for m in models[:MAX_LISTED_MODELS])
        if len(models) > MAX_LISTED_MODELS:
            listed += ", …"
        text = translate(
            "import_okbot",
            "settings: provider {name} at {url} (models: {models}) is not carried over; "
            "add it with `okbot provider add` or in Settings → Models",
        )
        name = text_of(provider.get("name"))[:MAX_NAME_CHARS] or text_of(provider.get("id"))[:MAX_NAME_CHARS] or "?"
        notes.append(text.format(name=name, url=_without_userinfo(provider)[:200] or "?", models=listed or "-"))
    if any(text_of(p.get("apiKey")) for p in providers):
        notes.append(translate("import_okbot", "settings: API keys are never imported; enter them again here"))
    for key in ("contextCompression", "tools", "security", "memory", "squad", "web", "computers"):
        if key in raw:
            notes.append(translate("import_okbot", "settings: {key} is not mapped").format(key=key))
    return plan, notes


def apply_settings(report: ImportReport, settings: Settings, workspace: Workspace) -> None:
    """Apply ``report.settings_plan`` to ``settings``, saying in ``report.settings`` what became of each.

    A setting the user already chose here (not at its default) is kept. Never raises for a refused
    change: it is said instead. Notifies ``settings``' subscribers, so call it on the thread that owns
    them (the GUI thread in the app). When every assistant and squad came over in an earlier run, the
    settings did too, and are not applied again (the user may have undone some since).
    """
    if report.owners and not report.imported():
        report.settings.append(
            translate("import_okbot", "not applied again: they came over with the assistants, in an earlier run")
        )
        return
    for key, change in report.settings_plan.get("values", {}).items():
        value, origin = change["value"], change["from"]
        if settings.get_stored(key) == value:
            continue
        if not settings.is_default(key):
            text = translate("import_okbot", "{key} stays {value} (chosen here); the original's {origin}")
            report.settings.append(text.format(key=key, value=settings.get_stored(key), origin=origin))
            continue
        try:
            settings.set(key, value)
        except SettingError as exc:
            text = translate("import_okbot", "{key} not set to {value}: {why}")
            report.settings.append(text.format(key=key, value=value, why=exc.message))
            continue
        text = translate("import_okbot", "{key} set to {value} (the original's {origin})")
        report.settings.append(text.format(key=key, value=value, origin=origin))
    for model, change in report.settings_plan.get("windows", {}).items():
        _apply_window(report, settings, model, change["value"], change["provider"])
    _apply_servers(report, settings, workspace)


def _apply_window(report: ImportReport, settings: Settings, model: str, value: int, provider: str) -> None:
    """Set ``model``'s context window to the original's ``value``, unless one was set here."""
    current = settings.get_for_model(CONTEXT_WINDOW_KEY, model)
    if current == value:
        return
    if current is not None:
        text = translate(
            "import_okbot", "context window of {model} stays {value} tokens (chosen here); the original's: {theirs}"
        )
        report.settings.append(text.format(model=model, value=f"{current:,}", theirs=f"{value:,}"))
        return
    try:
        settings.set_for_model(CONTEXT_WINDOW_KEY, model, value)
    except SettingError as exc:
        text = translate("import_okbot", "context window of {model} not set to {value} tokens: {why}")
        report.settings.append(text.format(model=model, value=f"{value:,}", why=exc.message))
        return
    text = translate(
        "import_okbot", "context window of {model} set to {value} tokens (the original's, provider {provider})"
    )
    report.settings.append(text.format(model=model, value=f"{value:,}", provider=provider))


def _apply_servers(report: ImportReport, settings: Settings, workspace: Workspace) -> None:
    """Declare the original's MCP servers (a name taken here is left as it is) and let the imported
    assistants use those the original ran."""
    users = [o.new_id for o in report.owners if o.kind is Kind.ASSISTANT and o.status == IMPORTED and o.new_id]
    declared = {c.name for c in settings.mcp_servers.all()}
    for plan in report.settings_plan.get("servers", []):
        config = server_from_json(plan["entry"])
        if config.name in declared:
            text = translate(
                "import_okbot", "MCP server {name} is declared here already; the original's {origin} was not added"
            )
            report.settings.append(text.format(name=config.name, origin=plan["from"]))
            continue
        try:
            settings.mcp_servers.add(config)
        except SettingError as exc:
            text = translate("import_okbot", "MCP server {name} not added: {why}")
            report.settings.append(text.format(name=config.name, why=exc.message))
            continue
        if plan["use"]:
            for new_id in users:
                target = workspace.resolve(new_id)
                workspace.set_meta(target, MCP_KEY, list(dict.fromkeys([*target.mcp_servers, config.name])))
            text = translate(
                "import_okbot",
                "MCP server {name} (the original's {origin}) added: {where}; the imported assistants may use it",
            )
        else:
            text = translate(
                "import_okbot",
                "MCP server {name} (the original's {origin}) added; it was off there, so no assistant uses it yet",
            )
        report.settings.append(text.format(name=config.name, origin=plan["from"], where=config.where()))
        if plan["left_behind"]:
            flag = "--header" if config.remote else "--env"
            text = translate(
                "import_okbot",
                "MCP server {name}: the values of {names} were not imported (they may be credentials); "
                "give them with `okbot mcp add {name} {flag} NAME=VALUE …`",
            )
            report.settings.append(text.format(name=config.name, names=", ".join(plan["left_behind"]), flag=flag))
