"""When a subscription or an alert is due: daily at an hour, weekly on a day, monthly on a date, in
the schedule's own time zone, and what a checker that was stopped still owes (once, not once per
missed period).

Wall-clock times that a daylight-saving change skips (02:30 on the spring-forward night) are moved
forward by the gap, as cron and calendar applications do; a time that occurs twice (the autumn
night) is taken at its first occurrence. A monthly date past the month's end is its last day (the
31st is the 30th in April, the 28th or 29th in February).
"""
from __future__ import annotations

import calendar
from datetime import date, datetime, time, timedelta, timezone
from functools import lru_cache
from typing import Literal
from zoneinfo import ZoneInfo, available_timezones

from workbench_app.request_shapes import RequestShape, Text, WholeNumber

# How far back a checker looks for a missed time: a stopped daemon owes the last one, not a month.
CATCH_UP_LIMIT = timedelta(days=35)


class Schedule(RequestShape):
    """A delivery schedule, as the API takes it (`problems` says what the fields' types cannot)."""

    every: Literal["day", "week", "month"]
    """How often: each day, each week on `weekday`, each month on `day`."""
    hour: WholeNumber(0, 23)
    """The hour of the day, in `timezone`."""
    minute: WholeNumber(0, 59) = 0
    weekday: WholeNumber(0, 6) | None = None
    """For a weekly schedule: 0 is Monday, 6 is Sunday."""
    day: WholeNumber(1, 31) | None = None
    """For a monthly schedule: the date (past the month's end: its last day)."""
    timezone: Text(64, allow_empty=False) = "UTC"
    """An IANA time zone name, such as Europe/Paris."""

    def problems(self) -> list[tuple[str, str]]:
        """(field, message) of each rule the fields break together; empty when it can be kept."""
        found = []
        if (self.every == "week") != (self.weekday is not None):
            found.append(("weekday", "weekday is given for a weekly schedule, and only then."))
        if (self.every == "month") != (self.day is not None):
            found.append(("day", "day is given for a monthly schedule, and only then."))
        if self.timezone != "UTC" and self.timezone not in _zone_names():
            found.append(("timezone", "timezone must be an IANA time zone name such as Europe/Paris."))
        return found

    def stored(self) -> dict:
        """The schedule as a subscription's row keeps it (JSON)."""
        return self.model_dump(exclude_none=True)

    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def next_after(self, moment: datetime) -> datetime:
        """The first due time strictly after `moment` (an aware datetime), in UTC."""
        local = moment.astimezone(self.zone())
        day = local.date()
        for _ in range(400):
            if self._runs_on(day):
                due = self._at(day)
                if due > moment:
                    return due
            day += timedelta(days=1)
        raise AssertionError("every schedule runs at least once a month")

    def owed(self, last_due: datetime | None, now: datetime) -> datetime | None:
        """The due time a checker should act on now: the latest one in (last_due, now], looking
        back at most CATCH_UP_LIMIT; None when nothing is due. Missed periods are not replayed
        one by one: a subscriber gets one message with today's figures, not a backlog."""
        since = max(last_due, now - CATCH_UP_LIMIT) if last_due else now - CATCH_UP_LIMIT
        owed = None
        due = self.next_after(since)
        while due <= now:
            owed = due
            due = self.next_after(due)
        return owed

    def _runs_on(self, day: date) -> bool:
        if self.every == "week":
            return day.weekday() == self.weekday
        if self.every == "month":
            return day.day == min(self.day, calendar.monthrange(day.year, day.month)[1])
        return True

    def _at(self, day: date) -> datetime:
        # fold=0: zoneinfo reads a wall time with the offset in force before a change, so a time
        # occurring twice is its first occurrence and a skipped one lands past the gap by its length.
        return datetime.combine(day, time(self.hour, self.minute), tzinfo=self.zone()).astimezone(timezone.utc)


@lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    return frozenset(available_timezones())
