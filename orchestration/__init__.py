"""Dagster definitions: wiring only; the logic lives in `pipelines` and `dbt_project`."""
