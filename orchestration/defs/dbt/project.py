"""The one dbt project object. Its manifest is prepared by `make manifest`, never at import."""
from dagster_dbt import DbtProject

from pipelines.dbt_environment import DBT_PROJECT_DIR

analytics_dbt_project = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR)
