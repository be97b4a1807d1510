"""Bring assistants, squads and chats over from the original (Electron) OkBot, read-only.

What the original keeps, read from its source (public repository ``shuzheng/okbot``; paths below are
in that repository, so a reader can check them):

- **Data dir**: ``~/.okbot`` on every OS (Linux, macOS and Windows alike), not Electron's userData:
  ``apps/desktop/electron/storage/FileStorage.ts`` constructor, ``root ?? path.join(os.homedir(),
  '.okbot')``; ``apps/desktop/electron/main.ts`` and ``cli.ts`` call ``new FileStorage()`` with no root.
- **Roster**: ``bots.json``, a JSON list of ``{id, name, description}`` (``BotRosterEntry`` in
  ``packages/shared/src/index.ts``); ids look like ``bot_yyyyMMdd_NNN`` (``storage/ids.ts``
  ``formatBotId``). Each assistant lives in ``~/.okbot/<botId>/`` (``FileStorage.botDir``) with
  ``bot.json`` (``BotConfig``: avatarKind, emoji, color, createdAt, updatedAt, onboardingComplete,
  optional ``providerId`` + ``modelId``, useGlobalSkills, enabledGlobalSkills), ``AGENTS.md`` (the
  whole system prompt: ``# 角色与目标`` role, user preferences, project notes; kept up by the app,
  ``finishBotOnboarding`` / ``syncAgentsMdProfile``), ``memory.md``, ``skills/<slug>/SKILL.md`` and
  ``resources/`` (generated media). The original has **no SOUL.md**: nothing in its storage reads or
  writes one; AGENTS.md is its persona. A SOUL.md found anyway is brought over too.
- **Memories**: ``memory.md`` per assistant and one global ``~/.okbot/memory.md``: comment lines
  starting with ``#``, then one JSON object per line ``{id, bot_id, memory, expires (ISO or null),
  pinned?}`` (``FileStorage.readMemoryFile`` / ``writeMemoryFile``; ``MemoryEntry`` in shared). Expired
  rows are skipped there, and here.
- **Skills**: ``skills/<slug>/SKILL.md`` with YAML front matter ``name`` / ``description`` then a body
  (``packages/agent/src/skills/parse.ts`` ``formatSkillMarkdown``; slugs start ``okbot-``). The same
  Agent Skills format as this app, so the folder is copied as it is; but the original also loads a
  SKILL.md without front matter (``parseSkillMarkdown``: the folder names it, its ``# title`` describes it),
  which this app's loader refuses, so such a file gets those two lines in front; so does one whose ``name``
  is not its folder's (the original's own ``formatSkillMarkdown`` writes ``okbot-Release Notes`` into
  ``okbot-release-notes/``), which this app's loader refuses as well. **Global skills** in
  ``~/.agents/skills/<slug>/`` that ``bot.json`` enables (``useGlobalSkills`` on, the slug in
  ``enabledGlobalSkills``) are copied into that assistant's ``skills/`` the same way; one not found there is
  named (:mod:`.skills`).
- **Squads**: ``squads.json``, a list of ``{id, name, description, members: [{botId, role}],
  providerId?, modelId?, createdAt, updatedAt}`` (``Squad`` / ``normalizeSquad`` in shared); ids
  ``squad_yyyyMMdd_NNN``; a squad's dir ``~/.okbot/<squadId>/`` holds its own session.jsonl and
  session-summary.json (no AGENTS.md, no skills). The captain is built in; its persona and playbook
  are global (``settings.json`` → ``squad.captainPersona`` / ``playbook``).
- **session.jsonl**, two versions (``storage/sessionJsonl.ts``, ``storage/types.ts``):
  v2, the current one, one envelope per line ``{v: 2, id, createdAt, item, meta?}``, where ``item`` is an
  OpenAI Agents SDK ``AgentInputItem`` (``{type: 'message', role: 'user'|'assistant'|'system', content:
  str | [{type: 'input_text'|'output_text', text}]}``, ``{type: 'function_call', callId, name,
  arguments}``, ``{type: 'function_call_result', callId, name, output}``, ``reasoning`` and the hosted/
  computer tool kinds listed in ``packages/agent/src/contextBudget.ts``) and ``meta`` holds
  ``uiRole``, ``speakerBotId`` (squads: a member's bot id, or ``__captain__``), ``usage {input, output,
  cache}``, attachments, quotes, a trace and a runId. The legacy version is a plain ``ChatMessage`` per line
  ``{id, role, content, createdAt, speakerBotId?, usage?, ...}`` (``isLegacyChatMessage``), which the
  original rewrites to v2 on first read (``ensureSessionV2``); both are read here. Ids are strings
  (``evt_…`` or message ids).
- **session-summary.json**: ``{summary, coveredThroughId, updatedAt}`` (``SessionSummary`` in shared;
  ``FileStorage.readSessionSummary``): prose (目标/约定/路径/未完成/其他), and the id of the last
  record folded into it. When that id is not in the file the original treats the whole file as unsummarized.
- **Versions of this layout**: besides the two session line formats above, the layout is the same in the
  earlier ``FileStorage.ts`` read at commit ``1732c500`` (same dirs and files; memory rows there have no
  ``pinned``; one ``pending-hitl.json`` per owner instead of ``pending-hitl/<requestId>.json``).
- **Also there, not imported**: ``resources/`` (generated media), ``schedules.json`` (timed wakeups),
  ``pending-hitl*`` (approvals waiting when it closed), ``last-run-trace`` files, ``usage.json``,
  ``window.json``; the report names the first two when an owner has them.
- **settings.json**: ``model.providers[] {id, name, baseURL, apiKey, apiFormat, models[{id,
  contextWindow, …}]}``, ``defaultProviderId``, ``defaultModelId``, ``language``, ``theme``, ``mcp``,
  ``contextCompression``, tools, … (``AppSettings`` in shared). API keys live there in plain text.

How it maps here:

- Assistant: ``Workspace.create_assistant`` with the roster name; the roster ``description`` becomes the
  role line (the original shows it as the assistant's one-line introduction); ``bot.json`` ``modelId``
  becomes ``model`` (its provider is not carried: providers are global settings here).
  **AGENTS.md becomes SOUL.md** as it is: in the original it is the persona the user and the app edit
  together, which is what SOUL.md is here; the role line stays one line. A SOUL.md in the source is
  appended under a ``## SOUL.md (from OkBot)`` heading.
- Memories become durable entries of the assistant's ``memory/memories.jsonl`` (global ones of the
  global ``memory/``), keeping ``pinned`` and ``expires``; a text already there is not added twice.
- Items: user and assistant messages become ``user`` / ``assistant`` items (text parts joined, ``ts`` =
  ``createdAt``, ``usage`` as ``prompt_tokens`` / ``completion_tokens`` / ``cached_tokens``); function calls
  and results become ``tool_call`` / ``tool_result`` with their ``call_id`` and name; a leading
  ``<think>…</think>`` span of a reply becomes its ``reasoning``; a reply the original wrote for a failed turn
  (its whole text ``错误：<why>``, ``registerChat.ts``) becomes a failed reply as the runner here writes one
  (``status`` error, empty ``content``, the reason as ``error``). A squad brings the transcript the
  original showed (``FileStorage.toSquadUiMessages``): user rows, captain bubbles (``speakerBotId`` =
  ``__captain__``, the squad's own items, its "呼叫「…」" task bubbles included) and member bubbles
  (``author`` = the member's new id, ``source = member:<id>``); the runner's rows there (captain messages
  without a speaker, function calls and results) only fed the original's model and would repeat those
  bubbles, so they are skipped and counted. A user message repeating the one just before (the runner's
  copy) is skipped too. Reasoning items, system messages and other kinds are skipped and counted; a line
  that is not JSON is skipped with its number. Attachments stay as the paths the text already holds.
  Items are written through :meth:`SessionStore.append`, so every line is what the app itself writes.
- Summary: ``coveredThroughId`` is mapped to the id of the converted item (or the last converted item
  before it when that record was skipped); the text is kept as the summary. The original's summary has no
  kept user ids, so none are set.
- Settings (:mod:`.settings_map`): what maps is kept in the report as ``settings_plan`` and applied by
  :func:`apply_settings` on the thread that owns the settings (the CLI right after the import, the app on
  its GUI thread): ``language`` → ``ui.language`` (``zh`` → ``zh_CN``), ``theme`` → ``ui.theme``; a setting
  the user already chose here is kept, and the report says which. The context window the original gave a
  model (its catalog's ``contextWindow``), for each model an imported assistant uses and the default one,
  becomes that model's ``model.contextWindow`` here. Each MCP server (``mcp.servers``) is declared under
  ``mcpServers`` (a stdio command line or a URL; its display name made a name this app takes), with the
  *names* of its env variables or headers but never their values, which the report names; those the
  original ran (its ``mcp.enabled`` and the server's own on) may be used by the imported assistants, as
  every bot there used them. A server that cannot be declared (no command, a URL with a password, a
  command line or URL that seems to carry a credential, which would be stored and printed) is
  named. Providers are not carried (keys live there): the report names each one (name, base URL, models)
  and the default model, and says that API keys are never imported.
- Nothing in the source is written: every file is opened for reading only. Each imported assistant and
  squad carries ``importedFrom`` (source dir and original id) in its JSON; a second run skips those.
- Only regular files inside the source are read (:mod:`.source`: no symlink followed, no pipe or device
  opened in a way that blocks, no second name of a protected file such as ``keys.json``), each under a
  size bound (a persona or summary the model reads on every turn: :data:`MAX_SOUL_BYTES`); the chat is
  streamed (:mod:`.chat`). An entry with an id that cannot name one folder (:func:`_usable_id`), a file
  that is not read and JSON nested too deeply are skipped and named in the report; the rest comes over.
  A source that is one of this app's protected places (its own data dir) is refused.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from okbot.core.import_okbot.chat import MAX_JSON_BYTES, MAX_PROMPT_BYTES, import_chat
from okbot.core.import_okbot.records import text_of
from okbot.core.import_okbot.report import ALREADY_IMPORTED, SKIPPED, ImportReport, OwnerReport
from okbot.core.import_okbot.settings_map import apply_settings, read_settings
from okbot.core.import_okbot.skills import (
    default_global_skills_dir,
    import_global_skills,
    import_skills,
    open_global_skills,
)
from okbot.core.import_okbot.source import (
    SourceFolder,
    Unreadable,
    child,
    open_source,
    read_json,
    read_text,
    size_text,
)
from okbot.core.items import now_iso
from okbot.core.kind import Kind
from okbot.core.local_tools.guard import protected
from okbot.core.memory.memories import GLOBAL_SCOPE
from okbot.core.memory.store import MemoryStore, normalise
from okbot.core.workspace import MAX_NAME_CHARS, Target, Workspace
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage import jsontext
from okbot.storage.errors import OkBotError
from okbot.storage.paths import ensure_private_dir

SOURCE_APP = "okbot-electron"
MARKER_KEY = "importedFrom"
MAX_SOURCE_ID_CHARS = 60  # the original's ids are ``bot_yyyyMMdd_NNN``; this keeps a folder name under 255 bytes
MAX_SOUL_BYTES = MAX_PROMPT_BYTES
MAX_MEMORY_ROWS = 1000  # per memory.md: each one is a rewrite of the memory file

__all__ = [
    "MAX_JSON_BYTES",
    "MAX_SOUL_BYTES",
    "ImportReport",
    "OwnerReport",
    "apply_settings",
    "default_source_dir",
    "import_okbot",
    "looks_like_source",
    "pending_import",
]


def default_source_dir() -> Path:
    """Where the original keeps its data on this OS: ``~/.okbot`` everywhere (see the package docstring)."""
    return Path.home() / ".okbot"


def looks_like_source(directory: Path) -> bool:
    """True when ``directory`` holds the original's roster (``bots.json`` or ``squads.json``)."""
    return (directory / "bots.json").is_file() or (directory / "squads.json").is_file()


