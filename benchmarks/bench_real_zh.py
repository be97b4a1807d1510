"""A Chinese conversation summarized and remembered by a real model: does it write Chinese, in our structure?

The chat replies are scripted (as in ``bench_fidelity``); the real model at ``--base-url`` writes every
summary (through ``Compressor.before_run``, as a turn does) and then the memories (``MemoryKeeper.wrap_up``).
Measured:

- summaries accepted / model compressions attempted; the headings of the stored summary (目标 … 引用);
- how Chinese the lines the model wrote are: Han characters / (Han + Latin letters) over the Goals, Agreements,
  Decisions and Progress lines, references and the app's own record lines left out;
- the user's constraint message byte for byte in the next request, and invented references (an independent
  check over the whole record);
- the memories written: how many, and how many are in Chinese.

    python -m benchmarks.bench_real_zh --base-url URL --model NAME [--turns 24] [--window 2500]
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

from benchmarks.common import setup_env, table

GOAL = "目标：把客服工单队列 Q-9 里的工单 T-201 到 T-230 按从旧到新逐条分诊，每条用一句话汇报。"
CONSTRAINT = "约定：永远不要自己关闭工单，只给建议；回复不超过五十个字。"
PREFERENCE = "记住：我叫王芳，是杭州一家物流公司的运维负责人，我们的系统跑在 stg-4 和 prod-2 两台服务器上。"
ISSUES = ["登录页 30 秒后超时", "导出的 CSV 少了最后一行", "深色模式下强调色不生效", "搜索带引号的词会出现重复结果"]
ACKS = ["好的", "继续", "谢谢", "下一条"]


def script(turns: int) -> list[tuple[str, str]]:
    """(user message, scripted reply) pairs: goal, constraint, a fact to remember, then tickets in order."""
    out = [
        (GOAL, "好的，我会从 T-201 开始逐条分诊，每条一句话。"),
        (CONSTRAINT, "明白：只提建议，不关闭工单，回复控制在五十字内。"),
        (PREFERENCE, "记下了，王芳。之后复现问题会先用 stg-4。"),
    ]
    ticket = 201
    while len(out) < turns:
        if len(out) % 4 == 3:
            out.append((ACKS[len(out) % len(ACKS)], "收到。"))
            continue
        issue = ISSUES[ticket % len(ISSUES)]
        out.append((f"下一条：T-{ticket}，{issue}。你的一句话结论？", f"T-{ticket}：建议先在 stg-4 上复现“{issue}”。"))
        ticket += 1
    return out[:turns]


def han_share(text: str) -> float:
    from okbot.core.language import is_han

    han = sum(is_han(ch) for ch in text)
    latin = sum(ch.isascii() and ch.isalpha() for ch in text)
    return han / max(1, han + latin)


def run(base_url: str, model: str, turns: int, window: int) -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-real-zh-")))
    from okbot.config.settings import Settings
    from okbot.core.compression import structure
    from okbot.core.compression.compressor import Compressor
    from okbot.core.compression.edits import RECORD_NOTES
    from okbot.core.context import build_context
    from okbot.core.items import item_text, new_item, user_message
    from okbot.core.memory.keeper import MemoryKeeper
    from okbot.core.sources import ContextSources
    from okbot.core.workspace import Workspace
    from okbot.llm.openai_backend import OpenAIProvider

    settings = Settings.load()
    settings.set("provider.baseUrl", base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.model", model)
    settings.set("model.contextWindow", window)
    settings.set("contextCompression.autoTopicCompress", False)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.loaded_counter(target)
    provider = OpenAIProvider(base_url, None, timeout=900, max_retries=1)
    compressor = Compressor(sources, provider)
    session = sources.session(target)
    reports = []
    constraint_kept: list[bool] = []
    started = time.monotonic()
    for n, (question, answer) in enumerate(script(turns), start=1):
        report = compressor.before_run(target, question)
        if report is not None:
            reports.append(report)
            print(f"turn {n}: {report.message}", flush=True)
        session.append(user_message(question))
        if report is not None:
            text = "\n".join(str(m.get("content") or "") for m in build_context(target, sources=sources).to_messages())
            constraint_kept.append(CONSTRAINT in text + build_context(target, sources=sources).system_text())
        session.append(new_item("assistant", author=target.id, source="app", content=answer, status="complete"))
    summary, _ = sources.summary(target)
    memory = MemoryKeeper(sources, provider, background=False).wrap_up(target)
    elapsed = time.monotonic() - started

    sections, problems = structure.parse_sections(summary.summary)
    written = [
        line
        for name in ("Goals", "Agreements", "Decisions", "Progress and next steps")
        for line in (sections.get(name) or "").splitlines()
        if line.strip() and not structure.is_empty_body(line) and not any(m in line for m in RECORD_NOTES.values())
    ]
    record = "\n".join(f"#{it['id']} {item_text(it)}" for it in session.iter_items())
    invented = structure.ungrounded(summary.summary, [record])
    model_runs = [r for r in reports if r.summarizer_calls]
    accepted = [r for r in model_runs if r.ok and not r.fallback]
    stores = [sources.memory.global_store(), sources.memory.own_store(target)]
    memories = [e.text for store in stores if store for e in store.entries()]
    rows = [
        ["turns / compressions", f"{turns} / {len(reports)}"],
        ["wall time", f"{elapsed / 60:.1f} min"],
        ["summaries accepted / model compressions", f"{len(accepted)}/{len(model_runs)}"],
        [
            "summary headings",
            structure.heading_language(summary.summary) + (f" (problems: {problems})" if problems else ""),
        ],
        ["lines the model wrote (goals, agreements, decisions, progress)", str(len(written))],
        ["… Han share of their letters", f"{han_share(chr(10).join(written)):.0%}" if written else "n/a"],
        ["… lines mostly Chinese (Han share ≥ 50%)", f"{sum(han_share(w) >= 0.5 for w in written)}/{len(written)}"],
        ["user's constraint byte for byte after each compression", f"{sum(constraint_kept)}/{len(constraint_kept)}"],
        ["invented references in the final summary", str(len(invented))],
        ["memories written (calls)", f"{len(memories)} ({memory.calls} calls, {len(memory.rejected)} refused)"],
        ["… in Chinese (Han share ≥ 50%)", f"{sum(han_share(m) >= 0.5 for m in memories)}/{len(memories)}"],
    ]
    return "\n".join(
        [
            table(f"A Chinese chat, real model {model} at {base_url}, window {window:,}", ["measure", "value"], rows),
            "Final summary:\n" + summary.summary,
            "Memories:\n" + ("\n".join(f"- {m}" for m in memories) or "(none)"),
            "Invented references: " + (", ".join(invented) or "none"),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--turns", type=int, default=24)
    parser.add_argument("--window", type=int, default=2500)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print(run(args.base_url, args.model, args.turns, args.window))


if __name__ == "__main__":
    main()
