"""Resources per environment, chosen in one place.

Embedded database (no ANALYTICS_DATABASE_URL): the URL is found at run time from the embedded
server under ANALYTICS_HOME, so loading the definitions never needs a running database.
Configured database: its URL. Tests pass their own Settings.
"""

import os
from pathlib import Path

import psycopg
from dagster import ConfigurableResource
from dagster_dbt import DbtCliResource

from orchestration.defs.dbt.project import analytics_dbt_project
from pipelines.database import connection
from pipelines.dbt_environment import dbt_environment, dbt_executable
from pipelines.settings import Settings


class Warehouse(ConfigurableResource):
    """The analytics database and the product settings the maintenance work needs."""

    home: str
    database_url: str = ""
    lake_dir: str = ""

    def settings(self) -> Settings:
        base = Settings.from_env()
        return Settings(home=Path(self.home), database_url=self.database_url or None,
                        server_secret_value=base.server_secret_value, lake_dir=Path(self.lake_dir) if self.lake_dir else None)

    def url(self) -> str:
        return connection.server_url(self.settings())

    def connect(self) -> psycopg.Connection:
        return connection.connect(self.url(), autocommit=True)


class WarehouseDbtCliResource(DbtCliResource):
    """dbt against the warehouse: the connection variables profiles.yml reads are set per call."""

    warehouse: Warehouse

    def cli(self, args, **kwargs):
        # dagster-dbt hands the process environment to dbt; this process runs one step at a time.
        os.environ.update(dbt_environment(self.warehouse.url()))
        return super().cli(args, **kwargs)


def build_resources(settings: Settings | None = None) -> dict:
    """The resources of every job, for the given settings (default: from the environment)."""
    settings = settings or Settings.from_env()
    warehouse = Warehouse(home=str(settings.home), database_url=settings.database_url or "",
                          lake_dir=str(settings.lake_dir or ""))
    return {
        "warehouse": warehouse,
        "dbt": WarehouseDbtCliResource(project_dir=analytics_dbt_project, dbt_executable=dbt_executable(),
                                       warehouse=warehouse),
    }