def pending_import(source_dir: Path, workspace: Workspace) -> bool:
    """True when ``source_dir`` holds the original's data and nothing was imported from it yet (the app's offer).

    Reads the disk (a directory listing and JSON files): call it off the GUI thread.
    """
    source = Path(source_dir).expanduser()
    try:
        if not looks_like_source(source):
            return False
        return not _already_imported(workspace, source.resolve())
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------- reading
def _clean_name(name: str) -> str:
    """A name this app accepts: control characters (a tab, a line break) become spaces, cut to the limit."""
    text = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in name)
    return " ".join(text.split())[:MAX_NAME_CHARS]


def _usable_id(entry: Any) -> str:
    """The roster entry's id when it can name one folder of the source, else ``""``."""
    raw = text_of(entry.get("id")) if isinstance(entry, dict) else ""
    if len(raw) > MAX_SOURCE_ID_CHARS or raw.startswith("."):
        return ""
    if any(ch in "/\\" or unicodedata.category(ch) == "Cc" for ch in raw):
        return ""
    return raw


def _entries(root: SourceFolder, name: str, notes: list[str]) -> list[Any]:
    """The list a roster file (``bots.json``, ``squads.json``) holds, ``[]`` when it holds none."""
    roster = read_json(root, name, MAX_JSON_BYTES, notes)
    return roster if isinstance(roster, list) else []


