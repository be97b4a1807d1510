"""``okbot provider windows`` and ``okbot provider forget-window``: what servers taught, and the way back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from okbot.config.settings import Settings
from okbot.core.learnt_windows import LearntWindows
from okbot.storage import paths


def run(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OKBOT_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    return subprocess.run(
        [sys.executable, "-m", "okbot", *argv], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_list_and_forget_a_learnt_window(okbot_home: Path) -> None:
    settings = Settings.load()
    settings.set("provider.baseUrl", "http://127.0.0.1:9/v1")
    settings.set("provider.keySource", "none")
    LearntWindows(paths.learnt_windows_file()).learn("http://127.0.0.1:9/v1", "qwen-local", 4096, prompt_tokens=5000)
    listed = run(okbot_home, "provider", "windows")
    assert listed.returncode == 0, listed.stderr
    assert "default" in listed.stdout and "qwen-local" in listed.stdout and "4,096" in listed.stdout
    rows = json.loads(run(okbot_home, "provider", "windows", "--json").stdout)
    assert rows[0]["provider"] == "default" and rows[0]["window"] == 4096 and rows[0]["model"] == "qwen-local"
    forgot = run(okbot_home, "provider", "forget-window", "qwen-local")
    assert forgot.returncode == 0 and "qwen-local" in forgot.stdout
    assert LearntWindows(paths.learnt_windows_file()).entries() == []
    again = run(okbot_home, "provider", "forget-window", "qwen-local")
    assert again.returncode == 1 and "qwen-local" in again.stderr
    assert run(okbot_home, "provider", "windows", "--json").stdout.strip() == "[]"
