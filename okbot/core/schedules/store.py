"""A target's scheduled jobs on disk: ``<target dir>/schedules.json``, one file per assistant or squad.

The file is ``{"version": 1, "jobs": [...]}`` (:mod:`okbot.storage.migrations` kind ``schedules``), replaced
atomically under the target's lock (a thread lock, then the sidecar ``.schedules.json.lock`` for other
processes: the desktop's scheduler and an ``okbot schedule`` command may write it at the same time), each change
read-modify-written from what is on disk then.

A file that cannot be read as jobs (broken JSON, a hand edit that left a job without its rule) is moved aside to
``schedules.json.bad`` (or ``.bad.2`` …, never over an earlier one) and reported once with its name and why: its
jobs do not run, nothing of it is lost, and other targets' jobs are not touched. A newer OkBot's file is left
as it is: its jobs do not run here and every change is refused.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path

from okbot.core.schedules.job import MAX_TEXT_CHARS, Job, new_id
from okbot.core.schedules.rules import BadRule, Rule, next_after
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage import migrations
from okbot.storage.atomic import file_stamp
from okbot.storage.datalock import FileLock, storage_error
from okbot.storage.errors import NotFound, OkBotError

FILE = "schedules.json"
VERSION = migrations.CURRENT["schedules"]
MAX_JOBS = 50  # per assistant or squad


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Loaded:
    """A target's jobs as read now; ``problem`` says why some could not be (the file moved aside, or newer)."""

    jobs: list[Job] = field(default_factory=list)
    problem: str = ""
    read_only: bool = False


