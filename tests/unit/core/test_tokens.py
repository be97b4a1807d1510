"""Token counting: model facts, offline encodings, fallback estimate, per-text cache, calibration."""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import logging
import math
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import tiktoken
from tiktoken.load import load_tiktoken_bpe

from okbot.core import tokens
from okbot.core.tokens import (
    APPROX_NOTE,
    Calibration,
    TokenCounter,
    approx_count,
    counter_for_model,
    model_facts,
)
from okbot.storage import paths
from okbot.storage.errors import OkBotError

REPO = Path(__file__).resolve().parents[3]
BUNDLED = REPO / "resources" / "tiktoken"

# Reference definitions copied from tiktoken 0.14.0's tiktoken_ext/openai_public.py (independent of
# encodings.json, so a typo there cannot agree with itself).
O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
    r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
REFERENCE = {
    "o200k_base": (
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        O200K_PAT,
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
    "cl100k_base": (
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        CL100K_PAT,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}

SAMPLES = {
    "ascii": "The quick brown fox jumps over the lazy dog. Summary + Buffer keeps the tail verbatim. " * 8,
    "cjk": "我们的应用程序在本地保存完整的对话记录，同时模型只看到摘要和最近的消息。日本語のテキストも含めます。" * 4,
    "emoji": "hello 👋🏽 party 🎉🎉 family 👨‍👩‍👧‍👦 and flags 🇫🇷🇯🇵 done",
    "code": (
        'def fib(n: int) -> int:\n    """Return the n-th Fibonacci number."""\n'
        "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n"
        "if __name__ == '__main__':\n\tprint({'x': [1, 2, 3], \"y\": None})  # tabs & braces\n"
    ),
    # a Chinese working chat: full-width punctuation, English terms, a path and numbers between the characters
    "zh_chat": (
        "请帮我检查 okbot/core/runner.py 第 120 行的 TypeError：上下文压缩之后，摘要里的“目标”一节丢了一条。"
        "另外，把阈值从 0.8 调到 0.75，然后跑一下 pytest -q，告诉我结果（只要失败的用例）。\n"
        "好的，我先看日志；如果是 Summary + Buffer 的问题，我会在 30 分钟内回复你。"
    ),
    "accents": "Les élèves étudièrent à l'école — Привет, как дела? Ελληνικά. 안녕하세요!",
    "special": "a literal <|endoftext|> and <|endofprompt|> inside user text",
    "whitespace": "   \n\n\t  trailing   \r\n",
}


@functools.cache
def reference_encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's own Encoding, built from the bundled file with the reference definitions above."""
    sha, pat, special = REFERENCE[name]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", "")  # no side copy into tiktoken's cache
        ranks = load_tiktoken_bpe(str(BUNDLED / f"{name}.tiktoken"), expected_hash=sha)
    return tiktoken.Encoding(name=name, pat_str=pat, mergeable_ranks=ranks, special_tokens=special)


@functools.cache
def loaded_counter(name: str) -> TokenCounter:
    counter = TokenCounter(name, search_dirs=[BUNDLED])
    assert counter.ensure_loaded(timeout=120)
    return counter


class CountingEncoder:
    """Wraps a real encoding and counts how often it is asked to encode."""

    def __init__(self, inner: tiktoken.Encoding) -> None:
        self.inner = inner
        self.calls = 0

    def encode_ordinary(self, text: str) -> list[int]:
        self.calls += 1
        return self.inner.encode_ordinary(text)


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No encoding file anywhere: an install whose resources lack ``tiktoken/`` (as a distribution
    that strips them would ship), an empty OKBOT_TIKTOKEN_DIR and an empty tiktoken cache dir."""
    stripped = tmp_path / "resources-without-tiktoken"
    shutil.copytree(REPO / "resources", stripped, ignore=shutil.ignore_patterns("tiktoken"))
    monkeypatch.setattr(paths, "resources_dir", lambda: stripped)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("OKBOT_TIKTOKEN_DIR", str(empty))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(empty))
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    return empty


# --------------------------------------------------------------------------- exact counts


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_exact_counts_equal_tiktoken(encoding: str, sample: str) -> None:
    text = SAMPLES[sample]
    counter = loaded_counter(encoding)
    assert not counter.approximate and counter.state == "exact"
    assert counter.count_text(text) == len(reference_encoding(encoding).encode(text, disallowed_special=()))


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_default_lookup_finds_the_bundled_files_first(encoding: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable set, no user dir, no tiktoken cache: the files shipped in resources/ give exact counts."""
    for var in ("OKBOT_TIKTOKEN_DIR", "TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR", "OKBOT_TIKTOKEN_DOWNLOAD"):
        monkeypatch.delenv(var, raising=False)
    counter = TokenCounter(encoding)
    assert counter.ensure_loaded(timeout=120)
    assert Path(counter.source) == paths.resource("tiktoken", f"{encoding}.tiktoken")
    assert Path(counter.source).resolve() == (BUNDLED / f"{encoding}.tiktoken").resolve()


def test_gpt35_and_gpt4_count_with_cl100k() -> None:
    for model in ("gpt-3.5-turbo", "gpt-4", "gpt-4-turbo"):
        assert counter_for_model(model).encoding_name == "cl100k_base"
    text = SAMPLES["cjk"]
    cl100k = counter_for_model("gpt-4")
    assert cl100k.ensure_loaded(timeout=120)
    assert cl100k.count_text(text) == len(reference_encoding("cl100k_base").encode_ordinary(text))
    assert cl100k.count_text(text) != loaded_counter("o200k_base").count_text(text)


def test_counter_for_model_shares_one_counter_per_encoding() -> None:
    results: list[TokenCounter] = []
    models = ["gpt-4o", "gpt-5", "o3", "llama3.1:8b", "unknown-model"] * 4
    threads = [threading.Thread(target=lambda m=m: results.append(counter_for_model(m))) for m in models]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(c) for c in results}) == 1
    assert results[0].encoding_name == "o200k_base"
    assert counter_for_model("gpt-4") is not results[0]


