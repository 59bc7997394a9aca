"""Fixtures of the lake tests: the pipeline's fixture shop, built by dbt, and a lake in a temp folder."""
from __future__ import annotations

from dataclasses import replace

import psycopg
import pytest

from pipelines.event_views import regenerate_event_views
from tests.conftest import TEST_SECRET
from tests.pipeline.conftest import create_site, load_fixture_data, run_dbt
from pipelines.settings import Settings


@pytest.fixture
def built(database_url, tmp_path):
    """A fresh database with the fixture shop built by dbt, and settings whose lake is in tmp_path."""
    with psycopg.connect(database_url, autocommit=True) as db:
        site_id = create_site(db)
        load_fixture_data(db, site_id)
        regenerate_event_views(db)
    run_dbt(database_url, "build", "--exclude-resource-type", "unit_test")
    settings = Settings(home=tmp_path / "home", database_url=database_url, server_secret_value=TEST_SECRET,
                        lake_dir=tmp_path / "lake")
    return {"url": database_url, "site_id": str(site_id), "settings": settings}
