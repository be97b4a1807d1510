"""The rules of scheduled jobs: what the user types, the next run, the one-minute floor, DST days."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from okbot.core.schedules import rules
from okbot.core.schedules.rules import BadRule, Rule

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 6, 10, 12, 0, tzinfo=timezone.utc)  # 14:00 in Berlin


def test_relative_once_is_that_far_from_now() -> None:
    assert rules.once("+30s", NOW).when == NOW + timedelta(seconds=30)
    assert rules.once("+5m", NOW).when == NOW + timedelta(minutes=5)
    assert rules.once("+2h", NOW).when == NOW + timedelta(hours=2)


def test_iso_once_is_local_time_and_an_offset_is_honoured() -> None:
    assert rules.once("2026-06-10T15:30", NOW, BERLIN).when == datetime(2026, 6, 10, 13, 30, tzinfo=timezone.utc)
    assert rules.once("2026-06-10T15:30+00:00", NOW, BERLIN).when == datetime(2026, 6, 10, 15, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize("when", ["2026-06-10T13:59", "2026-01-01", "+0s"])
def test_a_time_not_to_come_is_refused(when: str) -> None:
    with pytest.raises(BadRule, match="in the past"):
        rules.once(when, NOW, BERLIN)


@pytest.mark.parametrize("when", ["tomorrow", "+5x", "5m", "", "2026-13-01T10:00"])
def test_a_time_that_is_no_time_is_refused_saying_what_to_type(when: str) -> None:
    with pytest.raises(BadRule, match=r"ISO 8601.*\+30s"):
        rules.once(when, NOW, BERLIN)


@pytest.mark.parametrize("minutes", [0, -1, "x", 1.5, True, None])
def test_every_needs_a_whole_number_of_minutes_from_one(minutes: object) -> None:
    with pytest.raises(BadRule, match="whole number of minutes"):
        rules.every(minutes)


def test_every_runs_that_many_minutes_on() -> None:
    assert rules.next_after(rules.every("15"), NOW) == NOW + timedelta(minutes=15)


@pytest.mark.parametrize("at", ["24:00", "8", "08:60", "", None, "8:5"])
def test_daily_needs_hh_mm(at: object) -> None:
    with pytest.raises(BadRule, match="HH:MM"):
        rules.daily(at)


def test_daily_runs_today_when_the_time_is_to_come_else_tomorrow() -> None:
    rule = rules.daily("8:30")
    assert rule.at == "08:30"
    assert rules.next_after(rule, NOW, BERLIN) == datetime(2026, 6, 11, 8, 30, tzinfo=BERLIN)
    assert rules.next_after(rules.daily("18:00"), NOW, BERLIN) == datetime(2026, 6, 10, 18, 0, tzinfo=BERLIN)


def test_hourly_runs_on_the_hour() -> None:
    assert rules.next_after(Rule("hourly"), NOW + timedelta(minutes=7), BERLIN) == NOW + timedelta(hours=1)


def test_cron_runs_at_its_times_in_local_time() -> None:
    rule = rules.cron("0 9 * * mon-fri")
    friday_evening = datetime(2026, 6, 12, 20, 0, tzinfo=BERLIN)
    assert rules.next_after(rule, friday_evening, BERLIN) == datetime(2026, 6, 15, 9, 0, tzinfo=BERLIN)


@pytest.mark.parametrize("expr", ["* * * *", "* * * * * *", "61 * * * *", "every day", "", None])
def test_a_cron_expression_must_be_five_valid_fields(expr: object) -> None:
    with pytest.raises(BadRule, match="five fields"):
        rules.cron(expr)


def test_every_minute_cron_is_allowed_and_its_runs_are_a_minute_apart() -> None:
    rule = rules.cron("* * * * *")
    first = rules.next_after(rule, NOW, BERLIN)
    assert first is not None
    assert rules.next_after(rule, first, BERLIN) - first == timedelta(minutes=1)


def test_daily_in_a_spring_forward_gap_runs_once_after_the_jump() -> None:
    # 2026-03-29 in Berlin: 02:00 -> 03:00, so 02:30 does not exist that day
    rule = rules.daily("02:30")
    before = datetime(2026, 3, 28, 12, 0, tzinfo=BERLIN)
    run = rules.next_after(rule, before, BERLIN)
    assert run == datetime(2026, 3, 29, 1, 30, tzinfo=timezone.utc)  # 03:30 CEST
    after = rules.next_after(rule, run, BERLIN)
    assert after == datetime(2026, 3, 30, 2, 30, tzinfo=BERLIN)


def test_daily_in_a_fall_back_hour_runs_at_its_first_occurrence_only() -> None:
    # 2026-10-25 in Berlin: 03:00 -> 02:00, so 02:30 occurs twice
    rule = rules.daily("02:30")
    run = rules.next_after(rule, datetime(2026, 10, 24, 12, 0, tzinfo=BERLIN), BERLIN)
    assert run == datetime(2026, 10, 25, 0, 30, tzinfo=timezone.utc)  # the first 02:30 (CEST)
    second = rules.next_after(rule, run, BERLIN)
    assert second == datetime(2026, 10, 26, 2, 30, tzinfo=BERLIN)


def test_cron_across_both_dst_days_never_repeats_nor_goes_backwards() -> None:
    rule = rules.cron("30 2 * * *")
    moment = datetime(2026, 3, 27, tzinfo=BERLIN)
    seen = []
    for _ in range(220):
        moment = rules.next_after(rule, moment, BERLIN)
        seen.append(moment)
    assert all(b - a >= timedelta(hours=22) for a, b in zip(seen, seen[1:], strict=False))
    assert len({m.astimezone(BERLIN).date() for m in seen}) == len(seen)


def test_a_missed_run_is_followed_by_the_next_after_now_not_each_missed_slot() -> None:
    rule = rules.every(10)
    due = NOW - timedelta(hours=5)
    assert rules.following(rule, due, NOW) == NOW + timedelta(minutes=10)
    assert rules.following(rule, NOW, NOW + timedelta(seconds=3)) == NOW + timedelta(minutes=10)


def test_the_system_zone_is_used_when_none_is_given() -> None:
    rule = rules.daily("08:30")
    run = rules.next_after(rule, NOW)
    assert run is not None and run > NOW
    assert run.astimezone().strftime("%H:%M") == "08:30"


def test_rules_round_trip_through_json() -> None:
    for rule in (
        rules.once("+5m", NOW),
        rules.every(5),
        Rule("hourly"),
        rules.daily("07:05"),
        rules.cron("*/5 * * * *"),
    ):
        assert Rule.from_json(rule.to_json()) == rule


def test_rules_in_words() -> None:
    assert rules.describe(rules.every(5)) == "every 5 minutes"
    assert rules.describe(rules.daily("07:05")) == "daily at 07:05"
    assert rules.describe(Rule("hourly")) == "hourly, on the hour"
    assert rules.describe(rules.cron("0 9 * * 1")) == "cron 0 9 * * 1"