def _bad_entry(name: str, entry: Any) -> str:
    text = translate("import_okbot", "a {file} entry without a usable id was skipped: {entry}")
    return text.format(file=name, entry=repr(entry)[:80])


# ---------------------------------------------------------------------------------------------- import
def _already_imported(workspace: Workspace, source: Path) -> dict[str, Target]:
    """Original id -> target for every assistant and squad an earlier import from ``source`` made."""
    found: dict[str, Target] = {}
    for target in workspace.list():
        marker = target.meta.get(MARKER_KEY)
        if isinstance(marker, dict) and marker.get("dir") == str(source) and isinstance(marker.get("id"), str):
            found[marker["id"]] = target
    return found


def _marker(source: Path, source_id: str, *, complete: bool) -> dict[str, Any]:
    """``importedFrom``: set before the chat is written (so a re-run never makes a second copy), and
    ``complete`` once everything came over (an import cut short says so on the next run)."""
    return {"app": SOURCE_APP, "dir": str(source), "id": source_id, "at": now_iso(), "complete": complete}


def _earlier(kind: Kind, source_id: str, name: str, target: Target) -> OwnerReport:
    marker = target.meta.get(MARKER_KEY) or {}
    if marker.get("complete") is False:
        status = QT_TRANSLATE_NOOP(
            "report", "imported before, but that import was cut short: move it to the trash and run again"
        )
        return OwnerReport(kind, source_id, name, target.id, status)
    return OwnerReport(kind, source_id, name, target.id, ALREADY_IMPORTED)


