"""The settings store: ``settings.json`` read leniently, validated through the schema, written atomically.

Loading never raises for bad content. A file that cannot be parsed is copied to
``settings.json.broken-<UTC stamp>`` and defaults are used; a bad value resets only its own key.
Everything that happened is listed in :attr:`Settings.problems` for the UI and the CLI to show.
Only values that differ from the defaults are stored; keys this version does not know are kept
untouched so that a newer OkBot's settings survive a round trip through an older one.

Versions (see :mod:`okbot.storage.migrations`): a file without ``version`` (format 0) is migrated in
memory and written as the current format on the next change, after a copy of the old file is kept as
``settings.json.v0.bak``. A file from a newer OkBot is read for the keys this one knows and is
**read-only**: :meth:`Settings.set` / :meth:`Settings.save` raise :class:`SettingError` and the file
is never rewritten.

On disk::

    {"version": 2, "provider.model": "gpt-4o", ...,
     "providers": [{"name": "default", "baseUrl": "http://localhost:8080/v1", "keySource": "none"}, ...],
     "modelOverrides": {"gpt-4o": {"contextWindow": 64000}}}

The default provider's ``baseUrl`` / ``keySource`` are the settings ``provider.baseUrl`` /
``provider.keySource`` (read and changed as before, kept in its ``providers`` entry); the other
providers are managed with :meth:`Settings.add_provider` / :meth:`Settings.remove_provider`
(see :mod:`okbot.config.providers`).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from okbot.config.mcp import MCP_KEY, McpServerConfig, check_approval, server_from_json
from okbot.config.providers import DEFAULT_PROVIDER, ProviderConfig, provider_from_json
from okbot.config.schema import ORDERED_PAIRS, SETTINGS, SettingError, setting, show_value, suggest
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage import migrations, paths
from okbot.storage.atomic import atomic_write_bytes, atomic_write_json

log = logging.getLogger("okbot.config")

FORMAT_VERSION = 2
VERSION_KEY = "version"
OVERRIDES_KEY = "modelOverrides"
PROVIDERS_KEY = "providers"
# The default provider's fields that are settings of their own (stored in its ``providers`` entry).
_DEFAULT_PROVIDER_FIELDS = {"provider.baseUrl": "baseUrl", "provider.keySource": "keySource", "provider.slots": "slots"}
CONTEXT_WINDOW_KEY = "model.contextWindow"
_OVERRIDE_FIELD = {CONTEXT_WINDOW_KEY: "contextWindow"}

# Environment variables that override a setting at read time (never saved).
ENV_OVERRIDES: dict[str, str] = {
    "provider.baseUrl": "OKBOT_BASE_URL",
    "provider.model": "OKBOT_MODEL",
}

Subscriber = Callable[[str], None]
# A message said when it is shown, in the language of that moment: settings.json is read before the
# language (itself a setting) is applied.
Said = Callable[[], str]


def _said(template: str, **fields: Any) -> Said:
    """``template`` (marked ``QT_TRANSLATE_NOOP("settings", …)``) filled with ``fields`` when said; a field
    that is itself callable (another message, ``spec.allowed``) is said then too."""

    def say() -> str:
        return translate("settings", template).format(**{k: v() if callable(v) else v for k, v in fields.items()})

    return say


def _refusal(check: Callable[[], Any]) -> Said:
    """The message of the :class:`SettingError` that ``check()`` raises, worked out again each time it is said."""

    def say() -> str:
        try:
            check()
        except SettingError as exc:
            return exc.message
        return ""

    return say


def _utc_stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _looks_like_api_key(key: str) -> bool:
    squashed = "".join(ch for ch in key.lower() if ch.isalnum())
    return "apikey" in squashed or squashed.endswith("secret")


class Settings:
    """OkBot's global settings, backed by ``settings.json``.

    Read with :meth:`get`, change with :meth:`set` / :meth:`set_text` / :meth:`reset` (each
    validates, saves atomically and notifies subscribers with the key). ``problems`` holds
    user-facing messages about what loading had to repair; ``reset_keys`` the keys whose stored
    values were refused and replaced by defaults.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._problems: list[Said] = []
        self.reset_keys: list[str] = []
        self._values: dict[str, Any] = {}  # known keys whose value differs from the default
        self._overrides: dict[str, dict[str, Any]] = {}  # model -> {"contextWindow": n, ...}
        self._unknown: dict[str, Any] = {}  # keys we do not know, preserved as read
        self._providers: dict[str, ProviderConfig] = {}  # the providers besides the default, by name
        self._default_extra: dict[str, Any] = {}  # the default provider's models / contextWindows
        self._mcp: dict[str, McpServerConfig] = {}  # declared MCP servers, by name, in the file's order
        self._version: int = FORMAT_VERSION
        self._save_blocked: Said | None = None  # why save() must not overwrite the file on disk
        self._upgrade: migrations.Upgrade | None = None  # an older file migrated in memory, persisted on save
        self._subscribers: list[Subscriber] = []

    # ----------------------------------------------------------------- loading

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read ``path`` (default: the data dir's settings.json). Never raises for bad content."""
        settings = cls(paths.settings_file() if path is None else Path(path))
        settings._load()
        for message in settings._env_problems():
            settings._problem(message)
        return settings

    @property
    def problems(self) -> list[str]:
        """What loading had to repair, in the current language (for the UI and the CLI to show)."""
        return [say() for say in self._problems]

    def _problem(self, message: Said) -> None:
        self._problems.append(message)
        log.warning("%s", message())

    def _load(self) -> None:
        name = self.path.name
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self._save_blocked = _said(
                QT_TRANSLATE_NOOP(
                    "settings",
                    "{name} could not be read ({why}); OkBot will not overwrite it. Fix its permissions and restart"
                    " OkBot",
                ),
                name=name,
                why=_why(exc),
            )
            self._problem(
                _said(
                    QT_TRANSLATE_NOOP(
                        "settings",
                        "{name} could not be read ({why}); defaults in use, and changes will not be saved until it"
                        " can be read",
                    ),
                    name=name,
                    why=_why(exc),
                )
            )
            return
        try:
            data = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            if isinstance(exc, UnicodeDecodeError):
                what = _said(QT_TRANSLATE_NOOP("settings", "{name} was not valid UTF-8 text"), name=name)
            elif not raw.strip():
                what = _said(QT_TRANSLATE_NOOP("settings", "{name} was empty"), name=name)
            else:
                what = _said(QT_TRANSLATE_NOOP("settings", "{name} was not valid JSON"), name=name)
            self._broken(raw, what)
            return
        if not isinstance(data, dict):
            self._broken(raw, _said(QT_TRANSLATE_NOOP("settings", "{name} did not hold a JSON object"), name=name))
            return
        version = migrations.version_of(data)
        if version is not None and version < FORMAT_VERSION:
            self._upgrade = migrations.upgrade("settings", data, version)
            data = self._upgrade.data
        if self._read_object(data):
            backup = self._backup(raw)
            if backup:
                self._problem(
                    _said(
                        QT_TRANSLATE_NOOP(
                            "settings", "the original {name} was backed up to {backup} before the repairs above"
                        ),
                        name=name,
                        backup=backup,
                    )
                )

    def _broken(self, raw: bytes, what: Said) -> None:
        backup = self._backup(raw)
        if backup:
            self._problem(
                _said(
                    QT_TRANSLATE_NOOP("settings", "{what}; backed up to {backup}; defaults in use"),
                    what=what,
                    backup=backup,
                )
            )

    def _backup(self, raw: bytes) -> str:
        """Copy the file's bytes to ``<name>.broken-<stamp>`` (reusing an identical earlier copy)."""
        parent, name = self.path.parent, self.path.name
        try:
            for old in sorted(parent.glob(f"{name}.broken-*")):
                if old.is_file() and old.stat().st_size == len(raw) and old.read_bytes() == raw:
                    return old.name
            target = parent / f"{name}.broken-{_utc_stamp()}"
            n = 1
            while target.exists():
                n += 1
                target = parent / f"{name}.broken-{_utc_stamp()}-{n}"
            atomic_write_bytes(target, raw)
        except OSError as exc:
            self._save_blocked = _said(
                QT_TRANSLATE_NOOP("settings", "{name} needs repair but no backup copy could be made ({why})"),
                name=name,
                why=_why(exc),
            )
            self._problem(
                _said(
                    QT_TRANSLATE_NOOP(
                        "settings",
                        "{name} had problems and could not be backed up ({why}); defaults in use for the bad values,"
                        " and the file will not be overwritten",
                    ),
                    name=name,
                    why=_why(exc),
                )
            )
            return ""
        return target.name

    def _read_object(self, data: dict[str, Any]) -> bool:
        """Take the valid parts of ``data``; return True when something had to be repaired."""
        repaired = False
        unknown: list[str] = []
        for key, value in data.items():
            if key == VERSION_KEY:
                repaired |= self._read_version(value)
            elif key == OVERRIDES_KEY:
                repaired |= self._read_overrides(value)
            elif key == PROVIDERS_KEY:
                repaired |= self._read_providers(value)
            elif key == MCP_KEY:
                repaired |= self._read_mcp(value)
            else:
                try:
                    spec = setting(key)
                except SettingError:
                    self._unknown[key] = value
                    unknown.append(key)
                    continue
                if spec.per_model:  # stored under modelOverrides, never as a top-level key
                    self._unknown[key] = value
                    self._problem(
                        _said(
                            QT_TRANSLATE_NOOP(
                                "settings",
                                "{file}: a top-level {key} is ignored (kept in the file); it is set per model, as"
                                " {overrides} → <model> → {field}, or with `okbot config set {key} <n>`",
                            ),
                            file=self.path.name,
                            key=key,
                            overrides=OVERRIDES_KEY,
                            field=_OVERRIDE_FIELD[key],
                        )
                    )
                    continue
                try:
                    normal = spec.validate(value)
                except SettingError:
                    self._reset_on_load(key, value, spec.default)
                    repaired = True
                    continue
                if normal != spec.default:
                    self._values[key] = normal
        for low, high in ORDERED_PAIRS:
            lo, hi = self.get_stored(low), self.get_stored(high)
            if lo > hi:
                self._values.pop(low, None)
                self._values.pop(high, None)
                for key in (low, high):
                    if key not in self.reset_keys:
                        self.reset_keys.append(key)
                self._problem(
                    _said(
                        QT_TRANSLATE_NOOP(
                            "settings",
                            "{file}: {low} ({lo}) was larger than {high} ({hi}); both reset to the defaults"
                            " {low_default} and {high_default}",
                        ),
                        file=self.path.name,
                        low=low,
                        lo=lo,
                        high=high,
                        hi=hi,
                        low_default=setting(low).default,
                        high_default=setting(high).default,
                    )
                )
                repaired = True
        if unknown:
            self._report_unknown(unknown)
        return repaired

    def _reset_on_load(self, key: str, value: Any, default: Any) -> None:
        if key not in self.reset_keys:
            self.reset_keys.append(key)
        self._problem(
            _said(
                QT_TRANSLATE_NOOP(
                    "settings",
                    "{file}: {key} was {value}, which is not allowed (expected {allowed}); reset to the default"
                    " {default}",
                ),
                file=self.path.name,
                key=key,
                value=show_value(setting(key).shown(value)),
                allowed=setting(key).allowed,
                default=show_value(default),
            )
        )

    def _read_version(self, value: Any) -> bool:
        if isinstance(value, int) and not isinstance(value, bool) and value >= FORMAT_VERSION:
            self._version = value
            if value > FORMAT_VERSION:
                message = partial(migrations.newer_message, self.path, value, "settings")
                self._save_blocked = message
                self._problem(
                    _said(
                        QT_TRANSLATE_NOOP("settings", "{message}; the settings this version knows are used"),
                        message=message,
                    )
                )
            return False
        self._problem(
            _said(
                QT_TRANSLATE_NOOP("settings", "{file}: version was {value}; treated as {version}"),
                file=self.path.name,
                value=show_value(value),
                version=FORMAT_VERSION,
            )
        )
        return True

    def _read_overrides(self, value: Any) -> bool:
        if not isinstance(value, dict):
            self._problem(
                _said(
                    QT_TRANSLATE_NOOP(
                        "settings",
                        "{file}: {overrides} was {value}, not an object of per-model settings; per-model settings"
                        " reset",
                    ),
                    file=self.path.name,
                    overrides=OVERRIDES_KEY,
                    value=show_value(value),
                )
            )
            self._mark_reset(CONTEXT_WINDOW_KEY)
            return True
        repaired = False
        spec = setting(CONTEXT_WINDOW_KEY)
        for model, entry in value.items():
            if not isinstance(entry, dict):
                self._problem(
                    _said(
                        QT_TRANSLATE_NOOP(
                            "settings", "{file}: {overrides} for model {model} was {value}, not an object; removed"
                        ),
                        file=self.path.name,
                        overrides=OVERRIDES_KEY,
                        model=show_value(model),
                        value=show_value(entry),
                    )
                )
                self._mark_reset(CONTEXT_WINDOW_KEY)
                repaired = True
                continue
            kept = dict(entry)
            field = _OVERRIDE_FIELD[CONTEXT_WINDOW_KEY]
            if field in kept:
                try:
                    window = spec.validate(kept[field])
                except SettingError:
                    self._problem(
                        _said(
                            QT_TRANSLATE_NOOP(
                                "settings",
                                "{file}: the context window for model {model} was {value}, which is not allowed"
                                " (expected {allowed}); reset to the model's known window",
                            ),
                            file=self.path.name,
                            model=show_value(model),
                            value=show_value(kept[field]),
                            allowed=spec.allowed,
                        )
                    )
                    self._mark_reset(CONTEXT_WINDOW_KEY)
                    repaired = True
                    window = None
                if window is None:
                    del kept[field]
                else:
                    kept[field] = window
            if kept:
                self._overrides[model] = kept
        return repaired

    def _read_providers(self, value: Any) -> bool:
        repaired = False
        others = value
        if isinstance(value, list):
            is_default = [isinstance(e, dict) and e.get("name") == DEFAULT_PROVIDER for e in value]
            for entry, default in zip(value, is_default, strict=True):
                if default:
                    repaired |= self._read_default_provider(entry)
            others = [entry for entry, default in zip(value, is_default, strict=True) if not default]
        removed = QT_TRANSLATE_NOOP("settings", "{file}: {problem}; that provider was removed")
        configs, refused = self._read_entries(PROVIDERS_KEY, others, provider_from_json, removed)
        self._providers.update((config.name, config) for config in configs)
        return repaired or refused

    def _read_mcp(self, value: Any) -> bool:
        removed = QT_TRANSLATE_NOOP("settings", "{file}: {problem}; that MCP server was removed")
        configs, refused = self._read_entries(MCP_KEY, value, server_from_json, removed)
        self._mcp.update((config.name, config) for config in configs)
        return refused

    def _read_entries(self, key: str, value: Any, parse: Callable[[Any], Any], removed: str) -> tuple[list[Any], bool]:
        """The entries of the list ``value`` (under ``key``) that ``parse`` takes, and whether any was refused
        (each refused one is left out, with the message ``removed`` saying why)."""
        if not isinstance(value, list):
            self._problem(
                _said(
                    QT_TRANSLATE_NOOP("settings", "{file}: {key} was {value}, not a list; ignored"),
                    file=self.path.name,
                    key=key,
                    value=show_value(value),
                )
            )
            return [], True
        parsed, refused = [], False
        for entry in value:
            try:
                parsed.append(parse(entry))
            except SettingError:
                self._problem(_said(removed, file=self.path.name, problem=_refusal(partial(parse, entry))))
                refused = True
        return parsed, refused

    def _read_default_provider(self, entry: dict[str, Any]) -> bool:
        repaired = False
        for key, field in _DEFAULT_PROVIDER_FIELDS.items():
            if field not in entry:
                continue
            spec = setting(key)
            try:
                normal = spec.validate(entry[field])
            except SettingError:
                self._reset_on_load(key, entry[field], spec.default)
                repaired = True
                continue
            if normal != spec.default:
                self._values[key] = normal
        fields = {**entry, "baseUrl": "http://x", "keySource": "none", "slots": None}
        try:
            extra = provider_from_json(fields)
        except SettingError:
            self._problem(
                _said(
                    QT_TRANSLATE_NOOP("settings", "{file}: {problem}; its model list was dropped"),
                    file=self.path.name,
                    problem=_refusal(partial(provider_from_json, fields)),
                )
            )
            return True
        self._default_extra = {k: v for k, v in extra.to_json().items() if k in ("models", "contextWindows")}
        return repaired

    def _mark_reset(self, key: str) -> None:
        if key not in self.reset_keys:
            self.reset_keys.append(key)

    def _report_unknown(self, keys: list[str]) -> None:
        def listed() -> str:
            parts = []
            for key in keys:
                if _looks_like_api_key(key):
                    parts.append(
                        translate(
                            "settings",
                            "{key} (API keys are never read from settings.json; use OKBOT_API_KEY or the keyring)",
                        ).format(key=key)
                    )
                    continue
                close = suggest(key)
                if close:
                    keys_words = translate("settings", " or ").join(close)
                    parts.append(translate("settings", "{key} (did you mean {keys}?)").format(key=key, keys=keys_words))
                else:
                    parts.append(key)
            return translate("settings", ", ").join(parts)

        self._problem(
            _said(
                QT_TRANSLATE_NOOP("settings", "{file}: ignored unknown keys, kept in the file untouched: {keys}"),
                file=self.path.name,
                keys=listed,
            )
        )

    # ----------------------------------------------------------------- reading

    def _current_model(self) -> str:
        return self.get("provider.model")

    def get_stored(self, key: str) -> Any:
        """The value of ``key`` as stored (or its default), ignoring environment overrides."""
        spec = setting(key)
        if spec.per_model:
            model = self._current_model()
            return self._overrides.get(model, {}).get(_OVERRIDE_FIELD[key], spec.default)
        return self._values.get(key, spec.default)

    def get_for_model(self, key: str, model: str) -> Any:
        """A per-model setting's value for ``model``: the effective one when it is the current model, else
        the one stored for it (or the default)."""
        spec = setting(key)
        if not spec.per_model:
            raise ValueError(f"{key!r} is not set per model")
        if model == self._current_model():
            return self.get(key)
        return self._overrides.get(model, {}).get(_OVERRIDE_FIELD[key], spec.default)

    def env_override(self, key: str) -> str | None:
        """Name of the environment variable currently overriding ``key``, if any (and valid)."""
        var = ENV_OVERRIDES.get(key)
        if var is None:
            return None
        text = os.environ.get(var, "").strip()
        if not text:
            return None
        try:
            setting(key).validate(text)
        except SettingError:
            return None
        return var

    def get(self, key: str) -> Any:
        """The effective value of ``key``: environment override, else the stored value, else the default.

        An environment override that the schema refuses is ignored (the stored value is used).
        """
        spec = setting(key)
        var = self.env_override(key)
        if var is not None:
            return spec.validate(os.environ[var])
        return self.get_stored(key)

    def providers(self) -> list[ProviderConfig]:
        """Every provider, the default first (its base URL with ``OKBOT_BASE_URL`` applied)."""
        default = provider_from_json(
            {
                "name": DEFAULT_PROVIDER,
                "baseUrl": self.get("provider.baseUrl"),
                "keySource": self.get("provider.keySource"),
                "slots": self.get("provider.slots"),
                **self._default_extra,
            }
        )
        return [default, *self._providers.values()]

    def provider(self, name: str) -> ProviderConfig:
        """The provider called ``name``; :class:`SettingError` naming the known ones when there is none."""
        for config in self.providers():
            if config.name == name:
                return config
        known = ", ".join(p.name for p in self.providers())
        raise SettingError(
            translate("settings", "no provider called {name}").format(name=repr(name)),
            hint=translate("settings", "the providers are: {names}").format(names=known),
        )

    def add_provider(self, config: ProviderConfig) -> None:
        """Add (or replace) a provider other than the default, and save; :class:`SettingError` on a bad one."""
        checked = provider_from_json(config.to_json())
        if checked.name == DEFAULT_PROVIDER:
            raise SettingError(
                translate("settings", "the default provider is set with provider.baseUrl and provider.keySource"),
                hint=translate("settings", "e.g. `okbot config set provider.baseUrl URL`"),
            )
        self._change_providers(lambda: self._providers.__setitem__(checked.name, checked))

    def remove_provider(self, name: str) -> None:
        """Remove the provider ``name`` (never the default) and save."""
        if name == DEFAULT_PROVIDER:
            raise SettingError(translate("settings", "the default provider cannot be removed"))
        if name not in self._providers:
            self.provider(name)  # raises, naming the known ones
        self._change_providers(lambda: self._providers.pop(name))

    def set_provider_models(self, name: str, models: list[str]) -> None:
        """Remember the models the server of provider ``name`` listed, and save."""
        listed = sorted(set(models))
        if name == DEFAULT_PROVIDER:
            self._change_providers(lambda: self._default_extra.__setitem__("models", listed))
        else:
            old = self.provider(name)
            fresh = replace(old, models=tuple(listed), context_windows=dict(old.context_windows))
            self._change_providers(lambda: self._providers.__setitem__(name, fresh))

    def _change_providers(self, mutate: Callable[[], Any]) -> None:
        before = (dict(self._providers), dict(self._default_extra))
        mutate()
        try:
            self.save()
        except BaseException:
            self._providers, self._default_extra = before
            raise
        for callback in list(self._subscribers):
            callback(PROVIDERS_KEY)

    # ----------------------------------------------------------------- MCP servers

    def mcp_servers(self) -> list[McpServerConfig]:
        """The declared MCP servers, in the order they were added."""
        return list(self._mcp.values())

    def mcp_server(self, name: str) -> McpServerConfig:
        """The MCP server called ``name``; :class:`SettingError` naming the declared ones when there is none."""
        if name in self._mcp:
            return self._mcp[name]
        known = ", ".join(self._mcp) or translate("settings", "none yet")
        raise SettingError(
            translate("settings", "no MCP server called {name}").format(name=repr(name)),
            hint=translate("settings", "the MCP servers are: {names}").format(names=known),
        )

    def add_mcp_server(self, config: McpServerConfig) -> None:
        """Add (or replace, keeping its place) an MCP server, and save; :class:`SettingError` on a bad one."""
        checked = server_from_json(config.to_json())
        self._change_mcp(lambda: self._mcp.__setitem__(checked.name, checked))

    def remove_mcp_server(self, name: str) -> None:
        self.mcp_server(name)  # raises, naming the declared ones
        self._change_mcp(lambda: self._mcp.pop(name))

    def set_mcp_approval(self, name: str, approval: str, tool: str | None = None) -> None:
        """What calls of server ``name``'s tools need (``tool``: that tool alone), and save."""
        old = self.mcp_server(name)
        check_approval(approval, translate("settings", "MCP server {name}").format(name=name))
        if tool is None:
            fresh = replace(old, approval=approval)
        else:
            fresh = replace(old, tool_approval={**old.tool_approval, tool: approval})
        self._change_mcp(lambda: self._mcp.__setitem__(name, fresh))

    def _change_mcp(self, mutate: Callable[[], Any]) -> None:
        before = dict(self._mcp)
        mutate()
        try:
            self.save()
        except BaseException:
            self._mcp = before
            raise
        for callback in list(self._subscribers):
            callback(MCP_KEY)

    def is_default(self, key: str) -> bool:
        """Whether the stored value of ``key`` is its default (environment overrides do not count)."""
        return self.get_stored(key) == setting(key).default

    def as_dict(self) -> dict[str, Any]:
        """Every key mapped to its effective value, in declaration order."""
        return {spec.key: self.get(spec.key) for spec in SETTINGS}

    def env_problems(self) -> list[str]:
        """Messages about environment overrides that are set but refused by the schema."""
        return [say() for say in self._env_problems()]

    def _env_problems(self) -> list[Said]:
        out = []
        for key, var in ENV_OVERRIDES.items():
            text = os.environ.get(var, "").strip()
            if not text:
                continue
            check = partial(setting(key).validate, text)
            try:
                check()
            except SettingError:
                out.append(
                    _said(
                        QT_TRANSLATE_NOOP("settings", "{var} is ignored: {problem}"), var=var, problem=_refusal(check)
                    )
                )
        return out

    # ----------------------------------------------------------------- changing

    def _snapshot(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        return dict(self._values), {m: dict(e) for m, e in self._overrides.items()}

    def _store(self, key: str, value: Any, model: str | None = None) -> None:
        spec = setting(key)
        if spec.per_model:
            model = model or self._current_model()
            entry = dict(self._overrides.get(model, {}))
            field = _OVERRIDE_FIELD[key]
            if value is None:
                entry.pop(field, None)
            else:
                entry[field] = value
            if entry:
                self._overrides[model] = entry
            else:
                self._overrides.pop(model, None)
        elif value == spec.default:
            self._values.pop(key, None)
        else:
            self._values[key] = value

    def _check_pairs(self, key: str, value: Any) -> None:
        for low, high in ORDERED_PAIRS:
            lower, higher = setting(low), setting(high)
            if key == low and value > (other := self.get_stored(high)):
                raise SettingError(
                    translate("settings", "{low} ({value}) must not be larger than {high} ({other})").format(
                        low=low, value=value, high=high, other=other
                    ),
                    hint=translate("settings", "raise {high} first").format(high=high),
                    words=translate("settings", "“{lower}” must not be more than “{higher}” ({other}).").format(
                        lower=lower.shown_label(), higher=higher.shown_label(), other=higher.words_for(other)
                    ),
                )
            if key == high and value < (other := self.get_stored(low)):
                raise SettingError(
                    translate("settings", "{high} ({value}) must not be smaller than {low} ({other})").format(
                        high=high, value=value, low=low, other=other
                    ),
                    hint=translate("settings", "lower {low} first").format(low=low),
                    words=translate("settings", "“{higher}” must not be less than “{lower}” ({other}).").format(
                        higher=higher.shown_label(), lower=lower.shown_label(), other=lower.words_for(other)
                    ),
                )

    def _change(self, key: str, value: Any, model: str | None = None) -> None:
        """Store an already validated value (a per-model one for ``model``, default the current one), save,
        and notify; on a failed save nothing changes."""
        self._check_pairs(key, value)
        before = self.as_dict()
        snapshot = self._snapshot()
        self._store(key, value, model)
        try:
            self.save()
        except BaseException:  # whatever failed, memory must keep saying what the file says
            self._values, self._overrides = snapshot
            raise
        if self._snapshot() == snapshot:
            return
        after = self.as_dict()
        changed = [key] + [k for k in after if k != key and after[k] != before[k]]
        for callback in list(self._subscribers):
            for k in changed:
                callback(k)

    def set(self, key: str, value: Any) -> None:
        """Validate ``value`` for ``key``, store it, save atomically and notify subscribers.

        Raises :class:`SettingError` (and changes nothing) for an unknown key, a refused value,
        or when the file cannot be written.
        """
        self._change(key, setting(key).validate_new(value))

    def set_for_model(self, key: str, model: str, value: Any) -> None:
        """:meth:`set` for a per-model ``key`` (``model.contextWindow``) of ``model``, current or not."""
        if not setting(key).per_model:
            raise ValueError(f"{key!r} is not set per model")
        if not isinstance(model, str) or not model.strip():
            raise SettingError(translate("settings", "A model name is needed."))
        self._change(key, setting(key).validate_new(value), model.strip())

    def set_text(self, key: str, text: str) -> None:
        """Set ``key`` from command-line text (``okbot config set key text``)."""
        self.set(key, setting(key).parse(text))

    def reset(self, key: str) -> None:
        """Return ``key`` to its default (for the current model when it is per model)."""
        self._change(key, setting(key).default)

    def reload(self) -> list[str]:
        """Re-read settings.json in place (another process or editor changed it).

        Subscribers keep their subscription and are told which keys changed (on the calling thread:
        UI code adapts callbacks into queued Qt signals). Returns the changed keys.
        """
        before = self.as_dict()
        fresh = Settings.load(self.path)
        self._problems, self.reset_keys = fresh._problems, fresh.reset_keys
        self._values, self._overrides, self._unknown = fresh._values, fresh._overrides, fresh._unknown
        self._providers, self._default_extra = fresh._providers, fresh._default_extra
        mcp_changed = self._mcp != fresh._mcp or any(
            self._mcp[n].tool_approval != fresh._mcp[n].tool_approval for n in self._mcp
        )
        self._mcp = fresh._mcp
        self._version, self._save_blocked = fresh._version, fresh._save_blocked
        self._upgrade = fresh._upgrade
        after = self.as_dict()
        changed = [k for k in after if after[k] != before[k]] + ([MCP_KEY] if mcp_changed else [])
        for callback in list(self._subscribers):
            for key in changed:
                callback(key)
        return changed

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(key)`` after each change; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def to_json(self) -> dict[str, Any]:
        """The object written to settings.json (only changed values, unknown keys preserved)."""
        out: dict[str, Any] = {VERSION_KEY: self._version}
        default: dict[str, Any] = {"name": DEFAULT_PROVIDER}
        for spec in SETTINGS:
            if spec.key in _DEFAULT_PROVIDER_FIELDS:
                if spec.key in self._values:
                    default[_DEFAULT_PROVIDER_FIELDS[spec.key]] = self._values[spec.key]
            elif spec.key in self._values:
                out[spec.key] = self._values[spec.key]
        listed = [{**default, **self._default_extra}, *(p.to_json() for p in self._providers.values())]
        if len(listed) > 1 or len(listed[0]) > 1:  # only what differs from the defaults is stored
            out[PROVIDERS_KEY] = listed
        if self._mcp:
            out[MCP_KEY] = [config.to_json() for config in self._mcp.values()]
        if self._overrides:
            out[OVERRIDES_KEY] = {m: dict(e) for m, e in self._overrides.items()}
        for key, value in self._unknown.items():
            out.setdefault(key, value)
        return out

    def save(self) -> None:
        """Write settings.json atomically (mode 0600, previous version kept as ``.bak``).

        An older file is first copied to ``settings.json.v<N>.bak`` (the migrations are logged then).
        Raises :class:`SettingError` rather than overwrite a file that could not be read or backed up,
        or one written by a newer OkBot (read-only).
        """
        if self._save_blocked is not None:
            raise SettingError(translate("settings", "settings not saved: {why}").format(why=self._save_blocked()))
        try:
            migrations.persist_upgrade(self.path, "settings", self._upgrade)
        except OSError as exc:
            raise SettingError(
                translate(
                    "settings", "settings not saved: the old {name} could not be backed up before upgrading it ({why})"
                ).format(name=self.path.name, why=_why(exc))
            ) from exc
        try:
            atomic_write_json(self.path, self.to_json(), backup=True)
        except OSError as exc:
            raise SettingError(
                translate("settings", "settings not saved: could not write {path} ({why})").format(
                    path=self.path, why=_why(exc)
                )
            ) from exc
        self._upgrade = None

    @property
    def read_only(self) -> str:
        """Why settings.json must not be written (a newer OkBot's file, an unreadable one), else ``""``."""
        return self._save_blocked() if self._save_blocked is not None else ""
