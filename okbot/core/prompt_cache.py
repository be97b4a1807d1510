"""How much of a recorded request repeats the chat's request before it, exactly, from its first character.

A provider's prompt cache (OpenAI's automatic caching, llama.cpp's slot cache, DeepSeek's context cache)
reuses its work for the longest start a request shares with one it saw before; everything after the first
changed character is computed again. Summary + Buffer keeps the stable instructions first and appends the
tail so that this start stays long; a summary rewritten, a persona edited or other tools offered cut it
short. :func:`attach_prompt_cache` measures it for one request of the as-sent record against the request
recorded before it (the previous round of the turn, else the last request of the turn before), both read
back whole, and puts next to it the cached tokens the provider reported (``prompt_tokens_details.
cached_tokens``). The share is the most a cache could reuse: a provider caches in blocks, only past a
minimum length, and forgets after minutes, so its own figure can be lower.

The comparison runs over the request as it went out: the tools offered first (providers put them before
the messages), then each message, whole. Blocking: it reads the earlier request's items from the session.
The figures are a :class:`~okbot.core.sent_request.PromptCache`, kept on the loaded request they measure.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from okbot.core.sent_request import PromptCache, SentRequest, load_sent
from okbot.core.workspace import Target
from okbot.i18n import translate


def attach_prompt_cache(sources: Any, target: Target, sent: SentRequest) -> PromptCache:
    """Measure ``sent`` against the request recorded before it and keep the result on ``sent.cache``."""
    req = sent.request
    usage = req.usage if isinstance(req.usage, dict) else {}
    cached = usage.get("cached_tokens")
    cached = cached if isinstance(cached, int) and not isinstance(cached, bool) else None
    # the request before it from the same seat: a member's requests share their start with each other
    earlier = [r for r in sources.as_sent(target).requests() if r.id < req.id and r.member == req.member]
    base = {"request_id": req.id, "tokens": sent.total_tokens, "cached_tokens": cached}
    if not earlier:
        sent.cache = PromptCache(previous_id=None, share=None, shared_tokens=0, **base)
        return sent.cache
    before = earlier[-1]
    previous = load_sent(sources, target, before.user_id, before.id, before.member)
    damaged = next((r.request.id for r in (previous, sent) if r is not None and not _whole(r)), None)
    if previous is None or damaged is not None:
        sent.cache = PromptCache(
            previous_id=before.id, share=None, shared_tokens=0, unreadable=damaged or before.id, **base
        )
        return sent.cache
    share, parts, ref = _shared_start(previous, sent, sources.counter(req.model or sources.model_for(target)))
    sent.cache = PromptCache(
        previous_id=before.id, share=share, shared_tokens=round(share * sent.total_tokens), parts=parts, ref=ref, **base
    )
    return sent.cache


def _whole(sent: SentRequest) -> bool:
    return not sent.missing_ids and all(b.get("text") is not None for b in sent.request.blocks)


def _shared_start(previous: SentRequest, current: SentRequest, counter: Any) -> tuple[float, str, str]:
    """The share of ``current``'s tokens in the start it shares with ``previous``, and where they part."""
    if list(previous.request.tools) != list(current.request.tools):
        return 0.0, "tools", ""
    before = [_wire(m) for m in previous.to_messages()]
    now = [_wire(m) for m in current.to_messages()]
    total = sum(counter.count_text(text) for text in now)
    shared, index = 0, 0
    while index < min(len(before), len(now)) and before[index] == now[index]:
        shared += counter.count_text(now[index])
        index += 1
    if index == len(before):
        return shared / max(1, total), "", ""
    if index < len(now):  # the first message that differs: its common start still counts
        shared += counter.count_text(os.path.commonprefix([before[index], now[index]]))
    return shared / max(1, total), *_where(previous, current, index)


def _wire(message: dict[str, Any]) -> str:
    """A message as compared: its JSON, an attached image standing as the digest of its data."""
    content = message.get("content")
    if isinstance(content, list):
        content = [_part(p) for p in content]
        message = {**message, "content": content}
    return json.dumps(message, ensure_ascii=False, sort_keys=True)


def _part(part: Any) -> Any:
    url = part.get("image_url", {}).get("url") if isinstance(part, dict) and part.get("type") == "image_url" else None
    if isinstance(url, str):
        return {"type": "image_url", "sha256": hashlib.sha256(url.encode("utf-8", "replace")).hexdigest()}
    return part


def _where(previous: SentRequest, current: SentRequest, index: int) -> tuple[str, str]:
    """Where the message at ``index`` departs: a block of the instructions, else an item."""
    blocks_before, blocks_now = previous.request.blocks, current.request.blocks
    if index == 0 and blocks_now:
        pairs = zip(blocks_before, blocks_now, strict=False)
        changed = next((b for a, b in pairs if (a.get("name"), a.get("text")) != (b.get("name"), b.get("text"))), None)
        block = changed or blocks_now[min(len(blocks_before), len(blocks_now) - 1)]
        return "block", str(block.get("title") or block.get("name"))
    ids_before, ids_now = [s.id for s in previous.items], [s.id for s in current.items]
    for a, b in zip(ids_before, ids_now, strict=False):
        if a != b:
            return "item", str(b)
    if len(ids_before) > len(ids_now):
        return "dropped", str(ids_before[len(ids_now)])
    return "message", f"{index + 1} ({current.to_messages()[index].get('role', '?')})"


def prompt_cache_text(cache: PromptCache | None) -> str:
    """The ``Prompt cache`` line of a recorded request, in the user's language."""
    if cache is None:
        return translate("prompt_cache", "not measured")
    if cache.previous_id is None:
        parts = [translate("prompt_cache", "the chat's first recorded request: no earlier request to repeat")]
    elif cache.unreadable is not None:
        parts = [
            translate("prompt_cache", "request #{id} can no longer be read back whole, so it is not compared").format(
                id=cache.unreadable
            )
        ]
    else:
        shared = translate(
            "prompt_cache", "{share} of this request ({shared} of {tokens} tokens) repeats request #{id} exactly"
        ).format(
            share=f"{cache.share:.0%}",
            shared=f"{cache.shared_tokens:,}",
            tokens=f"{cache.tokens:,}",
            id=cache.previous_id,
        )
        parts = [shared, _parting(cache)]
    if cache.cached_tokens is not None:
        parts.append(
            translate("prompt_cache", "{n} cached, as the provider reported").format(n=f"{cache.cached_tokens:,}")
        )
    else:
        parts.append(translate("prompt_cache", "the provider reported no cached tokens"))
    return " · ".join(parts)


def _parting(cache: PromptCache) -> str:
    if cache.parts == "tools":
        return translate("prompt_cache", "other tools offered, so nothing of its start is shared")
    if not cache.parts:
        return translate("prompt_cache", "then adds what is new")
    where = {
        "block": translate("prompt_cache", "block {ref}"),
        "item": translate("prompt_cache", "item #{ref}"),
        "dropped": translate("prompt_cache", "item #{ref}, sent before and not now"),
        "message": translate("prompt_cache", "message {ref}"),
    }[cache.parts].format(ref=cache.ref)
    return translate("prompt_cache", "parts at {where}").format(where=where)
