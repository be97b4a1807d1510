"""The file tools: ``read_file``, ``list_dir``, ``write_file`` and ``edit_file``.

Paths go through :mod:`okbot.core.local_tools.guard` (workspace, protected paths, approval for
anything outside). Files and folders are opened through :mod:`okbot.core.local_tools.safe_open`,
so no symlink swapped into the path after the check is followed, and a file that is a hard link to
protected data is refused. Output is bounded and says so when cut; reads are streamed so a huge
file is never loaded whole; writes are atomic (the old file or the new one, never a mix) and keep
the file's permissions. Bad arguments get a message the model can act on, never an exception.
"""

from __future__ import annotations

import codecs
import difflib
import os
import re
import stat
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from okbot.core.local_tools import safe_open
from okbot.core.local_tools.guard import PathCheck, allowed, check_path, protected, protected_link, workspace_dir
from okbot.core.local_tools.safe_open import Folder, PathChanged
from okbot.core.tools import Tool, ToolContext, ToolOutcome

SNIFF_BYTES = 8 * 1024  # read_file: binary detection window
READ_MAX_BYTES = 200 * 1024
READ_MAX_LINES = 2000
COUNT_MAX_BYTES = 16 * 1024 * 1024  # past the shown lines, count the rest only when it is this small
SKIP_BLOCK = 1024 * 1024
LIST_MAX_ENTRIES = 500
LIST_MAX_DEPTH = 5
LIST_SCAN_LIMIT = 20_000  # names read from one directory (then it is listed unsorted-complete)
WRITE_MAX_BYTES = 1024 * 1024
EDIT_MAX_BYTES = 5 * 1024 * 1024
DIFF_MAX_CHARS = 4000
DIFF_CONTEXT = 3
MAX_MATCH_LINES = 20

NUL = b"\x00"
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


class _ArgError(ValueError):
    """A bad argument; the message is for the model."""


# -- arguments (each problem is an _ArgError whose text tells the model what to send) -------------
def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _str_arg(args: dict[str, Any], key: str, default: str | None = None, *, path: bool = False) -> str:
    value = args.get(key, default)
    if value is None:
        raise _ArgError(f"'{key}' is missing" + (" (relative to the workspace or absolute)" if path else ""))
    if not isinstance(value, str):
        raise _ArgError(f"'{key}' must be a string, not {_kind(value)}")
    if path and (not value.strip() or "\x00" in value):
        raise _ArgError(f"'{key}' is empty" if not value.strip() else f"'{key}' contains a NUL byte")
    return value


def _int_arg(args: dict[str, Any], key: str, default: int | None, lo: int, hi: int | None = None) -> int | None:
    value = args.get(key, default)
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or int(value) != value:
        raise _ArgError(f"'{key}' must be a whole number, not {value!r}"[:200])
    if value < lo or (hi is not None and value > hi):
        raise _ArgError(f"'{key}' must be " + (f"between {lo} and {hi}" if hi else f"at least {lo}") + f", not {value}")
    return int(value)


def _bool_arg(args: dict[str, Any], key: str, default: bool) -> bool:
    value = args.get(key, default)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool | None):
        raise _ArgError(f"'{key}' must be true or false, not {value!r}"[:200])
    return default if value is None else value


# -- shared helpers ----------------------------------------------------------------------------
def _fail(text: str) -> ToolOutcome:
    return ToolOutcome(text, ok=False)


def _show(path: Path, ctx: ToolContext) -> str:
    """``path`` relative to the workspace when inside it, else absolute."""
    ws = Path(os.path.realpath(workspace_dir(ctx.target)))
    try:
        rel = path.relative_to(ws)
    except ValueError:
        return str(path)
    return rel.as_posix() if rel.parts else "."


def _cancelled(ctx: ToolContext) -> bool:
    return bool(getattr(getattr(ctx.runtime, "cancel", None), "cancelled", False))


