"""The Dagster code location loads (the dbt manifest is prepared by `make manifest`)."""
from pipelines.dbt_environment import manifest_path


def test_definitions_load():
    assert manifest_path().exists(), "run `make manifest` first"
    from orchestration.definitions import defs

    repository = defs.get_repository_def()
    keys = {key.to_user_string() for key in repository.asset_graph.get_all_asset_keys()}
    assert any("stg_raw__events" in key for key in keys)


def test_the_attribution_test_is_an_asset_check_the_15_minute_build_runs():
    """A singular dbt test over two models without a named asset is logged by Dagster as an
    observation with a warning at every build: this one is a check of int_conversions, which the
    15-minute build selects (and dbt's eager selection runs the test with it)."""
    from orchestration.definitions import defs
    from orchestration.defs.dbt.schedules import incremental_build_job

    graph = defs.get_repository_def().asset_graph
    checks = {key for key in graph.asset_check_keys if key.name == "assert_attribution_credits_sum_to_one"}
    assert [key.asset_key.path[-1] for key in checks] == ["int_conversions"]
    assert checks <= incremental_build_job.selection.resolve_checks(graph)


def test_the_dbt_resource_chooses_the_target_from_the_engine(tmp_path):
    """One asset graph, two engines: PostgreSQL by default, Spark's Thrift server and the lake with
    ANALYTICS_ENGINE=spark (docs/data-engineer/spark.md)."""
    from orchestration.defs.resources import build_resources
    from pipelines.settings import Settings

    url = "postgresql://analytics@127.0.0.1:5432/analytics"
    postgres = build_resources(Settings.from_env({"ANALYTICS_HOME": str(tmp_path), "ANALYTICS_DATABASE_URL": url}))
    env = postgres["dbt"].warehouse.dbt_environment()
    assert env["ANALYTICS_DBT_TARGET"] == "postgres" and env["ANALYTICS_DBT_DATABASE"] == "analytics"
    assert "ANALYTICS_DBT_SPARK_PORT" not in env
    spark = build_resources(Settings.from_env({"ANALYTICS_HOME": str(tmp_path), "ANALYTICS_DATABASE_URL": url,
                                               "ANALYTICS_ENGINE": "spark", "ANALYTICS_SPARK_THRIFT_PORT": "10123"}))
    env = spark["dbt"].warehouse.dbt_environment()
    assert env["ANALYTICS_DBT_TARGET"] == "spark" and env["ANALYTICS_DBT_SPARK_PORT"] == "10123"
    assert env["ANALYTICS_DBT_LAKE_PATH"] == str(tmp_path / "lake")
    # The dbt steps on Spark watch the cluster's master (orchestration/defs/dbt/worker_watch.py).
    watched = spark["dbt"].warehouse.settings()
    assert (watched.spark_master, watched.spark_master_ui_port, watched.spark_worker_wait_seconds) == \
        ("spark://127.0.0.1:7077", 7080, 120)
