"""``okbot schedule add | list | rm | run``: rules as typed, --json, clear refusals, and a run that is a turn."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from okbot.__main__ import main
from okbot.core.schedules import rules
from okbot.core.schedules.store import FILE, ScheduleStore
from okbot.core.session import SessionStore
from okbot.core.workspace import Workspace
from tests.helpers.fake_openai import Reply
from tests.helpers.patience import PATIENT_SECONDS


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def ada():
    return Workspace().create_assistant("Ada")


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--once", "+5m"], "once at"),
        (["--every", "15"], "every 15 minutes"),
        (["--hourly"], "hourly, on the hour"),
        (["--daily", "08:30"], "daily at 08:30"),
        (["--cron", "0 9 * * mon-fri"], "cron 0 9 * * mon-fri"),
    ],
)
def test_add_each_kind_of_rule_and_list_it(capsys, ada, flags, words):
    code, out, _ = cli(capsys, "schedule", "add", "Ada", *flags, "-m", "Good morning")
    assert code == 0 and words in out and "next run" in out
    job = ScheduleStore().load(ada).jobs[0]
    assert job.id in out and job.text == "Good morning" and job.created_by == "user"
    code, out, _ = cli(capsys, "schedule", "list", "Ada")
    assert code == 0 and job.id in out and words in out and "Good morning" in out


def test_add_and_list_as_json(capsys, ada):
    code, out, _ = cli(capsys, "schedule", "add", "ada", "--every", "5", "-m", "tick", "--json")
    added = json.loads(out)
    assert code == 0 and added["rule"] == {"kind": "every", "minutes": 5} and added["target"]["id"] == ada.id
    code, out, _ = cli(capsys, "schedule", "list", "--json")
    assert code == 0 and [row["id"] for row in json.loads(out)] == [added["id"]]


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--once", "2001-01-01T00:00"], "in the past"),
        (["--once", "soon"], "+30s"),
        (["--every", "0"], "whole number of minutes"),
        (["--daily", "25:00"], "HH:MM"),
        (["--cron", "* * * * * *"], "five fields"),
    ],
)
def test_a_bad_rule_is_refused_clearly_and_nothing_is_written(capsys, ada, flags, said):
    code, _, err = cli(capsys, "schedule", "add", "Ada", *flags, "-m", "x")
    assert code == 1 and said in err and err.startswith("okbot: ")
    assert not (ada.dir / FILE).exists()


def test_a_refusal_under_json_is_a_json_object(capsys, ada):
    code, _, err = cli(capsys, "schedule", "add", "Ada", "--every", "0", "-m", "x", "--json")
    assert code == 1 and "whole number of minutes" in json.loads(err)["error"]


def test_two_rules_at_once_are_bad_usage(capsys, ada):
    with pytest.raises(SystemExit) as stopped:
        main(["schedule", "add", "Ada", "--hourly", "--every", "5", "-m", "x"])
    assert stopped.value.code == 2


def test_rm_removes_and_an_unknown_job_is_an_error(capsys, ada):
    cli(capsys, "schedule", "add", "Ada", "--hourly", "-m", "x")
    job = ScheduleStore().load(ada).jobs[0]
    code, out, _ = cli(capsys, "schedule", "rm", job.id)
    assert code == 0 and job.id in out and ScheduleStore().load(ada).jobs == []
    code, _, err = cli(capsys, "schedule", "rm", job.id)
    assert code == 1 and f"No scheduled job {job.id}" in err


def test_list_names_a_broken_file_and_lists_the_rest(capsys, ada):
    other = Workspace().create_assistant("Bob")
    cli(capsys, "schedule", "add", "Bob", "--hourly", "-m", "fine")
    (ada.dir / FILE).write_text("{broken", "utf-8")
    code, out, err = cli(capsys, "schedule", "list")
    assert code == 0 and "fine" in out and other.id in out
    assert str(ada.dir / FILE) in err and "schedules.json.bad" in err


def test_run_sends_the_job_now_as_a_real_process_and_prints_the_reply(okbot_home, server, ada):
    server.set_default(lambda _body: Reply(text="Here is your report"))
    job = ScheduleStore().add(ada, "Write the report", rules.every(60))
    env = {**os.environ, "OKBOT_HOME": str(okbot_home), "OKBOT_BASE_URL": server.base_url}
    done = subprocess.run(
        [sys.executable, "-m", "okbot", "schedule", "run", job.id],
        env=env,
        capture_output=True,
        text=True,
        timeout=PATIENT_SECONDS,
    )
    assert done.returncode == 0, done.stderr
    assert "Here is your report" in done.stdout
    items = SessionStore(ada.session_path).tail(5)
    assert items[0]["source"] == f"schedule:{job.id}" and items[0]["content"] == "Write the report"
    after = ScheduleStore().load(ada).jobs[0]
    assert after.last_result == "complete" and after.last_run is not None
    assert after.next_run == job.next_run  # running it now leaves its times as they were
