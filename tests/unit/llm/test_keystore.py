"""Saved API keys: the system keyring first, else a 0600 file in the data dir (real files, real keyring package)."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from okbot.llm import keys
from okbot.llm.keystore import FILE, KEYRING, KeyStore, KeyStoreError, SavedKey
from okbot.storage import paths
from tests.helpers.keyrings import MemoryKeyring, no_keyring, system_keyring

posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


@pytest.fixture(autouse=True)
def _no_system_keyring() -> Iterator[None]:
    with system_keyring(no_keyring()):
        yield


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ---------------------------------------------------------------------- no keyring: the key file


def test_without_a_keyring_a_key_goes_to_a_file_in_the_data_dir() -> None:
    store = KeyStore()
    assert store.where() == FILE
    assert store.key_file == paths.data_dir() / "keys.json"
    assert store.save("  sk-file-kept-0001\n") == FILE
    assert json.loads(store.key_file.read_text(encoding="utf-8")) == {
        "version": 1,
        "keys": {"default": "sk-file-kept-0001"},
    }
    assert KeyStore().get() == SavedKey("sk-file-kept-0001", FILE)
    assert "sk-file" not in repr(KeyStore().get())


@posix_only
def test_the_key_file_is_0600_even_with_a_permissive_umask() -> None:
    old = os.umask(0)
    try:
        KeyStore().save("sk-file-kept-0002")
        KeyStore().save("sk-file-kept-0003", "work")  # rewritten: still 0600
    finally:
        os.umask(old)
    key_file = KeyStore().key_file
    assert mode_of(key_file) == 0o600
    assert not [p for p in key_file.parent.iterdir() if p.name.startswith(".keys.json.")], "no temp file left"


@posix_only
def test_a_key_file_others_can_read_is_not_used_and_saving_again_repairs_it(caplog: pytest.LogCaptureFixture) -> None:
    store = KeyStore()
    store.save("sk-file-kept-0004")
    store.key_file.chmod(0o644)
    caplog.set_level(logging.WARNING, logger="okbot.llm")
    assert store.get() is None
    assert "other users can read that file" in store.problem and "chmod 600" in store.problem
    assert str(store.key_file) in store.problem and "sk-file" not in caplog.text
    assert store.save("sk-file-kept-0005") == FILE
    assert mode_of(store.key_file) == 0o600
    assert store.get() == SavedKey("sk-file-kept-0005", FILE) and store.problem == ""


def test_keys_are_kept_per_provider_and_can_be_deleted() -> None:
    store = KeyStore()
    store.save("sk-default-key-0006")
    store.save("sk-work-key-0007", "work")
    assert store.get("work") == SavedKey("sk-work-key-0007", FILE)
    assert store.get() == SavedKey("sk-default-key-0006", FILE)
    assert store.get("home") is None
    store.delete("work")
    assert store.get("work") is None and store.get() is not None


def test_a_damaged_key_file_is_reported_and_replaced_by_the_next_save() -> None:
    store = KeyStore()
    paths.ensure_private_dir(store.key_file.parent)
    fd = os.open(store.key_file, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"{not json")
    os.close(fd)
    assert store.get() is None and "damaged" in store.problem
    store.save("sk-after-damage-0008")
    assert store.get() == SavedKey("sk-after-damage-0008", FILE)


def test_a_newer_key_file_is_neither_read_nor_written_over() -> None:
    store = KeyStore()
    store.save("sk-ours-0009")
    newer = {"version": 2, "keys": {"default": "sk-newer-0010"}}
    fd = os.open(store.key_file, os.O_WRONLY | os.O_TRUNC)
    os.write(fd, json.dumps(newer).encode())
    os.close(fd)
    assert store.get() is None and "newer OkBot" in store.problem
    with pytest.raises(KeyStoreError, match="newer OkBot"):
        store.save("sk-ours-0011")
    assert json.loads(store.key_file.read_text(encoding="utf-8")) == newer


def test_an_empty_key_is_not_saved() -> None:
    with pytest.raises(KeyStoreError):
        KeyStore().save("   ")
    assert not KeyStore().key_file.exists()


# ---------------------------------------------------------------------- with a keyring


def test_with_a_keyring_keys_go_there_and_never_to_a_file() -> None:
    with system_keyring(MemoryKeyring()) as backend:
        store = KeyStore()
        assert store.where() == KEYRING
        assert store.save("sk-in-keyring-0012") == KEYRING
        assert store.save("sk-in-keyring-0013", "work") == KEYRING
        assert backend.saved == {
            ("okbot", "api-key"): "sk-in-keyring-0012",
            ("okbot", "api-key:work"): "sk-in-keyring-0013",
        }
        assert store.get() == SavedKey("sk-in-keyring-0012", KEYRING)
    assert not store.key_file.exists()


def test_the_keyring_comes_first_and_saving_there_removes_the_file_copy() -> None:
    store = KeyStore()
    store.save("sk-from-before-0014")  # saved while there was no keyring
    with system_keyring(MemoryKeyring()) as backend:
        assert store.get() == SavedKey("sk-from-before-0014", FILE)  # still found
        backend.saved[("okbot", "api-key")] = "sk-keyring-0015"
        assert store.get() == SavedKey("sk-keyring-0015", KEYRING)
        store.save("sk-keyring-0016")
    assert json.loads(store.key_file.read_text(encoding="utf-8"))["keys"] == {}


def test_a_null_keyring_counts_as_none() -> None:
    from keyring.backends import null

    with system_keyring(null.Keyring()):
        assert KeyStore().where() == FILE


# ---------------------------------------------------------------------- never leaks


def test_every_saved_or_found_key_is_redacted_from_logs_and_crash_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keys, "_remembered", set())
    KeyStore().save("plainkey-without-prefix-0017")
    assert keys.scrub("token plainkey-without-prefix-0017 here") == "token [redacted] here"
    monkeypatch.setattr(keys, "_remembered", set())  # a new process: the key is only found
    assert KeyStore().get() is not None
    assert keys.scrub("plainkey-without-prefix-0017") == "[redacted]"


@pytest.mark.skipif(sys.platform == "win32", reason="no O_NOFOLLOW")
def test_a_symlinked_key_file_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"version": 1, "keys": {"default": "sk-planted-0018"}}))
    elsewhere.chmod(0o600)
    store = KeyStore()
    paths.ensure_private_dir(store.key_file.parent)
    store.key_file.symlink_to(elsewhere)
    assert store.get() is None and "could not read" in store.problem


# ---------------------------------------------------------------------- hostile key files and keys


def plant_key_file(data: bytes) -> Path:
    """``data`` as the key file, mode 0600 (as OkBot writes it)."""
    key_file = KeyStore().key_file
    paths.ensure_private_dir(key_file.parent)
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, data)
    os.close(fd)
    return key_file


def test_a_key_file_nested_100000_deep_is_damaged_and_replaced_by_the_next_save() -> None:
    key_file = plant_key_file(b'{"version": 1, "keys": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    store = KeyStore()
    assert store.get() is None
    assert "damaged" in store.problem and str(key_file) in store.problem
    assert store.save("sk-after-deep-0019") == FILE
    assert store.get() == SavedKey("sk-after-deep-0019", FILE)


def test_a_key_file_a_few_levels_too_deep_is_damaged() -> None:
    plant_key_file(json.dumps({"version": 1, "keys": {"default": "sk-ok-00200", "x": [[[[]]]]}}).encode())
    store = KeyStore()
    assert store.get() is None and "damaged" in store.problem


def test_a_key_file_larger_than_the_bound_is_refused_unread() -> None:
    big = json.dumps({"version": 1, "keys": {"default": "sk-" + "a" * (2 * 1024 * 1024)}}).encode()
    key_file = plant_key_file(big)
    store = KeyStore()
    assert store.get() is None
    assert "larger than 1024 KiB" in store.problem and str(key_file) in store.problem


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_place_of_the_key_file_is_refused_without_waiting_for_a_writer() -> None:
    key_file = KeyStore().key_file
    paths.ensure_private_dir(key_file.parent)
    os.mkfifo(key_file, 0o600)
    found: dict[str, object] = {}
    done = threading.Event()

    def look() -> None:
        store = KeyStore()
        found["key"], found["problem"] = store.get(), store.problem
        done.set()

    threading.Thread(target=look, daemon=True).start()
    # refused at once; the bound only matters when it hangs (then the FIFO is fed to let the thread go)
    if not done.wait(60):
        with open(key_file, "wb") as fh:
            fh.write(b"{}")
        pytest.fail("reading the key file waited on the FIFO")
    assert found["key"] is None
    assert "not a regular file" in str(found["problem"]) and str(key_file) in str(found["problem"])
    assert stat.S_ISFIFO(os.lstat(key_file).st_mode), "the FIFO is left where it is"


UNSENDABLE = {
    "latin-1": "sk-abcdef\u00e9ghij",
    "cjk": "sk-abcdef\u4e2dghij",
    "crlf": "sk-abcdef\r\nX-Injected: 1",
    "lf": "sk-abcdef\nghijkl",
    "control": "sk-abcdef\x01ghij",
    "del": "sk-abcdef\x7fghij",
    "space": "sk-abcdef ghijkl",
    "too long": "sk-" + "a" * 9000,
}


@pytest.mark.parametrize("key", list(UNSENDABLE.values()), ids=list(UNSENDABLE))
def test_a_key_no_http_header_can_carry_is_not_saved_in_the_file(key: str) -> None:
    with pytest.raises(KeyStoreError) as caught:
        KeyStore().save(key, "work")
    assert "work" in caught.value.message and str(KeyStore().key_file) in caught.value.message
    assert key.strip() not in caught.value.message and "ghij" not in caught.value.message
    assert not KeyStore().key_file.exists()


@pytest.mark.parametrize("key", list(UNSENDABLE.values()), ids=list(UNSENDABLE))
def test_a_key_no_http_header_can_carry_is_not_used_from_the_file(key: str, caplog: pytest.LogCaptureFixture) -> None:
    key_file = plant_key_file(json.dumps({"version": 1, "keys": {"work": key}}).encode())
    caplog.set_level(logging.WARNING, logger="okbot.llm")
    store = KeyStore()
    assert store.get("work") is None
    assert "work" in store.problem and str(key_file) in store.problem and "Save it again" in store.problem
    assert "ghij" not in store.problem and "ghij" not in caplog.text


def test_a_key_no_http_header_can_carry_is_refused_by_the_keyring_path_too() -> None:
    with system_keyring(MemoryKeyring()) as backend:
        store = KeyStore()
        with pytest.raises(KeyStoreError, match="system keyring"):
            store.save(UNSENDABLE["crlf"])
        assert backend.saved == {}
        backend.saved[("okbot", "api-key")] = UNSENDABLE["latin-1"]
        assert store.get() is None and "system keyring" in store.problem and "default" in store.problem


def test_other_secrets_under_a_namespaced_name_are_kept_as_they_are() -> None:
    value = json.dumps({"env": {}, "headers": {"Authorization": "Bearer tok en\u00e9"}})
    assert KeyStore().save(value, "mcp:gh") == FILE
    assert KeyStore().get("mcp:gh") == SavedKey(value, FILE)
