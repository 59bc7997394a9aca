"""The screens whose effect goes through the pipeline: a channel rule change previewed, saved and
reaching a past visit in the exposed view; a person exported and erased from the derived tables.

The pipeline runs as the product runs it, in process: `analytics build` (`build_everything`)
builds the warehouse, the Dagster sensor on the channel rules' version is evaluated and the job it
requests (`channel_rebuild_job`) executed, and privacy requests are processed by the maintenance
function that the privacy sensor's asset calls.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psycopg
import pytest
from dagster import Definitions, RunRequest, build_sensor_context
from playwright.sync_api import expect

from orchestration.build import build_everything
from orchestration.defs.dbt.assets import analytics_dbt_incremental_models, analytics_dbt_models
from orchestration.defs.dbt.schedules import channel_rebuild_job, channel_rules_sensor
from orchestration.defs.resources import build_resources
from pipelines.admin import admin_users
from pipelines.maintenance.privacy import process_privacy_requests
from pipelines.maintenance.warehouse_tables import derived_tables
from pipelines.settings import Settings
from tests.collector_admin_ui.browser_steps import PASSWORD, expect_accessible, sign_in
from tests.conftest import TEST_SECRET, clone_template, drop_database
from tests.tracker.conftest import browser, chromium_path  # noqa: F401  (shared Chromium)
from tests.tracker_e2e.conftest import RealCollector

# The module's stack builds the demo pipeline (dbt) before its first test: fifteen minutes, not the
# suite's five, so a loaded machine is slow rather than failing (a hang still ends).
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

PARTNER_LANDING = "https://shop.example/landing?utm_source=partner-site&utm_medium=affiliate&utm_campaign=spring"


@pytest.fixture(scope="module")
def built(pg_server_url, template_database):
    """The collector under gunicorn, a site with two people's visits sent with a server key,
    and the warehouse built by `analytics build`."""
    url = clone_template(pg_server_url, template_database, prefix="test_admin_ui_pipeline")
    home = Path(tempfile.mkdtemp(prefix="analytics-admin-ui-pipeline-"))
    with psycopg.connect(url, autocommit=True) as conn:
        admin_users.create_user(conn, email="owner@example.org", password=PASSWORD, actor="tests")
    collector = RealCollector(url, home).start()
    site = collector.call("POST", "/sites", json={"name": "Pipeline shop", "domains": ["shop.example"],
                                                  "accept_user_id": True}).json()["id"]
    secret = collector.call("POST", f"/sites/{site}/server-keys", json={"name": "tests"}).json()["secret"]
    at = (datetime.now(timezone.utc) - timedelta(hours=2)).isoformat()
    events = [{"type": "pageview", "at": at, "url": PARTNER_LANDING, "user_id": "person-1"},
              {"type": "pageview", "at": at, "url": "https://shop.example/only-person-2",
               "referrer": "https://news.example/story", "user_id": "person-2"}]
    answer = collector.api.post(f"{collector.base_url}/collect/server", json={"events": events},
                                headers={"Authorization": f"Bearer {secret}"}, timeout=10)
    assert answer.status_code == 202 and answer.json()["accepted"] == 2, answer.text
    settings = Settings(home=home, database_url=url, server_secret_value=TEST_SECRET)
    assert build_everything(settings).success
    yield {"collector": collector, "site": site, "settings": settings}
    collector.stop()
    shutil.rmtree(home, ignore_errors=True)
    drop_database(pg_server_url, url)


@pytest.fixture
def owner(built, browser):  # noqa: F811
    context = browser.new_context(locale="en-GB", bypass_csp=True, accept_downloads=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    sign_in(page, built["collector"].base_url)
    yield page
    context.close()


def rebuild_channels_as_the_daemon_does(settings: Settings) -> None:
    resources = build_resources(settings)
    context = build_sensor_context(cursor=None, resources={"warehouse": resources["warehouse"]})
    assert isinstance(channel_rules_sensor(context), RunRequest)
    defs = Definitions(assets=[analytics_dbt_incremental_models, analytics_dbt_models], jobs=[channel_rebuild_job],
                       resources=resources)
    assert defs.resolve_job_def("channel_rebuild_job").execute_in_process().success


def channel_of_partner_visit(db) -> str:
    return db.execute("select channel from analytics.visits where source = 'partner-site'").fetchone()["channel"]


def test_a_channel_rule_is_tested_previewed_saved_and_reaches_a_past_visit(built, owner):
    collector, site = built["collector"], built["site"]
    assert channel_of_partner_visit(collector.db) == "Affiliates"
    owner.goto(f"{collector.base_url}/admin/sites/{site}/channels")
    expect(owner.get_by_role("status").first).to_contain_text("Every past visit has the channel of the saved rules.")
    expect_accessible(owner)
    # 28 rules (GA4's default group) and two blank rows; the script adds a third.
    owner.get_by_role("button", name="Add a rule").click()
    expect(owner.get_by_label("Channel of rule 31", exact=True)).to_be_focused()
    owner.get_by_label("Position of rule 31", exact=True).fill("0")
    owner.get_by_label("Channel of rule 31", exact=True).fill("Partners")
    owner.get_by_label("Source pattern of rule 31", exact=True).fill("^partner")

    owner.get_by_label("Page URL", exact=True).fill("https://shop.example/?utm_source=partner-site&utm_medium=affiliate")
    owner.get_by_role("button", name="Test").click()
    expect(owner.get_by_text(re.compile(r"^Channel: Partners \(source partner-site, medium affiliate"))).to_be_visible()

    owner.get_by_role("button", name="Preview the changes").click()
    expect(owner.get_by_text("1 past visits would change channel.")).to_be_visible()
    change = owner.get_by_role("table", name="Visits that would change channel").get_by_role("row").nth(1)
    expect(change).to_have_text(re.compile(r"Affiliates\s*Partners\s*1"))
    assert channel_of_partner_visit(collector.db) == "Affiliates"  # a preview saves nothing
    expect_accessible(owner)

    owner.get_by_role("button", name="Save the rules").click()
    expect(owner.get_by_text(re.compile(r"The rules were saved \(version \d+\)"))).to_be_visible()
    expect(owner.get_by_text(re.compile("Rebuild in progress: 1 past visits still show their former channel"))).to_be_visible()
    expect(owner.get_by_label("Channel of rule 1", exact=True)).to_have_value("Partners")

    rebuild_channels_as_the_daemon_does(built["settings"])
    # The page's script follows the progress until the rebuild is done.
    expect(owner.get_by_text("Every past visit has the channel of the saved rules.")).to_be_visible(timeout=15_000)
    assert channel_of_partner_visit(collector.db) == "Partners"


def person_rows(db, url: str, user_id: str) -> dict[str, int]:
    counts = {"raw.events": db.execute("select count(*) as n from raw.events where user_id = %s",
                                       (user_id,)).fetchone()["n"]}
    with psycopg.connect(url) as plain:  # derived_tables reads tuple rows
        tables = derived_tables(plain)
    for table in tables:
        # Derived tables key people by visitor_key (an md5 of 'user:<user_id>', stg_raw__events).
        column = "user_id" if "user_id" in table.columns else "visitor_key" if "visitor_key" in table.columns else None
        if column:
            value = user_id if column == "user_id" else hashlib.md5(f"user:{user_id}".encode()).hexdigest()
            counts[f"{table.schema}.{table.name}"] = db.execute(
                f'select count(*) as n from "{table.schema}"."{table.name}" where {column} = %s', (value,)).fetchone()["n"]
    counts["analytics.pageviews"] = db.execute(
        "select count(*) as n from analytics.pageviews where path = '/only-person-2'").fetchone()["n"]
    return counts


def request_state(owner, row: int):
    return owner.get_by_role("table", name=re.compile("Requests of this site")).get_by_role("row").nth(row)


def carry_out_the_request(owner, settings: Settings) -> None:
    """The request waits for the pipeline; the maintenance function (what the privacy sensor's
    asset runs) carries it out; the page shows the new state."""
    expect(request_state(owner, 1)).to_contain_text("waiting for the pipeline")
    with psycopg.connect(settings.database_url, autocommit=True) as conn:
        assert [r["state"] for r in process_privacy_requests(conn, settings)] == ["done"]
    owner.reload()


def test_a_person_is_exported_then_erased_from_the_derived_tables(built, owner):
    collector, site, settings = built["collector"], built["site"], built["settings"]
    before = person_rows(collector.db, settings.database_url, "person-2")
    assert before["raw.events"] == 1 and before["analytics.pageviews"] == 1 and sum(before.values()) > 3

    owner.goto(f"{collector.base_url}/admin/sites/{site}/privacy")
    owner.get_by_label("Identifier", exact=True).fill("person-2")
    owner.get_by_role("button", name="Send the request").click()
    carry_out_the_request(owner, settings)
    expect(request_state(owner, 1)).to_contain_text("done")
    with owner.expect_download() as download:
        owner.get_by_role("link", name="Download JSON").click()
    exported = json.loads(Path(download.value.path()).read_text())
    assert [(row["user_id"], row["path"]) for row in exported] == [("person-2", "/only-person-2")]
    with owner.expect_download() as download:
        owner.get_by_role("link", name="Download CSV").click()
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
    assert [row["user_id"] for row in rows] == ["person-2"]
    expect_accessible(owner)

    owner.get_by_label("Erasure", exact=True).check()
    owner.get_by_label("Identifier", exact=True).fill("person-2")
    owner.get_by_role("button", name="Send the request").click()
    expect(owner.get_by_role("heading", name="Confirm the erasure")).to_be_visible()
    expect_accessible(owner)
    assert person_rows(collector.db, settings.database_url, "person-2") == before  # nothing before the confirmation
    owner.get_by_role("button", name="Erase this person's data").click()
    carry_out_the_request(owner, settings)
    expect(request_state(owner, 1)).to_contain_text("rows deleted from raw data and derived tables")
    assert set(person_rows(collector.db, settings.database_url, "person-2").values()) == {0}
    assert person_rows(collector.db, settings.database_url, "person-1")["raw.events"] == 1  # only that person
