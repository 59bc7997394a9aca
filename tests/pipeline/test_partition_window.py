"""The pure functions that turn a Dagster partition window into dbt vars."""
import json
from datetime import date, datetime, timezone

import pytest

from orchestration.build import partition_range
from orchestration.defs.dbt.partitions import MONTHLY_PARTITIONS, dbt_vars_args, dbt_window_vars

NOVEMBER = datetime(2026, 11, 1, tzinfo=timezone.utc)
DECEMBER = datetime(2026, 12, 1, tzinfo=timezone.utc)


def test_a_month_partition_becomes_its_window():
    assert dbt_window_vars(NOVEMBER, DECEMBER) == {"window_start": "2026-11-01T00:00:00+00:00",
                                                  "window_end": "2026-12-01T00:00:00+00:00"}


def test_a_new_events_run_passes_no_window():
    assert dbt_window_vars(NOVEMBER, DECEMBER, new_events_only=True) == {}
    assert dbt_vars_args({}) == []


def test_an_empty_window_is_refused():
    with pytest.raises(ValueError):
        dbt_window_vars(DECEMBER, NOVEMBER)


def test_vars_reach_the_command_line_as_json():
    args = dbt_vars_args(dbt_window_vars(NOVEMBER, DECEMBER))
    assert args[0] == "--vars"
    assert json.loads(args[1])["window_start"] == "2026-11-01T00:00:00+00:00"


def test_the_window_of_a_partition_key_is_its_month():
    window = MONTHLY_PARTITIONS.time_window_for_partition_key("2026-02-01")
    assert dbt_window_vars(window.start, window.end)["window_end"].startswith("2026-03-01")


def test_build_range_covers_every_month_with_events():
    assert partition_range(datetime(2026, 8, 23, tzinfo=timezone.utc), date(2026, 11, 21)) == ("2026-08-01", "2026-11-01")
    assert partition_range(None, date(2026, 11, 21)) == ("2026-11-01", "2026-11-01")
    assert partition_range(datetime(2001, 1, 1, tzinfo=timezone.utc), date(2026, 11, 21))[0] == "2020-01-01"
