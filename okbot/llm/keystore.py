"""Saved API keys: the system keyring when it works, else a file in the data dir only the user can read.

Keys are addressed by provider name (:data:`DEFAULT_PROVIDER` for the default one). An API key must be
able to travel in an HTTP header (:func:`okbot.llm.keys.key_fault`): one that cannot is refused when
saved and not used when found. Other secrets are kept under a namespaced name (``mcp:<server>``, which no
provider name can be) and are opaque here.

* **Keyring** (first, whenever ``keyring`` has a real backend): service ``okbot``, user ``api-key``
  for the default provider and ``api-key:<name>`` for another.
* **Key file** (only when there is no usable keyring, and the UI says so before saving):
  ``keys.json`` in the data dir, ``{"version": 1, "keys": {"<provider>": "<key>"}}``, mode 0600
  from the moment it exists (written through a temp file created with ``O_EXCL`` and mode 0600,
  then renamed over the old one). It is read only when it is a regular file (never through a symlink,
  never waiting on a FIFO), of at most 1 MiB, two levels deep. It is not encrypted: it is as safe as
  the user's account. A key file that other users could read is not used (:attr:`KeyStore.problem`
  says why and how to fix it); saving a key again rewrites it with mode 0600.

Every key read or saved is registered for redaction (:func:`okbot.llm.keys.remember_secret`), so it
never reaches a log line or a crash report. Every method may block (a keyring unlock prompt, D-Bus):
call them off the GUI thread.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okbot.i18n import translate
from okbot.llm.keys import key_fault, remember_secret
from okbot.storage import jsontext, paths
from okbot.storage.atomic import atomic_write_bytes
from okbot.storage.errors import OkBotError
from okbot.storage.jsontext import JSONTextError

log = logging.getLogger("okbot.llm")

DEFAULT_PROVIDER = "default"
KEYRING_SERVICE = "okbot"
KEYRING_USER = "api-key"
KEY_FILE_NAME = "keys.json"
KEY_FILE_VERSION = 1
KEYRING = "keyring"
FILE = "file"
# {"version": 1, "keys": {"<provider>": "<key>"}} is two levels deep; a few hundred keys fit in a KiB or two
KEY_FILE_DEPTH = 2
MAX_KEY_FILE_BYTES = 1024 * 1024
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO in the key file's place must not hang the read

# Heavy third-party imports (keyring here, the openai SDK in the Settings helpers) happen on pool
# threads; two threads importing them at once has been seen to fail with ImportError, so they are
# taken one at a time under this lock (okbot.app.provider_setup uses it too).
IMPORT_LOCK = threading.RLock()


class KeyStoreError(OkBotError):
    """A key could not be saved or read (the keyring refused it, the key file cannot be used)."""


class NewerKeyFile(KeyStoreError):
    """The key file was written by a newer OkBot: it is neither read nor written over."""


@dataclass(frozen=True)
class SavedKey:
    """A key found in the store and where it was kept (:data:`KEYRING` or :data:`FILE`)."""

    key: str = field(repr=False)
    where: str


def keyring_user(provider: str) -> str:
    """The keyring user name a provider's key is kept under."""
    return KEYRING_USER if provider == DEFAULT_PROVIDER else f"{KEYRING_USER}:{provider}"


def system_keyring() -> Any | None:
    """The keyring module when it has a real backend (not ``fail`` nor ``null``), else None."""
    with IMPORT_LOCK:
        try:
            import keyring
            from keyring.backends import fail, null
        except ImportError:
            return None
        except Exception as exc:  # a broken install must not take OkBot down
            log.warning("keyring could not be loaded (%s); not using it", type(exc).__name__)
            return None
        try:
            backend = keyring.get_keyring()
        except Exception as exc:
            log.warning("no usable keyring backend (%s)", type(exc).__name__)
            return None
    if isinstance(backend, (fail.Keyring, null.Keyring)):
        return None
    return keyring


