"""`analytics build`: materialise every asset in process, for scripts, tests and the demo.

The partitioned dbt models run as one backfill over every month that has events (single-run
policy: one dbt invocation over the whole window), followed by everything else.
"""
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from dagster import DagsterInstance, ExecuteInProcessResult, PartitionKeyRange, materialize

from orchestration.defs.dbt.assets import analytics_dbt_incremental_models, analytics_dbt_models
from orchestration.defs.dbt.partitions import MONTHLY_PARTITIONS
from orchestration.defs.lake.assets import lake_analytics_views, lake_raw_events
from orchestration.defs.maintenance.assets import maintenance_assets
from orchestration.defs.resources import build_resources
from pipelines.database import connection
from pipelines.settings import Settings

PARTITION_RANGE_START_TAG = "dagster/asset_partition_range_start"
PARTITION_RANGE_END_TAG = "dagster/asset_partition_range_end"


def partition_range(first_event: datetime | None, today: date) -> tuple[str, str]:
    """First and last month partition keys covering the events up to the current month."""
    earliest = MONTHLY_PARTITIONS.start.date()
    start = max(first_event.date(), earliest) if first_event else today
    start = min(start, today)
    return start.strftime("%Y-%m-01"), today.strftime("%Y-%m-01")


def build_assets() -> list:
    """The assets `build_everything` materialises."""
    return [*maintenance_assets, analytics_dbt_incremental_models, analytics_dbt_models, lake_analytics_views]


def build_range(settings: Settings) -> tuple[str, str]:
    """The month partitions a whole build covers."""
    with connection.connect(connection.server_url(settings), autocommit=True) as conn:
        first_event = conn.execute("select min(occurred_at) from raw.events").fetchone()[0]
    return partition_range(first_event, datetime.now(timezone.utc).date())


def expected_materializations(settings: Settings) -> int:
    """How many asset materialisations a whole build reports (a progress bar's length): each
    partitioned asset once per month of the range."""
    first, last = build_range(settings)
    months = len(MONTHLY_PARTITIONS.get_partition_keys_in_range(PartitionKeyRange(first, last)))
    return (sum(len(list(asset.keys)) * (months if asset.partitions_def else 1) for asset in build_assets())
            + len(closed_days(settings)))


def closed_days(settings: Settings) -> list[str]:
    """The closed days with raw events, which the lake's raw export covers."""
    with connection.connect(connection.server_url(settings), autocommit=True) as conn:
        first = conn.execute("select min(occurred_at) from raw.events").fetchone()[0]
    today = datetime.now(timezone.utc).date()
    if first is None or first.date() >= today:
        return []
    return lake_raw_events.partitions_def.get_partition_keys_in_range(
        PartitionKeyRange(first.astimezone(timezone.utc).date().isoformat(), (today - timedelta(days=1)).isoformat()))


@dataclass
class BuildResult:
    """The in-process runs of one whole build."""

    runs: list[ExecuteInProcessResult]

    @property
    def success(self) -> bool:
        return all(run.success for run in self.runs)

    def get_asset_materialization_events(self) -> list:
        return [event for run in self.runs for event in run.get_asset_materialization_events()]


def build_everything(settings: Settings, instance: DagsterInstance | None = None) -> BuildResult:
    """Materialise maintenance, the dbt models of every month with events, the event views, the
    lake's view folders, then the lake's closed days of raw events (a daily partitioned asset runs
    apart from the monthly ones); with the Spark engine, the raw days first, which its models read."""
    first, last = build_range(settings)
    days = closed_days(settings)

    def raw_days() -> ExecuteInProcessResult:
        return materialize([lake_raw_events], resources=build_resources(settings), instance=instance,
                           tags={PARTITION_RANGE_START_TAG: days[0], PARTITION_RANGE_END_TAG: days[-1]})

    runs = []
    if settings.engine == "spark" and days:
        # Spark's models read the raw events from the lake: the days reach it before the models run.
        runs.append(raw_days())
        if not runs[-1].success:
            return BuildResult(runs)
    runs.append(materialize(
        build_assets(),
        resources=build_resources(settings),
        instance=instance,
        tags={PARTITION_RANGE_START_TAG: first, PARTITION_RANGE_END_TAG: last},
    ))
    if settings.engine != "spark" and runs[-1].success and days:
        runs.append(raw_days())
    return BuildResult(runs)
