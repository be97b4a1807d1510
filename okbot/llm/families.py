"""Request parameters per model family, from the ``requestParameters`` section of ``resources/models.json``.

OpenAI's reasoning models (o-series, gpt-5) refuse ``max_tokens`` and any temperature but the default,
count hidden reasoning in ``max_completion_tokens``, and take a ``reasoning_effort``. Which models are
which is data; this module reads and checks it. What a server refuses beyond it is learnt by the backend.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from okbot.storage import paths

TOKEN_LIMITS = ("max_tokens", "max_completion_tokens")
EFFORTS = ("none", "minimal", "low", "medium", "high")
_FAMILY_FIELDS = {"tokenLimit", "temperature", "reasoningHeadroom", "backgroundEffort"}


@dataclass(frozen=True)
class RequestFamily:
    """How a model family wants its request.

    ``token_limit`` names the parameter that caps the answer; ``temperature`` is False where any but the
    default is refused; ``reasoning_headroom`` is added to a caller's cap on the visible answer (hidden
    reasoning counts against ``max_completion_tokens``); ``background_effort`` is the ``reasoning_effort``
    sent with the app's own calls (None: send none).
    """

    name: str = "standard"
    token_limit: str = "max_tokens"
    temperature: bool = True
    reasoning_headroom: int = 0
    background_effort: str | None = None


STANDARD = RequestFamily()


def _invalid(what: str, value: Any) -> RuntimeError:
    return RuntimeError(f"resources/models.json: requestParameters: invalid {what} {value!r}")


def _headroom(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _invalid(what, value)
    return value


def _family(name: str, fields: Any) -> RequestFamily:
    if not isinstance(fields, dict) or set(fields) != _FAMILY_FIELDS:
        raise _invalid(f"family {name!r} (fields must be {sorted(_FAMILY_FIELDS)})", fields)
    limit, temperature, effort = fields["tokenLimit"], fields["temperature"], fields["backgroundEffort"]
    if limit not in TOKEN_LIMITS:
        raise _invalid("tokenLimit", limit)
    if not isinstance(temperature, bool):
        raise _invalid("temperature", temperature)
    if effort is not None and effort not in EFFORTS:
        raise _invalid("backgroundEffort", effort)
    return RequestFamily(name, limit, temperature, _headroom(fields["reasoningHeadroom"], "reasoningHeadroom"), effort)


def parse_request_parameters(section: Any) -> tuple[list[tuple[str, RequestFamily]], int]:
    """The ``(prefix, family)`` rules in order and the learnt headroom; RuntimeError on a malformed section.

    Also the validation ``okbot.core.tokens`` runs over the whole of ``models.json``.
    """
    if not isinstance(section, dict) or not isinstance(section.get("families"), dict):
        raise _invalid("section", section)
    families = {name: _family(name, fields) for name, fields in section["families"].items()}
    rules = []
    for rule in section.get("prefixes", []):
        prefix = rule.get("prefix") if isinstance(rule, dict) else None
        family = rule.get("family") if isinstance(rule, dict) else None
        if not isinstance(prefix, str) or not prefix or prefix != prefix.lower():
            raise _invalid("prefix rule", rule)
        if family is not None and family not in families:
            raise _invalid("family name in rule", rule)
        rules.append((prefix, families[family] if family is not None else STANDARD))
    return rules, _headroom(section.get("learntHeadroom"), "learntHeadroom")


@lru_cache(maxsize=1)
def _table() -> tuple[list[tuple[str, RequestFamily]], int]:
    path = paths.resource("models.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # a packaging bug: fail loudly, with the path
        raise RuntimeError(f"cannot read shipped resource {path}: {exc}") from exc
    return parse_request_parameters(data.get("requestParameters"))


def request_family(model: str) -> RequestFamily:
    """The family of ``model`` (case-insensitive; ``ft:<base>:...`` uses its base; the last ``/`` segment).

    Unknown models get :data:`STANDARD`.
    """
    name = (model or "").strip().lower()
    if name.startswith("ft:"):
        name = name[3:].split(":", 1)[0]
    tail = name.rsplit("/", 1)[-1]
    return next((family for prefix, family in _table()[0] if tail.startswith(prefix)), STANDARD)


def learnt_headroom() -> int:
    """Reasoning headroom for a model whose server asked for ``max_completion_tokens`` (not in the table)."""
    return _table()[1]
