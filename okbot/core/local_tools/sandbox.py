"""Where ``run_shell`` commands run: a Linux namespace in which OkBot's own files are not there.

Approving a command lets it do what the user can; the denylist only catches some destructive
spellings and cannot be complete. So on Linux, where an unprivileged process may make a user
namespace, the command runs in a new user + mount + pid namespace (``unshare`` from util-linux):

* every protected folder (:func:`okbot.core.local_tools.guard.protected_roots`: the data dir, the
  config dir, the tokenizer and keyring files) has an empty read-only tmpfs mounted over it, so the
  records, settings and keys can be neither read nor removed, whatever the command is spelled like;
* the assistant's workspace, which may lie inside the data dir, is bound back in and stays writable;
* the session D-Bus socket (:func:`session_bus`) is masked with ``/dev/null``: through it the keyring
  daemon hands out OkBot's key to whoever asks. A bus on an abstract socket (no file) cannot be
  masked this way; current desktops use a socket file;
* the command gets a ``/proc`` of its own pid namespace, so no other process's root, working
  folder or environment (``/proc/<pid>/root/…``) leads back to the hidden files.

Nothing of this leaves the namespace (its mounts are private) and the namespace ends with the
command: its first process is the watcher, and when it ends the kernel ends every process in it.
:func:`detect` tries it once (a real run of the same mounts); where it cannot be made (macOS,
Windows, a kernel or security policy without unprivileged user namespaces, no ``unshare``) it
returns None and the command runs as the user, which the tool's note and the approval card say.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 10  # detect() runs when the tool is first offered or run: never hang there long
SANDBOX_FAILED = "sandbox"  # what the prologue writes on the status pipe when a mount failed

# Runs first in the namespace, as its process 1, and then becomes the watcher (exec).
# Arguments: cwd, workspace, the mount steps, "--", then what it execs once they are made: the
# watcher in a nested user + mount namespace. There the mounts above are locked: the command is
# root of its namespaces, and without that it could simply unmount them. Its stdout is
# the command's output pipe and its stderr the status pipe: a failed step says why on the first and
# SANDBOX_FAILED on the second, and nothing runs. fd 3 holds the workspace from before it was
# hidden (to bind it back); it is closed before the command starts, since ".." from it would lead
# to the hidden folder's real content.
_PROLOGUE = f"""okbot_fail() {{
  printf 'run_shell: the sandbox could not be set up (%s); nothing was run\\n' "$1"
  echo {SANDBOX_FAILED} >&2
  exit 125
}}
okbot_cwd=$1 okbot_ws=$2
shift 2
mount -t proc proc /proc 2>&1 || okbot_fail "a /proc of its own"
exec 3<"$okbot_ws" || okbot_fail "open $okbot_ws"
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
  okbot_path=${{1#*:}}
  case $1 in
    hide:*) [ ! -d "$okbot_path" ] || mount -t tmpfs -o ro,mode=0755 okbot-hidden "$okbot_path" 2>&1 \\
      || okbot_fail "hide $okbot_path";;
    cover:*) mount -t tmpfs -o mode=0755 okbot-hidden "$okbot_path" 2>&1 || okbot_fail "hide $okbot_path";;
    keep:*) mkdir -p "$okbot_path" && mount --no-canonicalize --bind /proc/self/fd/3 "$okbot_path" 2>&1 \\
      || okbot_fail "keep $okbot_path";;
    seal:*) mount -o remount,ro,bind "$okbot_path" 2>&1 || okbot_fail "seal $okbot_path";;
    mask:*) [ ! -e "$okbot_path" ] || [ -d "$okbot_path" ] || mount --bind /dev/null "$okbot_path" 2>&1 \\
      || okbot_fail "mask $okbot_path";;
  esac
  shift
