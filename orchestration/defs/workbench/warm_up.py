"""The workbench's dashboard cache after each successful build (issue 12).

A build job that succeeds rebuilt some dbt models; the analytics views downstream of them (the
relations the workbench reads) now give other answers. The sensor works out those views from the
dbt manifest, drops the cached card results that read them and warms the dashboards marked for
warm-up (workbench_app/content/dashboard_warmup.py): their next visitors find their cards cached.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from dagster import (DagsterEventType, DagsterRunStatus, DefaultSensorStatus, RunStatusSensorContext, SkipReason,
                     run_status_sensor)
from dagster_dbt import DagsterDbtTranslator

from orchestration.defs.dbt.project import analytics_dbt_project
from orchestration.defs.dbt.schedules import channel_rebuild_job, full_build_job, incremental_build_job
from orchestration.defs.resources import Warehouse
from pipelines.settings import Settings

# The one schema of the analytics database the workbench reads (its `warehouse` source).
READ_SCHEMA = "analytics"


def built_views(manifest: dict, asset_keys: Iterable[tuple[str, ...]]) -> list[str]:
    """`analytics.<name>` relations built by, or downstream of, the models whose assets were built."""
    translator = DagsterDbtTranslator()
    nodes = {uid: node for uid, node in manifest["nodes"].items() if node["resource_type"] in ("model", "seed", "snapshot")}
    by_key = {tuple(translator.get_asset_spec(manifest, uid, None).key.path): uid for uid in nodes}
    pending = [by_key[key] for key in asset_keys if key in by_key]
    seen: set[str] = set()
    while pending:
        uid = pending.pop()
        if uid not in seen:
            seen.add(uid)
            pending.extend(child for child in manifest["child_map"].get(uid, []) if child in nodes)
    return sorted({f"{nodes[uid]['schema']}.{nodes[uid]['alias'] or nodes[uid]['name']}" for uid in seen
                   if nodes[uid]["schema"] == READ_SCHEMA})


def materialized_keys(context: RunStatusSensorContext) -> set[tuple[str, ...]]:
    """The asset keys the run that just succeeded materialized."""
    entries = context.instance.all_logs(context.dagster_run.run_id, of_type=DagsterEventType.ASSET_MATERIALIZATION)
    return {tuple(entry.dagster_event.asset_key.path) for entry in entries if entry.dagster_event}


def warm_up_dashboards(warehouse: Warehouse, views: list[str]) -> dict:
    """Invalidate and warm the workbench's dashboard cache for `views` (analytics.<name>)."""
    # Imported here: the workbench is a heavy import that only this sensor needs.
    from workbench_app.content import dashboard_warmup
    from workbench_app.services import WorkbenchServices

    # The warehouse's settings name the analytics database; the workbench's database is named apart.
    settings = replace(warehouse.settings(), workbench_database_name=Settings.from_env().workbench_database_name)
    services = WorkbenchServices(settings=settings)
    try:
        return dashboard_warmup.warm_up(services, dashboard_warmup.warehouse_tables(services, views))
    finally:
        services.close()


@run_status_sensor(run_status=DagsterRunStatus.SUCCESS,
                   monitored_jobs=[incremental_build_job, full_build_job, channel_rebuild_job],
                   default_status=DefaultSensorStatus.RUNNING, minimum_interval_seconds=30,
                   description="After a successful build: drop the dashboard results it made stale, "
                               "warm the dashboards marked for warm-up.")
def dashboard_warm_up_sensor(context: RunStatusSensorContext, warehouse: Warehouse):
    manifest = json.loads(Path(analytics_dbt_project.manifest_path).read_text())
    views = built_views(manifest, materialized_keys(context))
    if not views:
        return SkipReason("the run rebuilt no view the workbench reads")
    summary = warm_up_dashboards(warehouse, views)
    context.log.info(f"dashboard cache after the build of {len(views)} views: {summary}")
    return SkipReason(f"warmed: {summary['warmed']} card runs, {summary['dropped']} stale entries dropped")
