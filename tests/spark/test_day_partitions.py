"""A day-partitioned table built by Spark before its day partitions (a whole table without the day
column) is built again whole by an ordinary incremental run, on the session's cluster. A project of
one tiny model beside the real project's macros, in a schema of its own."""
from __future__ import annotations

import os
import subprocess
import uuid

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


def test_a_table_without_its_day_partitions_is_built_again_whole(spark_cluster_running, tmp_path):
    cluster = spark_cluster_running["settings"]
    schema = f"probe_{uuid.uuid4().hex[:8]}"
    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    (project / "macros").symlink_to(DBT_PROJECT_DIR / "macros")
    (project / "models" / "probe.sql").write_text(PROBE_MODEL)
    (project / "dbt_project.yml").write_text("name: probe\nconfig-version: 2\nprofile: probe\n")
    (project / "profiles.yml").write_text(
        f"probe:\n  target: spark\n  outputs:\n    spark:\n      type: spark\n      method: thrift\n"
        f"      host: {cluster.bind_host}\n      port: {cluster.spark_thrift_port}\n      schema: {schema}\n"
        f"      threads: 1\n      poll_interval: 1\n")
    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        spark = conn.cursor()
        spark.execute(f"create schema {schema}")
        spark.execute(f"create table {schema}.probe (id int) using parquet")
        spark.execute(f"insert into {schema}.probe values (1), (2), (3), (4)")
    try:
        done = subprocess.run([dbt_executable(), "run", "--project-dir", str(project), "--profiles-dir", str(project)],
                              env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}, capture_output=True,
                              text=True, cwd=project, timeout=600)
        assert done.returncode == 0, f"{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
        assert f"{schema}.probe has no probe_day partitions (built before them): built again whole" in done.stdout
        with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
            spark = conn.cursor()
            spark.execute(f"select id, cast(probe_day as string) from {schema}.probe order by id")
            assert spark.fetchall() == [(1, "2026-11-01"), (2, "2026-11-02"), (3, "2026-11-03")]
            spark.execute(f"show partitions {schema}.probe")
            assert [row[0] for row in spark.fetchall()] == [f"probe_day=2026-11-0{day}" for day in (1, 2, 3)]
            # The run recorded "every day" for the models downstream, as a full build does.
            spark.execute(f"select model, all_days from {schema}.day_partition_rebuilds")
            assert spark.fetchall() == [("probe", True)]
    finally:
        with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
            conn.cursor().execute(f"drop schema if exists {schema} cascade")
