"""End-to-end fixtures: the tracking script in headless Chromium against the real collector.

The collector runs under gunicorn (a subprocess, as in production) on a database cloned for this
package from the session's migrated template; sites and zones are declared through the real
administration API. Test pages, the browser and its contexts come from tests/tracker (same pages,
same launch flags: the user agent is set for the whole browser, so that beacons sent while a page
unloads carry it too). What the tests assert is what lands in raw.events and collect.rejections.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
import requests
from psycopg.rows import dict_row

from analytics_cli.supervisor import collector_command
from pipelines.admin import admin_tokens
from tests.conftest import REPO_ROOT, TEST_SECRET, clone_template, drop_database, free_port
from tests.tracker.conftest import (  # noqa: F401  (fixtures reused as they are)
    MODES, Visit, browser, chromium_path, context, make_context, page, pages)

# Refusals that only a bug can explain: the tests count every one of them as a failure.
UNEXPECTED_REFUSALS = ("bot", "invalid_payload", "unknown_site", "rate_limited")


class RealCollector:
    """The collector under gunicorn, with the interface of tests/tracker's capture peer that the
    shared `Visit` uses (`base_url`, `add_site`, `events`, `wait_events`), reading raw.events."""

    def __init__(self, database_url: str, home: Path):
        self.database_url = database_url
        self.home = home
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = home / "gunicorn.log"
        self.process: subprocess.Popen | None = None
        self.sites: list[tuple[str, frozenset[str]]] = []  # each with the refusals it expects
        with psycopg.connect(database_url, autocommit=True) as conn:
            _, secret = admin_tokens.create_token(conn, name="tracker-e2e", actor="tests")
        self.api = requests.Session()
        self.api.headers["Authorization"] = f"Bearer {secret}"
        self.db = psycopg.connect(database_url, autocommit=True, row_factory=dict_row)

    def start(self) -> RealCollector:
        self.home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "ANALYTICS_DATABASE_URL": self.database_url, "ANALYTICS_HOME": str(self.home),
               "ANALYTICS_SECRET": TEST_SECRET}
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                collector_command(2, f"127.0.0.1:{self.port}"),
                cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self._await(self._healthy, 30, "the collector to answer /healthz")
        return self

    def stop(self) -> None:
        self.api.close()
        self.db.close()
        if self.process is not None:
            self.process.terminate()
            self.process.wait(30)

    def _healthy(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"gunicorn exited:\n{self.log_path.read_text()[-3000:]}")
        try:
            return requests.get(self.base_url + "/healthz", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    @staticmethod
    def _await(condition, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while not (found := condition()):
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout}s for {what}")
            time.sleep(0.05)
        return found

    def call(self, method: str, path: str, **kwargs) -> requests.Response:
        """The administration API, as an administrator."""
        return self.api.request(method, f"{self.base_url}/api/v1{path}", timeout=10, **kwargs)

    def add_site(self, mode: str, zones=(), domains=("127.0.0.1",), refusals=()) -> str:
        """A site declared through the administration API, with its zones; returns its id.
        `refusals`: reasons among UNEXPECTED_REFUSALS that the test provokes on purpose."""
        r = self.call("POST", "/sites", json={"name": f"E2E {mode}", "domains": list(domains), "tracking_mode": mode})
        assert r.status_code == 201, r.text
        site = r.json()["id"]
        for zone in zones:
            r = self.call("POST", f"/sites/{site}/zones", json={**zone, "label": zone["name"].title()})
            assert r.status_code == 201, r.text
        self.sites.append((site, frozenset(refusals)))
        return site

    def events(self, site: str) -> list[dict]:
        """The site's rows of raw.events, in the order they were stored."""
        return self.db.execute("select * from raw.events where site_id = %s order by received_at, event_id",
                               (site,)).fetchall()

    def wait_events(self, site: str, name: str | None = None, count: int = 1, timeout: float = 15,
                    where=lambda row: True) -> list[dict]:
        """Wait until `count` rows of `site` match (name: an event name, or "pageview")."""
        def matching():
            found = [row for row in self.events(site)
                     if (name is None or row["event_name"] == name) and where(row)]
            return found if len(found) >= count else None
        try:
            return self._await(matching, timeout, f"{count} x {name!r}")
        except AssertionError:
            seen = [row["event_name"] for row in self.events(site)]
            raise AssertionError(f"waited {timeout}s for {count} x {name!r} on {site}; "
                                 f"stored {seen}; refused {self.rejections(site)}") from None

    def rejections(self, site: str) -> dict[str, int]:
        """Refused events of the site by reason (collect.rejections)."""
        return {row["reason"]: int(row["n"]) for row in self.db.execute(
            "select reason, sum(count) as n from collect.rejections where site_id = %s group by reason", (site,))}

    def wait_rejections(self, site: str, reason: str, count: int, timeout: float = 15) -> dict[str, int]:
        return self._await(lambda: (found := self.rejections(site)).get(reason, 0) >= count and found,
                           timeout, f"{count} events of {site} refused as {reason}")

    def health(self, site: str) -> dict:
        r = self.call("GET", f"/sites/{site}/health")
        assert r.status_code == 200, r.text
        return r.json()