def _gate(ctx: ToolContext, tool: str, args: dict[str, Any], raw: str) -> tuple[PathCheck, str]:
    """The judged path and ``""``, or the refusal text."""
    check = check_path(ctx.target, raw)
    return check, allowed(ctx, tool, args, check)


def _size(n: float) -> str:
    units = ["B", "KB", "MB", "GB"]
    while n >= 1024 and len(units) > 1:
        n, units = n / 1024, units[1:]
    return f"{n:.0f} B" if units[0] == "B" else f"{n:.1f} {units[0]}"


def _missing(folder: Folder, name: str, shown: str) -> str:
    """'no such file' with close names from the same directory, when there are any."""
    hint = ""
    try:
        close = difflib.get_close_matches(name, folder.names(LIST_SCAN_LIMIT), n=3, cutoff=0.6)
        if close:
            hint = " Did you mean: " + ", ".join(close) + "?"
    except OSError:
        pass
    return f"No such file: {shown}.{hint} Use list_dir to see what is there."


def _os_error(tool: str, shown: str, exc: OSError) -> ToolOutcome:
    return _fail(f"{tool}: cannot use {shown}: {exc.strerror or exc.__class__.__name__}.")


def _swapped(tool: str, shown: str, exc: PathChanged) -> str:
    return (
        f"{tool} refused: {shown} changed while it was being opened — {exc.strerror}. "
        "Nothing was read or written there; a folder on the path was replaced by a symlink."
    )


def _hard_link(tool: str, shown: str, reason: str) -> str:
    return f"{tool} refused: {shown} is a hard link: {reason}."


def _open_folder(path: Path, shown: str, tool: str) -> tuple[Folder | None, str]:
    """The folder holding ``path``, reached without following any symlink, or (None, problem)."""
    try:
        return safe_open.open_folder(path.parent), ""
    except PathChanged as exc:
        return None, _swapped(tool, shown, exc)
    except (FileNotFoundError, NotADirectoryError):
        return None, f"No such file: {shown} (its folder does not exist either). Use list_dir to see what is there."
    except OSError as exc:
        return None, f"{tool}: cannot open {shown}: {exc.strerror or exc.__class__.__name__}."


def _open_regular(folder: Folder, path: Path, shown: str, tool: str) -> tuple[BinaryIO, os.stat_result] | str:
    """(file, its stat) for a regular file in ``folder``, else the problem. Never blocks on a FIFO; never
    follows a symlink; refuses a hard link to protected data (checked on the file actually opened)."""
    if not path.name:  # the root folder
        return f"{shown} is a directory; use list_dir to see what is in it."
    try:
        fd, st = folder.open_read(path.name)
    except PathChanged as exc:
        return _swapped(tool, shown, exc)
    except FileNotFoundError:
        return _missing(folder, path.name, shown)
    except OSError as exc:
        return f"{tool}: cannot open {shown}: {exc.strerror or exc.__class__.__name__}."
    if stat.S_ISREG(st.st_mode):
        link = protected_link(st)
        if not link:
            return os.fdopen(fd, "rb"), st
        os.close(fd)
        return _hard_link(tool, shown, link)
    os.close(fd)
    if stat.S_ISDIR(st.st_mode):
        return f"{shown} is a directory; use list_dir to see what is in it."
    return f"{tool} refused: {shown} is not a regular file (a device, pipe or socket)."


def _looks_binary(head: bytes) -> str:
    """Why ``head`` (the first bytes of a file) is not UTF-8 text, or ``""``."""
    if b"\x00" in head:
        return f"it contains NUL bytes (first at byte {head.index(NUL):,})"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError as exc:
        return f"it is not UTF-8 text (bad byte at offset {exc.start:,})"
    return ""


