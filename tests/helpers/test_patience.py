"""The fake server's waits outlast an event that a loaded machine delays: a reply slower than the 5 s they
once gave up after is still waited for, and the wait returns as soon as it is done."""

from __future__ import annotations

import threading

import openai
import pytest

from tests.helpers.fake_openai import FakeOpenAIServer, Reply

SLOWER_THAN_THE_OLD_BOUND = 6.0  # seconds: the fake server's waits gave up after 5


@pytest.mark.slow
def test_the_fake_servers_waits_outlast_a_reply_slower_than_five_seconds() -> None:
    got: list[str | None] = []
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(text="late", first_byte_delay=SLOWER_THAN_THE_OLD_BOUND))

        def ask() -> None:
            with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=60) as client:
                reply = client.chat.completions.create(
                    model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
                )
                got.append(reply.choices[0].message.content)

        thread = threading.Thread(target=ask)
        thread.start()
        server.wait_for_requests(1)
        server.wait_for_idle()  # the reply is written by now
        thread.join()
    assert got == ["late"]