def _check_source(source: Path) -> None:
    """OkBotError unless ``source`` is an original OkBot data dir that is none of this app's protected places."""
    if not source.is_dir() or not looks_like_source(source):
        raise OkBotError(
            translate(
                "import_okbot", "No data of the original OkBot at {path} (no bots.json or squads.json there)."
            ).format(path=source),
            hint=translate("import_okbot", "give the folder that holds bots.json, usually ~/.okbot"),
        )
    why = protected(source)
    if why:
        raise OkBotError(
            translate("import_okbot", "{path} is not imported from: it is {why}.").format(path=source, why=why),
            hint=translate("import_okbot", "give the original OkBot's own folder, usually ~/.okbot"),
        )


def import_okbot(source_dir: Path, workspace: Workspace, *, global_skills: Path | None = None) -> ImportReport:
    """Read the original's data dir ``source_dir`` (never writing it) into ``workspace``; return the report.

    ``global_skills`` is where the original keeps the global skills a bot may enable (default
    :func:`default_global_skills_dir`, ``~/.agents/skills``); it is only read, as the source is.

    Raises OkBotError when ``source_dir`` is not an original OkBot data dir. Assistants and squads an
    earlier run imported from the same dir are reported as ``already imported`` and left alone; an
    entry that cannot be imported (a bad id, a folder that is a symlink) is skipped and named.
    """
    source = Path(source_dir).expanduser().resolve()
    _check_source(source)
    report = ImportReport(source=str(source))
    done = _already_imported(workspace, source)
    notes: list[str] = []
    members: dict[str, str] = {k: t.id for k, t in done.items() if t.is_assistant}
    seen: set[str] = set()
    uses: dict[str, str] = {}  # model id -> provider id, of the assistants imported
    with open_source(source) as root, open_global_skills(global_skills or default_global_skills_dir()) as shared:
        for entry in _entries(root, "bots.json", notes):
            bot_id = _usable_id(entry)
            if not bot_id or bot_id in seen:
                notes.append(_bad_entry("bots.json", entry))
                continue
            seen.add(bot_id)
            name = _clean_name(text_of(entry.get("name"))) or bot_id
            if bot_id in done:
                report.owners.append(_earlier(Kind.ASSISTANT, bot_id, name, done[bot_id]))
                continue
            description = text_of(entry.get("description"))
            owner = _import_assistant(root, shared, source, bot_id, name, description, workspace, uses)
            report.owners.append(owner)
            if owner.new_id:
                members[bot_id] = owner.new_id
        for leftover in root.names():
            if leftover.startswith("bot_") and leftover not in seen and root.kind(leftover) == "dir":
                text = translate(
                    "import_okbot", "{folder}/ is not in bots.json (the original does not list it either); not imported"
                )
                notes.append(text.format(folder=leftover))
        for entry in _entries(root, "squads.json", notes):
            squad_id = _usable_id(entry)
            if not squad_id:
                notes.append(_bad_entry("squads.json", entry))
                continue
            name = _clean_name(text_of(entry.get("name"))) or squad_id
            if squad_id in done:
                report.owners.append(_earlier(Kind.SQUAD, squad_id, name, done[squad_id]))
                continue
            report.owners.append(_import_squad(root, source, entry, squad_id, name, members, workspace))
        report.global_memories = _import_memories(root, workspace.root / "memory", GLOBAL_SCOPE, notes)
        report.not_imported.extend(notes)
        report.settings_plan, settings_left = read_settings(root, uses)
        report.not_imported.extend(settings_left)
    return report