# -- read_file ---------------------------------------------------------------------------------
def _skip_lines(fh: BinaryIO, count: int, ctx: ToolContext) -> int:
    """Move past ``count`` lines in blocks; returns how many were skipped (fewer at end of file)."""
    skipped = 0
    while skipped < count:
        if _cancelled(ctx):
            raise InterruptedError
        block = fh.read(SKIP_BLOCK)
        if not block:
            break
        newlines = block.count(b"\n")
        if skipped + newlines < count:
            skipped += newlines
            continue
        at = -1
        for _ in range(count - skipped):
            at = block.index(b"\n", at + 1)
        fh.seek(at + 1 - len(block), os.SEEK_CUR)
        return count
    return skipped


def _count_rest(fh: BinaryIO, ctx: ToolContext) -> tuple[int, bool]:
    """(newlines in the rest of the file, whether the rest ends without a newline)."""
    newlines, last = 0, b"\n"
    while True:
        if _cancelled(ctx):
            raise InterruptedError
        block = fh.read(SKIP_BLOCK)
        if not block:
            return newlines, last != b"\n"
        newlines += block.count(b"\n")
        last = block[-1:]


def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Return a window of a text file: at most 2,000 lines / 200 KB, with a note of where and how big."""
    try:
        raw = _str_arg(args, "path", path=True)
        start = _int_arg(args, "start_line", 1, 1)
        end = _int_arg(args, "end_line", None, 1)
    except _ArgError as exc:
        return _fail(f"read_file: {exc}.")
    start = start or 1
    if end is not None and end < start:
        return _fail(f"read_file: end_line ({end}) is before start_line ({start}).")
    check, refusal = _gate(ctx, "read_file", args, raw)
    if refusal:
        return _fail(refusal)
    shown = _show(check.path, ctx)
    folder, problem = _open_folder(check.path, shown, "read_file")
    if folder is None:
        return _fail(problem)
    with folder:
        opened = _open_regular(folder, check.path, shown, "read_file")
    if isinstance(opened, str):
        return _fail(opened)
    fh, st = opened
    with fh:
        try:
            return _read_window(fh, st.st_size, shown, start, end, ctx)
        except InterruptedError:
            return _fail("read_file was stopped by the user.")
        except OSError as exc:
            return _os_error("read_file", shown, exc)


class _Window(NamedTuple):
    """The lines :func:`_take_lines` read, and why it stopped where it did."""

    chunks: list[bytes]  # the raw lines (the last one may be cut)
    line_no: int  # number of the last line taken (whole or cut)
    cut: str  # "" (end of file or of the range), "bytes" (the output cap) or "midline" (a line cut at it)
    nul_at: int  # the line with NUL bytes reading stopped before, or 0


def _read_window(fh: BinaryIO, size: int, shown: str, start: int, end: int | None, ctx: ToolContext) -> ToolOutcome:
    """read_file's answer for lines ``start``..``end`` (None: as many as fit) of ``fh``, a ``size``-byte file."""
    if size == 0:
        return ToolOutcome(f"{shown} is empty (0 bytes).")
    why = _looks_binary(fh.read(SNIFF_BYTES))
    if why:
        return _fail(
            f"read_file refused: {shown} looks binary — {why}; file is {size:,} bytes. "
            "read_file reads UTF-8 text only; inspect binary files with run_shell (e.g. `file`, `xxd | head`)."
        )
    fh.seek(0)
    skipped = _skip_lines(fh, start - 1, ctx)
    if skipped < start - 1:
        return _fail(f"read_file: start_line {start} is past the end of {shown}: it has {skipped:,} lines.")
    last_wanted = end if end is not None else start + READ_MAX_LINES - 1
    last_allowed = min(last_wanted, start + READ_MAX_LINES - 1)
    window = _take_lines(fh, start - 1, last_allowed)
    line_no = window.line_no
    if line_no < start:
        if window.nul_at:
            return _fail(f"read_file: line {start:,} of {shown} contains NUL bytes (binary data); nothing to show.")
        return _fail(f"read_file: start_line {start:,} is past the end of {shown}: it has {line_no:,} lines.")
    rest_bytes = size - fh.tell()
    total = _total_lines(fh, window, rest_bytes, ctx)
    partial = window.cut == "midline"
    text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(b"".join(window.chunks), final=not partial)
    more_wanted = line_no == last_allowed and (end is None or last_allowed < last_wanted)
    notes = _read_notes(window, rest_bytes, more_wanted)
    header = f"{shown} (lines {start:,}–{line_no:,} of {total}; file is {size:,} bytes)"
    body = text if text.endswith("\n") or not text else text + "\n"
    footer = "".join(f"[{n}]\n" for n in notes)
    return ToolOutcome(f"{header}\n{body}{footer}".rstrip("\n"))


