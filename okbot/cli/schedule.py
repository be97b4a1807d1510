"""``okbot schedule add | list | rm | run``: the jobs that send an assistant or squad a message at set times.

The jobs run while OkBot runs (the desktop app); ``run`` runs one now, in this process, streaming the reply as
``okbot chat`` does.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from okbot.cli.common import report_problems, workspace
from okbot.cli.output import add_json_flag, print_json
from okbot.i18n import translate


def add_parsers(sub: Any) -> None:
    """Declare ``schedule`` and its actions on the main parser's subcommands."""
    p = sub.add_parser("schedule", help=translate("cli_schedule", "jobs that send a message at set times"))
    ssub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = ssub.add_parser("add", help=translate("cli_schedule", "set a job"))
    a.add_argument("target", metavar="TARGET", help=translate("cli", "an assistant or squad id or name"))
    rule = a.add_mutually_exclusive_group(required=True)
    rule.add_argument(
        "--once",
        metavar="WHEN",
        help=translate(
            "cli_schedule", "once, at an ISO 8601 local time (2026-12-05T08:30) or from now (+30s, +5m, +2h)"
        ),
    )
    rule.add_argument("--every", metavar="MINUTES", help=translate("cli_schedule", "every MINUTES minutes (1 or more)"))
    rule.add_argument("--hourly", action="store_true", help=translate("cli_schedule", "every hour, on the hour"))
    rule.add_argument("--daily", metavar="HH:MM", help=translate("cli_schedule", "every day at HH:MM (local time)"))
    rule.add_argument(
        "--cron", metavar="EXPR", help=translate("cli_schedule", "at the times of a five-field cron expression")
    )
    a.add_argument("-m", "--message", required=True, metavar="TEXT", help=translate("cli_schedule", "the message"))
    add_json_flag(a)
    ls = ssub.add_parser("list", help=translate("cli_schedule", "the jobs (of one assistant or squad, or all)"))
    ls.add_argument("target", metavar="TARGET", nargs="?", help=translate("cli", "an assistant or squad id or name"))
    ls.add_argument("--json", action="store_true", help=translate("cli_search", "machine-readable output"))
    rm = ssub.add_parser("rm", help=translate("cli_schedule", "remove a job"))
    rm.add_argument("job", metavar="JOB", help=translate("cli_schedule", "the job's id (see list)"))
    add_json_flag(rm)
    run = ssub.add_parser("run", help=translate("cli_schedule", "run a job now and print the reply"))
    run.add_argument("job", metavar="JOB", help=translate("cli_schedule", "the job's id (see list)"))
    run.add_argument("--json", action="store_true", help=translate("cli", "emit events as JSON lines"))


def cmd_schedule(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core.schedules.store import ScheduleStore

    ws = workspace()
    store = ScheduleStore()
    if args.action == "add":
        return _add(args, ws, store, out)
    if args.action == "list":
        return _list(args, ws, store, out, err)
    if args.action == "rm":
        target, job = store.find(ws.list(), args.job)
        store.remove(target, job.id)
        if args.json:
            print_json({"removed": job.id, "target": target.id}, out)
        else:
            print(translate("cli_schedule", "removed job {id} of {name}").format(id=job.id, name=target.name), file=out)
        return 0
    return _run(args, ws, store, out, err)


def _add(args: argparse.Namespace, ws: Any, store: Any, out: TextIO) -> int:
    from okbot.core.schedules import rules

    target = ws.resolve(args.target)
    if args.once is not None:
        rule = rules.once(args.once, store.clock(), store.tz)
    elif args.every is not None:
        rule = rules.every(args.every)
    elif args.daily is not None:
        rule = rules.daily(args.daily)
    elif args.cron is not None:
        rule = rules.cron(args.cron)
    else:
        rule = rules.Rule("hourly")
    job = store.add(target, args.message, rule, created_by="user")
    if args.json:
        print_json(described(job, target), out)
    else:
        print(
            translate("cli_schedule", "set job {id} for {name}: {rule}; next run {when}").format(
                id=job.id, name=target.name, rule=rules.describe(rule), when=rules.short_time(job.next_run)
            ),
            file=out,
        )
    return 0


def _list(args: argparse.Namespace, ws: Any, store: Any, out: TextIO, err: TextIO) -> int:
    from okbot.core.schedules import rules

    targets = [ws.resolve(args.target)] if args.target else ws.list()
    rows = []
    for target, loaded in store.all_jobs(targets):
        report_problems([loaded.problem] if loaded.problem else [], err)
        rows.extend((target, job) for job in loaded.jobs)
    if args.json:
        print_json([described(job, target) for target, job in rows], out)
        return 0
    if not rows:
        print(translate("cli_schedule", "no scheduled jobs"), file=out)
    for target, job in rows:
        when = rules.short_time(job.next_run) if job.next_run else "-"
        state = "" if job.enabled else translate("cli_schedule", " (paused)")
        print(
            f"{job.id}  {target.id:<20}  {rules.describe(job.rule):<24}  {when}{state}  {_one_line(job.text)}",
            file=out,
        )
    return 0


def _run(args: argparse.Namespace, ws: Any, store: Any, out: TextIO, err: TextIO) -> int:
    from okbot.cli.chat import run_chat
    from okbot.core.turn.request import Send

    target, job = store.find(ws.list(), args.job)
    store.update(target, job.id, lambda current: current.with_changes(last_run=store.clock()))
    code = run_chat(ws, target, Send(job.text, source=job.source), as_json=args.json, out=out, err=err, verbose=False)
    status = {0: "complete", 130: "interrupted"}.get(code, "error")

    def recorded(current: Any) -> Any:
        if current.rule.kind == "once" and status == "complete":
            return None  # done: its run is in the chat
        return current.with_changes(last_result=status)

    store.update(target, job.id, recorded)
    return code


def described(job: Any, target: Any) -> dict[str, Any]:
    """A job in the JSON of ``add`` and ``list``."""
    from okbot.core.schedules.rules import describe

    return {
        **job.to_json(),
        "target": {"kind": str(target.kind), "id": target.id, "name": target.name},
        "ruleText": describe(job.rule),
    }


def _one_line(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
