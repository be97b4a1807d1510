"""The settings store: ``settings.json`` read, its values changed through the schema, every change saved.

:class:`Settings` puts the parts together, each with one job:

* ``settings.file`` — the file itself (:mod:`okbot.config.settings_file`): reading it leniently, writing it
  atomically, its versions and migrations, noticing another process's change, what reading found;
* the values — :meth:`Settings.get` / :meth:`Settings.set` and their kin (:mod:`okbot.config.values`);
* ``settings.providers`` — the providers (:mod:`okbot.config.provider_list`);
* ``settings.mcp_servers`` — the declared MCP servers (:mod:`okbot.config.mcp_list`).

Every change is validated, saved at once and then told to the subscribers, by key; a change that cannot
be saved is not made. Loading never raises for bad content: :attr:`Settings.problems` says what it had to
repair, for the UI and the CLI to show.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from okbot.config.mcp import MCP_KEY
from okbot.config.mcp_list import McpServerList
from okbot.config.provider_list import DEFAULT_PROVIDER_FIELDS, PROVIDERS_KEY, ProviderList
from okbot.config.schema import SettingError, setting
from okbot.config.settings_file import VERSION_KEY, SettingsFile
from okbot.config.values import OVERRIDES_KEY, SettingValues
from okbot.i18n import translate
from okbot.storage import paths

Subscriber = Callable[[str], None]


class Settings:
    """OkBot's global settings, backed by ``settings.json``.

    Read with :meth:`get`, change with :meth:`set` / :meth:`set_text` / :meth:`reset` (each validates,
    saves atomically and notifies subscribers with the key); the providers and MCP servers through
    :attr:`providers` and :attr:`mcp_servers`. ``problems`` holds user-facing messages about what loading
    had to repair; ``reset_keys`` the keys whose stored values were refused and replaced by defaults.
    """

    def __init__(self, path: Path) -> None:
        self.file = SettingsFile(path)
        self._values = SettingValues()
        self.providers = ProviderList(self._values, self.commit)
        self.mcp_servers = McpServerList(self.commit)
        self._subscribers: list[Subscriber] = []

    # ----------------------------------------------------------------- loading

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read ``path`` (default: the data dir's settings.json). Never raises for bad content."""
        settings = cls(paths.settings_file() if path is None else Path(path))
        settings._read()
        for message in settings._values.env_problems():
            settings.file.problem(message)
        return settings

    def _read(self) -> None:
        data = self.file.read()
        if data is None:
            return
        repaired = False
        for key, value in data.items():
            if key == VERSION_KEY:
                repaired |= self.file.read_version(value)
            elif key == OVERRIDES_KEY:
                repaired |= self._values.read_overrides(self.file, value)
            elif key == PROVIDERS_KEY:
                repaired |= self.providers.read(self.file, value)
            elif key == MCP_KEY:
                repaired |= self.mcp_servers.read(self.file, value)
            else:
                repaired |= self._values.read(self.file, key, value)
        if self._values.finish_reading(self.file) or repaired:
            self.file.keep_original()

    def reload(self) -> list[str]:
        """Re-read settings.json in place (another process or editor changed it).

        Subscribers keep their subscription and are told which keys changed (on the calling thread:
        UI code adapts callbacks into queued Qt signals). Returns the changed keys.
        """
        before = self.as_dict()
        fresh = Settings.load(self.path)
        self.file = fresh.file
        self._values.adopt(fresh._values)
        self.providers.adopt(fresh.providers)
        mcp_changed = self.mcp_servers.adopt(fresh.mcp_servers)
        after = self.as_dict()
        changed = [k for k in after if after[k] != before[k]] + ([MCP_KEY] if mcp_changed else [])
        self._notify(changed)
        return changed

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def problems(self) -> list[str]:
        """What loading had to repair, in the current language (for the UI and the CLI to show)."""
        return [say() for say in self.file.problems]

    @property
    def reset_keys(self) -> list[str]:
        """The keys whose stored values loading refused and replaced by their defaults."""
        return self._values.reset_keys

    @property
    def read_only(self) -> str:
        """Why settings.json must not be written (a newer OkBot's file, an unreadable one), else ``""``."""
        return self.file.read_only

    # ----------------------------------------------------------------- reading

    def get(self, key: str) -> Any:
        """The effective value of ``key``: environment override, else the stored value, else the default.

        An environment override that the schema refuses is ignored (the stored value is used).
        """
        return self._values.get(key)

    def get_stored(self, key: str) -> Any:
        """The value of ``key`` as stored (or its default), ignoring environment overrides."""
        return self._values.get_stored(key)

    def get_for_model(self, key: str, model: str) -> Any:
        """A per-model setting's value for ``model``: the effective one when it is the current model, else
        the one stored for it (or the default)."""
        return self._values.get_for_model(key, model)

    def env_override(self, key: str) -> str | None:
        """Name of the environment variable currently overriding ``key``, if any (and valid)."""
        return self._values.env_override(key)

    def env_problems(self) -> list[str]:
        """Messages about environment overrides that are set but refused by the schema."""
        return [say() for say in self._values.env_problems()]

    def is_default(self, key: str) -> bool:
        """Whether the stored value of ``key`` is its default (environment overrides do not count)."""
        return self._values.is_default(key)

    def as_dict(self) -> dict[str, Any]:
        """Every key mapped to its effective value, in declaration order."""
        return self._values.as_dict()

    # ----------------------------------------------------------------- changing

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

    def _change(self, key: str, value: Any, model: str | None = None) -> None:
        """Store an already validated value (a per-model one for ``model``, default the current one), save,
        and notify; on a failed save nothing changes."""
        self._values.check_order(key, value)
        before = self.as_dict()
        snapshot = self._values.snapshot()
        self._values.store(key, value, model)
        try:
            self.save()
        except BaseException:  # whatever failed, memory must keep saying what the file says
            self._values.restore(snapshot)
            raise
        if self._values.snapshot() == snapshot:
            return
        after = self.as_dict()
        self._notify([key] + [k for k in after if k != key and after[k] != before[k]])

    def commit(self, key: str, undo: Callable[[], None]) -> None:
        """Save a change a part (the providers, the MCP servers) just made and tell the subscribers ``key``;
        when saving fails, ``undo`` it and raise."""
        try:
            self.save()
        except BaseException:
            undo()
            raise
        self._notify([key])

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(key)`` after each change; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _notify(self, keys: list[str]) -> None:
        for callback in list(self._subscribers):
            for key in keys:
                callback(key)

    # ----------------------------------------------------------------- writing

    def to_json(self) -> dict[str, Any]:
        """The object written to settings.json (only changed values, unknown keys preserved)::

        {"version": 2, "provider.model": "gpt-4o", ..., "providers": [...], "mcpServers": [...],
         "modelOverrides": {"gpt-4o": {"contextWindow": 64000}}}
        """
        out: dict[str, Any] = {VERSION_KEY: self.file.version}
        out.update((k, v) for k, v in self._values.stored().items() if k not in DEFAULT_PROVIDER_FIELDS)
        if (providers := self.providers.to_json()) is not None:
            out[PROVIDERS_KEY] = providers
        if (servers := self.mcp_servers.to_json()) is not None:
            out[MCP_KEY] = servers
        if overrides := self._values.overrides_json():
            out[OVERRIDES_KEY] = overrides
        for key, value in self._values.unknown().items():
            out.setdefault(key, value)
        return out

    def save(self) -> None:
        """Write settings.json atomically (see :meth:`SettingsFile.write`); :class:`SettingError` when it must
        not or cannot be written."""
        self.file.write(self.to_json())