class StoredVisit(Visit):
    """A site in one tracking mode, opened in a browser page; events are rows of raw.events."""

    def events(self, name: str | None = None) -> list[dict]:
        return [row for row in self.collector.events(self.site) if name is None or row["event_name"] == name]

    def check_identity(self, granted: bool = False) -> str:
        """Rows and device agree with the mode: cookieless and consent before a grant store the
        daily hash and write nothing on the device; cookie mode stores `_vis` as the visitor.
        Returns the visitor id of the rows."""
        rows = [row for row in self.events() if row["hostname"] == "127.0.0.1"]
        assert rows
        storage = self.page.evaluate("[document.cookie, localStorage.length, sessionStorage.length]")
        assert storage[1:] == [0, 0]
        if self.mode == "cookie" or granted:
            cookie = self.cookies()["_vis"]
            assert re.fullmatch(r"[0-9a-v]{26}", cookie["value"])
            assert {(row["visitor_kind"], row["visitor_id"]) for row in rows} == {("cookie", cookie["value"])}
        else:
            assert storage[0] == "" and self.page.context.cookies() == []
            assert {row["visitor_kind"] for row in rows} == {"hash"}
            assert len({row["visitor_id"] for row in rows}) == 1  # one browser, one day, one site
            assert re.fullmatch(r"[0-9a-f]{64}", rows[0]["visitor_id"])
        assert all(row["user_id"] is None and row["source"] == "browser" for row in rows)
        return rows[0]["visitor_id"]


@pytest.fixture(scope="session")
def e2e_database_url(pg_server_url, template_database):
    """One database for the package: each test declares sites of its own."""
    url = clone_template(pg_server_url, template_database, prefix="test_tracker_e2e")
    yield url
    drop_database(pg_server_url, url)


@pytest.fixture(scope="session")
def collector(e2e_database_url):
    home = Path(tempfile.mkdtemp(prefix="analytics-tracker-e2e-"))
    real = RealCollector(e2e_database_url, home).start()
    yield real
    real.stop()
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(autouse=True)
def nothing_refused_by_mistake(request):
    """After every test: no event of its sites was refused for a reason only a bug can explain
    (a beacon carrying a bot's user agent, a payload the collector does not accept...)."""
    if "collector" not in request.fixturenames:
        yield
        return
    collector = request.getfixturevalue("collector")
    start = len(collector.sites)
    yield
    for site, expected in collector.sites[start:]:
        refused = {reason: n for reason, n in collector.rejections(site).items()
                   if reason in UNEXPECTED_REFUSALS and reason not in expected}
        assert refused == {}, f"events of site {site} refused: {refused}"


@pytest.fixture
def visit(collector, pages, page):
    """Factory: `visit(mode, zones=...)` declares a site through the API and returns its visit."""
    def make(mode: str, **site) -> StoredVisit:
        return StoredVisit(collector, pages, page, collector.add_site(mode, **site), mode)
    return make
