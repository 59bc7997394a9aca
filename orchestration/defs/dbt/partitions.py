"""Month partitions of the incremental dbt models and the dbt vars of a run's window."""
from __future__ import annotations

import json
from datetime import datetime

from dagster import BackfillPolicy, MonthlyPartitionsDefinition

# end_offset=1: the current month is a partition too, since events arrive in it all the time.
MONTHLY_PARTITIONS = MonthlyPartitionsDefinition(start_date="2020-01-01", end_offset=1)
SINGLE_RUN_BACKFILL = BackfillPolicy.single_run()

# A run with this tag rebuilds what was received since the last run instead of whole months
# (the 15-minute schedule); the partition only says which month it touched.
NEW_EVENTS_TAG = "analytics/window"
NEW_EVENTS = "new-events"


def dbt_window_vars(start: datetime | None, end: datetime | None, *, new_events_only: bool = False) -> dict[str, str]:
    """The dbt vars of a run: the partition window [start, end), or none for new events only."""
    if new_events_only or start is None or end is None:
        return {}
    if end <= start:
        raise ValueError(f"empty window: {start.isoformat()} to {end.isoformat()}")
    return {"window_start": start.isoformat(), "window_end": end.isoformat()}


def dbt_vars_args(vars_: dict[str, str]) -> list[str]:
    """`--vars` arguments of the dbt command line (nothing when there are no vars)."""
    return ["--vars", json.dumps(vars_, sort_keys=True)] if vars_ else []