done
shift
exec 3<&-
cd -- "$okbot_cwd" 2>&1 || okbot_fail "cd $okbot_cwd"
unset okbot_cwd okbot_ws okbot_path
shopt -s execfail
exec "$@"
okbot_fail "lock its mounts"
"""


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def session_bus(env: Mapping[str, str]) -> list[Path]:
    """The socket files of the session D-Bus ``env`` names (its address, and ``$XDG_RUNTIME_DIR/bus``)."""
    found = []
    for part in env.get("DBUS_SESSION_BUS_ADDRESS", "").split(";"):
        transport, _, options = part.partition(":")
        for option in options.split(",") if transport == "unix" else ():
            key, _, value = option.partition("=")
            if key == "path" and value:
                found.append(Path(unquote(value)))
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime:
        found.append(Path(runtime) / "bus")
    return found


def mount_steps(hidden: Sequence[Path], workspace: Path, masked: Sequence[Path] = ()) -> list[str]:
    """The prologue's steps: hide each folder of ``hidden`` and each file of ``masked``, keeping ``workspace``.

    The outermost folder holding the workspace is covered, the workspace bound back in and the cover
    made read-only; every other folder gets a read-only cover (outer ones first; one already hidden
    is skipped in the namespace, where it is no longer there); a masked file gets ``/dev/null``.
    """
    roots = sorted({Path(os.path.realpath(p)) for p in hidden if os.path.isdir(p)}, key=lambda p: len(p.parts))
    ws = Path(os.path.realpath(workspace))
    holding = [root for root in roots if _under(ws, root) and root != ws]
    steps = []
    if holding:
        top = holding[0]
        steps = [f"cover:{top}", f"keep:{ws}", f"seal:{top}"]
    steps += [f"hide:{root}" for root in roots if root not in holding]
    return steps + [f"mask:{path}" for path in masked]


@dataclass(frozen=True)
class Sandbox:
    """A way into the namespace that :func:`detect` found working: ``unshare``, and the command's user there.

    The mounts are made as root of the outer user namespace (the only user that may make them);
    ``mapping`` gives the command back the user's own ids in the nested one (util-linux 2.38's
    ``--map-user``), or leaves it root there where that option is missing.
    """

    unshare: str
    mapping: tuple[str, ...] = ("--map-root-user",)

    def command(
        self,
        script: str,
        args: Sequence[str],
        *,
        cwd: Path,
        workspace: Path,
        hidden: Sequence[Path],
        masked: Sequence[Path] = (),
    ) -> list[str]:
        """The argv running bash ``script`` (``$0``, then ``args``) in the namespace, in ``cwd``.

        ``hidden`` folders and ``masked`` files are not there for it; ``workspace`` is, writable.
        """
        steps = mount_steps(hidden, workspace, masked)
        name = args[0]
        outer = [self.unshare, "--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child", "--"]
        inner = [self.unshare, "--user", *self.mapping, "--mount", "--", "bash", "-c", script, *args]
        return [*outer, "bash", "-c", _PROLOGUE, name, str(cwd), str(workspace), *steps, "--", *inner]


_PROBE_SCRIPT = """cd / && ! umount -l "$1" 2>/dev/null && ! umount -l "$2" 2>/dev/null
[ ! -e "$1/secret" ] && [ ! -e "$1/other/secret" ] && [ ! -s "$2" ] && : > "$1/workspace/written"
"""


def _works(sandbox: Sandbox) -> bool:
    """Whether ``sandbox`` makes the real mounts: secrets hidden, a file masked, workspace writable, all locked."""
    with tempfile.TemporaryDirectory(prefix="okbot-sandbox-probe-") as tmp:
        bus = Path(tmp) / "bus"
        bus.write_text("x")
        root = Path(tmp) / "data"
        (root / "workspace").mkdir(parents=True)
        (root / "other").mkdir()
        (root / "secret").write_text("x")
        (root / "other" / "secret").write_text("x")
        workspace = root / "workspace"
        argv = sandbox.command(
            _PROBE_SCRIPT,
            ["okbot-sandbox-probe", str(root), str(bus)],
            cwd=workspace,
            workspace=workspace,
            hidden=[root, root / "other"],
            masked=[bus],
        )
        try:
            done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            log.info("run_shell sandbox: %s cannot run: %s", sandbox.unshare, exc)
            return False
        if done.returncode != 0 or not (root / "workspace" / "written").exists():
            log.info(
                "run_shell sandbox unavailable (%s): %s",
                " ".join(sandbox.mapping),
                done.stdout[-300:] + done.stderr[-300:],
            )
            return False
        return True


@functools.cache
def detect() -> Sandbox | None:
    """The sandbox this system can make, or None (then a command can reach everything the user can)."""
    unshare = shutil.which("unshare") if sys.platform.startswith("linux") else None
    if unshare is None or shutil.which("mount") is None:
        return None
    own_ids = (f"--map-user={os.getuid()}", f"--map-group={os.getgid()}")
    for mapping in (own_ids, ("--map-root-user",)):
        candidate = Sandbox(unshare, mapping)
        if _works(candidate):
            return candidate
    return None
