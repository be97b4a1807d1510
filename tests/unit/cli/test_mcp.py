"""``okbot mcp …``, run as real processes against real MCP servers (the test server and mcp-server-time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from okbot.cli import main as cli
from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from tests.helpers.keyrings import MemoryKeyring, system_keyring
from tests.helpers.slow_start import server_command

ROOT = Path(__file__).resolve().parents[3]
PY = sys.executable
TOKEN = "tok-1234567890-secret"
BEARER = "Bearer hdr-0987654321-secret"
TEST_SERVER = server_command(PY, "-m", "tests.helpers.mcp_server")


@pytest.fixture
def okbot(okbot_home: Path):
    env = {
        **os.environ,
        "OKBOT_HOME": str(okbot_home),
        "PYTHONPATH": str(ROOT),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",  # never the machine's own keyring
    }
    shown: list[str] = []

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        # cwd: the servers OkBot starts find `-m tests.helpers.mcp_server` there (the SDK passes them no PYTHONPATH)
        proc = subprocess.run([PY, "-m", "okbot", *argv], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
        shown.append(proc.stdout + proc.stderr)
        return proc

    yield run
    logs = [p.read_text() for p in (okbot_home / "logs").glob("*.log*")] if (okbot_home / "logs").exists() else []
    for text in [*shown, *logs]:  # no command prints a value of --env or --header, nor logs it
        assert TOKEN not in text and BEARER not in text
    if (okbot_home / "settings.json").exists():
        settings = (okbot_home / "settings.json").read_text()
        assert TOKEN not in settings and BEARER not in settings


def _servers_of(ref: str) -> list[str]:
    return Workspace().resolve(ref).meta.get("mcpServers", [])


def test_on_a_fresh_data_dir_a_server_goes_to_the_default_assistant_or_says_how(okbot):
    """Issue 34, item 21: `--assistant okbot` said "there are no assistants or squads yet", and a server added
    without --assistant reached no chat, silently."""
    proc = okbot("mcp", "add", "first", "--assistant", "okbot", "--command", "echo")
    assert proc.returncode == 0, proc.stderr
    assert "OkBot (okbot) may use first" in proc.stdout and proc.stderr == ""
    assert _servers_of("okbot") == ["first"]
    proc = okbot("mcp", "add", "second", "--command", "echo")
    assert proc.returncode == 0
    assert proc.stderr == "okbot: note: no assistant may use second yet: okbot mcp allow second ASSISTANT\n"
    assert okbot("mcp", "allow", "second", "okbot").returncode == 0
    assert _servers_of("okbot") == ["first", "second"]


def test_add_list_and_remove_servers_started_for_real(okbot, okbot_home):
    assert okbot("new", "assistant", "Ann").returncode == 0
    # the command line after '--', options before it (an argument of the command starts with '-')
    proc = okbot("mcp", "add", "test", "--env", f"TOKEN={TOKEN}", "--assistant", "Ann", "--", *TEST_SERVER)
    assert proc.returncode == 0, proc.stderr
    assert f"values of TOKEN kept in {okbot_home / 'keys.json'}" in proc.stdout  # no keyring here: the 0600 file
    assert "Ann (ann) may use test" in proc.stdout
    proc = okbot("mcp", "add", "time", "--command", PY, "--approval", "allow", "--", "-m", "mcp_server_time")
    assert proc.returncode == 0, proc.stderr
    assert f"added MCP server time: {PY} -m mcp_server_time  approval: allow" in proc.stdout
    assert TOKEN in (okbot_home / "keys.json").read_text()
    assert [c.env for c in Settings.load().mcp_servers.all()] == [("TOKEN",), ()]
    assert _servers_of("Ann") == ["test"]

    proc = okbot("mcp", "list")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert f"test  stdio: {PY} -m tests.helpers.mcp_server  env: TOKEN" in text
    assert "assistants: Ann (ann)" in text and "assistants: none (okbot mcp allow time TARGET)" in text
    assert "state: running: okbot-test-server" in text and "state: running: mcp-time" in text
    assert "  test__echo  Repeat the text the given number of times." in text
    assert "  time__get_current_time  Get current time in a specific timezone" in text
    assert "test__lookup  Look a place up.\n    note: " in text  # its $ref schema was simplified

    proc = okbot("mcp", "approval", "time", "deny", "--tool", "get_time")
    assert proc.returncode == 0 and "time did not list a tool 'get_time' (its tools: get_current_time" in proc.stderr
    assert okbot("mcp", "approval", "time", "ask", "--tool", "convert_time").stderr == ""
    rows = json.loads(okbot("mcp", "list", "--no-start", "--json").stdout)  # the tools kept by the last list
    assert [(r["name"], r["state"], len(r["tools"])) for r in rows] == [
        ("test", "not started", 8),
        ("time", "not started", 2),
    ]
    [echo] = [t for t in rows[0]["tools"] if t["name"] == "echo"]
    assert echo == {
        "name": "echo",
        "offered": "test__echo",
        "description": "Repeat the text the given number of times.",
        "approval": "ask",
        "notes": [],
    }
    assert [t["approval"] for t in rows[1]["tools"]] == ["allow", "ask"]
    assert rows[1]["toolApproval"] == {"convert_time": "ask", "get_time": "deny"}

    proc = okbot("mcp", "rm", "test")
    assert proc.returncode == 0, proc.stderr
    assert "Ann (ann) no longer uses test" in proc.stdout
    assert _servers_of("Ann") == []
    assert TOKEN not in (okbot_home / "keys.json").read_text()
    assert [c.name for c in Settings.load().mcp_servers.all()] == ["time"]
    proc = okbot("mcp", "rm", "test")
    assert proc.returncode == 1 and "no MCP server called 'test'" in proc.stderr and "time" in proc.stderr


@pytest.mark.slow  # seven CLI runs and a 2 s wait: about 7 s
def test_servers_that_do_not_start_are_listed_as_failed_with_why(okbot):
    # one that exits at start is told in its own words however long a loaded machine takes to start it
    okbot("config", "set", "mcp.startupSeconds", "60")
    okbot("mcp", "add", "broken", "--env", f"TOKEN={TOKEN}", "--", *TEST_SERVER, "--exit-at-start")
    proc = okbot("mcp", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    [broken] = json.loads(proc.stdout)
    assert broken["state"] == "failed" and "the configuration file is missing" in broken["detail"]
    okbot("mcp", "rm", "broken")
    # the short bound only where running out of it is the outcome
    okbot("config", "set", "mcp.startupSeconds", "2")
    okbot("mcp", "add", "never", "--", *TEST_SERVER, "--never-start")
    proc = okbot("mcp", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    [never] = json.loads(proc.stdout)
    assert never["state"] == "failed" and "did not start within 2 s" in never["detail"]
    assert never["tools"] == [] and broken["tools"] == []


def test_assistants_allowed_and_approvals(okbot, okbot_home):
    okbot("new", "assistant", "Ann")
    okbot("new", "assistant", "Bob")
    url = "https://mcp.example.com/mcp"
    proc = okbot("mcp", "add", "tracker", "--url", url, "--header", f"Authorization={BEARER}")
    assert proc.returncode == 0, proc.stderr
    assert "values of Authorization kept in" in proc.stdout
    assert BEARER in (okbot_home / "keys.json").read_text()
    assert okbot("mcp", "allow", "tracker", "Ann", "bob").returncode == 0
    assert _servers_of("Ann") == ["tracker"] and _servers_of("Bob") == ["tracker"]
    proc = okbot("mcp", "disallow", "tracker", "Bob")
    assert proc.returncode == 0 and "Bob (bob) may not use tracker" in proc.stdout
    assert _servers_of("Bob") == []
    assert okbot("mcp", "approval", "tracker", "allow").returncode == 0
    proc = okbot("mcp", "approval", "tracker", "deny", "--tool", "delete_issue")
    assert proc.returncode == 0 and "calls of tracker's tool delete_issue: deny" in proc.stdout
    [row] = json.loads(okbot("mcp", "list", "--no-start", "--json").stdout)
    assert row == {
        "name": "tracker",
        "transport": "http",
        "command": "",
        "args": [],
        "url": url,
        "env": [],
        "headers": ["Authorization"],
        "approval": "allow",
        "toolApproval": {"delete_issue": "deny"},
        "assistants": [{"id": "ann", "name": "Ann"}],
        "state": "not started",
        "detail": "",
        "note": "",
        "tools": [],
    }
    text = okbot("mcp", "list", "--no-start").stdout
    assert (
        f"tracker  http: {url}  headers: Authorization" in text and "approval: allow (except delete_issue deny)" in text
    )
    proc = okbot("mcp", "add", "tracker", "--", "tracker-mcp", "--stdio")  # the same name: replaced
    assert proc.returncode == 0 and "replaced MCP server tracker: tracker-mcp --stdio" in proc.stdout
    assert BEARER not in (okbot_home / "keys.json").read_text()  # no values any more: none kept
    assert _servers_of("Ann") == ["tracker"]


REFUSALS = [
    (("add", "Bad Name", "--command", "x"), "MCP server name 'Bad Name' is not allowed"),
    (("add", "a__b", "--command", "x"), "is not allowed"),
    (("add", "s", "--command", "x", "--url", "https://e.example/mcp"), "not both"),
    (("add", "s", "--approval", "ask"), "give either --command CMD (a local server) or --url URL"),
    (("add", "s", "--env", "TOKEN", "--command", "x"), "'TOKEN': expected NAME=VALUE for an environment variable"),
    (("add", "s", "--url", "https://e.example/mcp", "--header", "Bad Header=x"), "expected NAME=VALUE for a header"),
    (("add", "s", "--url", "https://e.example/mcp", "--env", f"A={TOKEN}"), "a remote one takes --header"),
    (("add", "s", "--command", "x", "--header", f"A={BEARER}"), "a local one takes --env"),
    (("add", "s", "--url", "ftp://e.example"), "url must be an http:// or https:// URL"),
    (("add", "s", "--url", "https://e.example/mcp", "serve"), "a remote server takes no command line: 'serve'"),
    (("add", "s", "--env", f"A={TOKEN}", "--command", "x", "--assistant", "Team"), "Team is a squad"),
    (("add", "s", "--command", "x", "--assistant", "Nobody"), "Nobody"),
    (("rm", "nope"), "no MCP server called 'nope'"),
    (("allow", "nope", "Ann"), "no MCP server called 'nope'"),
    (("approval", "nope", "ask"), "no MCP server called 'nope'"),
]


@pytest.fixture
def team() -> Workspace:
    ws = Workspace()
    for name in ("Ann", "Cy"):
        ws.create_assistant(name)
    ws.create_squad("Team", [("ann", ""), ("cy", "")])
    return ws


def test_refusals_say_why_and_change_nothing(okbot, okbot_home, team):
    for argv, message in REFUSALS:
        proc = okbot("mcp", *argv)
        assert proc.returncode == 1, (argv, proc.stdout + proc.stderr)
        assert message in proc.stderr, (argv, proc.stderr)
        assert Settings.load().mcp_servers.all() == []
        assert not (okbot_home / "keys.json").exists()


def test_a_squad_cannot_be_allowed(okbot, team):
    okbot("mcp", "add", "s", "--command", "x", "serve", "--approval", "deny", "now")  # options amid its arguments
    assert Settings.load().mcp_servers.get("s").args == ("serve", "now")
    proc = okbot("mcp", "allow", "s", "Ann", "Team")
    assert proc.returncode == 1 and "Team is a squad" in proc.stderr and "okbot mcp allow s MEMBER" in proc.stderr
    assert _servers_of("Ann") == []  # all or nothing


def test_values_go_to_the_system_keyring_when_there_is_one(okbot_home, capsys):
    argv = ["mcp", "add", "gh", "--env", f"GITHUB_TOKEN={TOKEN}", "--", "github-mcp", "stdio"]
    with system_keyring(MemoryKeyring()) as backend:
        assert cli.run(cli.build_parser().parse_args(argv)) == 0
    out = capsys.readouterr().out
    assert "values of GITHUB_TOKEN kept in the system keyring (not in settings.json)" in out and TOKEN not in out
    assert any(TOKEN in value for value in backend.saved.values())
    assert not (okbot_home / "keys.json").exists()
    assert TOKEN not in (okbot_home / "settings.json").read_text()


def test_add_rm_allow_and_approval_under_json_say_what_changed_and_never_a_value(okbot, okbot_home):
    """Issue 34, item 18: mcp add/rm/allow/disallow/approval took no --json."""
    okbot("new", "assistant", "Ann")
    okbot("new", "assistant", "Bob")
    argv = ("mcp", "add", "gh", "--env", f"GITHUB_TOKEN={TOKEN}", "--assistant", "Ann", "--json")
    proc = okbot(*argv, "--", "github-mcp", "stdio")
    assert proc.returncode == 0, proc.stderr
    added = json.loads(proc.stdout)
    [listed] = json.loads(okbot("mcp", "list", "--no-start", "--json").stdout)
    assert added == {**listed, "replaced": False, "secretsKeptIn": "file", "keyFile": str(okbot_home / "keys.json")}
    assert added["assistants"] == [{"id": "ann", "name": "Ann"}] and added["env"] == ["GITHUB_TOKEN"]
    assert added["state"] == "not started"  # add starts nothing
    proc = okbot("mcp", "add", "gh", "--json", "--", "github-mcp")
    replaced = json.loads(proc.stdout)
    assert replaced["replaced"] is True and replaced["secretsKeptIn"] is None and replaced["keyFile"] is None
    proc = okbot("mcp", "allow", "gh", "Bob", "--json")
    assert json.loads(proc.stdout) == {"server": "gh", "allowed": True, "assistants": [{"id": "bob", "name": "Bob"}]}
    proc = okbot("mcp", "disallow", "gh", "ann", "--json")
    assert json.loads(proc.stdout) == {"server": "gh", "allowed": False, "assistants": [{"id": "ann", "name": "Ann"}]}
    proc = okbot("mcp", "approval", "gh", "deny", "--tool", "delete_repo", "--json")
    assert json.loads(proc.stdout) == {"server": "gh", "tool": "delete_repo", "approval": "deny"}
    proc = okbot("mcp", "approval", "gh", "allow", "--json")
    assert json.loads(proc.stdout) == {"server": "gh", "tool": None, "approval": "allow"}
    proc = okbot("mcp", "rm", "gh", "--json")
    assert json.loads(proc.stdout) == {"server": "gh", "assistants": [{"id": "bob", "name": "Bob"}]}
    proc = okbot("mcp", "rm", "gh", "--json")
    assert proc.returncode == 1 and "no MCP server called 'gh'" in json.loads(proc.stderr)["error"]
