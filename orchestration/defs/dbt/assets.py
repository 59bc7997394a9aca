"""Every dbt model as a Dagster asset."""
from dagster import AssetExecutionContext
from dagster_dbt import DbtCliResource, dbt_assets

from orchestration.defs.dbt.project import analytics_dbt_project


@dbt_assets(manifest=analytics_dbt_project.manifest_path)
def analytics_dbt_models(context: AssetExecutionContext, dbt: DbtCliResource):
    yield from dbt.cli(["build"], context=context).stream()
