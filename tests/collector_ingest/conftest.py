"""Fixtures of the ingestion tests: the collector app on this test's database, sites and keys."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from collector_app.app import create_app
from collector_app.database import close_pool
from pipelines.admin.server_keys import create_server_key
from pipelines.ingest.writer import stop_writer


@pytest.fixture
def app(settings):
    app = create_app(settings)
    yield app
    stop_writer(settings)
    close_pool(app)


@pytest.fixture
def client(app):
    return app.test_client()


@dataclass
class Site:
    site_id: str
    key_id: str
    secret: str

    @property
    def auth(self) -> dict:
        return {"Authorization": f"Bearer {self.secret}"}


@pytest.fixture
def make_site(db):
    """Factory: a site (optionally accepting user ids, with domains and a mode) and one server key."""
    def make(name="Shop", accept_user_id=False, rate_limit_per_minute=None, domains=(), mode="cookieless") -> Site:
        site_id = db.execute(
            "insert into collect.sites (name, accept_user_id, tracking_mode) values (%s, %s, %s) returning site_id",
            (name, accept_user_id, mode)).fetchone()[0]
        for domain in domains:
            db.execute("insert into collect.site_domains (site_id, domain) values (%s, %s)", (site_id, domain))
        with db.transaction():
            key = create_server_key(db, site_id, actor="test", rate_limit_per_minute=rate_limit_per_minute)
        return Site(str(site_id), str(key["id"]), key["secret"])
    return make


@pytest.fixture
def site(make_site) -> Site:
    return make_site()


def events_of(db, site_id) -> list[dict]:
    cur = db.execute("select * from raw.events where site_id = %s order by received_at, occurred_at", (site_id,))
    names = [c.name for c in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def fresh_ingestion_cache(app) -> None:
    """Forget the salts cached by the app's process, as a new worker would."""
    from collector_app.collect_api.context import ingestion
    from pipelines.ingest.visitors import DailySalts

    ingestion(app).salts = DailySalts()
