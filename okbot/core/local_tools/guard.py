"""Path rules shared by the local tools: the assistant's workspace, paths never touched, approval.

* Every path a tool gets is resolved (``~``, ``..`` and symlinks) before it is judged, so a link
  inside the workspace that points outside counts as outside.
* Some paths are never allowed, whatever the user approves: OkBot's own data dir (settings,
  sessions, memories …) except the assistants' workspace folders, OkBot's config and tiktoken
  files, the keyring's files, and ``/proc/*/environ`` / ``/proc/*/mem`` (they may hold the key).
* A file with more than one name (hard links) is protected when any of its names is: the tools
  check the file they opened (its device and inode) against the protected folders' files, since
  its path says nothing about the other names.
* A path outside the workspace needs the user's approval for that one call, even when the tool
  itself is allowed; with no running turn (nobody to ask) it is refused.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from okbot.core import tokens
from okbot.core.tools import ToolContext
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.storage import paths

log = logging.getLogger("okbot.tools")

WORKSPACE_KEY = "workspace"  # assistant.json: an absolute path overriding the default workspace
MAX_PATH_CHARS = 4096
LINK_SCAN_LIMIT = 100_000  # entries of the protected folders searched for a hard-linked file's other name
_FOLD_CASE = sys.platform in ("darwin", "win32")  # case-insensitive file systems by default
_PROC_SECRETS = {"environ", "mem", "kcore"}

DATA_REASON = "OkBot's own data (settings, sessions, memories); no tool may read or write it"
CONFIG_REASON = "OkBot's configuration; no tool may read or write it"
TIKTOKEN_REASON = "OkBot's tokenizer files; no tool may read or write them"
KEYRING_REASON = "the system keyring's files (they hold API keys); no tool may read or write them"
PROC_REASON = "a process's environment or memory (it may hold API keys); no tool may read it"


@dataclass(frozen=True)
class PathCheck:
    """A tool's path, judged: resolved, inside the workspace or not, and refused (with the reason) or not."""

    path: Path  # resolved (realpath: symlinks and .. resolved)
    inside: bool  # inside the workspace after resolution
    refused: str = ""  # non-empty: never allowed, the reason


def workspace_dir(target: Target) -> Path:
    """The assistant's workspace folder, created (0700) on first use.

    ``assistant.json`` ``"workspace"`` (an absolute path, ``~`` expanded) when set, else
    ``<assistant dir>/workspace`` (``<data dir>/assistants/<id>/workspace``).
    """
    path = target.dir / "workspace"
    custom = target.meta.get(WORKSPACE_KEY) if isinstance(target.meta, dict) else None
    if isinstance(custom, str) and custom.strip() and "\x00" not in custom:
        candidate = Path(custom.strip()).expanduser()
        if candidate.is_absolute():
            path = candidate
        else:
            log.warning("assistant %s: workspace %r is not an absolute path; using the default", target.id, custom)
    try:
        paths.ensure_private_dir(path)
    except OSError as exc:  # reported by the tool that then fails to use it
        log.warning("workspace %s cannot be created: %s", path, exc)
    return path


def check_path(target: Target, raw: Any, *, cwd: Path | None = None) -> PathCheck:
    """Judge ``raw`` (relative to ``cwd`` or the workspace, or absolute; ``~`` expanded). Never raises."""
    workspace = workspace_dir(target)
    if not isinstance(raw, str):
        return PathCheck(workspace, False, f"the path must be a string, not {_kind(raw)}")
    if not raw.strip():
        return PathCheck(workspace, False, "the path is empty")
    if "\x00" in raw:
        return PathCheck(workspace, False, "the path contains a NUL byte")
    if len(raw) > MAX_PATH_CHARS:
        return PathCheck(workspace, False, f"the path is {len(raw):,} characters long (at most {MAX_PATH_CHARS:,})")
    try:
        base = Path(cwd) if cwd is not None else workspace
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = base / path
        resolved = Path(os.path.realpath(path))
        ws_real = Path(os.path.realpath(workspace))
    except (OSError, ValueError, RuntimeError) as exc:
        return PathCheck(Path(raw), False, f"the path cannot be resolved ({exc})")
    return PathCheck(resolved, _under(resolved, ws_real), protected(resolved))


def protected(path: Path) -> str:
    """The reason when ``path`` (after resolving it) is one OkBot never lets a tool read or write, else ``""``."""
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError, RuntimeError):
        return "a path that cannot be resolved"
    parts = real.parts
    if len(parts) >= 3 and parts[1] == "proc" and parts[-1] in _PROC_SECRETS:
        return PROC_REASON
    try:
        data = Path(os.path.realpath(paths.data_dir()))
    except OSError:
        data = None
    if data is not None and _under(real, data) and not _in_default_workspace(real, data):
        return DATA_REASON
    for root, reason in _other_roots():
        if _under(real, root):
            return reason
    return ""


def protected_link(st: os.stat_result) -> str:
    """Why the opened file ``st`` describes is protected under another name (a hard link), else ``""``.

    Only a regular file with more than one link can be; its device and inode are looked for in the
    protected folders (links not followed, the assistants' workspaces skipped). When there are too
    many files there to search, the answer is a refusal too.
    """
    if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
        return ""
    budget = [LINK_SCAN_LIMIT]
    for root, reason in protected_roots():
        try:
            found = _find_inode(root, st.st_dev, st.st_ino, budget, skip_workspaces=reason == DATA_REASON)
        except _ScanLimit:
            return f"it has other names, and {root} holds too many files to make sure none is one ({reason})"
        if found is not None:
            return f"it is another name for {found} ({reason})"
    return ""


