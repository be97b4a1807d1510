"""Synthetic, reproducible sessions for benchmarks: prose, code, CJK and tool calls with long outputs.

Written straight to ``session.jsonl`` in the store's own line format (``encode_item``) — a bulk
write, because 100k fsynced appends would measure the disk, not OkBot.
"""

from __future__ import annotations

import random
from pathlib import Path

from okbot.core.items import encode_item, new_item
from okbot.core.summary import SessionSummary, SummaryStore

GENERATOR_VERSION = 2

_WORDS = (
    "context summary buffer model token window session assistant squad memory tool result "
    "compress goal decision progress reference user constraint review deploy build test file"
).split()
_CJK = "上下文窗口摘要缓冲模型令牌会话助手记忆工具结果压缩目标决定进展引用用户约束"
_CODE = '''def handle(request):
    """Route one request."""
    if request.path.startswith("/api/"):
        return api(request)
    for retry in range(3):
        try:
            return serve(request)
        except TimeoutError:
            log.warning("retry %d", retry)
    raise RuntimeError("gave up")
'''


def _prose(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n_words)).capitalize() + "."


def _cjk(rng: random.Random, n_chars: int) -> str:
    return "".join(rng.choice(_CJK) for _ in range(n_chars)) + "。"


def _items(rng: random.Random, count: int):
    """Yield ``count`` items in a realistic turn pattern (user, tools, assistant)."""
    produced = 0
    call_no = 0
    while produced < count:
        text = _prose(rng, rng.randint(15, 120))
        if rng.random() < 0.2:
            text += " " + _cjk(rng, rng.randint(20, 150))
        yield new_item("user", author="user", source="user", content=text)
        produced += 1
        if produced < count - 1 and rng.random() < 0.35:
            call_no += 1
            call_id = f"call_{call_no}"
            yield new_item(
                "tool_call",
                author="okbot",
                source="app",
                call_id=call_id,
                name="read_file",
                arguments=f'{{"path": "src/module_{call_no % 97}.py"}}',
            )
            output = (_CODE * rng.randint(3, 12))[: rng.randint(1500, 6000)]
            yield new_item(
                "tool_result",
                author="okbot",
                source="tool",
                call_id=call_id,
                name="read_file",
                content=output,
                ok=True,
            )
            produced += 2
        if produced >= count:
            break
        reply = _prose(rng, rng.randint(40, 200))
        if rng.random() < 0.3:
            reply += "\n\n```python\n" + _CODE + "```\n"
        if rng.random() < 0.15:
            reply += "\n" + _cjk(rng, rng.randint(30, 120))
        yield new_item(
            "assistant",
            author="okbot",
            source="app",
            content=reply,
            status="complete",
            usage={"prompt_tokens": 1000 + produced, "completion_tokens": 200},
        )
        produced += 1


def write_session(directory: Path, count: int, *, seed: int = 7, tail: int = 12) -> Path:
    """Create ``directory/session.jsonl`` with ``count`` items, and a summary covering all but ``tail``.

    Coverage never splits a tool call from its result. Reuses an existing file made by the same
    generator version.
    """
    directory.mkdir(parents=True, exist_ok=True)
    session = directory / "session.jsonl"
    stamp = directory / f".synth-v{GENERATOR_VERSION}-{count}-{seed}-{tail}"
    if stamp.exists() and session.exists():
        return session
    rng = random.Random(seed)
    items = []
    with open(session, "wb") as fh:
        for index, item in enumerate(_items(rng, count), start=1):
            item["id"] = index
            item["ts"] = f"2026-01-01T00:00:{index % 60:02d}.000Z"
            fh.write(encode_item(item))
            items.append((index, item["type"]))
    covered = max(0, len(items) - tail)
    while covered > 0 and items[covered][1] == "tool_result":  # never split a call from its result
        covered -= 1
    kept = [i for i, kind in items[:covered:97] if kind == "user"][:5]
    SummaryStore(directory / "session-summary.json").save(
        SessionSummary(
            summary="## Goals\n- [active] keep the benchmark honest\n## Progress\n- generated",
            covered_through_id=covered,
            kept_user_ids=kept,
            trigger="ratio",
        )
    )
    stamp.touch()
    return session
