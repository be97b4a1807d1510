"""The values of the settings: read from settings.json through the schema, looked up, checked and stored.

Only values that differ from the defaults are kept; keys this version does not know are kept untouched,
so that a newer OkBot's settings survive a round trip through an older one. A value the schema refuses
resets only its own key (listed in :attr:`SettingValues.reset_keys`). A per-model setting
(``model.contextWindow``) is kept per model under ``modelOverrides``::

    {"version": 2, "provider.model": "gpt-4o", ..., "modelOverrides": {"gpt-4o": {"contextWindow": 64000}}}

Some settings can be overridden from the environment at read time (:data:`ENV_OVERRIDES`); such a value
is never stored.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from okbot.config.said import Said, refusal, said
from okbot.config.schema import ORDERED_PAIRS, SETTINGS, SettingError, setting, show_value, suggest
from okbot.config.settings_file import SettingsFile
from okbot.i18n import QT_TRANSLATE_NOOP, translate

OVERRIDES_KEY = "modelOverrides"
CONTEXT_WINDOW_KEY = "model.contextWindow"
_OVERRIDE_FIELD = {CONTEXT_WINDOW_KEY: "contextWindow"}

# Environment variables that override a setting at read time (never saved).
ENV_OVERRIDES: dict[str, str] = {
    "provider.baseUrl": "OKBOT_BASE_URL",
    "provider.model": "OKBOT_MODEL",
}


def _looks_like_api_key(key: str) -> bool:
    squashed = "".join(ch for ch in key.lower() if ch.isalnum())
    return "apikey" in squashed or squashed.endswith("secret")


class SettingValues:
    """Every setting's stored value (the default unless stored), the per-model ones, and the unknown keys."""

    def __init__(self) -> None:
        self.reset_keys: list[str] = []  # keys whose stored values were refused on reading and reset
        self._values: dict[str, Any] = {}  # known keys whose value differs from the default
        self._overrides: dict[str, dict[str, Any]] = {}  # model -> {"contextWindow": n, ...}
        self._unknown: dict[str, Any] = {}  # keys we do not know, preserved as read
        self._unknown_read: list[str] = []  # the unknown keys reading met, reported once at the end

    def adopt(self, fresh: SettingValues) -> None:
        """Take ``fresh``'s values (settings.json read again)."""
        self.reset_keys, self._values, self._overrides, self._unknown = (
            fresh.reset_keys,
            fresh._values,
            fresh._overrides,
            fresh._unknown,
        )

    # ----------------------------------------------------------------- reading the file

    def read(self, file: SettingsFile, key: str, value: Any) -> bool:
        """Take the top-level ``key``'s ``value``; True when it had to be reset (its problem noted in ``file``)."""
        try:
            spec = setting(key)
        except SettingError:
            self._unknown[key] = value
            self._unknown_read.append(key)
            return False
        if spec.per_model:  # stored under modelOverrides, never as a top-level key
            self._unknown[key] = value
            file.problem(
                said(
                    QT_TRANSLATE_NOOP(
                        "settings",
                        "{file}: a top-level {key} is ignored (kept in the file); it is set per model, as"
                        " {overrides} → <model> → {field}, or with `okbot config set {key} <n>`",
                    ),
                    file=file.name,
                    key=key,
                    overrides=OVERRIDES_KEY,
                    field=_OVERRIDE_FIELD[key],
                )
            )
            return False
        return self.read_known(file, key, value)

    def read_known(self, file: SettingsFile, key: str, value: Any) -> bool:
        """Take a known ``key``'s ``value`` (wherever the file keeps it); True when it was refused and reset."""
        spec = setting(key)
        try:
            normal = spec.validate(value)
        except SettingError:
            self._mark_reset(key)
            file.problem(
                said(
                    QT_TRANSLATE_NOOP(
                        "settings",
                        "{file}: {key} was {value}, which is not allowed (expected {allowed}); reset to the default"
                        " {default}",
                    ),
                    file=file.name,
                    key=key,
                    value=show_value(spec.shown(value)),
                    allowed=spec.allowed,
                    default=show_value(spec.default),
                )
            )
            return True
        if normal != spec.default:
            self._values[key] = normal
        return False

    def read_overrides(self, file: SettingsFile, value: Any) -> bool:
        """Take ``modelOverrides``; True when something in it had to be removed."""
        if not isinstance(value, dict):
            file.problem(
                said(
                    QT_TRANSLATE_NOOP(
                        "settings",
                        "{file}: {overrides} was {value}, not an object of per-model settings; per-model settings"
                        " reset",
                    ),
                    file=file.name,
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
                file.problem(
                    said(
                        QT_TRANSLATE_NOOP(
                            "settings", "{file}: {overrides} for model {model} was {value}, not an object; removed"
                        ),
                        file=file.name,
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
                    file.problem(
                        said(
                            QT_TRANSLATE_NOOP(
                                "settings",
                                "{file}: the context window for model {model} was {value}, which is not allowed"
                                " (expected {allowed}); reset to the model's known window",
                            ),
                            file=file.name,
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

    def finish_reading(self, file: SettingsFile) -> bool:
        """After every key was read: settle the pairs that must stay in order and report the unknown keys;
        True when a pair had to be reset."""
        repaired = False
        for low, high in ORDERED_PAIRS:
            lo, hi = self.get_stored(low), self.get_stored(high)
            if lo > hi:
                self._values.pop(low, None)
                self._values.pop(high, None)
                for key in (low, high):
                    self._mark_reset(key)
                file.problem(
                    said(
                        QT_TRANSLATE_NOOP(
                            "settings",
                            "{file}: {low} ({lo}) was larger than {high} ({hi}); both reset to the defaults"
                            " {low_default} and {high_default}",
                        ),
                        file=file.name,
                        low=low,
                        lo=lo,
                        high=high,
                        hi=hi,
                        low_default=setting(low).default,
                        high_default=setting(high).default,
                    )
                )
                repaired = True
        if self._unknown_read:
            self._report_unknown(file, self._unknown_read)
            self._unknown_read = []
        return repaired

    def _mark_reset(self, key: str) -> None:
        if key not in self.reset_keys:
            self.reset_keys.append(key)

    def _report_unknown(self, file: SettingsFile, keys: list[str]) -> None:
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

        file.problem(
            said(
                QT_TRANSLATE_NOOP("settings", "{file}: ignored unknown keys, kept in the file untouched: {keys}"),
                file=file.name,
                keys=listed,
            )
        )

    # ----------------------------------------------------------------- looking up

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

    def is_default(self, key: str) -> bool:
        """Whether the stored value of ``key`` is its default (environment overrides do not count)."""
        return self.get_stored(key) == setting(key).default

    def as_dict(self) -> dict[str, Any]:
        """Every key mapped to its effective value, in declaration order."""
        return {spec.key: self.get(spec.key) for spec in SETTINGS}

    def env_problems(self) -> list[Said]:
        """What to say about environment overrides that are set but refused by the schema."""
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
                    said(QT_TRANSLATE_NOOP("settings", "{var} is ignored: {problem}"), var=var, problem=refusal(check))
                )
        return out

    # ----------------------------------------------------------------- changing

    def check_order(self, key: str, value: Any) -> None:
        """:class:`SettingError` when ``value`` for ``key`` would put an ordered pair out of order."""
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

    def store(self, key: str, value: Any, model: str | None = None) -> None:
        """Keep an already validated ``value`` (a per-model one for ``model``, default the current one)."""
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

    def snapshot(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """What :meth:`store` changes, to compare against or :meth:`restore`."""
        return dict(self._values), {m: dict(e) for m, e in self._overrides.items()}

    def restore(self, snapshot: tuple[dict[str, Any], dict[str, dict[str, Any]]]) -> None:
        self._values, self._overrides = snapshot

    # ----------------------------------------------------------------- writing the file

    def stored(self) -> dict[str, Any]:
        """The known keys whose stored value differs from the default, in declaration order."""
        return {spec.key: self._values[spec.key] for spec in SETTINGS if spec.key in self._values}

    def overrides_json(self) -> dict[str, dict[str, Any]]:
        """What is written under ``modelOverrides`` (empty: nothing is)."""
        return {m: dict(e) for m, e in self._overrides.items()}

    def unknown(self) -> dict[str, Any]:
        """The keys this version does not know, as read (written back untouched)."""
        return dict(self._unknown)