def _take_lines(fh: BinaryIO, line_no: int, last_allowed: int) -> _Window:
    """Read whole lines after line ``line_no`` up to ``last_allowed``, within READ_MAX_BYTES; stop before a
    line with NUL bytes. A line longer than the room left is cut (and the file left just past the cut)."""
    chunks: list[bytes] = []
    used, cut, nul_at = 0, "", 0
    while line_no < last_allowed:
        room = READ_MAX_BYTES - used
        if room <= 0:
            cut = "bytes"
            break
        line = fh.readline(room)
        if not line:
            break
        if b"\x00" in line:
            nul_at = line_no + 1
            break
        chunks.append(line)
        used += len(line)
        if not line.endswith(b"\n"):
            more = fh.read(1)
            if more:  # the line goes on past the byte cap
                fh.seek(-1, os.SEEK_CUR)
                cut = "midline"
                line_no += 1
                break
        line_no += 1
    return _Window(chunks, line_no, cut, nul_at)


def _total_lines(fh: BinaryIO, window: _Window, rest_bytes: int, ctx: ToolContext) -> str:
    """How many lines the file has, as shown in the header: counted from where reading stopped when the
    rest is small enough (and not binary), else "more than N"."""
    line_no = window.line_no
    if window.nul_at or rest_bytes > COUNT_MAX_BYTES:
        return f"more than {line_no:,}" if rest_bytes > 0 else f"{line_no:,}"
    partial = 1 if window.cut == "midline" else 0
    newlines, tail = _count_rest(fh, ctx)
    return f"{line_no - partial + newlines + (1 if tail else 0):,}"


def _read_notes(window: _Window, rest_bytes: int, more_wanted: bool) -> list[str]:
    """The notes under the lines: why reading stopped short, and where to go on from.

    ``more_wanted``: the last line read is the last allowed, and the model asked for more (or named no end).
    """
    if window.nul_at:
        return [f"stopped before line {window.nul_at:,}: it contains NUL bytes (binary data from there on)"]
    if window.cut == "midline":
        return [f"line {window.line_no:,} is cut at the {READ_MAX_BYTES // 1024} KB output cap"]
    if rest_bytes > 0 and (window.cut or more_wanted):
        cap = f"output capped at {READ_MAX_LINES:,} lines / {READ_MAX_BYTES // 1024} KB"
        return [f"{cap}; continue with start_line={window.line_no + 1}"]
    return []


# -- list_dir ----------------------------------------------------------------------------------
def _entry_line(folder: Folder, name: str, rel: str) -> tuple[str, bool]:
    """One listing line, and whether it is a real directory (not a link) to descend into."""
    try:
        st = folder.lstat(name)
        if st is None:
            return f"{rel}  ? (removed while listing)", False
        if stat.S_ISLNK(st.st_mode):
            try:
                target = folder.readlink(name)
            except OSError:
                target = "?"
            return f"{rel}  link -> {target}", False
        if stat.S_ISDIR(st.st_mode):
            return f"{rel}/  dir", True
        if stat.S_ISREG(st.st_mode):
            return f"{rel}  file  {_size(st.st_size)}", False
        return f"{rel}  other", False
    except OSError as exc:
        return f"{rel}  ? ({exc.strerror or exc.__class__.__name__})", False


