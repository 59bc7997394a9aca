"""The engine's limits come from the environment: query timeout, row limit and memory limit."""
from __future__ import annotations

from dataclasses import replace

import pytest

from pipelines.settings import Settings, SettingsError
from tests.workbench_api.conftest import Api, ok
from workbench_app.app import create_app
from workbench_app.sources.engine_catalogs import engine_settings

LIMITS = {
    "ANALYTICS_WORKBENCH_QUERY_TIMEOUT_SECONDS": "2.5",
    "ANALYTICS_WORKBENCH_ROW_LIMIT": "500",
    "ANALYTICS_WORKBENCH_MEMORY_LIMIT": "256MB",
}


def test_limits_are_read_from_the_environment_into_the_engine(tmp_path):
    base = {"ANALYTICS_HOME": str(tmp_path), "ANALYTICS_SECRET": "test-secret"}
    engine = engine_settings(Settings.from_env({**base, **LIMITS}))
    assert (engine.timeout_seconds, engine.row_limit, engine.memory_limit) == (2.5, 500, "256MB")
    defaults = engine_settings(Settings.from_env(base))
    assert (defaults.timeout_seconds, defaults.row_limit, defaults.memory_limit) == (30.0, 10_000, "1GB")


@pytest.mark.parametrize(
    "name, value",
    [
        ("ANALYTICS_WORKBENCH_QUERY_TIMEOUT_SECONDS", "soon"),
        ("ANALYTICS_WORKBENCH_QUERY_TIMEOUT_SECONDS", "0"),
        ("ANALYTICS_WORKBENCH_QUERY_TIMEOUT_SECONDS", "-5"),
        ("ANALYTICS_WORKBENCH_QUERY_TIMEOUT_SECONDS", "nan"),
        ("ANALYTICS_WORKBENCH_ROW_LIMIT", "many"),
        ("ANALYTICS_WORKBENCH_ROW_LIMIT", "0"),
        ("ANALYTICS_WORKBENCH_ROW_LIMIT", "1.5"),
        ("ANALYTICS_WORKBENCH_MEMORY_LIMIT", "lots"),
        ("ANALYTICS_WORKBENCH_MEMORY_LIMIT", "0GB"),
        ("ANALYTICS_WORKBENCH_MEMORY_LIMIT", "1GB'; SET threads = 64; --"),
    ],
)
def test_an_unusable_limit_is_refused_naming_its_variable(name, value):
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


@pytest.fixture
def limited(workbench_settings, warehouse, admin_token):
    """The app of a worker started with small limits, and its administrator."""
    settings = replace(
        workbench_settings,
        workbench_query_timeout_seconds=0.5,
        workbench_row_limit=2,
        workbench_memory_limit="96MiB",
    )
    application = create_app(settings)
    application.testing = True
    yield Api(application.test_client(), admin_token), application.extensions["workbench"]
    application.wsgi_app.close()
    application.extensions["workbench"].close()


def test_a_result_over_the_row_limit_is_cut_and_flagged(limited):
    api, _ = limited
    result = ok(api.post("/sql", {"sql": "SELECT view_id FROM page_views ORDER BY view_id"}))
    assert result["rows"] == [[1], [2]] and result["row_count"] == 2 and result["truncated"] is True
    # A caller may lower the limit, never raise it.
    result = ok(api.post("/sql", {"sql": "SELECT view_id FROM page_views ORDER BY view_id", "row_limit": 1000}))
    assert len(result["rows"]) == 2 and result["truncated"] is True
    result = ok(api.post("/sql", {"sql": "SELECT view_id FROM page_views WHERE view_id = 1"}))
    assert result["rows"] == [[1]] and result["truncated"] is False
    # Native SQL keeps to the same limit.
    native = ok(api.post("/sql/native", {"catalog": "warehouse", "sql": "SELECT view_id FROM analytics.page_views"}))
    assert native["row_count"] == 2 and native["truncated"] is True


def test_a_slow_query_stops_at_the_timeout_with_a_structured_error(limited):
    api, _ = limited
    stopped = api.post("/sql", {"sql": "SELECT count(*) FROM range(100000000000) a"})
    assert stopped.status_code == 408
    assert stopped.get_json()["error"]["code"] == "query_timeout"
    native = api.post("/sql/native", {"catalog": "warehouse", "sql": "SELECT pg_sleep(5)"})
    assert native.status_code == 408
    assert native.get_json()["error"]["code"] == "query_timeout"
    # The worker keeps serving.
    assert ok(api.post("/sql", {"sql": "SELECT 1 AS one"}))["rows"] == [[1]]


def test_the_memory_limit_is_set_on_the_engines_database(limited):
    api, services = limited
    ok(api.post("/sql", {"sql": "SELECT 1"}))  # the worker builds its engine on first use
    # Behind the API on purpose: users never get this connection.
    connection = services.catalogs.engine._generation.connection
    assert connection.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "96.0 MiB"
