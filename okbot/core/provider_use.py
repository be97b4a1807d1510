"""Who sends to a provider: the assistants whose own model names it, and the summarizer setting.

Asked before a provider is removed (``okbot provider rm``, Settings → Models), so one in use is refused
with the names of its users.
"""

from __future__ import annotations

from typing import Any

from okbot.config.providers import split_ref
from okbot.i18n import translate


def provider_users(settings: Any, workspace: Any, name: str, *, ids: bool = True) -> list[str]:
    """Every assistant whose model reference goes to provider ``name`` — ``"Name (id)"``, or with
    ``ids=False`` (a window, where people know assistants by name) the name alone unless two share it —
    and the summarizer setting when it names that provider."""
    known = frozenset(p.name for p in settings.providers.all())
    targets = workspace.list()
    names = [t.name.casefold() for t in targets]
    users = []
    for target in targets:
        model = target.meta.get("model") if target.is_assistant else None
        if isinstance(model, str) and model.strip() and split_ref(model, known)[0] == name:
            shared = names.count(target.name.casefold()) > 1
            users.append(f"{target.name} ({target.id})" if ids or shared else target.name)
    summarizer = settings.get("contextCompression.summarizerModel")
    if summarizer and split_ref(summarizer, known)[0] == name:
        users.append(translate("provider_use", "the setting {key}").format(key="contextCompression.summarizerModel"))
    return users
