"""Resources per environment, chosen in one place.

Embedded database (no ANALYTICS_DATABASE_URL): the URL is found at run time from the embedded
server under ANALYTICS_HOME, so loading the definitions never needs a running database.
Configured database: its URL. Tests pass their own Settings.

The dbt target follows the engine (ANALYTICS_ENGINE): PostgreSQL by default, the Spark cluster's
Thrift server with `spark`; the same asset graph runs on either (docs/data-engineer/spark.md).
"""

import os
import subprocess
from pathlib import Path

import psycopg
from dagster import ConfigurableResource
from dagster_dbt import DbtCliResource

from orchestration.defs.dbt.project import analytics_dbt_project
from pipelines.database import connection
from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_environment, dbt_executable, spark_dbt_environment
from pipelines.lake.export import LakeWriter
from pipelines.settings import Settings


class Warehouse(ConfigurableResource):
    """The analytics database and the product settings the maintenance work needs."""

    home: str
    database_url: str = ""
    lake_dir: str = ""
    # The engine that builds the models ("postgres" or "spark") and, for Spark, its Thrift server.
    engine: str = "postgres"
    spark_host: str = "127.0.0.1"
    spark_thrift_port: int = 10000
    # The master's status page (a run on Spark watches its workers) and how long a run waits
    # without any (orchestration/defs/dbt/worker_watch.py).
    spark_master_url: str = ""
    spark_master_ui_port: int = 7080
    spark_worker_wait_seconds: int = 120

    def settings(self) -> Settings:
        base = Settings.from_env()
        return Settings(home=Path(self.home), database_url=self.database_url or None,
                        server_secret_value=base.server_secret_value, lake_dir=Path(self.lake_dir) if self.lake_dir else None,
                        engine=self.engine, bind_host=self.spark_host, spark_thrift_port=self.spark_thrift_port,
                        spark_master_url=self.spark_master_url or None, spark_master_ui_port=self.spark_master_ui_port,
                        spark_worker_wait_seconds=self.spark_worker_wait_seconds)

    def dbt_environment(self) -> dict[str, str]:
        """What profiles.yml reads: PostgreSQL's connection always (the spark target's macros read
        nothing of it, the lake's export does), and the target with, for Spark, the Thrift server
        and the lake."""
        env = {**dbt_environment(self.url()), "ANALYTICS_DBT_TARGET": self.engine}
        if self.engine == "spark":
            env.update(spark_dbt_environment(self.settings()))
        return env

    def url(self) -> str:
        return connection.server_url(self.settings())

    def connect(self) -> psycopg.Connection:
        return connection.connect(self.url(), autocommit=True)

    def analytics_views_missing(self) -> bool:
        """Whether the views that only a full build makes are absent from PostgreSQL: on a fresh
        installation, or after a migration dropped a model's table along with the views reading it
        (0024 dropped the table int_events_sessionized, which became a view, and analytics.events
        with it)."""
        with self.connect() as conn:
            return conn.execute("select to_regclass('analytics.visits') is null"
                                " or to_regclass('analytics.events') is null").fetchone()[0]

    def ensure_postgres_catalog(self) -> None:
        """With the Spark engine, PostgreSQL's analytics views are still the catalog: the lake's view
        folders that Spark's build fills take their columns' types from it, and the workbench lists
        and checks them against it. When they are missing (a fresh installation started on Spark),
        the models are built once on PostgreSQL, over what it holds then (nothing, or the demo)."""
        if not self.analytics_views_missing():
            return
        env = {**os.environ, **dbt_environment(self.url()), "ANALYTICS_DBT_TARGET": "postgres"}
        done = subprocess.run([dbt_executable(), "run", "--target", "postgres", "--project-dir", str(DBT_PROJECT_DIR),
                               "--profiles-dir", str(DBT_PROJECT_DIR)], env=env, cwd=DBT_PROJECT_DIR,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"PostgreSQL's analytics views are missing and building them failed:\n{done.stdout[-4000:]}")


class WarehouseDbtCliResource(DbtCliResource):
    """dbt against the warehouse: the connection variables profiles.yml reads are set per call."""

    warehouse: Warehouse

    def cli(self, args, **kwargs):
        # dagster-dbt hands the process environment to dbt; this process runs one step at a time.
        os.environ.update(self.warehouse.dbt_environment())
        if self.warehouse.engine == "spark" and args and args[0] in ("build", "run"):
            # Spark reads the lake, not PostgreSQL: the metadata the models join (sites, goals,
            # channel rules...) is exported first, so that an edit reaches this build.
            self.warehouse.ensure_postgres_catalog()
            with LakeWriter(self.warehouse.settings(), self.warehouse.url()).open() as writer:
                writer.export_sources()
        return super().cli(args, **kwargs)


def build_resources(settings: Settings | None = None) -> dict:
    """The resources of every job, for the given settings (default: from the environment)."""
    settings = settings or Settings.from_env()
    warehouse = Warehouse(home=str(settings.home), database_url=settings.database_url or "",
                          lake_dir=str(settings.lake_dir or ""), engine=settings.engine, spark_host=settings.bind_host,
                          spark_thrift_port=settings.spark_thrift_port, spark_master_url=settings.spark_master_url or "",
                          spark_master_ui_port=settings.spark_master_ui_port,
                          spark_worker_wait_seconds=settings.spark_worker_wait_seconds)
    return {
        "warehouse": warehouse,
        "dbt": WarehouseDbtCliResource(project_dir=analytics_dbt_project, dbt_executable=dbt_executable(),
                                       warehouse=warehouse),
    }