def test_lone_surrogates_and_wrong_types() -> None:
    counter = loaded_counter("o200k_base")
    assert counter.count_text("bad \ud800 half") > 0
    assert approx_count("bad \ud800 half") > 0
    assert counter.count_text("") == 0
    with pytest.raises(TypeError, match="expects str"):
        counter.count_text(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects a dict"):
        counter.count_item("user: hi")  # type: ignore[arg-type]


def test_unknown_encoding_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown encoding 'p50k_base'.*cl100k_base"):
        TokenCounter("p50k_base")


# --------------------------------------------------------------------------- items


def test_count_item_per_message_overhead() -> None:
    counter = loaded_counter("o200k_base")
    enc = reference_encoding("o200k_base")

    def n(text: str) -> int:
        return len(enc.encode_ordinary(text))

    user = {"id": 1, "type": "user", "content": "Hello there, how are you?"}
    assistant = {"id": 2, "type": "assistant", "content": "Fine, thanks!", "status": "complete"}
    call = {"id": 3, "type": "tool_call", "call_id": "c1", "name": "read_file", "arguments": '{"path": "a.txt"}'}
    result = {"id": 4, "type": "tool_result", "call_id": "c1", "name": "read_file", "content": "file body", "ok": True}
    assert counter.count_item(user) == 3 + n("user") + n(user["content"])
    assert counter.count_item(assistant) == 3 + n("assistant") + n(assistant["content"])
    assert counter.count_item(call) == 3 + n("assistant") + n("read_file") + n(call["arguments"])
    assert counter.count_item(result) == 3 + n("tool") + n("file body")
    assert counter.count_item({"id": 5, "type": "notice", "content": "saved", "level": "info"}) == 0
    assert counter.count_item({"id": 6, "type": "user"}) == 3 + n("user")  # missing content: no crash
    assert counter.count_messages_overhead() == 3


# --------------------------------------------------------------------------- cache


def test_cache_hit_does_not_call_the_encoder_again() -> None:
    wrapper = CountingEncoder(reference_encoding("o200k_base"))
    counter = TokenCounter("o200k_base", encoder=wrapper)
    assert not counter.approximate and counter.source == "injected"
    text = SAMPLES["ascii"]
    first = counter.count_text(text)
    assert counter.count_text(text) == first
    assert wrapper.calls == 1
    item = {"id": 1, "type": "user", "content": text}
    counter.count_item(item)
    counter.count_item(dict(item, id=2))
    assert wrapper.calls == 2  # only the role name "user" was new


def test_cache_is_bounded_lru() -> None:
    wrapper = CountingEncoder(reference_encoding("o200k_base"))
    counter = TokenCounter("o200k_base", encoder=wrapper, cache_entries=2)
    for text in ("alpha", "beta", "alpha", "gamma"):  # gamma evicts beta (alpha was used recently)
        counter.count_text(text)
    assert wrapper.calls == 3
    counter.count_text("alpha")
    assert wrapper.calls == 3
    counter.count_text("beta")
    assert wrapper.calls == 4


def test_approximate_counts_are_not_reused_once_exact() -> None:
    text = SAMPLES["cjk"]
    counter = TokenCounter("o200k_base", search_dirs=[BUNDLED])
    assert counter.approximate and counter.state == "idle"
    assert counter.count_text(text) == approx_count(text)
    assert counter.ensure_loaded(timeout=120)
    exact = len(reference_encoding("o200k_base").encode_ordinary(text))
    assert exact != approx_count(text)
    assert counter.count_text(text) == exact


# --------------------------------------------------------------------------- loading


def test_start_loading_then_ensure_loaded() -> None:
    counter = TokenCounter("cl100k_base", search_dirs=[BUNDLED])
    counter.start_loading()
    counter.start_loading()  # no second loader
    assert counter.state in ("loading", "exact")
    assert counter.ensure_loaded(timeout=120) is True
    assert not counter.approximate
    assert Path(counter.source) == BUNDLED / "cl100k_base.tiktoken"


def test_concurrent_counting_matches_sequential() -> None:
    counter = TokenCounter("o200k_base", encoder=reference_encoding("o200k_base"), cache_entries=50)
    texts = [f"message {i}: " + SAMPLES["emoji"] * (i % 5) for i in range(200)]
    expected = [len(reference_encoding("o200k_base").encode_ordinary(t)) for t in texts]
    results: dict[int, list[int]] = {}

    def work(k: int) -> None:
        results[k] = [counter.count_text(t) for t in texts]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(r == expected for r in results.values())


def test_offline_fallback_is_approximate(offline: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="okbot.tokens")
    counter = TokenCounter("o200k_base")
    assert counter.ensure_loaded(timeout=120) is False
    assert counter.ensure_loaded(timeout=120) is False
    assert counter.approximate and counter.state == "approximate" and counter.source == ""
    text = SAMPLES["ascii"]
    assert counter.count_text(text) == approx_count(text)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and APPROX_NOTE in warnings[0].getMessage()


def test_offline_fallback_with_explicit_empty_dir(tmp_path: Path) -> None:
    counter = TokenCounter("cl100k_base", search_dirs=[tmp_path, tmp_path / "missing"])
    assert counter.ensure_loaded(timeout=120) is False
    assert counter.count_text("hello world") == approx_count("hello world")


def corrupt_copy(name: str, dest: Path) -> Path:
    """The real file with one rank changed: parses fine, but its sha256 is wrong."""
    dest.mkdir(parents=True, exist_ok=True)
    lines = (BUNDLED / f"{name}.tiktoken").read_bytes().splitlines()
    token, _rank = lines[0].split()
    lines[0] = token + b" 99999999"
    target = dest / f"{name}.tiktoken"
    target.write_bytes(b"\n".join(lines) + b"\n")
    return target


def test_wrong_sha256_is_refused(offline: Path, caplog: pytest.LogCaptureFixture) -> None:
    bad = corrupt_copy("o200k_base", offline)
    counter = TokenCounter("o200k_base")
    assert counter.ensure_loaded(timeout=120) is False
    assert any("sha256" in r.getMessage() and str(bad) in r.getMessage() for r in caplog.records)
    assert counter.count_text("some text") == approx_count("some text")


def test_wrong_sha256_falls_through_to_next_location(tmp_path: Path) -> None:
    bad_dir = tmp_path / "bad"
    corrupt_copy("cl100k_base", bad_dir)
    counter = TokenCounter("cl100k_base", search_dirs=[bad_dir, BUNDLED])
    assert counter.ensure_loaded(timeout=120)
    assert Path(counter.source) == BUNDLED / "cl100k_base.tiktoken"


def test_user_tiktoken_dir_is_searched(offline: Path) -> None:
    user_dir = paths.tiktoken_dir()
    user_dir.mkdir(parents=True)
    (user_dir / "cl100k_base.tiktoken").symlink_to(BUNDLED / "cl100k_base.tiktoken")
    counter = TokenCounter("cl100k_base")
    assert counter.ensure_loaded(timeout=120)
    assert Path(counter.source) == user_dir / "cl100k_base.tiktoken"


def test_tiktoken_cache_dir_is_searched(offline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "tk-cache"
    cache.mkdir()
    (cache / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4").symlink_to(BUNDLED / "cl100k_base.tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    counter = TokenCounter("cl100k_base")
    assert counter.ensure_loaded(timeout=120)
    assert counter.source.endswith("9b5ad71b2ce5302211f9c61530b329a4922fc6a4")


def test_search_locations_order(offline: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = tokens.search_locations("o200k_base")
    assert found[0] == paths.resource("tiktoken", "o200k_base.tiktoken")
    assert found[1] == offline / "o200k_base.tiktoken"
    assert found[2] == paths.tiktoken_dir() / "o200k_base.tiktoken"
    assert found[3] == offline / "fb374d419588a4632f3f557e76b4b70aebbca790"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken's "caching disabled"
    assert len(tokens.search_locations("o200k_base")) == 3


def test_parse_bpe_rejects_malformed_lines() -> None:
    assert tokens.parse_bpe(b"aGk= 0\n\nYQ== 1\n") == {b"hi": 0, b"a": 1}
    with pytest.raises(ValueError, match="line 2"):
        tokens.parse_bpe(b"aGk= 0\nnot-base64!! x\n")


def test_encodings_json_and_bundled_files_match_the_reference() -> None:
    for name, (sha, pat, special) in REFERENCE.items():
        spec = tokens.encoding_spec(name)
        assert (spec.sha256, spec.pat_str, spec.special_tokens) == (sha, pat, special)
        assert spec.cache_name == hashlib.sha1(spec.url.encode()).hexdigest()
        assert hashlib.sha256((BUNDLED / spec.file).read_bytes()).hexdigest() == sha
    assert tokens.encoding_spec("o200k_base").cache_name == "fb374d419588a4632f3f557e76b4b70aebbca790"


# --------------------------------------------------------------------------- download (local server only)


@pytest.fixture
def file_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "served"
    root.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def test_download_encoding_verifies_and_saves(file_server: tuple[str, Path], tmp_path: Path) -> None:
    base, root = file_server
    (root / "cl100k_base.tiktoken").symlink_to(BUNDLED / "cl100k_base.tiktoken")
    dest = tmp_path / "dl"
    url = f"{base}/cl100k_base.tiktoken"
    saved = tokens.download_encoding("cl100k_base", url=url, dest_dir=dest, timeout=30)
    assert saved == dest / "cl100k_base.tiktoken"
    assert saved.read_bytes() == (BUNDLED / "cl100k_base.tiktoken").read_bytes()
    assert TokenCounter("cl100k_base", search_dirs=[dest]).ensure_loaded(timeout=120)


def test_download_refuses_corrupt_content(file_server: tuple[str, Path], tmp_path: Path) -> None:
    base, root = file_server
    corrupt_copy("cl100k_base", root)
    dest = tmp_path / "dl"
    with pytest.raises(OkBotError, match="sha256"):
        tokens.download_encoding("cl100k_base", url=f"{base}/cl100k_base.tiktoken", dest_dir=dest)
    with pytest.raises(OkBotError, match="could not download"):
        tokens.download_encoding("cl100k_base", url=f"{base}/missing.tiktoken", dest_dir=dest)
    with pytest.raises(OkBotError, match="http"):
        tokens.download_encoding("cl100k_base", url="file:///etc/passwd", dest_dir=dest)
    assert not dest.exists()


# --------------------------------------------------------------------------- approximation


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("sample", ["ascii", "cjk", "zh_chat", "emoji", "code", "accents"])
def test_approximation_is_within_a_sane_factor(encoding: str, sample: str) -> None:
    text = SAMPLES[sample]
    exact = len(reference_encoding(encoding).encode_ordinary(text))
    assert 0.5 <= approx_count(text) / exact <= 2.0


def test_approximation_rules() -> None:
    assert approx_count("") == 0
    assert approx_count("abcd") == 1 and approx_count("abcde") == 2
    assert approx_count("ééé") == 1  # 3 two-byte characters per token
    assert approx_count("日本語") == 3
    assert approx_count("🎉🎉") == 4


# --------------------------------------------------------------------------- model facts


@pytest.mark.parametrize(
    ("model", "window", "encoding"),
    [
        ("gpt-4o", 128000, "o200k_base"),
        ("gpt-4o-mini-2024-07-18", 128000, "o200k_base"),
        ("GPT-4.1-mini", 1047576, "o200k_base"),
        ("gpt-5", 400000, "o200k_base"),
        ("gpt-5-chat-latest", 128000, "o200k_base"),
        ("o3", 200000, "o200k_base"),
        ("o4-mini", 200000, "o200k_base"),
        ("o1-mini", 128000, "o200k_base"),
        ("gpt-3.5-turbo", 16385, "cl100k_base"),
        ("gpt-3.5-turbo-instruct", 4096, "cl100k_base"),
        ("gpt-4", 8192, "cl100k_base"),
        ("gpt-4-turbo-2024-04-09", 128000, "cl100k_base"),
        ("gpt-4-32k", 32768, "cl100k_base"),
        ("openai/gpt-4o", 128000, "o200k_base"),
        ("ft:gpt-3.5-turbo-0125:acme::abc123", 16385, "cl100k_base"),
        ("llama3.1:8b", 131072, "o200k_base"),
        ("meta-llama/Llama-3-8B-Instruct", 8192, "o200k_base"),
        ("Qwen/Qwen2.5-7B-Instruct", 32768, "o200k_base"),
        ("deepseek-r1:14b", 131072, "o200k_base"),
        ("mistral-nemo", 131072, "o200k_base"),
        ("totally-unknown-model", 128000, "o200k_base"),
        ("", 128000, "o200k_base"),
    ],
)
def test_model_facts(model: str, window: int, encoding: str) -> None:
    facts = model_facts(model)
    assert (facts.model, facts.context_window, facts.encoding) == (model, window, encoding)


def test_model_rules_are_valid_and_not_shadowed() -> None:
    table = json.loads(paths.resource("models.json").read_text(encoding="utf-8"))
    prefixes = [rule["prefix"] for rule in table["prefixes"]]
    for i, earlier in enumerate(prefixes):
        for later in prefixes[i + 1 :]:
            assert not later.startswith(earlier), f"{later!r} is shadowed by {earlier!r}"
    for name, rule in table["exact"].items():
        assert name == name.lower() and model_facts(name).context_window == rule["contextWindow"]


# --------------------------------------------------------------------------- calibration


def test_calibration_ema_and_persistence(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    cal = Calibration(path)
    assert cal.factor("gpt-4o") == 1.0 and cal.apply("gpt-4o", 1000) == 1000
    assert cal.record("gpt-4o", 1000, 1200) == pytest.approx(1.2)  # first sample taken as is
    assert cal.record("gpt-4o", 1000, 1200) == pytest.approx(1.2)
    assert cal.record("GPT-4o", 1000, 800) == pytest.approx(1.2 + (0.8 - 1.2) / 3)  # average of 3
    f = cal.factor("gpt-4o")
    for _ in range(3):  # from now on a plain EMA with alpha 0.3
        f = f + 0.3 * (0.9 - f)
        assert cal.record("gpt-4o", 1000, 900) == pytest.approx(f, abs=1e-6)
    assert cal.apply("gpt-4o", 1000) == round(1000 * cal.factor("gpt-4o"))
    assert cal.factor("o3") == 1.0
    reloaded = Calibration(path)
    assert reloaded.factor("gpt-4o") == pytest.approx(cal.factor("gpt-4o"))
    assert json.loads(path.read_text())["version"] == 1


def test_calibration_clamps(tmp_path: Path) -> None:
    cal = Calibration(tmp_path / "c.json")
    assert cal.record("m", 100, 10_000) == 2.0
    assert cal.record("m", 100, 10_000) == 2.0
    assert cal.record("n", 10_000, 100) == 0.5


@pytest.mark.parametrize(
    ("estimated", "actual"),
    [
        (0, 500),
        (500, 0),
        (-10, 500),
        (5, 9),
        (500, 3),
        (math.nan, 500),
        (500, math.inf),
        (True, 500),
        ("500", 600),
    ],
)
def test_calibration_ignores_invalid_samples(tmp_path: Path, estimated: object, actual: object) -> None:
    path = tmp_path / "c.json"
    cal = Calibration(path)
    assert cal.record("m", estimated, actual) == 1.0  # type: ignore[arg-type]
    assert cal.factor("m") == 1.0
    assert not path.exists()


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"",
        b"[1, 2]",
        b'{"models": []}',
        b"\xff\xfe\x00garbage",
    ],
)
def test_corrupt_calibration_file_gives_factor_one(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "calibration.json"
    path.write_bytes(content)
    cal = Calibration(path)
    assert cal.factor("gpt-4o") == 1.0
    assert cal.record("gpt-4o", 1000, 1100) == pytest.approx(1.1)
    assert Calibration(path).factor("gpt-4o") == pytest.approx(1.1)


def test_calibration_skips_bad_entries_and_clamps_loaded_values(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "models": {
                    "good": {"factor": 1.3, "samples": 4},
                    "huge": {"factor": 50, "samples": 2},
                    "text": {"factor": "1.5", "samples": 1},
                    "nan": {"factor": float("nan")},
                    "list": [1],
                },
            }
        )
    )
    cal = Calibration(path)
    assert cal.factor("good") == 1.3 and cal.factor("huge") == 2.0
    assert cal.factor("text") == cal.factor("nan") == cal.factor("list") == 1.0


def test_calibration_unwritable_path_keeps_learning_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    cal = Calibration(blocker / "calibration.json")  # parent is a file: every write fails
    assert cal.record("m", 1000, 1500) == pytest.approx(1.5)
    assert cal.factor("m") == pytest.approx(1.5)


def test_calibration_default_path_is_in_okbot_home(okbot_home: Path) -> None:
    cal = Calibration(paths.calibration_file())
    cal.record("gpt-4o", 2000, 2100)
    assert (okbot_home / "calibration.json").is_file()


def test_effective_context_window_uses_the_override(tmp_path: Path) -> None:
    from okbot.config.settings import Settings

    settings = Settings.load(tmp_path / "settings.json")
    settings.set("model.contextWindow", 50_000)
    assert tokens.effective_context_window(settings) == 50_000


def test_effective_context_window_falls_back_to_model_facts(tmp_path: Path) -> None:
    from okbot.config.settings import Settings

    settings = Settings.load(tmp_path / "settings.json")
    assert tokens.effective_context_window(settings) == tokens.model_facts("gpt-4o-mini").context_window
    settings.set("provider.model", "some-unknown-model")
    assert tokens.effective_context_window(settings) == tokens.model_facts("some-unknown-model").context_window


def test_effective_context_window_of_another_model_uses_its_own_override(tmp_path: Path) -> None:
    from okbot.config.settings import Settings

    settings = Settings.load(tmp_path / "settings.json")
    settings.set("provider.model", "big-local-model")
    settings.set("model.contextWindow", 32_000)  # stored for big-local-model
    settings.set("provider.model", "gpt-4o-mini")
    assert tokens.effective_context_window(settings, "big-local-model") == 32_000
    assert tokens.effective_context_window(settings, "gpt-4o") == tokens.model_facts("gpt-4o").context_window
    assert tokens.effective_context_window(settings) == tokens.model_facts("gpt-4o-mini").context_window
