"""The providers in settings.json (``settings.providers``): listed, looked up, added, removed.

On disk they are the ``providers`` list (see :mod:`okbot.config.providers` for one entry)::

    "providers": [{"name": "default", "baseUrl": "http://localhost:8080/v1", "keySource": "none"}, ...]

The default provider's ``baseUrl`` / ``keySource`` / ``slots`` are the settings ``provider.baseUrl`` /
``provider.keySource`` / ``provider.slots`` (read and changed with ``settings.get`` / ``settings.set``,
kept in its entry); only its model list is changed here. Every change is saved at once, and the
settings' subscribers are told ``"providers"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from okbot.config.providers import DEFAULT_PROVIDER, ProviderConfig, provider_from_json
from okbot.config.said import refusal, said
from okbot.config.schema import SETTINGS, SettingError
from okbot.config.settings_file import Commit, SettingsFile
from okbot.config.values import SettingValues
from okbot.i18n import QT_TRANSLATE_NOOP, translate

PROVIDERS_KEY = "providers"
# The default provider's fields that are settings of their own (stored in its ``providers`` entry).
DEFAULT_PROVIDER_FIELDS = {"provider.baseUrl": "baseUrl", "provider.keySource": "keySource", "provider.slots": "slots"}


class ProviderList:
    """Every provider, the default first; each change saved through ``commit``."""

    def __init__(self, values: SettingValues, commit: Commit) -> None:
        self._values = values  # where the default provider's base URL, key source and slots are
        self._commit = commit
        self._others: dict[str, ProviderConfig] = {}  # the providers besides the default, by name
        self._default_extra: dict[str, Any] = {}  # the default provider's models / contextWindows

    def adopt(self, fresh: ProviderList) -> None:
        """Take ``fresh``'s providers (settings.json read again)."""
        self._others, self._default_extra = fresh._others, fresh._default_extra

    # ----------------------------------------------------------------- reading the file

    def read(self, file: SettingsFile, value: Any) -> bool:
        """Take the ``providers`` list; True when an entry (or a field of the default's) had to go."""
        repaired = False
        others = value
        if isinstance(value, list):
            is_default = [isinstance(e, dict) and e.get("name") == DEFAULT_PROVIDER for e in value]
            for entry, default in zip(value, is_default, strict=True):
                if default:
                    repaired |= self._read_default(file, entry)
            others = [entry for entry, default in zip(value, is_default, strict=True) if not default]
        removed = QT_TRANSLATE_NOOP("settings", "{file}: {problem}; that provider was removed")
        configs, refused = file.entries(PROVIDERS_KEY, others, provider_from_json, removed)
        self._others.update((config.name, config) for config in configs)
        return repaired or refused

    def _read_default(self, file: SettingsFile, entry: dict[str, Any]) -> bool:
        repaired = False
        for key, field in DEFAULT_PROVIDER_FIELDS.items():
            if field in entry:
                repaired |= self._values.read_known(file, key, entry[field])
        fields = {**entry, "baseUrl": "http://x", "keySource": "none", "slots": None}
        try:
            extra = provider_from_json(fields)
        except SettingError:
            file.problem(
                said(
                    QT_TRANSLATE_NOOP("settings", "{file}: {problem}; its model list was dropped"),
                    file=file.name,
                    problem=refusal(lambda: provider_from_json(fields)),
                )
            )
            return True
        self._default_extra = {k: v for k, v in extra.to_json().items() if k in ("models", "contextWindows")}
        return repaired

    # ----------------------------------------------------------------- looking up

    def all(self) -> list[ProviderConfig]:
        """Every provider, the default first (its base URL with ``OKBOT_BASE_URL`` applied)."""
        default = provider_from_json(
            {
                "name": DEFAULT_PROVIDER,
                "baseUrl": self._values.get("provider.baseUrl"),
                "keySource": self._values.get("provider.keySource"),
                "slots": self._values.get("provider.slots"),
                **self._default_extra,
            }
        )
        return [default, *self._others.values()]

    def get(self, name: str) -> ProviderConfig:
        """The provider called ``name``; :class:`SettingError` naming the known ones when there is none."""
        for config in self.all():
            if config.name == name:
                return config
        known = ", ".join(p.name for p in self.all())
        raise SettingError(
            translate("settings", "no provider called {name}").format(name=repr(name)),
            hint=translate("settings", "the providers are: {names}").format(names=known),
        )

    # ----------------------------------------------------------------- changing

    def add(self, config: ProviderConfig) -> None:
        """Add (or replace) a provider other than the default, and save; :class:`SettingError` on a bad one."""
        checked = provider_from_json(config.to_json())
        if checked.name == DEFAULT_PROVIDER:
            raise SettingError(
                translate("settings", "the default provider is set with provider.baseUrl and provider.keySource"),
                hint=translate("settings", "e.g. `okbot config set provider.baseUrl URL`"),
            )
        self._change(lambda: self._others.__setitem__(checked.name, checked))

    def remove(self, name: str) -> None:
        """Remove the provider ``name`` (never the default) and save."""
        if name == DEFAULT_PROVIDER:
            raise SettingError(translate("settings", "the default provider cannot be removed"))
        if name not in self._others:
            self.get(name)  # raises, naming the known ones
        self._change(lambda: self._others.pop(name))

    def set_models(self, name: str, models: list[str]) -> None:
        """Remember the models the server of provider ``name`` listed, and save."""
        listed = sorted(set(models))
        if name == DEFAULT_PROVIDER:
            self._change(lambda: self._default_extra.__setitem__("models", listed))
        else:
            old = self.get(name)
            fresh = replace(old, models=tuple(listed), context_windows=dict(old.context_windows))
            self._change(lambda: self._others.__setitem__(name, fresh))

    def _change(self, mutate: Callable[[], Any]) -> None:
        before = (dict(self._others), dict(self._default_extra))

        def undo() -> None:
            self._others, self._default_extra = before

        mutate()
        self._commit(PROVIDERS_KEY, undo)

    # ----------------------------------------------------------------- writing the file

    def to_json(self) -> list[dict[str, Any]] | None:
        """The ``providers`` list written to settings.json; None when nothing differs from the defaults."""
        default: dict[str, Any] = {"name": DEFAULT_PROVIDER}
        stored = self._values.stored()
        for spec in SETTINGS:
            if spec.key in DEFAULT_PROVIDER_FIELDS and spec.key in stored:
                default[DEFAULT_PROVIDER_FIELDS[spec.key]] = stored[spec.key]
        listed = [{**default, **self._default_extra}, *(p.to_json() for p in self._others.values())]
        return listed if len(listed) > 1 or len(listed[0]) > 1 else None
