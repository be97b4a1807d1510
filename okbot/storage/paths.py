"""Every path OkBot reads or writes goes through this module.

The data dir comes from platformdirs, overridden by ``OKBOT_HOME``. Shipped resources
(templates, model facts, style sheets) are found through :func:`resources_dir`, which works
from a source checkout, an installed wheel and a PyInstaller bundle alike.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "okbot"
HOME_ENV = "OKBOT_HOME"


def data_dir() -> Path:
    """The user's data dir (created on first use, private on POSIX)."""
    override = os.environ.get(HOME_ENV, "").strip()
    if override:
        path = Path(override).expanduser()
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    ensure_private_dir(path)
    return path


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` and every missing parent with mode 0700 (existing folders are left as they are)."""
    path = Path(path)
    if path.is_dir():
        return path
    missing = []
    for folder in (path, *path.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            if not folder.is_dir():
                raise
    return path


def settings_file() -> Path:
    return data_dir() / "settings.json"


def calibration_file() -> Path:
    return data_dir() / "calibration.json"


def learnt_windows_file() -> Path:
    """The context windows servers stated when they refused a request (see ``okbot.core.learnt_windows``)."""
    return data_dir() / "windows.json"


def mcp_tools_file() -> Path:
    """The tool lists MCP servers last offered (so the tools offered stay the same across restarts)."""
    return data_dir() / "mcp-tools.json"


def assistants_dir() -> Path:
    return data_dir() / "assistants"


def squads_dir() -> Path:
    return data_dir() / "squads"


def trash_dir() -> Path:
    return data_dir() / "trash"


def global_memory_dir() -> Path:
    return data_dir() / "memory"


def log_dir() -> Path:
    return data_dir() / "logs"


def tiktoken_dir() -> Path:
    """User-provided tiktoken encoding files (``o200k_base.tiktoken`` …)."""
    return data_dir() / "tiktoken"


def resources_dir() -> Path:
    """Directory of shipped resources (``resources/`` in the repo, ``okbot/resources`` installed)."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "okbot" / "resources"
    import importlib.resources

    try:
        return Path(str(importlib.resources.files("okbot.resources")))
    except ModuleNotFoundError:  # running from a source checkout that was never installed
        return Path(__file__).resolve().parents[2] / "resources"


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def search_index_file() -> Path:
    """The full-text index over every session (``index/search.sqlite``), rebuilt from the records if lost."""
    return data_dir() / "index" / "search.sqlite"
