"""The Dagster code location loads (the dbt manifest is prepared by `make manifest`)."""
from pipelines.dbt_environment import manifest_path


def test_definitions_load():
    assert manifest_path().exists(), "run `make manifest` first"
    from orchestration.definitions import defs

    repository = defs.get_repository_def()
    keys = {key.to_user_string() for key in repository.asset_graph.get_all_asset_keys()}
    assert any("stg_raw__events" in key for key in keys)