class ScheduleStore:
    """Reads and changes the jobs of every target (one instance per process is enough; it is thread-safe).

    ``clock`` gives the aware time now and ``tz`` the zone wall-clock rules are read in (None: the system's):
    tests pass their own."""

    def __init__(self, clock: Callable[[], datetime] = utc_now, tz: tzinfo | None = None) -> None:
        self.clock = clock
        self.tz = tz
        self._guard = threading.Lock()
        self._locks: dict[Path, threading.RLock] = {}

    # -- reading ---------------------------------------------------------------------------
    @staticmethod
    def path(target: Target) -> Path:
        return target.dir / FILE

    def stamp(self, target: Target) -> tuple[int, int] | None:
        """A cheap "did the file change" mark (mtime, size), None when there is no file."""
        return file_stamp(self.path(target))

    def load(self, target: Target) -> Loaded:
        """The target's jobs; a file that cannot be read is moved aside and said so in ``problem``."""
        with self._locked(target):
            return self._read(target)

    def all_jobs(self, targets: Iterable[Target]) -> list[tuple[Target, Loaded]]:
        return [(target, self.load(target)) for target in targets]

    def find(self, targets: Iterable[Target], job_id: str) -> tuple[Target, Job]:
        """The job ``job_id`` among ``targets``' jobs; NotFound when none has it."""
        for target in targets:
            for job in self.load(target).jobs:
                if job.id == job_id:
                    return target, job
        raise NotFound(translate("schedules", "No scheduled job {id}.").format(id=job_id))

    # -- changing --------------------------------------------------------------------------
    def add(self, target: Target, text: str, rule: Rule, *, created_by: str = "user") -> Job:
        """A new job; refused (:class:`OkBotError`) for an empty or over-long message, a once rule whose time has
        passed, or a target that has :data:`MAX_JOBS` already."""
        text = text.strip() if isinstance(text, str) else ""
        if not text:
            raise BadRule(translate("schedules", "A scheduled job needs a message to send."))
        if len(text) > MAX_TEXT_CHARS:
            raise BadRule(
                translate("schedules", "A scheduled message may be at most {n} characters.").format(n=MAX_TEXT_CHARS)
            )
        now = self.clock().replace(microsecond=0)  # as the file keeps it: what is returned is what is read back
        next_run = next_after(rule, now, self.tz)
        if next_run is None:
            raise BadRule(translate("schedules", "That time has passed: give a time to come."))
        with self._changing(target, QT_TRANSLATE_NOOP("migrations", "add the job")) as jobs:
            if len(jobs) >= MAX_JOBS:
                raise OkBotError(
                    translate("schedules", "{name} has {n} scheduled jobs, the most one may have.").format(
                        name=target.name, n=MAX_JOBS
                    ),
                    hint=translate("schedules", "remove one first"),
                )
            taken = {job.id for job in jobs}
            job_id = new_id()
            while job_id in taken:  # pragma: no cover - 1 in 4 billion
                job_id = new_id()
            job = Job(
                id=job_id,
                target_kind=str(target.kind),
                target_id=target.id,
                text=text,
                rule=rule,
                created=now,
                next_run=next_run,
                created_by=created_by,
            )
            jobs.append(job)
        return job

    def remove(self, target: Target, job_id: str) -> Job:
        """Delete job ``job_id``; NotFound when the target has none by that id."""
        with self._changing(target, QT_TRANSLATE_NOOP("migrations", "remove the job")) as jobs:
            index = _index(jobs, job_id)
            return jobs.pop(index)

    def update(self, target: Target, job_id: str, change: Callable[[Job], Job | None]) -> Job | None:
        """Replace job ``job_id`` with ``change(job)`` as it is on disk now (None: delete it); the new job, or None.
        NotFound when it is gone (removed meanwhile)."""
        with self._changing(target, QT_TRANSLATE_NOOP("migrations", "change the job")) as jobs:
            index = _index(jobs, job_id)
            changed = change(jobs[index])
            if changed is None:
                jobs.pop(index)
            else:
                jobs[index] = changed
            return changed

    def set_enabled(self, target: Target, job_id: str, enabled: bool) -> Job:
        """Pause or resume a job; a resumed one whose time passed meanwhile runs next at its next time from now."""

        def change(job: Job) -> Job:
            next_run = job.next_run
            if enabled and next_run is not None and next_run <= self.clock() and job.rule.kind != "once":
                next_run = next_after(job.rule, self.clock(), self.tz)
            return job.with_changes(enabled=enabled, next_run=next_run)

        changed = self.update(target, job_id, change)
        assert changed is not None
        return changed

    # -- the file --------------------------------------------------------------------------
    @contextmanager
    def _locked(self, target: Target) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(target.dir, threading.RLock())
        with lock, FileLock(target.dir / f".{FILE}.lock"):
            yield

    @contextmanager
    def _changing(self, target: Target, action: str) -> Iterator[list[Job]]:
        """The jobs on disk now, to change in place; written back when the block ends without raising."""
        with self._locked(target):
            loaded = self._read(target)
            if loaded.read_only:
                raise OkBotError(loaded.problem)
            jobs = list(loaded.jobs)
            yield jobs
            path = self.path(target)
            if not jobs and not path.exists():
                return
            migrations.write_json(path, "schedules", {"jobs": [job.to_json() for job in jobs]}, action=action)

    def _read(self, target: Target) -> Loaded:
        path = self.path(target)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return Loaded()
        except OSError as exc:
            raise storage_error(path, exc) from exc
        try:
            obj = json.loads(raw.decode("utf-8-sig"))
            if not isinstance(obj, dict):
                raise BadRule(translate("schedules", "the file is not a JSON object"))
            version = migrations.version_of(obj)
            if version is None:
                raise BadRule(translate("schedules", "its 'version' is not a whole number"))
            if version > VERSION:
                return Loaded(problem=migrations.newer_message(path, version, "schedules"), read_only=True)
            entries = obj.get("jobs", [])
            if not isinstance(entries, list):
                raise BadRule(translate("schedules", "'jobs' is not a list"))
            jobs = [Job.from_json(entry, target.kind, target.id) for entry in entries]
            if len({job.id for job in jobs}) != len(jobs):
                raise BadRule(translate("schedules", "two jobs have the same id"))
        except (ValueError, RecursionError, BadRule) as exc:
            why = exc.message if isinstance(exc, BadRule) else translate("schedules", "it is not valid JSON")
            return Loaded(problem=self._set_aside(path, why))
        return Loaded(jobs)

    @staticmethod
    def _set_aside(path: Path, why: str) -> str:
        """Move the unreadable ``path`` to the next free ``.bad`` name; the message that says so."""
        aside = path.with_name(path.name + ".bad")
        k = 1
        while aside.exists():
            k += 1
            aside = path.with_name(f"{path.name}.bad.{k}")
        try:
            os.replace(path, aside)
        except OSError as exc:
            raise storage_error(path, exc) from exc
        return translate(
            "schedules",
            "{path} could not be read ({why}): it was moved aside to {aside} and its jobs do not run; "
            "fix it and rename it back, or set the jobs again",
        ).format(path=path, why=why, aside=aside.name)


def _index(jobs: list[Job], job_id: str) -> int:
    for index, job in enumerate(jobs):
        if job.id == job_id:
            return index
    raise NotFound(translate("schedules", "No scheduled job {id}.").format(id=job_id))
