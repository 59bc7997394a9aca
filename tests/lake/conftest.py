"""Fixtures of the lake tests: the pipeline's fixture shop built by dbt once per module
(tests/pipeline's `built_database`), cloned for each test (a test may erase people or change
rows), and a lake in the test's temp folder."""
from __future__ import annotations

import pytest

from pipelines.database import connection
from pipelines.settings import Settings
from tests.conftest import TEST_SECRET, clone_template, drop_database
from tests.pipeline.conftest import built_database  # noqa: F401 - the module's built shop


@pytest.fixture
def built(pg_server_url, built_database, tmp_path):  # noqa: F811
    """A copy of the built database, and settings whose lake is in tmp_path."""
    name = connection.split_url(built_database["url"]).database
    url = clone_template(pg_server_url, name, prefix="lake_test")
    settings = Settings(home=tmp_path / "home", database_url=url, server_secret_value=TEST_SECRET,
                        lake_dir=tmp_path / "lake")
    yield {"url": url, "site_id": str(built_database["site_id"]), "settings": settings}
    drop_database(pg_server_url, url)
