"""The Dagster code location: merges the definitions of each integration."""
from dagster import Definitions
from dagster_dbt import DbtCliResource

from orchestration.defs.dbt.assets import analytics_dbt_models
from orchestration.defs.dbt.project import analytics_dbt_project
from pipelines.dbt_environment import dbt_executable

defs = Definitions(
    assets=[analytics_dbt_models],
    resources={"dbt": DbtCliResource(project_dir=analytics_dbt_project, dbt_executable=dbt_executable())},
)
