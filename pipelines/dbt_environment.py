"""Environment that dbt (and Dagster's dbt resource) needs to reach the analytics database."""
from __future__ import annotations

import sys
from pathlib import Path

from pipelines.database.connection import split_url

# The dbt project sits beside the Python packages in the repository (editable install).
DBT_PROJECT_DIR = Path(__file__).resolve().parent.parent / "dbt_project"


def dbt_environment(database_url: str) -> dict[str, str]:
    """Variables read by dbt_project/profiles.yml, with dbt's telemetry off."""
    parts = split_url(database_url)
    return {
        "ANALYTICS_DBT_HOST": parts.host,
        "ANALYTICS_DBT_PORT": str(parts.port),
        "ANALYTICS_DBT_USER": parts.user,
        "ANALYTICS_DBT_PASSWORD": parts.password,
        "ANALYTICS_DBT_DATABASE": parts.database,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_PROFILES_DIR": str(DBT_PROJECT_DIR),
        "DBT_PROJECT_DIR": str(DBT_PROJECT_DIR),
    }


def spark_dbt_environment(settings) -> dict[str, str]:
    """Variables of dbt_project/profiles.yml's `spark` target: the Thrift server `analytics up` starts
    and the lake whose raw events the sources read (macros/spark_sources.sql)."""
    return {
        "ANALYTICS_DBT_SPARK_HOST": settings.bind_host,
        "ANALYTICS_DBT_SPARK_PORT": str(settings.spark_thrift_port),
        "ANALYTICS_DBT_LAKE_PATH": str(settings.lake_path),
    }


def manifest_path() -> Path:
    return DBT_PROJECT_DIR / "target" / "manifest.json"


def dbt_executable() -> str:
    """The dbt installed beside the running Python, so an unactivated virtualenv still finds it."""
    candidate = Path(sys.executable).parent / "dbt"
    return str(candidate) if candidate.exists() else "dbt"
