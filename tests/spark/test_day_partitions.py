"""The day partitions' bookkeeping on the session's cluster, with projects of tiny models beside the
real project's macros, each in a schema of its own:

- a day-partitioned table built by Spark before its day partitions (a whole table without the day
  column) is built again whole by an ordinary incremental run;
- each day-partitioned model keeps its log of rebuilt days in a table of its own, so that models
  building at the same time never write into one table (two inserts into one Parquet table share its
  `_temporary` folder, and the first to commit deletes the other's files); the rows of the one log
  they shared before move to their models' logs."""
from __future__ import annotations

import os
import subprocess
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from pyhive import hive

from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_executable

pytestmark = pytest.mark.slow

# Partitioned by day and replaced by day as the project's day-partitioned models are; the old table
# below has the same rows but no probe_day.
PROBE_MODEL = """\
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['probe_day'],
          file_format='parquet', pre_hook="{{ day_partitions_prepare('probe_day') }}") }}
select id, to_date(concat('2026-11-0', id)) as probe_day from values (1), (2), (3) as probe_rows (id)
"""

# A table built whole that logs its days as a day-partitioned model does ("every day", then "done").
LOGGED_MODEL = """\
{{ config(materialized='table', file_format='parquet', pre_hook="{{ day_partitions_prepare('probe_day') }}",
          post_hook="{{ day_partitions_done() }}") }}
select 1 as id, to_date('2026-11-01') as probe_day
"""


@contextmanager
def probe_project(cluster, root: Path, models: dict[str, str], threads: int = 1):
    """A dbt project of `models` (name: SQL) on the cluster, in a new schema (dropped after), with the
    real project's macros and its start-of-run preparation of the day partitions' logs."""
    schema = f"probe_{uuid.uuid4().hex[:8]}"
    project = root / "project"
    (project / "models").mkdir(parents=True)
    (project / "macros").symlink_to(DBT_PROJECT_DIR / "macros")
    for name, sql in models.items():
        (project / "models" / f"{name}.sql").write_text(sql)
    (project / "dbt_project.yml").write_text(
        "name: probe\nconfig-version: 2\nprofile: probe\non-run-start:\n  - \"{{ prepare_day_rebuilds() }}\"\n")
    (project / "profiles.yml").write_text(
        f"probe:\n  target: spark\n  outputs:\n    spark:\n      type: spark\n      method: thrift\n"
        f"      host: {cluster.bind_host}\n      port: {cluster.spark_thrift_port}\n      schema: {schema}\n"
        f"      threads: {threads}\n      poll_interval: 1\n")
    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        conn.cursor().execute(f"create schema {schema}")
    try:
        yield project, schema
    finally:
        with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
            conn.cursor().execute(f"drop schema if exists {schema} cascade")


def dbt_run(project: Path) -> str:
    done = subprocess.run([dbt_executable(), "run", "--project-dir", str(project), "--profiles-dir", str(project)],
                          env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}, capture_output=True,
                          text=True, cwd=project, timeout=600)
    assert done.returncode == 0, f"{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def query(cluster, sql: str) -> list[tuple]:
    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        spark = conn.cursor()
        spark.execute(sql)
        return spark.fetchall()


def test_a_table_without_its_day_partitions_is_built_again_whole(spark_cluster_running, tmp_path):
    cluster = spark_cluster_running["settings"]
    with probe_project(cluster, tmp_path, {"probe": PROBE_MODEL}) as (project, schema):
        query(cluster, f"create table {schema}.probe (id int) using parquet")
        query(cluster, f"insert into {schema}.probe values (1), (2), (3), (4)")
        output = dbt_run(project)
        assert f"{schema}.probe has no probe_day partitions (built before them): built again whole" in output
        assert query(cluster, f"select id, cast(probe_day as string) from {schema}.probe order by id") == [
            (1, "2026-11-01"), (2, "2026-11-02"), (3, "2026-11-03")]
        assert [row[0] for row in query(cluster, f"show partitions {schema}.probe")] == [
            f"probe_day=2026-11-0{day}" for day in (1, 2, 3)]
        # The run recorded "every day" for the models downstream, as a full build does.
        assert query(cluster, f"select model, all_days from {schema}.probe__day_rebuilds") == [("probe", True)]


def test_each_model_logs_its_days_in_a_table_of_its_own(spark_cluster_running, tmp_path):
    cluster = spark_cluster_running["settings"]
    models = {name: LOGGED_MODEL for name in ("probe_a", "probe_b", "probe_c")}
    with probe_project(cluster, tmp_path, models, threads=3) as (project, schema):
        # The one log of before, with a range that probe_a's failed run left to its downstream models.
        query(cluster, f"create table {schema}.day_partition_rebuilds (model string, first_day string, end_day string,"
                        " all_days boolean, done boolean, logged_at timestamp) using parquet")
        query(cluster, f"insert into {schema}.day_partition_rebuilds values"
                       " ('probe_a', '2026-10-01', '2026-10-02', false, false, timestamp'2026-10-02 00:00:00Z'),"
                       " ('probe_b', null, null, false, true, timestamp'2026-10-02 00:00:00Z')")
        # Three models building at once, twice: each writes only its own log.
        dbt_run(project)
        dbt_run(project)
        tables = {row[1] for row in query(cluster, f"show tables in {schema}")}
        assert "day_partition_rebuilds" not in tables
        assert {"probe_a__day_rebuilds", "probe_b__day_rebuilds", "probe_c__day_rebuilds"} <= tables
        logs = {name: query(cluster, f"select model, first_day, all_days, done from {schema}.{name}__day_rebuilds"
                                     " order by logged_at") for name in models}
        assert logs["probe_a"][0] == ("probe_a", "2026-10-01", False, False)
        assert logs["probe_b"][0] == ("probe_b", None, False, True)
        for name, rows in logs.items():
            # Each run wrote "every day" and "done", in its model's log alone.
            assert {row[0] for row in rows} == {name}
            assert rows[-4:] == [(name, None, True, False), (name, None, False, True)] * 2