def _api_key_fault(value: str, name: str) -> str | None:
    """:func:`~okbot.llm.keys.key_fault` for a provider's API key; None for the other secrets kept here,
    under a namespaced name (``mcp:<server>``, a JSON object), which no provider name can be."""
    return None if ":" in name else key_fault(value)


class KeyStore:
    """Save and find API keys by provider name: the system keyring first, else the 0600 key file.

    ``key_file`` defaults to ``keys.json`` in the data dir. :attr:`problem` holds, after a lookup,
    why a key file was not used ("" when nothing was wrong).
    """

    def __init__(self, key_file: Path | None = None) -> None:
        self._key_file = key_file
        self.problem = ""

    @property
    def key_file(self) -> Path:
        """Where keys are kept when there is no system keyring."""
        return self._key_file if self._key_file is not None else paths.data_dir() / KEY_FILE_NAME

    def where(self) -> str:
        """Where :meth:`save` would keep a key now: :data:`KEYRING` or :data:`FILE`."""
        return KEYRING if system_keyring() is not None else FILE

    def get(self, provider: str = DEFAULT_PROVIDER) -> SavedKey | None:
        """The saved key of ``provider`` (keyring first, then the key file), or None.

        A key that cannot be used (an unreadable key file, a key no HTTP header can carry) is None too,
        with :attr:`problem` saying why."""
        self.problem = ""
        module = system_keyring()
        if module is not None:
            try:
                value = module.get_password(KEYRING_SERVICE, keyring_user(provider))
            except Exception as exc:
                log.warning("could not read the API key from the keyring (%s)", type(exc).__name__)
                value = None
            if isinstance(value, str) and value.strip():
                return self._found(value.strip(), provider, KEYRING)
        try:
            value = self._read_file(check_mode=True).get(provider)
        except KeyStoreError as exc:
            return self._unusable(exc)
        if isinstance(value, str) and value.strip():
            return self._found(value.strip(), provider, FILE)
        return None

    def _found(self, key: str, provider: str, where: str) -> SavedKey | None:
        remember_secret(key)
        fault = _api_key_fault(key, provider)
        if fault is None:
            return SavedKey(key, where)
        text = translate(
            "keystore", "The API key saved for provider {provider} in {where} cannot be used: {fault}. Save it again."
        )
        return self._unusable(KeyStoreError(text.format(provider=provider, where=self.place(where), fault=fault)))

    def _unusable(self, exc: KeyStoreError) -> None:
        self.problem = exc.message
        log.warning("%s", exc.message)

    def place(self, where: str) -> str:
        """:data:`KEYRING` or :data:`FILE` in words: "the system keyring", or the key file's path."""
        return translate("keystore", "the system keyring") if where == KEYRING else str(self.key_file)

    def save(self, key: str, provider: str = DEFAULT_PROVIDER) -> str:
        """Keep ``key`` for ``provider``; returns where (:data:`KEYRING` or :data:`FILE`).

        With a usable keyring the key goes there (and any copy in the key file is removed); a keyring
        that refuses raises :class:`KeyStoreError` rather than falling back to the file unannounced.
        """
        key = key.strip()
        if not key:
            raise KeyStoreError(translate("keystore", "There is no key to save."))
        remember_secret(key)
        module = system_keyring()
        fault = _api_key_fault(key, provider)
        if fault is not None:
            text = translate("keystore", "The API key for provider {provider} was not saved in {where}: {fault}.")
            where = self.place(FILE if module is None else KEYRING)
            raise KeyStoreError(text.format(provider=provider, where=where, fault=fault))
        if module is None:
            self._write_entry(provider, key)
            log.info("API key for %s saved in %s (mode 0600)", provider, self.key_file)
            return FILE
        try:
            module.set_password(KEYRING_SERVICE, keyring_user(provider), key)
        except Exception as exc:
            raise KeyStoreError(
                translate("keystore", "The system keyring did not accept the key ({error}); nothing was saved.").format(
                    error=type(exc).__name__
                )
            ) from None
        if self._file_has(provider):
            self._write_entry(provider, None)
        log.info("API key for %s saved in the system keyring", provider)
        return KEYRING

    def delete(self, provider: str = DEFAULT_PROVIDER) -> None:
        """Forget ``provider``'s key, in the keyring and in the key file."""
        module = system_keyring()
        if module is not None:
            try:
                module.delete_password(KEYRING_SERVICE, keyring_user(provider))
            except Exception as exc:  # not there, or the keyring refused: the file still goes
                log.info("keyring delete for %s: %s", provider, type(exc).__name__)
        if self._file_has(provider):
            self._write_entry(provider, None)

    # ------------------------------------------------------------------ the key file
    def _file_has(self, provider: str) -> bool:
        try:
            return provider in self._read_file(check_mode=False)
        except KeyStoreError:
            return False

    def _read_file(self, *, check_mode: bool) -> dict[str, str]:
        """The ``keys`` of the key file ({} when there is none); raises KeyStoreError when it cannot be used."""
        path = self.key_file
        raw = self._read_bytes(path, check_mode=check_mode)
        if raw is None:
            return {}
        damaged = translate("keystore", "OkBot's key file {path} is damaged; save the key again.").format(path=path)
        try:
            data = jsontext.loads(raw, what=str(path), max_depth=KEY_FILE_DEPTH)
        except JSONTextError:
            raise KeyStoreError(damaged) from None
        if not isinstance(data, dict) or not isinstance(data.get("keys"), dict):
            raise KeyStoreError(damaged)
        version = data.get("version")
        if not isinstance(version, int) or version > KEY_FILE_VERSION:
            raise NewerKeyFile(
                translate(
                    "keystore", "The key file {path} was written by a newer OkBot; this one leaves it alone."
                ).format(path=path)
            )
        return {name: value for name, value in data["keys"].items() if isinstance(value, str)}

    @staticmethod
    def _read_bytes(path: Path, *, check_mode: bool) -> bytes | None:
        """The key file's bytes (None when there is none): never through a symlink, never waiting on a FIFO
        or a device, never more than :data:`MAX_KEY_FILE_BYTES`."""
        try:
            fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise KeyStoreError(
                translate("keystore", "OkBot could not read its key file {path}: {error}").format(
                    path=path, error=exc.strerror or exc
                )
            ) from None
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise KeyStoreError(
                    translate(
                        "keystore", "OkBot did not read its key file {path}: it is not a regular file ({kind})."
                    ).format(path=path, kind=stat.filemode(mode))
                )
            if check_mode and os.name == "posix" and mode & 0o077:
                raise KeyStoreError(
                    translate(
                        "keystore",
                        "OkBot did not use the key in {path}: other users can read that file "
                        "(mode {mode}). Run “chmod 600 {path}”, or save the key again.",
                    ).format(path=path, mode=stat.filemode(mode))
                )
            raw = fh.read(MAX_KEY_FILE_BYTES + 1)
        if len(raw) > MAX_KEY_FILE_BYTES:
            raise KeyStoreError(
                translate(
                    "keystore",
                    "OkBot did not read its key file {path}: it is larger than {size} KiB; save the key again.",
                ).format(path=path, size=MAX_KEY_FILE_BYTES // 1024)
            )
        return raw

    def _write_entry(self, provider: str, key: str | None) -> None:
        """Set (or with ``key`` None remove) one provider's key, rewriting the file atomically with mode 0600."""
        path = self.key_file
        try:
            keys = self._read_file(check_mode=False)
        except NewerKeyFile:
            raise
        except KeyStoreError:
            keys = {}  # a damaged file is replaced
        if key is None:
            keys.pop(provider, None)
        else:
            keys[provider] = key
        text = json.dumps({"version": KEY_FILE_VERSION, "keys": keys}, ensure_ascii=False, indent=2) + "\n"
        try:
            atomic_write_bytes(path, text.encode("utf-8"))  # temp file made by mkstemp: O_EXCL, mode 0600
        except OSError as exc:
            raise KeyStoreError(
                translate("keystore", "OkBot could not write its key file {path}: {error}").format(
                    path=path, error=exc.strerror or exc
                )
            ) from None
