"""The lake and dbt on the session's Spark cluster, as the Spark tests use them."""
from __future__ import annotations

import os
import subprocess
from datetime import date
from pathlib import Path

import psycopg

from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_environment, dbt_executable, spark_dbt_environment
from pipelines.lake.export import LakeWriter


def spark_dbt(cluster, url: str, target: Path, *args: str, timeout: int = 1800) -> subprocess.CompletedProcess:
    """`dbt <args>` on the cluster (the sources of `url`'s database read from the cluster's lake),
    with its own target folder: the project's holds the PostgreSQL manifest that Dagster's
    definitions read. Fails with dbt's output when dbt does."""
    env = {**os.environ, **dbt_environment(url), **spark_dbt_environment(cluster), "ANALYTICS_DBT_TARGET": "spark"}
    done = subprocess.run([dbt_executable(), *args, "--target-path", str(target),
                           "--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR)],
                          env=env, capture_output=True, text=True, cwd=DBT_PROJECT_DIR, timeout=timeout)
    assert done.returncode == 0, f"dbt {args[0]} on Spark failed:\n{done.stdout[-8000:]}\n{done.stderr[-3000:]}"
    return done


def export_days(settings, url: str) -> list[date]:
    """Every day of `url`'s raw events and the metadata, into the lake (as the lake's assets do);
    returns the days."""
    with psycopg.connect(url) as db:
        days = [day for (day,) in db.execute(
            "select distinct (occurred_at at time zone 'UTC')::date from raw.events order by 1").fetchall()]
    with LakeWriter(settings, url).open() as writer:
        for day in days:
            writer.export_raw_day(day)
        writer.export_sources()
    return days
