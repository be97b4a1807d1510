"""The ``run_shell`` denylist: destructive command patterns refused before anything runs.

A guardrail against accidents, not a sandbox: it reads the command as words (``shlex``) cut into
statements and pipeline stages twice, once at every separator even inside quotes and once where bash
would cut it, and judges both readings; it does not expand anything the way bash does. A command
written to get past it will, and no list of spellings can be complete (``perl -e 'rmtree …'``,
``python -c 'shutil.rmtree(…)'``): it is a speed bump, not a boundary. The boundary is where the
command runs (:mod:`okbot.core.local_tools.sandbox`: OkBot's own files hidden) and the user's approval
of each command (``tools.run_shell.approval``); keeping secrets out of reach (the sandbox, a scrubbed
environment, the key out of OkBot's own environment) does not rest on it.

What it refuses: recursive removal of ``/``, a top-level folder, a home folder or everything here
(``rm``, ``find … -delete`` / ``-exec rm``); formatting, overwriting or ``dd``-ing a disk; shutting
the machine down; fork bombs; a download piped or substituted into a shell or an interpreter; and
reading another process's environment (``/proc/<pid>/environ``, ``ps e``) or memory. Words that run
the rest of the line (``sudo``, ``env``, ``timeout 10``, ``busybox`` …) are looked through, and a
command string given to ``sh -c``, ``su -c``, ``eval`` or ``env -S`` is judged in turn.
"""

from __future__ import annotations

import os
import re
import shlex

_STATEMENT = re.compile(r"\|\||&&|;|\n|(?<![<>&|])&(?![>&])|[(){}`]|\$\(")
_PIPE = re.compile(r"\|&?")
_BRACED_VAR = re.compile(r"\$\{#?(\w+)[^}]*\}")  # ${HOME:?}, ${HOME%/} … -> $HOME
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
MAX_DEPTH = 4  # sh -c "sh -c '…'" nesting judged

# Words that run the rest of the line as a command: their options that take a value, and how many
# plain words (a duration, a priority, a lock file) come before the command.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-r", "-t", "-U", "-D", "-R", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C"}),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k"}),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-d", "-a", "-E", "-s"}),
    "exec": frozenset({"-a"}),
    "time": frozenset({"-f", "-o"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "watch": frozenset({"-n", "-d"}),
    **dict.fromkeys(
        ("nohup", "command", "builtin", "setsid", "chrt", "taskset", "flock", "busybox", "toybox", "unbuffer"),
        frozenset(),
    ),
}
_LEADING_WORDS = {"timeout": 1, "chrt": 1, "taskset": 1, "flock": 1}

_HOME = r"(?:~[\w.-]*|\$HOME)"
# Everything, a top-level folder, a home folder (or all that is in them).
_WIDE_TARGET = re.compile(rf"^(?:/+\.?\*?|/+[^/]+/*\*?|/+(?:home|Users)/+[^/]+/*\*?|{_HOME}/*(?:\*|\.\*|\.)?)$")
# Everything here.
_HERE_TARGET = re.compile(r"^(?:\*|\.\*|(?:\.{1,2}/*)+\*?)$")
_BLOCK_DEVICE = r"/dev/(?:(?:sd|hd|vd|xvd)[a-z]|nvme\d|mmcblk\d|disk\d|dm-\d|loop\d|mapper/|md\d)"
_SAFE_DEVICES = re.compile(r"^/dev/(?:null|zero|stdout|stderr|tty|fd/\d+)$")

_FETCH = r"(?:curl|wget2?|fetch|aria2c)\b"
_RUNNER = r"(?:(?:ba|da|z|k|fi|c|tc)?sh|python[\d.]*|pypy[\d.]*|perl|ruby|node|nodejs|php|eval|source|\.)"
_RAW_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r":\s*\(\s*\)\s*\{"), "a fork bomb"),
    (re.compile(r"\b(\w+)\s*\(\s*\)\s*\{[^}]{0,200}?\b\1\s*\|\s*\1\b[^}]{0,200}&"), "a fork bomb"),
    (re.compile(rf"(?:^|[\s;&|(]){_RUNNER}(?:\s+-\S+)*\s+<?\s*<\(\s*{_FETCH}"), "running a download as a script"),
    (re.compile(rf"(?:^|[\s;&|(]){_RUNNER}(?:\s+-\S+)*\s+[\"']?\$\(\s*{_FETCH}"), "running a download as a script"),
    (re.compile(r">\s*" + _BLOCK_DEVICE), "writing to a disk device"),
    (re.compile(r"/proc/\S*/mem\b"), "reading a process's memory"),
)

