"""Fixtures of the pipeline tests: a site with metadata, raw events inserted with SQL, dbt runs."""
from __future__ import annotations

import json
import os
import subprocess
import uuid
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from typing import Iterator

import pytest

from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_environment, dbt_executable

NOW = datetime.now(timezone.utc).replace(microsecond=0)

GA4_LIKE_RULES = [
    # position, channel, source, medium, campaign, source_category
    (10, "Direct", r"^\(direct\)$", r"^\(none\)$", None, None),
    (20, "Paid Search", None, r"^(cpc|ppc|paid.*)$", None, "search"),
    (30, "Paid Social", None, r"^(cpc|ppc|paid.*)$", None, "social"),
    (40, "Email", None, r"^e[-_ ]?mail$", None, None),
    (50, "Organic Search", None, None, None, "search"),
    (60, "Organic Social", None, None, None, "social"),
    (70, "Referral", None, r"^referral$", None, None),
]
SOURCE_CATEGORIES = [("google", "search"), ("bing", "search"), ("facebook", "social"),
                     ("t.co", "social"), ("newsletter", "email")]


def run_dbt(database_url: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run the dbt CLI on the test database (the environment every component uses)."""
    env = {**os.environ, **dbt_environment(database_url)}
    result = subprocess.run([dbt_executable(), *args, "--project-dir", str(DBT_PROJECT_DIR),
                             "--profiles-dir", str(DBT_PROJECT_DIR)],
                            env=env, capture_output=True, text=True, cwd=DBT_PROJECT_DIR)
    if check and result.returncode != 0:
        raise AssertionError(f"dbt {' '.join(args)} failed:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}")
    return result


def create_site(db, name: str = "Example shop", rules=GA4_LIKE_RULES) -> uuid.UUID:
    site_id = db.execute("insert into collect.sites (name) values (%s) returning site_id", (name,)).fetchone()[0]
    db.execute("insert into collect.site_domains (site_id, domain) values (%s, 'shop.example')", (site_id,))
    seeded = db.execute("select count(*) from collect.channel_rules where site_id = %s", (site_id,)).fetchone()[0]
    # Sites get GA4's default rules from a trigger (migration 0010); these stand in without it.
    for position, channel, source, medium, campaign, category in (rules if not seeded else []):
        db.execute(
            """insert into collect.channel_rules (site_id, position, channel, source_pattern, medium_pattern,
                                                  campaign_pattern, source_category)
               values (%s, %s, %s, %s, %s, %s, %s)""",
            (site_id, position, channel, source, medium, campaign, category))
    db.execute("insert into collect.channel_rules_versions (site_id) values (%s) on conflict do nothing", (site_id,))
    for source, category in SOURCE_CATEGORIES:
        db.execute("insert into collect.source_categories values (%s, %s) on conflict do nothing", (source, category))
    return site_id


def insert_event(db, site_id, at: datetime, *, name: str = "pageview", visitor: str | None = "visitor-a",
                 kind: str = "cookie", user_id: str | None = None, path: str = "/", referrer: str | None = None,
                 utm: dict | None = None, props: dict | None = None, items: list | None = None,
                 page_id: str | None = None, revenue=None, currency=None, transaction_id=None,
                 received_at: datetime | None = None) -> uuid.UUID:
    """One row of raw.events as the collector would store it."""
    utm = utm or {}
    if visitor is None and user_id is None:
        kind = "none"
    elif user_id is not None:
        kind = "user"
    referrer_host = referrer.split("/")[2] if referrer else None
    return db.execute(
        """insert into raw.events (site_id, occurred_at, received_at, source, event_type, event_name, visitor_kind,
                                   visitor_id, user_id, page_id, url, hostname, path, referrer, referrer_host,
                                   utm_source, utm_medium, utm_campaign, country, device_class, props, items,
                                   transaction_id, revenue, currency)
           values (%s, %s, %s, 'server', %s, %s, %s, %s, %s, %s, %s, 'shop.example', %s, %s, %s, %s, %s, %s, 'FR',
                   'desktop', %s, %s, %s, %s, %s)
           returning event_id""",
        (site_id, at, received_at or at, "pageview" if name == "pageview" else "event", name, kind, visitor,
         user_id, page_id, f"https://shop.example{path}", path, referrer, referrer_host,
         utm.get("source"), utm.get("medium"), utm.get("campaign"), json.dumps(props or {}),
         json.dumps(items) if items is not None else None, transaction_id, revenue, currency),
    ).fetchone()[0]


@pytest.fixture
def site(db):
    return create_site(db)


ALICE_USER = "alice-user-7731"
ALICE_COOKIE = "AliceCookie0000000000000001"
BOB_COOKIE = "BobCookie000000000000000002"
CAROL_COOKIE = "CarolCookie0000000000000003"


def load_fixture_data(db, site_id) -> dict:
    """Metadata and raw events of a small shop: three visitors, five visits, a purchase, a goal."""
    db.execute("""insert into collect.goals (site_id, name, kind, path_pattern, value)
                  values (%s, 'Pricing viewed', 'pageview', '/pricing*', 5)""", (site_id,))
    db.execute("""insert into collect.goals (site_id, name, kind, event_name, property_name, property_value, value)
                  values (%s, 'Pro sign-up', 'event', 'sign_up', 'plan', 'pro', 20)""", (site_id,))
    db.execute("insert into collect.zones values (%s, 'hero', '#hero', 'Hero banner')", (site_id,))
    db.execute("""insert into collect.classifications values (%s, 'campaign', 'spring sale', 'product_line', 'Shoes')""",
               (site_id,))
    db.execute("insert into collect.annotations (site_id, on_date, text) values (%s, %s, 'Spring sale starts')",
               (site_id, (NOW - timedelta(days=3)).date()))
    db.execute("""insert into collect.declared_events (site_id, name, label, description)
                  values (%s, 'sign_up', 'Sign-up', 'A visitor created an account.')""", (site_id,))
    for name, type_, label in [("plan", "string", "Plan chosen"), ("seats", "number", "Seats"),
                               ("trial", "boolean", "Trial started")]:
        db.execute("""insert into collect.declared_event_properties values (%s, 'sign_up', %s, %s, %s, %s)""",
                   (site_id, name, type_, label, f"{label} at sign-up."))

    t1 = NOW - timedelta(days=10)
    insert_event(db, site_id, t1, visitor=ALICE_COOKIE, user_id=ALICE_USER, referrer="https://www.google.com/",
                 path="/", page_id="alice-page-1")
    insert_event(db, site_id, t1 + timedelta(minutes=2), visitor=ALICE_COOKIE, user_id=ALICE_USER,
                 path="/shoes", page_id="alice-page-2")
    insert_event(db, site_id, t1 + timedelta(minutes=3), name="scroll_depth", visitor=ALICE_COOKIE, user_id=ALICE_USER,
                 path="/shoes", page_id="alice-page-2", props={"percent": 50})
    insert_event(db, site_id, t1 + timedelta(minutes=4), name="scroll_depth", visitor=ALICE_COOKIE, user_id=ALICE_USER,
                 path="/shoes", page_id="alice-page-2", props={"percent": 90})
    insert_event(db, site_id, t1 + timedelta(minutes=4), name="zone_visibility", visitor=ALICE_COOKIE,
                 user_id=ALICE_USER, path="/shoes", page_id="alice-page-2", props={"zone": "hero", "visible_ms": 1200})

    t2 = NOW - timedelta(days=3)
    utm = {"source": " Newsletter ", "medium": "EMAIL", "campaign": "Spring%20Sale"}
    insert_event(db, site_id, t2, visitor=ALICE_COOKIE, user_id=ALICE_USER, path="/shoes/red", utm=utm,
                 page_id="alice-page-3")
    items = [{"id": "SKU-1", "name": "Red shoe", "price": 50, "quantity": 2},
             {"id": "SKU-2", "name": "Laces", "price": 20, "quantity": 1}]
    for minutes, name in [(1, "view_item"), (2, "add_to_cart"), (3, "begin_checkout")]:
        insert_event(db, site_id, t2 + timedelta(minutes=minutes), name=name, visitor=ALICE_COOKIE,
                     user_id=ALICE_USER, path="/shoes/red", items=items[:1])
    insert_event(db, site_id, t2 + timedelta(minutes=5), name="purchase", visitor=ALICE_COOKIE, user_id=ALICE_USER,
                 path="/checkout/done", items=items, transaction_id="T-100", revenue=120, currency="EUR",
                 props={"transaction_id": "T-100", "value": 120, "currency": "EUR"})

    insert_event(db, site_id, NOW - timedelta(days=1), visitor=BOB_COOKIE, path="/blog/post")

    t3 = NOW - timedelta(days=2)
    insert_event(db, site_id, t3, visitor=CAROL_COOKIE, path="/pricing",
                 utm={"source": "Facebook", "medium": "cpc", "campaign": "  "})
    insert_event(db, site_id, t3 + timedelta(minutes=1), name="sign_up", visitor=CAROL_COOKIE, path="/pricing",
                 props={"plan": "pro", "seats": 3, "trial": True})
    insert_event(db, site_id, t3 + timedelta(minutes=45), visitor=CAROL_COOKIE, path="/pricing/teams")
    return {"site_id": site_id}


@contextmanager
def shop_database(pg_server_url: str, template_database: str, dbt_command: str | None = "build",
                  prefix: str = "test_built") -> Iterator[dict]:
    """A database with the fixture data built by `dbt <dbt_command>` (None: not built), dropped
    afterwards."""
    import psycopg

    from tests.conftest import clone_template, drop_database

    url = clone_template(pg_server_url, template_database, prefix=prefix)
    try:
        with psycopg.connect(url, autocommit=True) as db:
            site_id = create_site(db)
            load_fixture_data(db, site_id)
            from pipelines.event_views import regenerate_event_views
            regenerate_event_views(db)
        if dbt_command:
            run_dbt(url, dbt_command)
        yield {"url": url, "site_id": site_id}
    finally:
        drop_database(pg_server_url, url)


@pytest.fixture(scope="module")
def built_database(pg_server_url, template_database):
    """A database with the fixture data and a full dbt build, shared by a module's read-only tests."""
    with shop_database(pg_server_url, template_database) as built:
        yield built