def protected_roots() -> list[tuple[Path, str]]:
    """The protected folders (resolved) with their reasons: the data dir first, then config, tokenizer and keyring.

    The data dir's assistants' workspaces are inside it but not protected; :func:`protected` knows that.
    """
    roots: list[tuple[Path, str]] = []
    try:
        roots.append((Path(os.path.realpath(paths.data_dir())), DATA_REASON))
    except OSError:
        pass
    return roots + _other_roots()


def allowed(ctx: ToolContext, tool_name: str, args: dict[str, Any], check: PathCheck) -> str:
    """``""`` when the call may go on, else the refusal text for the model.

    Inside the workspace: yes. Outside: only when ``ctx.runtime.approve`` says yes for this call
    (and the turn was not stopped meanwhile). Protected paths: never.
    """
    if check.refused:
        return f"{tool_name} refused: {check.path} — {check.refused}."
    if check.inside:
        return ""
    runtime = ctx.runtime
    approve = getattr(runtime, "approve", None)
    if approve is None:
        return (
            f"{tool_name} refused: {check.path} is outside the workspace ({workspace_dir(ctx.target)}) "
            "and nobody can approve it now. Work inside the workspace."
        )
    try:
        ok = bool(approve(tool_name, args, translate("guard", "outside the workspace: {path}").format(path=check.path)))
    except Exception as exc:  # an approval that broke is a no
        log.warning("approval for %s failed: %s", tool_name, exc)
        ok = False
    cancel = getattr(runtime, "cancel", None)
    if ok and getattr(cancel, "cancelled", False):
        return f"{tool_name} was not run: the user stopped the turn."
    if not ok:
        return (
            f"{tool_name} refused: the user did not approve access to {check.path} "
            f"(outside the workspace {workspace_dir(ctx.target)})."
        )
    return ""


# -- helpers -------------------------------------------------------------------------------------
def _key(path: Path) -> str:
    text = str(path)
    return text.casefold() if _FOLD_CASE else text


def _under(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or inside it (both already resolved)."""
    p, r = _key(path), _key(root)
    if p == r:
        return True
    return p.startswith(r if r.endswith(os.sep) else r + os.sep)


def _in_default_workspace(real: Path, data: Path) -> bool:
    """``<data>/assistants/<id>/workspace`` or below: the one part of the data dir tools may use."""
    rel = Path(os.path.relpath(real, data)).parts
    return len(rel) >= 3 and _key(Path(rel[0])) == "assistants" and _key(Path(rel[2])) == "workspace"


class _ScanLimit(Exception):
    """More than LINK_SCAN_LIMIT entries in the protected folders."""


def _find_inode(root: Path, dev: int, ino: int, budget: list[int], *, skip_workspaces: bool) -> Path | None:
    """The regular file under ``root`` that is inode ``ino`` of device ``dev``, or None.

    Each entry looked at costs one from ``budget``; :class:`_ScanLimit` when it runs out.
    """
    try:
        if os.stat(root, follow_symlinks=False).st_dev != dev:
            return None  # a hard link never crosses file systems
    except OSError:
        return None
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    budget[0] -= 1
                    if budget[0] < 0:
                        raise _ScanLimit
                    if entry.is_file(follow_symlinks=False) and entry.inode() == ino:
                        if os.stat(entry.path, follow_symlinks=False).st_dev == dev:
                            return Path(entry.path)
                    elif entry.is_dir(follow_symlinks=False):
                        if skip_workspaces and depth == 2 and _in_default_workspace(Path(entry.path), root):
                            continue  # the tools' own ground, not protected
                        stack.append((Path(entry.path), depth + 1))
        except OSError:
            continue
    return None


def _other_roots() -> list[tuple[Path, str]]:
    """Protected places outside the data dir: config, tokenizer files, keyring files."""
    roots: list[tuple[Path, str]] = []
    home = Path.home()
    xdg_data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    xdg_config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    try:
        import platformdirs

        roots.append((Path(platformdirs.user_config_dir(paths.APP_NAME, appauthor=False)), CONFIG_REASON))
    except Exception:  # platformdirs missing or broken: the XDG default still applies
        pass
    roots.append((xdg_config / paths.APP_NAME, CONFIG_REASON))
    for place in (tokens.tiktoken_override_dir(), tokens.tiktoken_cache_dir()):
        if place is not None:
            roots.append((place, TIKTOKEN_REASON))
    for place in (
        xdg_data / "python_keyring",
        xdg_config / "python_keyring",
        xdg_data / "keyrings",
        xdg_data / "kwalletd",
        home / "Library" / "Keychains",
        Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Microsoft" / "Credentials",
    ):
        roots.append((place, KEYRING_REASON))
    out: list[tuple[Path, str]] = []
    for root, reason in roots:
        try:
            out.append((Path(os.path.realpath(root.expanduser())), reason))
        except (OSError, ValueError, RuntimeError):
            continue
    return out


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
