"""A reply's reasoning never reaches the summarizer: compression digests carry the answer only."""

from __future__ import annotations

import json

from okbot.core.items import new_item, user_message
from tests.helpers.fake_summarizer import is_summarizer_request

THOUGHT = "PRIVATE-THOUGHT-marker weighing the options"


def test_compress_now_sends_no_reasoning_to_the_summarizer(env, server):
    target, sources, compressor, _ = env
    session = sources.session(target)
    for i in range(20):
        session.append(user_message(f"Step {i}: please handle table number {i} next. " + "detail " * 40))
        session.append(
            new_item(
                "assistant",
                author="okbot",
                source="app",
                content=f"Done with table {i}. " + "note " * 40,
                reasoning=f"{THOUGHT} {i}",
                reasoningSeconds=3.0,
            )
        )
    report = compressor.compress_now(target)
    assert report.ok
    sent = [b for b in server.chat_requests() if is_summarizer_request(b)]
    assert sent and "Done with table 0" in json.dumps(sent)
    assert "PRIVATE-THOUGHT" not in json.dumps(server.chat_requests())