def _scan(folder: Folder) -> tuple[list[str], bool]:
    """Sorted names in one directory (at most LIST_SCAN_LIMIT), and whether there were more."""
    names = folder.names(LIST_SCAN_LIMIT + 1)
    return sorted(names[:LIST_SCAN_LIMIT]), len(names) > LIST_SCAN_LIMIT


def list_dir(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """List a directory (and below, up to ``depth``): name, type and size, sorted, at most 500 entries."""
    try:
        raw = _str_arg(args, "path", ".", path=True)
        depth = _int_arg(args, "depth", 1, 1, LIST_MAX_DEPTH) or 1
    except _ArgError as exc:
        return _fail(f"list_dir: {exc}.")
    check, refusal = _gate(ctx, "list_dir", args, raw)
    if refusal:
        return _fail(refusal)
    shown = _show(check.path, ctx)
    top = _open_listed(check.path, shown)
    if isinstance(top, ToolOutcome):
        return top
    listing = _Listing(ctx, shown, depth)
    try:
        with top:
            complete = listing.walk(top, "", 1)
    except InterruptedError:
        return _fail("list_dir was stopped by the user.")
    return ToolOutcome(listing.report(complete))


def _open_listed(path: Path, shown: str) -> Folder | ToolOutcome:
    """The folder ``path`` itself, reached without following any symlink, or the failure to answer with."""
    try:
        return safe_open.open_folder(path)
    except PathChanged as exc:
        return _fail(_swapped("list_dir", shown, exc))
    except FileNotFoundError:
        return _fail(f"No such directory: {shown}.")
    except NotADirectoryError:
        return _fail(f"{shown} is not a directory; use read_file to read it.")
    except OSError as exc:
        return _os_error("list_dir", shown, exc)


class _Listing:
    """One list_dir run: the lines and notes so far, walked folder by folder down to ``depth``."""

    def __init__(self, ctx: ToolContext, shown: str, depth: int) -> None:
        self.ctx, self.shown, self.depth = ctx, shown, depth
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.first_level = 0  # entries read from the top folder

    def walk(self, folder: Folder, prefix: str, level: int) -> bool:
        """Add lines for ``folder`` (at ``level``, 1 for the top); False once the entry cap is reached."""
        if _cancelled(self.ctx):
            raise InterruptedError
        try:
            names, more = _scan(folder)
        except OSError as exc:
            self.lines.append(f"{prefix or '.'}  (cannot list: {exc.strerror or exc.__class__.__name__})")
            return True
        if more:
            self.notes.append(
                f"{prefix or self.shown} has more than {LIST_SCAN_LIMIT:,} entries; only that many were read"
            )
        if level == 1:
            self.first_level = len(names)
        for name in names:
            if len(self.lines) >= LIST_MAX_ENTRIES:
                return False
            if not self._entry(folder, name, prefix, level):
                return False
        return True

    def _entry(self, folder: Folder, name: str, prefix: str, level: int) -> bool:
        """Add the line for ``name`` in ``folder``, and below it when it is a directory to descend into;
        False once the entry cap is reached."""
        rel = f"{prefix}{name}"
        line, is_dir = _entry_line(folder, name, rel)
        if is_dir and level < self.depth and protected(folder.path / name):
            line += "  (protected: not listed)"
            is_dir = False
        self.lines.append(line)
        if not is_dir or level >= self.depth:
            return True
        try:
            child = folder.child(name)  # never a symlink swapped in since the line above
        except OSError as exc:
            self.lines.append(f"{rel}/  (cannot list: {exc.strerror or exc.__class__.__name__})")
            return True
        with child:
            return self.walk(child, rel + "/", level + 1)

    def report(self, complete: bool) -> str:
        """The answer: a header, the lines, then the notes (with why the listing stopped, when it did)."""
        lines, notes = self.lines, list(self.notes)
        if not complete and self.depth == 1:
            notes.append(f"showing {LIST_MAX_ENTRIES} of {self.first_level:,} entries")
        elif not complete:
            notes.append(f"listing stopped at {LIST_MAX_ENTRIES} entries; list a subfolder or use a lower depth")
        count = f"{len(lines)} entr{'y' if len(lines) == 1 else 'ies'}"
        header = f"{self.shown}/ ({count}, depth {self.depth})" if lines else f"{self.shown}/ is empty."
        return "\n".join([header, *lines, *(f"[{n}]" for n in notes)])


# -- write_file / edit_file --------------------------------------------------------------------
def _encode(content: str, key: str, cap: int) -> bytes:
    if len(content) > cap:  # every character is at least one byte: too big before encoding it
        raise _ArgError(f"{key} is {len(content):,} characters; at most {cap:,} bytes can be written")
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _ArgError(f"{key} has a character UTF-8 cannot encode at position {exc.start}") from exc
    if len(data) > cap:
        raise _ArgError(f"{key} is {len(data):,} bytes; at most {cap:,} bytes can be written")
    return data


def _replaceable(old: os.stat_result | None, shown: str) -> str:
    """Why the existing ``old`` (None: nothing there yet) must not be replaced by write_file, or ``""``."""
    if old is None:
        return ""
    if stat.S_ISDIR(old.st_mode):
        return f"write_file refused: {shown} is a directory; give a file path inside it."
    if stat.S_ISLNK(old.st_mode):
        return f"write_file refused: {shown} changed while it was being opened — it is now a symlink."
    if not stat.S_ISREG(old.st_mode):
        return f"write_file refused: {shown} is not a regular file (a device, pipe or socket)."
    link = protected_link(old)
    return _hard_link("write_file", shown, link) if link else ""


def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Create or replace a text file atomically (at most 1 MB); optionally create its folders."""
    try:
        raw = _str_arg(args, "path", path=True)
        content = _str_arg(args, "content")
        create_dirs = _bool_arg(args, "create_dirs", True)
        data = _encode(content, "content", WRITE_MAX_BYTES)
    except _ArgError as exc:
        return _fail(f"write_file: {exc}.")
    check, refusal = _gate(ctx, "write_file", args, raw)
    if refusal:
        return _fail(refusal)
    path, shown = check.path, _show(check.path, ctx)
    try:
        folder = safe_open.open_folder(path.parent, create=create_dirs)
    except PathChanged as exc:
        return _fail(_swapped("write_file", shown, exc))
    except FileNotFoundError:
        return _fail(f"write_file: the folder {_show(path.parent, ctx)} does not exist (create_dirs is false).")
    except NotADirectoryError:
        return _fail(f"write_file: {_show(path.parent, ctx)} is not a folder (it, or a folder above it, is a file).")
    except OSError as exc:
        return _os_error("write_file", shown, exc)
    with folder:
        try:
            old = folder.lstat(path.name) if path.name else os.stat(path)
            problem = _replaceable(old, shown)
            if problem:
                return _fail(problem)
            folder.replace(path.name, data, stat.S_IMODE(old.st_mode) if old else safe_open.NEW_FILE_MODE)
        except OSError as exc:
            return _os_error("write_file", shown, exc)
    lines = content.count("\n") + (0 if not content or content.endswith("\n") else 1)
    what = f"replaced the old {old.st_size:,} bytes" if old is not None else "new file"
    return ToolOutcome(f"Wrote {len(data):,} bytes ({lines:,} lines) to {shown} ({what}).")


def _closest(text: str, old: str) -> str:
    """' The closest line is N: `…`.' for the first non-blank line of ``old``, or ``""``."""
    probe = next((ln.strip() for ln in old.splitlines() if ln.strip()), "")
    if not probe:
        return ""
    lines = text.splitlines()
    stripped = [ln.strip() for ln in lines]
    best = difflib.get_close_matches(probe, stripped, n=1, cutoff=0.6)
    if not best:
        return ""
    number = stripped.index(best[0]) + 1
    same = " (same text, different whitespace or line endings)" if best[0] == probe else ""
    return f" The closest line is {number}{same}: `{lines[number - 1].strip()[:200]}`."


def _diff(before: str, after: str, pos: int, old_len: int, new_len: int, shown: str) -> str:
    """A unified diff of just the changed region with a few lines of context, capped."""
    first = before.count("\n", 0, pos)
    lo = max(0, first - DIFF_CONTEXT)
    old_end = before.count("\n", 0, pos + old_len) + 1 + DIFF_CONTEXT
    new_end = after.count("\n", 0, pos + new_len) + 1 + DIFF_CONTEXT
    a = before.splitlines()[lo:old_end]
    b = after.splitlines()[lo:new_end]
    out: list[str] = []
    for line in difflib.unified_diff(a, b, f"a/{shown}", f"b/{shown}", n=DIFF_CONTEXT, lineterm=""):
        m = _HUNK.match(line)
        if m:
            line = f"@@ -{int(m[1]) + lo}{m[2] or ''} +{int(m[3]) + lo}{m[4] or ''} @@"
        out.append(line)
    text = "\n".join(out)
    if len(text) > DIFF_MAX_CHARS:
        text = text[:DIFF_MAX_CHARS] + f"\n[diff cut at {DIFF_MAX_CHARS:,} of {len(text):,} characters]"
    return text


def _edit_only(problem: str) -> str:
    """``problem``, plus where to go instead when the file is missing."""
    more = " edit_file changes existing files; use write_file to create one." if problem.startswith("No ") else ""
    return problem + more


def _edit_target(folder: Folder, path: Path, shown: str) -> tuple[str, os.stat_result | None, str]:
    """The file's text and stat, or ``("", None, problem)``."""
    opened = _open_regular(folder, path, shown, "edit_file")
    if isinstance(opened, str):
        return "", None, _edit_only(opened)
    fh, st = opened
    with fh:
        if st.st_size > EDIT_MAX_BYTES:
            too_big = f"{st.st_size:,} bytes (at most {EDIT_MAX_BYTES:,})"
            return "", None, f"edit_file refused: {shown} is {too_big}; use run_shell."
        data = fh.read(EDIT_MAX_BYTES + 1)
    if NUL in data:
        return "", None, f"edit_file refused: {shown} looks binary (it contains NUL bytes)."
    try:
        return data.decode("utf-8"), st, ""
    except UnicodeDecodeError as exc:
        return "", None, f"edit_file refused: {shown} is not UTF-8 text (bad byte at offset {exc.start:,})."


def edit_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    """Replace exactly one occurrence of ``old`` with ``new``; refuse when there are none or several."""
    try:
        raw = _str_arg(args, "path", path=True)
        old = _str_arg(args, "old")
        new = _str_arg(args, "new")
        _encode(new, "new", EDIT_MAX_BYTES)
    except _ArgError as exc:
        return _fail(f"edit_file: {exc}.")
    if not old:
        return _fail("edit_file: 'old' is empty; give the exact text to replace (use write_file for a new file).")
    if old == new:
        return _fail("edit_file: 'old' and 'new' are the same; nothing to change.")
    check, refusal = _gate(ctx, "edit_file", args, raw)
    if refusal:
        return _fail(refusal)
    path, shown = check.path, _show(check.path, ctx)
    folder, problem = _open_folder(path, shown, "edit_file")
    if folder is None:
        return _fail(_edit_only(problem))
    with folder:  # read and replace in the same folder, whatever happens to its path meanwhile
        try:
            text, st, problem = _edit_target(folder, path, shown)
            if st is None:
                return _fail(problem)
            pos = text.find(old)
            if pos < 0 and "\r\n" in text and "\r" not in old:  # the model wrote \n; the file uses \r\n
                crlf_old = old.replace("\n", "\r\n")
                if (pos := text.find(crlf_old)) >= 0:
                    old, new = crlf_old, new.replace("\r\n", "\n").replace("\n", "\r\n")
            if pos < 0:
                return _fail(f"edit_file: 'old' was not found in {shown} (exact match needed).{_closest(text, old)}")
            if text.find(old, pos + 1) >= 0:  # overlapping matches count too: "aa" in "aaa" is ambiguous
                return _fail(_ambiguous(text, old, pos, shown))
            after = text[:pos] + new + text[pos + len(old) :]
            data = _encode(after, "the edited file", EDIT_MAX_BYTES)
            folder.replace(path.name, data, stat.S_IMODE(st.st_mode))
        except _ArgError as exc:
            return _fail(f"edit_file: {exc}.")
        except OSError as exc:
            return _os_error("edit_file", shown, exc)
    removed, added = old.count("\n") + 1, new.count("\n") + 1 if new else 0
    head = f"Edited {shown}: replaced 1 match at line {text.count(chr(10), 0, pos) + 1} ({removed} line(s) -> {added})."
    return ToolOutcome(head + "\n" + _diff(text, after, pos, len(old), len(new), shown))


def _ambiguous(text: str, old: str, at: int, shown: str) -> str:
    numbers: list[str] = []
    while at >= 0 and len(numbers) < MAX_MATCH_LINES:
        numbers.append(str(text.count("\n", 0, at) + 1))
        at = text.find(old, at + 1)
    count = len(numbers) + (text.count(old, at) if at >= 0 else 0)
    more = f" and {count - len(numbers)} more" if count > len(numbers) else ""
    return (
        f"edit_file refused: 'old' matches {count} places in {shown} (lines {', '.join(numbers)}{more}); "
        "include more surrounding text so it matches exactly one."
    )


# -- the tools ---------------------------------------------------------------------------------
def _tool(name: str, note: str, run: Any, properties: dict[str, Any], required: list[str]) -> Tool:
    params = {"type": "object", "properties": properties, "required": required}
    return Tool(name=name, note=note, parameters=params, run=run, approval_key=f"tools.{name}.approval")


_PATH = {"type": "string", "description": "file path, relative to the workspace or absolute"}
_STR = {"type": "string"}

READ_FILE = _tool(
    "read_file",
    f"read a UTF-8 text file (at most {READ_MAX_LINES:,} lines / {READ_MAX_BYTES // 1024} KB per call; "
    "start_line/end_line for a window); paths are relative to your workspace",
    read_file,
    {
        "path": _PATH,
        "start_line": {"type": "integer", "minimum": 1, "description": "first line to show (1-based)"},
        "end_line": {"type": "integer", "minimum": 1, "description": "last line to show (inclusive)"},
    },
    ["path"],
)
LIST_DIR = _tool(
    "list_dir",
    f"list a folder: names, types and sizes, sorted (at most {LIST_MAX_ENTRIES} entries; depth 1–{LIST_MAX_DEPTH})",
    list_dir,
    {
        "path": {**_PATH, "description": "folder path, relative to the workspace or absolute", "default": "."},
        "depth": {"type": "integer", "minimum": 1, "maximum": LIST_MAX_DEPTH, "default": 1},
    },
    [],
)
WRITE_FILE = _tool(
    "write_file",
    f"create or replace a text file with the given content (atomic; at most {WRITE_MAX_BYTES // 1024} KB)",
    write_file,
    {
        "path": _PATH,
        "content": {**_STR, "description": "the whole new content of the file"},
        "create_dirs": {"type": "boolean", "default": True, "description": "create missing folders"},
    },
    ["path", "content"],
)
EDIT_FILE = _tool(
    "edit_file",
    "replace one exact occurrence of 'old' with 'new' in a text file (refused when 'old' matches "
    "zero or several places); shows a small diff",
    edit_file,
    {
        "path": _PATH,
        "old": {**_STR, "description": "the exact text to replace (must match exactly once)"},
        "new": {**_STR, "description": "the replacement text"},
    },
    ["path", "old", "new"],
)
FILE_TOOLS = (READ_FILE, LIST_DIR, WRITE_FILE, EDIT_FILE)
