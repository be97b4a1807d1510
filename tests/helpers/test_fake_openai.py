"""The fake OpenAI server, exercised through the real ``openai`` SDK (only ``base_url`` changes).

SDK behaviours recorded here (openai 3.57 on httpx2) so providers can map them:
- ``cut_after_chunks`` (connection closed mid-body): the stream iterator raises
  ``openai.APIConnectionError``; its ``__cause__`` is ``httpx2.RemoteProtocolError``
  ("incomplete chunked read"). The non-stream call raises the same wrapped error.
- ``malformed_chunk_at`` (``data: {not json``): the iterator raises a bare ``json.JSONDecodeError``,
  NOT an ``openai.APIError``. Non-stream: the same bare ``json.JSONDecodeError``.
- ``non_json_body`` (200 text/html): a stream yields no chunks at all and ends normally;
  a non-stream call returns the HTML as a ``str`` instead of a ``ChatCompletion``.
- ``wrong_content_type`` (SSE or JSON labelled text/html): the SDK ignores the header and parses normally.
- ``first_byte_delay`` beyond the client timeout: ``openai.APITimeoutError`` (cause ``httpx2.ReadTimeout``).
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from tests.helpers.__main__ import load_script, reply_from_dict
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.helpers.patience import PATIENT_SECONDS
from tests.helpers.processes import interruptible

REPO_ROOT = Path(__file__).resolve().parents[2]
MODEL = "gpt-4o-mini"
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello there"}]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def client(server: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=10) as c:
        yield c


def stream(client: openai.OpenAI, **kwargs: object) -> openai.Stream:
    return client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True, **kwargs)


def stream_text(client: openai.OpenAI, **kwargs: object) -> tuple[list[str], list]:
    """Content deltas and all chunks of one streamed completion."""
    chunks = list(stream(client, **kwargs))
    return [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content], chunks


# --- happy paths ------------------------------------------------------------------------------
def test_streamed_text_reassembles_from_several_deltas(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="Hello, streaming world!", chunk_chars=5))
    deltas, chunks = stream_text(client)
    assert "".join(deltas) == "Hello, streaming world!"
    assert len(deltas) == 5
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(c.usage is None for c in chunks)  # no usage chunk unless asked for


def test_default_reply_echoes_last_user_message(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    deltas, _ = stream_text(client)
    assert "".join(deltas) == "ok: hello there"


def test_queue_is_fifo_then_default_factory(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="one"), Reply(text="two"))
    server.set_default(lambda body: Reply(text=f"default for {len(body['messages'])}"))
    texts = ["".join(stream_text(client)[0]) for _ in range(3)]
    assert texts == ["one", "two", "default for 2"]


def test_tool_call_deltas_assemble_to_name_and_arguments(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(
        Reply(
            text="Let me check.",
            tool_calls=[
                tool_call("get_weather", {"city": "Paris", "unit": "C"}),
                tool_call("broken", "{oops", "call_b"),
            ],
            chunk_chars=4,
        )
    )
    calls: dict[int, dict] = {}
    heads = []
    finish = None
    for chunk in stream(client):
        choice = chunk.choices[0]
        finish = choice.finish_reason or finish
        for d in choice.delta.tool_calls or []:
            if d.id:  # the first delta of a call: index, id, type, name, empty arguments
                heads.append(d)
                calls[d.index] = {"id": d.id, "name": d.function.name, "arguments": ""}
            else:
                assert d.function.name is None
                calls[d.index]["arguments"] += d.function.arguments
    assert [h.function.arguments for h in heads] == ["", ""]
    assert [h.type for h in heads] == ["function", "function"]
    assert calls[0]["name"] == "get_weather"
    assert json.loads(calls[0]["arguments"]) == {"city": "Paris", "unit": "C"}
    assert calls[1] == {"id": "call_b", "name": "broken", "arguments": "{oops"}
    assert calls[0]["id"].startswith("call_") and calls[0]["id"] != "call_b"
    assert finish == "tool_calls"


def test_usage_chunk_with_cached_tokens_when_include_usage(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="abcdefgh", cached_tokens=7))
    _, chunks = stream_text(client, stream_options={"include_usage": True})
    last = chunks[-1]
    assert last.choices == []
    assert last.usage.prompt_tokens_details.cached_tokens == 7
    assert last.usage.prompt_tokens >= len(json.dumps(MESSAGES)) // 4 > 0
    assert last.usage.completion_tokens == 2
    assert last.usage.total_tokens == last.usage.prompt_tokens + 2
    assert all(c.usage is None for c in chunks[:-1])


def test_explicit_usage_is_sent_verbatim_and_send_usage_false_omits_it(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    usage = {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}
    server.enqueue(Reply(text="x", usage=usage), Reply(text="y", send_usage=False))
    _, chunks = stream_text(client, stream_options={"include_usage": True})
    assert chunks[-1].usage.prompt_tokens == 100
    _, chunks = stream_text(client, stream_options={"include_usage": True})
    assert all(c.usage is None for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_non_stream_completion_has_message_tool_calls_and_usage(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    server.enqueue(Reply(text="plain"), Reply(tool_calls=[tool_call("f", {"a": 1}, "call_1")], cached_tokens=2))
    first = client.chat.completions.create(model=MODEL, messages=MESSAGES)
    assert first.choices[0].message.content == "plain"
    assert first.choices[0].finish_reason == "stop"
    assert first.usage.completion_tokens >= 1
    second = client.chat.completions.create(model=MODEL, messages=MESSAGES)
    call = second.choices[0].message.tool_calls[0]
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == ("call_1", "f", {"a": 1})
    assert second.choices[0].finish_reason == "tool_calls"
    assert second.usage.prompt_tokens_details.cached_tokens == 2


def test_tool_calls_as_text_and_finish_reason_override(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(
        Reply(tool_calls=[tool_call("f", {"a": 1})], tool_calls_as_text=True),
        Reply(text="trunc", finish_reason="length"),
    )
    deltas, chunks = stream_text(client)
    assert json.loads("".join(deltas)) == {"name": "f", "arguments": {"a": 1}}
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "stop"
    _, chunks = stream_text(client)
    assert chunks[-1].choices[0].finish_reason == "length"


def test_models_list_and_retrieve(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["gpt-4o-mini", "fake-small"]
    assert client.models.retrieve("fake-small").id == "fake-small"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("nope")


def test_unknown_model_is_404_and_does_not_consume_a_reply(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="kept"))
    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(model="gpt-9", messages=MESSAGES)
    assert info.value.code == "model_not_found"
    assert client.chat.completions.create(model=MODEL, messages=MESSAGES).choices[0].message.content == "kept"


def test_empty_models_accepts_any_model() -> None:
    with FakeOpenAIServer(models=()) as srv, openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0) as c:
        assert c.chat.completions.create(model="anything", messages=MESSAGES).choices[0].message.content


def test_requests_are_recorded_with_bodies_and_headers(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    stream_text(client, stream_options={"include_usage": True})
    client.models.list()
    server.wait_for_requests(2)
    first, second = server.requests
    assert (first.method, first.path, second.method, second.path) == (
        "POST",
        "/v1/chat/completions",
        "GET",
        "/v1/models",
    )
    assert first.headers["authorization"] == "Bearer x"
    assert first.body["messages"] == MESSAGES and first.body["stream"] is True
    assert second.body is None
    assert first.time <= second.time
    assert server.chat_requests() == [first.body]
    with pytest.raises(TimeoutError):
        server.wait_for_requests(3, timeout=0.05)


# --- faults -----------------------------------------------------------------------------------
def test_429_with_retry_after_is_rate_limit_error(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(status=429, retry_after=2, error_message="slow down"))
    with pytest.raises(openai.RateLimitError) as info:
        stream(client)
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "2"
    assert info.value.code == "rate_limit_exceeded"
    assert "slow down" in str(info.value)


def test_500_is_internal_server_error(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(status=500))
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model=MODEL, messages=MESSAGES)


def test_require_key_gives_401_on_mismatch() -> None:
    with FakeOpenAIServer(require_key="sk-right") as srv:
        with openai.OpenAI(base_url=srv.base_url, api_key="sk-wrong", max_retries=0) as bad:
            with pytest.raises(openai.AuthenticationError):
                bad.chat.completions.create(model=MODEL, messages=MESSAGES)
            with pytest.raises(openai.AuthenticationError):
                bad.models.list()
        with openai.OpenAI(base_url=srv.base_url, api_key="sk-right", max_retries=0) as good:
            assert good.chat.completions.create(model=MODEL, messages=MESSAGES).choices[0].message.content


def test_cut_after_chunks_raises_connection_error_after_partial_text(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    server.enqueue(Reply(text="abcdefghijkl", chunk_chars=3, cut_after_chunks=2), Reply(text="z", cut_after_chunks=0))
    received = []
    with pytest.raises(openai.APIConnectionError) as info:
        for chunk in stream(client):
            received.append(chunk.choices[0].delta.content)
    assert "".join(filter(None, received)) == "abcdef"
    assert type(info.value.__cause__).__name__ == "RemoteProtocolError"  # httpx2's, wrapped by the SDK
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model=MODEL, messages=MESSAGES)  # non-stream: half the body


def test_malformed_chunk_raises_json_decode_error(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="abcdef", chunk_chars=2, malformed_chunk_at=1), Reply(text="x", malformed_chunk_at=0))
    received = []
    with pytest.raises(json.JSONDecodeError):  # bare, not an openai.APIError
        for chunk in stream(client):
            received.append(chunk.choices[0].delta.content)
    assert "".join(filter(None, received)) == "ab"
    with pytest.raises(json.JSONDecodeError):
        client.chat.completions.create(model=MODEL, messages=MESSAGES)


def test_non_json_body(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="lost", non_json_body=True), Reply(text="lost", non_json_body=True))
    assert list(stream(client)) == []  # the SSE parser finds no events and ends quietly
    result = client.chat.completions.create(model=MODEL, messages=MESSAGES)
    assert isinstance(result, str) and "Bad Gateway" in result


def test_wrong_content_type_is_ignored_by_the_sdk(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="still fine", wrong_content_type=True), Reply(text="json too", wrong_content_type=True))
    assert "".join(stream_text(client)[0]) == "still fine"
    raw = client.chat.completions.with_raw_response.create(model=MODEL, messages=MESSAGES)
    assert raw.headers["content-type"] == "text/html"
    assert raw.parse().choices[0].message.content == "json too"


def test_never_end_stops_when_the_client_closes(
    server: FakeOpenAIServer, client: openai.OpenAI, capfd: pytest.CaptureFixture[str]
) -> None:
    server.enqueue(Reply(text="start", never_end=True))
    response = stream(client)
    for count, _ in enumerate(response):
        if count == 5:
            break
    assert server.active_streams == 1
    response.close()
    server.wait_for_idle()
    assert "Traceback" not in capfd.readouterr().err


def test_never_end_stops_when_the_server_stops(capfd: pytest.CaptureFixture[str]) -> None:
    srv = FakeOpenAIServer().start()
    srv.enqueue(Reply(never_end=True))
    with openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0, timeout=PATIENT_SECONDS) as c:
        response = stream(c)
        with pytest.raises(openai.APIConnectionError):  # stop() ends open streams abruptly
            for count, _ in enumerate(response):
                if count == 3:
                    srv.stop()
    assert srv.active_streams == 0
    assert "Traceback" not in capfd.readouterr().err


def test_huge_bytes_streams_five_megabytes(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    size = 5 * 1024 * 1024
    server.enqueue(Reply(text="head:", huge_bytes=size))
    total = 0
    deltas = 0
    for chunk in stream(client):
        if chunk.choices and chunk.choices[0].delta.content:
            total += len(chunk.choices[0].delta.content)
            deltas += 1
    assert total == size + len("head:")
    assert deltas < 200  # big deltas, not 8-character ones


def test_first_byte_delay_beyond_client_timeout_is_api_timeout(server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="late", first_byte_delay=5))
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=0.2) as c:
        with pytest.raises(openai.APITimeoutError):
            stream(c)


def test_chunk_delay_still_delivers_everything(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="abc", chunk_chars=1, chunk_delay=0.01))
    assert stream_text(client)[0] == ["a", "b", "c"]


def test_reject_stream_options_and_tools_give_400(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]
    server.enqueue(
        Reply(reject_stream_options=True),
        Reply(text="without options", reject_stream_options=True),
        Reply(reject_tools=True),
        Reply(text="without tools", reject_tools=True),
    )
    with pytest.raises(openai.BadRequestError) as info:
        stream(client, stream_options={"include_usage": True})
    assert "Unrecognized request argument: stream_options" in str(info.value)
    assert "".join(stream_text(client)[0]) == "without options"
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model=MODEL, messages=MESSAGES, tools=tools)
    assert "tools are not supported" in str(info.value)
    assert client.chat.completions.create(model=MODEL, messages=MESSAGES).choices[0].message.content == "without tools"


def test_bad_request_bodies_get_400_without_consuming_replies(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    import urllib.error
    import urllib.request

    server.enqueue(Reply(text="kept"))
    url = server.base_url + "/chat/completions"
    for data in (b"{not json", b'{"model": "gpt-4o-mini"}', b'{"messages": []}'):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(urllib.request.Request(url, data=data, method="POST"), timeout=PATIENT_SECONDS)
        assert info.value.code == 400
        assert json.loads(info.value.read())["error"]["type"] == "invalid_request_error"
    assert server.requests[0].body == "{not json"
    assert client.chat.completions.create(model=MODEL, messages=MESSAGES).choices[0].message.content == "kept"


# --- scripts and the command line ------------------------------------------------------------
def test_reply_from_dict_builds_tool_calls() -> None:
    reply = reply_from_dict({"text": "t", "tool_calls": [{"name": "f", "arguments": {"a": 1}}], "chunk_delay": 0})
    assert reply.text == "t" and reply.tool_calls[0].name == "f" and reply.tool_calls[0].arguments == '{"a": 1}'


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ([], "must be a JSON object"),
        ({"txt": "typo"}, "unknown reply field(s): txt"),
        ({"status": "500"}, "'status'"),
        ({"never_end": 1}, "'never_end'"),
        ({"tool_calls": {"name": "f"}}, "tool_calls must be a list"),
        ({"tool_calls": [{"arguments": {}}]}, "tool_calls[0]"),
        ({"tool_calls": [{"name": "f", "arguments": 3}]}, "tool_calls[0].arguments"),
    ],
)
def test_reply_from_dict_rejects_bad_input(data: object, needle: str) -> None:
    with pytest.raises(ValueError) as info:
        reply_from_dict(data)
    assert needle in str(info.value)


def test_load_script_names_the_bad_entry(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"text": "not a list"}')
    with pytest.raises(ValueError, match="JSON list"):
        load_script(path)
    path.write_text('[{"text": "ok"}, {"bogus": 1}]')
    with pytest.raises(ValueError, match=r"reply #1: unknown reply field\(s\): bogus"):
        load_script(path)
    path.write_text("[{")
    with pytest.raises(ValueError, match="cannot read script"):
        load_script(path)


def test_command_line_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([{"text": "scripted"}, {"tool_calls": [{"name": "f", "arguments": {"x": 1}}]}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.fake_openai", "--port", "0", "--script", str(script)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )
    try:
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        with openai.OpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=PATIENT_SECONDS) as c:
            assert c.chat.completions.create(model=MODEL, messages=MESSAGES).choices[0].message.content == "scripted"
            call = c.chat.completions.create(model=MODEL, messages=MESSAGES).choices[0].message.tool_calls[0]
            assert (call.function.name, json.loads(call.function.arguments)) == ("f", {"x": 1})
    finally:
        proc.send_signal(subprocess.signal.SIGINT)
        _, err = proc.communicate(timeout=PATIENT_SECONDS)
    assert proc.returncode == 0, err


def test_command_line_refuses_a_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text('[{"colour": "red"}]')
    result = subprocess.run(
        [sys.executable, "-m", "tests.helpers.fake_openai", "--port", "0", "--script", str(script)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "unknown reply field(s): colour" in result.stderr


# --- one slot, as llama-cpp-python's server serves (interrupt_requests, its default) ---------------
def _raw_stream(server: FakeOpenAIServer) -> http.client.HTTPResponse:
    """A streamed completion read as bytes, to see exactly what the server sends."""
    host, port = server.base_url.split("//")[1].split("/")[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=PATIENT_SECONDS)
    body = json.dumps({"model": MODEL, "messages": MESSAGES, "stream": True})
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    return conn.getresponse()


def _events(data: bytes) -> list[str]:
    return [line.removeprefix("data: ") for line in data.decode().split("\n\n") if line.startswith("data: ")]


def test_one_slot_cuts_the_running_stream_with_a_bare_done_when_another_request_arrives() -> None:
    with FakeOpenAIServer(slots=1) as server:
        server.enqueue(Reply(text="first words", chunk_chars=5, never_end=True), Reply(text="second"))
        first = _raw_stream(server)
        head = first.read1(4096)  # the role chunk at least: the first stream is being answered
        assert b'"role": "assistant"' in head
        answers: list[str] = []
        other = threading.Thread(
            target=lambda: answers.append(
                openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=PATIENT_SECONDS)
                .chat.completions.create(model=MODEL, messages=MESSAGES)
                .choices[0]
                .message.content
            )
        )
        other.start()
        events = _events(head + first.read())  # the whole body: it ends cleanly (no IncompleteRead)
        other.join(PATIENT_SECONDS)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks)  # no finish reason, no usage
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == "first words"
    assert answers == ["second"]  # the request that waited is answered in full
    assert len(server.interruptions) == 1 and server.interruptions[0].body["stream"] is True


def test_one_slot_never_cuts_a_non_streaming_reply_the_next_request_waits_for_it() -> None:
    with FakeOpenAIServer(slots=1) as server:
        server.enqueue(Reply(text="never comes", never_end=True), Reply(text="after it"))
        host, port = server.base_url.split("//")[1].split("/")[0].split(":")
        first = http.client.HTTPConnection(host, int(port), timeout=PATIENT_SECONDS)
        first.request("POST", "/v1/chat/completions", json.dumps({"model": MODEL, "messages": MESSAGES}))
        under_way = first.getresponse()
        assert under_way.status == 200  # the non-streaming reply is under way (whitespace trickles)
        got: list[str] = []
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=PATIENT_SECONDS)
        second = threading.Thread(target=lambda: got.append("".join(stream_text(client)[0])))
        second.start()
        server.wait_for_slot_waiters(1)  # the stream waits: a reply being computed is never cut
        assert got == [] and server.interruptions == []
        under_way.close()  # its client gives up: the slot is free
        first.close()
        second.join(PATIENT_SECONDS)
    assert got == ["after it"] and server.interruptions == []


def test_one_slot_a_model_list_waits_for_the_model_too() -> None:
    with FakeOpenAIServer(slots=1) as server:
        server.enqueue(Reply(text="cut short", never_end=True))
        first = _raw_stream(server)
        first.read1(4096)
        listed = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0).models.list()
        assert _events(first.read())[-1] == "[DONE]"
    assert [m.id for m in listed.data] == server.models and len(server.interruptions) == 1


def test_without_a_slot_limit_streams_run_side_by_side(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.enqueue(Reply(text="runs on", never_end=True), Reply(text="beside it"))
    first = _raw_stream(server)
    first.read1(4096)
    assert "".join(stream_text(client)[0]) == "beside it"
    server.stop()  # ends the never-ending one
    assert server.interruptions == []
