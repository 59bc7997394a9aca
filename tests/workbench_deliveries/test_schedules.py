"""Delivery schedules: daily, weekly and monthly in a time zone, across daylight-saving changes and
short months; a stopped checker owes the latest missed time once."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from workbench_app.deliveries.schedules import Schedule


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


def test_daily_at_an_hour_in_paris_follows_summer_and_winter_time():
    schedule = Schedule(every="day", hour=8, timezone="Europe/Paris")
    assert schedule.next_after(utc(2026, 1, 10, 6, 0)) == utc(2026, 1, 10, 7, 0)  # UTC+1
    assert schedule.next_after(utc(2026, 7, 10, 6, 0)) == utc(2026, 7, 11, 6, 0)  # UTC+2: 06:00 is 08:00, not after
    assert schedule.next_after(utc(2026, 7, 10, 5, 59)) == utc(2026, 7, 10, 6, 0)


def test_a_time_skipped_by_spring_forward_moves_past_the_gap_and_a_doubled_one_runs_once():
    skipped = Schedule(every="day", hour=2, minute=30, timezone="Europe/Paris")
    # 2026-03-29: 02:00 -> 03:00 in Paris; 02:30 does not exist and runs at 03:30 local (01:30 UTC).
    assert skipped.next_after(utc(2026, 3, 29, 0, 0)) == utc(2026, 3, 29, 1, 30)
    # 2026-10-25: 03:00 -> 02:00; 02:30 happens twice and runs at the first (00:30 UTC), once.
    first = skipped.next_after(utc(2026, 10, 24, 23, 0))
    assert first == utc(2026, 10, 25, 0, 30)
    assert skipped.next_after(first) == utc(2026, 10, 26, 1, 30)


def test_weekly_on_a_weekday_and_monthly_on_the_31st_in_short_months():
    weekly = Schedule(every="week", weekday=0, hour=9, timezone="America/New_York")
    due = weekly.next_after(utc(2026, 11, 27, 12, 0))  # a Friday
    assert due == utc(2026, 11, 30, 14, 0) and due.astimezone(weekly.zone()).weekday() == 0
    monthly = Schedule(every="month", day=31, hour=6)
    dues, moment = [], utc(2026, 1, 1)
    for _ in range(4):
        moment = monthly.next_after(moment)
        dues.append(moment.date().isoformat())
    assert dues == ["2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30"]
    assert Schedule(every="month", day=29, hour=0).next_after(utc(2028, 2, 1)) == utc(2028, 2, 29)


def test_a_stopped_checker_owes_the_latest_missed_time_once():
    schedule = Schedule(every="day", hour=7)
    last = utc(2026, 11, 20, 7, 0)
    now = utc(2026, 11, 27, 9, 0)
    assert schedule.owed(last, now) == utc(2026, 11, 27, 7, 0)
    assert schedule.owed(utc(2026, 11, 27, 7, 0), now) is None
    assert schedule.owed(None, utc(2026, 11, 27, 6, 59)) == utc(2026, 11, 26, 7, 0)
    # Never further back than the catch-up limit, even after months stopped.
    assert schedule.owed(utc(2025, 1, 1), now) == utc(2026, 11, 27, 7, 0)


@pytest.mark.parametrize("fields, field", [
    ({"every": "week", "hour": 8}, "weekday"),
    ({"every": "day", "hour": 8, "weekday": 2}, "weekday"),
    ({"every": "month", "hour": 8}, "day"),
    ({"every": "day", "hour": 8, "timezone": "Mars/Olympus"}, "timezone"),
    ({"every": "day", "hour": 8, "timezone": "../../etc/passwd"}, "timezone"),
])
def test_a_schedule_that_cannot_be_kept_says_which_field(fields, field):
    assert [name for name, _ in Schedule(**fields).problems()] == [field]


@pytest.mark.parametrize("fields", [{"every": "day", "hour": 24}, {"every": "hourly", "hour": 8},
                                    {"every": "day", "hour": "8"}, {"every": "day"}])
def test_a_schedule_of_the_wrong_types_is_refused(fields):
    with pytest.raises(ValidationError):
        Schedule.model_validate(fields)


def test_every_due_time_of_a_year_is_strictly_increasing_and_at_the_local_hour():
    schedule = Schedule(every="day", hour=1, minute=15, timezone="Australia/Lord_Howe")  # a 30-minute DST shift
    moment = utc(2026, 1, 1)
    for _ in range(366):
        due = schedule.next_after(moment)
        assert due > moment and due - moment <= timedelta(days=1, hours=1)
        local = due.astimezone(schedule.zone())
        assert (local.hour, local.minute) in ((1, 15), (1, 45), (2, 15))
        moment = due
