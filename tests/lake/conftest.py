"""Fixtures of the lake tests: the pipeline's fixture shop built by dbt once per module, cloned for
each test (a test may erase people or change rows), and a lake in the test's temp folder."""
from __future__ import annotations

import psycopg
import pytest
from psycopg import sql

from pipelines.database import connection
from pipelines.event_views import regenerate_event_views
from pipelines.settings import Settings
from tests.conftest import TEST_SECRET, clone_template, drop_database
from tests.pipeline.conftest import create_site, load_fixture_data, run_dbt


@pytest.fixture(scope="module")
def built_template(pg_server_url, template_database):
    """A database with the fixture shop and a full dbt build, used as the template of each test's."""
    url = clone_template(pg_server_url, template_database, prefix="lake_built")
    with psycopg.connect(url, autocommit=True) as db:
        site_id = create_site(db)
        load_fixture_data(db, site_id)
        regenerate_event_views(db)
    run_dbt(url, "build", "--exclude-resource-type", "unit_test")
    yield {"url": url, "site_id": str(site_id)}
    drop_database(pg_server_url, url)


@pytest.fixture
def built(pg_server_url, built_template, tmp_path):
    """A copy of the built database, and settings whose lake is in tmp_path."""
    name = connection.split_url(built_template["url"]).database
    url = clone_template(pg_server_url, name, prefix="lake_test")
    settings = Settings(home=tmp_path / "home", database_url=url, server_secret_value=TEST_SECRET,
                        lake_dir=tmp_path / "lake")
    yield {"url": url, "site_id": built_template["site_id"], "settings": settings}
    drop_database(pg_server_url, url)
