"""A reply that a loaded machine streams slowly still completes through the shared runner: its duration
guard once stopped every reply after 3 s, so a test expecting a complete reply failed under load (issue 23).
Only a test of the guard itself may give a reply a short bound."""

from __future__ import annotations

from okbot.core.turn.request import Send
from tests.helpers.fake_openai import Reply

TEXT = "abcdefgh"
SLOWER_THAN_THE_OLD_GUARD = 0.45  # seconds between the 8 one-character chunks: about 3.6 s in all, over 3


def test_a_reply_streamed_for_longer_than_three_seconds_completes(env, server):
    target, _, runner = env
    server.enqueue(Reply(text=TEXT, chunk_chars=1, chunk_delay=SLOWER_THAN_THE_OLD_GUARD))
    result = runner.run(target, Send("go"))
    assert result.status == "complete" and result.reply_text == TEXT