def _owner_folder(root: SourceFolder, owner: OwnerReport) -> SourceFolder | None:
    """The owner's folder in the source, or None (the owner skipped, with the reason) when it cannot be used."""
    try:
        return root.child(owner.source_id)
    except Unreadable as exc:
        owner.status = SKIPPED
        owner.notes.append(str(exc))
        return None


def _persona(folder: SourceFolder, notes: list[str]) -> str | None:
    """SOUL.md's text from AGENTS.md and a SOUL.md of the original, None when neither is there (or fits)."""
    too_big = translate(
        "import_okbot",
        "{file} is {size}, over the {limit} a SOUL.md holds (the model reads it on every turn); not imported",
    )
    agents = read_text(folder, "AGENTS.md", MAX_SOUL_BYTES, notes, too_big)
    soul = agents.rstrip() + "\n" if agents and agents.strip() else None
    extra = read_text(folder, "SOUL.md", MAX_SOUL_BYTES, notes, too_big)
    if extra and extra.strip():
        joined = (soul or "") + "\n## SOUL.md (from OkBot)\n\n" + extra.strip() + "\n"
        if len(joined.encode("utf-8", errors="replace")) <= MAX_SOUL_BYTES:
            soul = joined
        else:
            text = translate(
                "import_okbot",
                "{file} and AGENTS.md together are over the {limit} a SOUL.md holds; only AGENTS.md came over",
            )
            notes.append(text.format(file=folder.label("SOUL.md"), limit=size_text(MAX_SOUL_BYTES)))
    return soul


def _import_assistant(
    root: SourceFolder,
    global_skills: SourceFolder,
    source: Path,
    bot_id: str,
    name: str,
    description: str,
    workspace: Workspace,
    uses: dict[str, str],
) -> OwnerReport:
    owner = OwnerReport(Kind.ASSISTANT, bot_id, name)
    folder = _owner_folder(root, owner)
    if folder is None:
        return owner
    with folder:
        config = read_json(folder, "bot.json", MAX_JSON_BYTES, owner.notes)
        config = config if isinstance(config, dict) else {}
        model = text_of(config.get("modelId"))[:MAX_NAME_CHARS] or None
        if config.get("providerId"):
            text = translate("import_okbot", "its provider {provider} is not carried over (set providers in Settings)")
            owner.notes.append(text.format(provider=repr(config["providerId"])[:80]))
        soul = _persona(folder, owner.notes)
        if soul is None:
            owner.notes.append(translate("import_okbot", "no AGENTS.md: the new assistant has the default SOUL.md"))
        try:
            role = _clean_name(description.splitlines()[0]) if description else ""
            target = workspace.create_assistant(name, role=role, soul_text=soul, model=model)
        except OkBotError as exc:
            owner.status, owner.notes = SKIPPED, [*owner.notes, str(exc)]
            return owner
        target = workspace.set_meta(target, MARKER_KEY, _marker(source, bot_id, complete=False))
        owner.new_id = target.id
        if model:
            uses.setdefault(model, text_of(config.get("providerId")))
        owner.skills = import_skills(folder, target, owner.notes)
        owner.skills += import_global_skills(global_skills, config, target, owner.notes)
        assert target.memory_dir is not None
        owner.memories = _import_memories(folder, target.memory_dir, target.id, owner.notes)
        import_chat(folder, target, None, owner)
        _leftover_notes(folder, owner)
        workspace.set_meta(target, MARKER_KEY, _marker(source, bot_id, complete=True))
    return owner