_PROC = re.compile(r"/proc\b")
_ENVIRON = re.compile(r"\benviron\b")
_POWER_COMMANDS = {"shutdown", "reboot", "halt", "poweroff"}
_FORMAT_COMMANDS = {"mkfs", "mke2fs", "mkswap", "wipefs"}
_REMOVERS = {"rm", "shred", "unlink", "srm"}
# find tests that pick some files: with one, `find . … -delete` is a clean-up, not "delete all".
_FIND_FILTERS = tuple(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -newer -mtime -mmin "
    "-atime -amin -ctime -cmin -size -empty -user -group -uid -gid -nouser -nogroup -perm -links -inum "
    "-samefile".split()
)
_DOWNLOADERS = {"curl", "wget", "wget2", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET", "nc", "ncat"}
_SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh"}
# Interpreters, and the one-letter options after which they run a program given on the command line.
_INTERPRETERS = {
    **dict.fromkeys(_SHELLS, "c"),
    "python": "cm",
    "perl": "eE",
    "ruby": "e",
    "node": "ep",
    "php": "rf",
    "lua": "e",
}
_PS_VALUE_OPTIONS = {"-o", "-O", "-p", "-C", "-u", "-U", "-g", "-G", "-t", "-q", "-s", "-k", "-N"}


def denied(command: str, _depth: int = 0) -> str:
    """Why ``command`` is refused before it runs (a destructive pattern), or "" when it may run."""
    for pattern, reason in _RAW_RULES:
        if pattern.search(command):
            return reason
    proc = _PROC.search(command)
    if proc and _ENVIRON.search(command, proc.end()):  # /proc/$PPID/environ, cd /proc/1 && cat environ
        return "reading a process's environment"
    text = _BRACED_VAR.sub(r"$\1", command)
    for pipeline in _rough_pipelines(text) + _quoted_pipelines(text):
        reason = _pipeline_rule(pipeline, _depth)
        if reason:
            return reason
    return ""


def _rough_pipelines(text: str) -> list[list[list[str]]]:
    """Pipelines (lists of stages' words) cut at every separator, quoted or not.

    This reading sees ``"$(rm -rf ~)"`` inside quotes, but cuts a quoted ``sh -c "a && b"`` in two.
    """
    return [[_split(stage) for stage in _PIPE.split(statement)] for statement in _STATEMENT.split(text)]


def _quoted_pipelines(text: str) -> list[list[list[str]]]:
    """Pipelines cut where bash would (quotes respected), so ``sh -c "a && b"`` keeps its string whole."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: the rough reading is all there is
        return []
    pipelines: list[list[list[str]]] = []
    stages: list[list[str]] = []
    words: list[str] = []
    for token in tokens:
        if token in ("|", "|&"):
            stages.append(words)
            words = []
        elif set(token) <= set("();|&"):
            pipelines.append([*stages, words])
            stages, words = [], []
        elif not set(token) <= set("<>&"):  # a redirection operator is not a word
            words.append(token)
    pipelines.append([*stages, words])
    return pipelines


def _pipeline_rule(stages: list[list[str]], depth: int) -> str:
    downloading = listing_wide = False
    for stage in stages:
        words, wrappers = _unwrapped(stage)
        if not words:
            continue
        reason = _command_rule(words, depth)
        if reason:
            return reason
        name = _program(words[0])
        if downloading and _reads_program_from_stdin(name, words[1:]):
            return "piping a download into a shell or an interpreter"
        if listing_wide and "xargs" in wrappers and name in _REMOVERS:
            return "deleting files under /, a top-level folder or the home folder with find | xargs"
        downloading = downloading or name in _DOWNLOADERS
        if name == "find" and any(_WIDE_TARGET.match(start) for start in _find_starts(words[1:])[0]):
            listing_wide = True
    return ""


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:  # unbalanced quotes: judge the plain words
        return text.split()


def _unwrapped(words: list[str]) -> tuple[list[str], set[str]]:
    """The words of one command without what stands in front of it, and the wrappers that did.

    In front: ``VAR=x`` and wrappers with their options (``sudo -u me``, ``timeout 5``, ``env -i``).
    """
    words = list(words)
    wrappers: set[str] = set()
    while words:
        if _ASSIGNMENT.match(words[0]):
            words.pop(0)
            continue
        wrapper = os.path.basename(words[0])
        if wrapper not in _WRAPPERS:
            break
        wrappers.add(wrapper)
        words.pop(0)
        value_options, leading = _WRAPPERS[wrapper], _LEADING_WORDS.get(wrapper, 0)
        while words:
            word = words[0]
            if word == "--":
                words.pop(0)
                break
            if wrapper == "env" and word in ("-S", "--split-string") and len(words) > 1:
                words[:2] = _split(words[1])  # env -S 'rm -rf /': the string is the command
                break
            if word.startswith("-") and len(word) > 1:
                words.pop(0)
                if word in value_options and words:
                    words.pop(0)
            elif _ASSIGNMENT.match(word):
                words.pop(0)
            elif leading:
                words.pop(0)
                leading -= 1
            else:
                break
    return words, wrappers


def _program(word: str) -> str:
    """The program a command word names: ``/usr/bin/python3.12`` -> ``python``."""
    name = os.path.basename(word)
    for family in ("python", "pypy", "perl", "ruby", "php", "lua"):
        if name.startswith(family) and re.fullmatch(r"[\d.]*", name[len(family) :]):
            return "python" if family == "pypy" else family
    return "node" if name == "nodejs" else name


def _reads_program_from_stdin(name: str, args: list[str]) -> bool:
    """Whether interpreter ``name`` with ``args`` runs what comes on stdin (``bash``, ``python3 -``)."""
    program_options = _INTERPRETERS.get(name)
    if program_options is None:
        return False
    for index, word in enumerate(args):
        if word == "-":
            return True
        if word == "--":
            return index + 1 == len(args)
        if word.startswith("--"):
            if word in ("--eval", "--print", "--command"):
                return False
            continue
        if word.startswith("-"):
            letters = word[1:]
            if name in _SHELLS and "s" in letters:
                return True  # bash -s: the script is stdin, the words are its arguments
            if any(letter in program_options for letter in letters):
                return False
            continue
        return False  # a script file
    return True


def _recursive(flags: list[str]) -> bool:
    return any(f in ("--recursive", "-R", "-r") or (not f.startswith("--") and ("r" in f or "R" in f)) for f in flags)


def _command_rule(words: list[str], depth: int) -> str:
    """Why one command (its words, nothing in front) is denied, or ``""``: its own rules, then what it runs."""
    name = _program(words[0])
    args = words[1:]
    if name == "find":
        return _find_rule(args)
    reason = _file_rule(name, args) or _machine_rule(name, args) or _device_rule(name, args)
    if reason:
        return reason
    if name == "ps" and _ps_shows_environment(args):
        return "reading a process's environment"
    if depth < MAX_DEPTH:
        for nested in _command_strings(name, args):
            reason = denied(nested, depth + 1)
            if reason:
                return reason
    return ""


def _file_rule(name: str, args: list[str]) -> str:
    """Recursive ``rm`` of a wide or everything-here target, ``rm --no-preserve-root``, recursive ``chmod``
    / ``chown`` / ``chgrp`` of / or a top-level folder."""
    flags = [w for w in args if w.startswith("-") and w != "--"]
    operands = [w for w in args if not w.startswith("-")]
    if name == "rm" and _recursive(flags) and any(_WIDE_TARGET.match(w) or _HERE_TARGET.match(w) for w in operands):
        return "recursive removal of /, a top-level folder, the home folder or everything here"
    if name == "rm" and "--no-preserve-root" in flags:
        return "rm --no-preserve-root"
    if name in ("chmod", "chown", "chgrp") and _recursive(flags) and any(_WIDE_TARGET.match(w) for w in operands):
        return f"recursive {name} of / or a top-level folder"
    return ""


def _machine_rule(name: str, args: list[str]) -> str:
    """Formatting a file system, or shutting down / rebooting the machine."""
    operands = [w for w in args if not w.startswith("-")]
    if name in _FORMAT_COMMANDS or name.startswith(("mkfs.", "mke2fs.")):
        return "formatting a file system"
    if name in _POWER_COMMANDS or (name in ("init", "telinit") and operands[:1] in (["0"], ["6"])):
        return "shutting down or rebooting the machine"
    if name == "systemctl" and set(operands) & {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"}:
        return "shutting down or rebooting the machine"
    return ""


def _device_rule(name: str, args: list[str]) -> str:
    """Writing onto a disk device: ``dd of=/dev/…`` (not /dev/null and the like), ``tee /dev/sda``, …"""
    if name == "dd":
        for word in args:
            if word.startswith("of=/dev/") and not _SAFE_DEVICES.match(word[3:]):
                return "dd onto a device"
    operands = [w for w in args if not w.startswith("-")]
    if name in ("tee", "cp", "mv", "shred", "cat", "install") and any(re.match(_BLOCK_DEVICE, w) for w in operands):
        return "writing to a disk device"
    return ""


def _find_starts(args: list[str]) -> tuple[list[str], list[str]]:
    """``find``'s arguments split into its starting points and its expression."""
    while args and (args[0] in ("-H", "-L", "-P") or args[0].startswith("-O")):
        args = args[1:]
    index = 0
    while index < len(args) and not args[index].startswith("-") and args[index] not in ("(", "!", ")"):
        index += 1
    return args[:index], args[index:]


def _find_rule(args: list[str]) -> str:
    """``find`` that deletes under /, a top-level or home folder, or deletes everything here."""
    starts, args = _find_starts(args)
    deletes = "-delete" in args or any(
        word in ("-exec", "-execdir", "-ok", "-okdir") and _program(args[i + 1]) in _REMOVERS
        for i, word in enumerate(args[:-1])
    )
    if not deletes:
        return ""
    if any(_WIDE_TARGET.match(start) for start in starts):
        return "deleting files under /, a top-level folder or the home folder with find"
    filtered = any(word.startswith(_FIND_FILTERS) for word in args)
    if not filtered and (not starts or any(_HERE_TARGET.match(start) for start in starts)):
        return "deleting everything here with find"
    return ""


def _ps_shows_environment(args: list[str]) -> bool:
    """``ps e``, ``ps eww``, ``ps axe`` (BSD options) or ``ps -E`` (macOS) print each process's environment."""
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word.startswith("--"):
            skip = "=" not in word and word in ("--sort", "--pid", "--ppid", "--format", "--user", "--group")
        elif word.startswith("-"):
            if "E" in word[1:]:
                return True
            skip = word in _PS_VALUE_OPTIONS or word[-1] in "oOpCuUgGtqk"
        elif word.isalpha():
            if "e" in word:
                return True
            skip = word[-1] in "oOpUtkq"  # a BSD option taking a value: ps axo pid,comm
    return False


def _command_strings(name: str, args: list[str]) -> list[str]:
    """Command lines ``name`` runs from its arguments: ``sh -c CMD``, ``su -c CMD``, ``eval …``."""
    if name == "eval":
        return [" ".join(args)]
    if name in _SHELLS:
        for index, word in enumerate(args):
            if not word.startswith("-"):
                return []
            if not word.startswith("--") and "c" in word[1:]:
                return args[index + 1 : index + 2]
        return []
    strings = []
    for index, word in enumerate(args[:-1]):
        if name in ("su", "runuser") and word in ("-c", "--command"):
            strings.append(args[index + 1])
    return strings
