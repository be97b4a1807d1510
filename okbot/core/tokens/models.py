"""What OkBot knows about each model (context window, encoding, vision), read from ``resources/models.json``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from okbot.config.settings import Settings
from okbot.config.values import CONTEXT_WINDOW_KEY
from okbot.core.tokens.encodings import encoding_table, read_resource_json
from okbot.llm.families import parse_request_parameters


@dataclass(frozen=True)
class ModelFacts:
    """What OkBot knows about a model: its context window and its (approximate) encoding."""

    model: str
    context_window: int
    encoding: str
    vision: bool = False  # takes images (image_url parts); the rule's "vision" in models.json


@lru_cache(maxsize=1)
def _model_table() -> dict[str, Any]:
    table = read_resource_json("models.json")
    known = encoding_table()
    rules = [table["default"], *table["exact"].values(), *table["prefixes"]]
    for rule in rules:
        window, encoding = rule.get("contextWindow"), rule.get("encoding")
        if not isinstance(window, int) or window <= 0 or encoding not in known:
            raise RuntimeError(f"resources/models.json: invalid rule {rule!r}")
    parse_request_parameters(table.get("requestParameters"))
    return table


def model_facts(model: str) -> ModelFacts:
    """Context window and encoding for ``model`` (unknown models get the ``default`` rule).

    Lookup is case-insensitive: exact names (full name, then the last ``/`` segment, so
    ``openai/gpt-4o`` works), then prefix rules in file order. ``ft:<base>:...`` uses ``<base>``.
    """
    table = _model_table()
    name = (model or "").strip().lower()
    if name.startswith("ft:"):
        name = name[3:].split(":", 1)[0]
    tail = name.rsplit("/", 1)[-1]
    rule = table["exact"].get(name) or table["exact"].get(tail)
    if rule is None:
        rule = next((r for r in table["prefixes"] if tail.startswith(r["prefix"])), table["default"])
    return ModelFacts(
        model=model,
        context_window=rule["contextWindow"],
        encoding=rule["encoding"],
        vision=rule.get("vision") is True,
    )


def effective_context_window(settings: Settings, model: str | None = None) -> int:
    """``model``'s context window (default: the current model's): the user's override for that model, else
    the model facts' window."""
    model = model or settings.get("provider.model")
    override = settings.get_for_model(CONTEXT_WINDOW_KEY, model)
    if override is not None:
        return int(override)
    return int(model_facts(model).context_window)