def _import_squad(
    root: SourceFolder,
    source: Path,
    entry: dict,
    squad_id: str,
    name: str,
    members: dict[str, str],
    workspace: Workspace,
) -> OwnerReport:
    owner = OwnerReport(Kind.SQUAD, squad_id, name)
    folder = _owner_folder(root, owner)
    if folder is None:
        return owner
    with folder:
        pairs: list[tuple[str, str]] = []
        for m in entry.get("members") if isinstance(entry.get("members"), list) else []:
            bot = text_of(m.get("botId")) if isinstance(m, dict) else ""
            if bot in members:
                pairs.append((members[bot], _clean_name(text_of(m.get("role"))) or "member"))
            else:
                text = translate("import_okbot", "member {id} was not imported, so it is not in the squad")
                owner.notes.append(text.format(id=repr(bot)[:80] if bot else "?"))
        try:
            target = workspace.create_squad(name, pairs, description=text_of(entry.get("description")))
        except OkBotError as exc:
            owner.status, owner.notes = SKIPPED, [*owner.notes, str(exc)]
            return owner
        target = workspace.set_meta(target, MARKER_KEY, _marker(source, squad_id, complete=False))
        owner.new_id = target.id
        if entry.get("modelId"):
            text = translate("import_okbot", "its model {model} is not carried over (a squad here uses its captain's)")
            owner.notes.append(text.format(model=repr(entry["modelId"])[:80]))
        import_chat(folder, target, members, owner)
        _leftover_notes(folder, owner)
        workspace.set_meta(target, MARKER_KEY, _marker(source, squad_id, complete=True))
    return owner


def _leftover_notes(folder: SourceFolder, owner: OwnerReport) -> None:
    """Name what the owner's folder holds that has no place here."""
    if folder.kind("resources") == "dir":
        with child(folder, "resources", []) as resources:
            if resources.names():
                text = translate(
                    "import_okbot", "resources/ (generated images and media) was not copied; it stays at {path}"
                )
                owner.notes.append(text.format(path=folder.path / "resources"))
    if folder.kind("schedules.json") == "file":
        owner.notes.append(
            translate(
                "import_okbot", "schedules.json (timed wakeups) is not imported: OkBot here has no scheduled jobs"
            )
        )


def _memory_rows(folder: SourceFolder, notes: list[str]) -> list[dict[str, Any]]:
    """The rows of ``memory.md`` that hold a memory; lines that do not, named in ``notes``."""
    text = read_text(folder, "memory.md", MAX_JSON_BYTES, notes)
    rows: list[dict[str, Any]] = []
    looked_at = 0  # rows, good or bad: a file of bad rows costs no more than one of good ones
    for number, line in enumerate((text or "").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#") or not line.startswith("{"):
            continue
        looked_at += 1
        if looked_at > MAX_MEMORY_ROWS:
            note = translate("import_okbot", "{file}: only the first {n} memories are imported")
            notes.append(note.format(file=folder.label("memory.md"), n=MAX_MEMORY_ROWS))
            break
        try:
            row = jsontext.loads(
                line, what=translate("import_okbot", "{file} line {n}").format(file=folder.label("memory.md"), n=number)
            )
        except jsontext.JSONTextError as exc:
            notes.append(translate("import_okbot", "{why}; skipped").format(why=exc))
            continue
        if isinstance(row, dict) and isinstance(row.get("memory"), str) and row["memory"].strip():
            rows.append(row)
    return rows


def _import_memories(folder: SourceFolder, directory: Path, scope: str, notes: list[str]) -> int:
    rows = _memory_rows(folder, notes)
    if not rows:
        return 0
    ensure_private_dir(directory)
    store = MemoryStore(directory, scope)
    known = {normalise(e.text) for e in store.entries(include_retired=True)}
    count = 0
    for row in rows:
        memory = row["memory"].strip()
        if normalise(memory) in known:
            continue
        expires = text_of(row.get("expires")) or None
        try:
            store.add(memory, status="durable", pinned=row.get("pinned") is True, expires=expires)
        except OkBotError as exc:
            text = translate("import_okbot", "memory {id} not imported: {why}")
            notes.append(text.format(id=str(row.get("id"))[:40], why=exc))
            continue
        known.add(normalise(memory))
        count += 1
    return count
