"""dbt on the session's Spark cluster, as the Spark tests run it."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_environment, dbt_executable, spark_dbt_environment


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
