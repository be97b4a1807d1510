"""What each (base URL, model) pair wants in a request and turned out to support, learnt from refusals."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from okbot.llm.families import RequestFamily, request_family


@dataclass
class Capabilities:
    """What a (base_url, model) pair wants and turned out to support (starting from its family)."""

    stream_options: bool = True
    tools: bool = True
    token_limit: str = "max_tokens"
    reasoning_headroom: int = 0
    temperature: bool = True
    reasoning_effort: str | None = None  # sent with background requests
    response_format: bool = True
    # llama-cpp-python's server takes no "json_schema" type but constrains output to a schema given as
    # {"type": "json_object", "schema": ...}: learnt from its refusal, which names json_object
    schema_as_json_object: bool = False

    @classmethod
    def of(cls, family: RequestFamily) -> Capabilities:
        return cls(
            token_limit=family.token_limit,
            reasoning_headroom=family.reasoning_headroom,
            temperature=family.temperature,
            reasoning_effort=family.background_effort,
        )


class CapabilityMemory:
    """What each (base_url, model) turned out to support, shared by the providers given it.

    The application's provider pool gives its backends one (:class:`okbot.llm.providers.ProviderPool`), so a
    parameter a server refused once is not sent to it again, also by a backend built after a settings change.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[tuple[str, str], Capabilities] = {}

    def get(self, base_url: str, model: str) -> Capabilities:
        """The capabilities of ``model`` at ``base_url`` (its family's, until a server says otherwise)."""
        with self._lock:
            caps = self._known.get((base_url, model))
            if caps is None:
                caps = self._known[(base_url, model)] = Capabilities.of(request_family(model))
            return caps

    def clear(self) -> None:
        """Forget everything learnt (a fresh start, e.g. between tests)."""
        with self._lock:
            self._known.clear()
