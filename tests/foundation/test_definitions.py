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
