"""dbt build on fixture events: visits, campaigns, channels, conversions, orders, attribution,
documentation as SQL comments, and what the read-only role may do."""
from pathlib import Path

import psycopg
import pytest

from pipelines.database.connection import READER_ROLE, with_user
from pipelines.key_derivation import reader_password
from pipelines.settings import Settings
from tests.conftest import TEST_SECRET
from tests.pipeline.conftest import ALICE_USER

REQUIRED_VIEWS = {"pageviews", "events", "visits", "conversions", "orders", "order_items", "attribution",
                  "channel_rules", "annotations", "classifications", "scroll_depth", "zone_visibility", "sites"}


@pytest.fixture(scope="module")
def wh(built_database):
    with psycopg.connect(built_database["url"], autocommit=True) as conn:
        yield conn


def rows(conn, query, *params):
    return conn.execute(query, params).fetchall()


def test_visits_are_sessionized_with_entry_exit_and_bounce(wh):
    visits = rows(wh, """select entry_path, exit_path, pageview_count, is_bounce, source, medium, campaign, channel,
                                country, device_class, is_returning
                           from analytics.visits order by visit_start""")
    assert len(visits) == 5
    alice_first, alice_second, carol_first, carol_second, bob = visits
    assert alice_first[:4] == ("/", "/shoes", 2, False)
    assert alice_first[4:8] == ("google.com", "referral", None, "Organic Search")
    assert alice_first[8:10] == ("FR", "desktop")
    # Campaign values normalised: trimmed, lower case, percent-decoded; an empty value is no value.
    assert alice_second[4:8] == ("newsletter", "email", "spring sale", "Email")
    assert alice_second[10] is True
    assert carol_first[4:8] == ("facebook", "cpc", None, "Paid Social")
    # 45 minutes later: a second visit of Carol.
    assert carol_second[0] == "/pricing/teams"
    assert bob[:4] == ("/blog/post", "/blog/post", 1, True)
    assert bob[7] == "Direct"


def test_classifications_are_joined_as_attributes(wh):
    attributes = rows(wh, "select attributes from analytics.visits where campaign = 'spring sale'")
    assert attributes == [({"product_line": "Shoes"},)]


def test_conversions_orders_and_items(wh):
    conversions = rows(wh, """select conversion_kind, goal_name, conversion_value, channel
                                from analytics.conversions order by converted_at""")
    assert [(kind, name, float(value)) for kind, name, value, _ in conversions] == [
        ("purchase", "purchase", 120.0), ("goal", "Pricing viewed", 5.0), ("goal", "Pro sign-up", 20.0),
        # Carol's second visit (45 minutes later) reaches the pricing goal again: once per visit.
        ("goal", "Pricing viewed", 5.0)]
    assert rows(wh, "select order_id, revenue, currency, item_count, quantity from analytics.orders") == [
        ("T-100", 120, "EUR", 2, 3)]
    items = rows(wh, "select item_id, price, quantity, line_total from analytics.order_items order by line_number")
    assert items == [("SKU-1", 50, 2, 100), ("SKU-2", 20, 1, 20)]


def test_ecommerce_funnel(wh):
    funnel = dict(rows(wh, "select step_name, sum(visits_reaching_step) from analytics.ecommerce_funnel group by 1"))
    assert funnel == {"view_item": 1, "add_to_cart": 1, "begin_checkout": 1, "add_payment_info": 0, "purchase": 1}


def test_attribution_over_two_visits(wh):
    credits = rows(wh, """select attribution_model, a.channel, credit, revenue_credit from analytics.attribution a
                           join analytics.conversions c using (conversion_id)
                          where c.conversion_kind = 'purchase' order by 1, a.touch_number""")
    by_model = {}
    for model, channel, credit, revenue in credits:
        by_model.setdefault(model, []).append((channel, round(credit, 6), round(revenue, 2)))
    assert by_model["first_touch"] == [("Organic Search", 1.0, 120.0)]
    assert by_model["last_touch"] == [("Email", 1.0, 120.0)]
    assert by_model["linear"] == [("Organic Search", 0.5, 60.0), ("Email", 0.5, 60.0)]
    assert by_model["position_based"] == [("Organic Search", 0.5, 60.0), ("Email", 0.5, 60.0)]
    decay = by_model["time_decay"]
    assert decay[0][1] < decay[1][1] and round(decay[0][1] + decay[1][1], 6) == 1
    sums = rows(wh, "select conversion_id, attribution_model, sum(credit) from analytics.attribution group by 1, 2")
    assert sums and all(abs(total - 1) < 1e-9 for _, _, total in sums)


def test_scroll_depth_and_zone_visibility(wh):
    assert rows(wh, "select page_id, max_percent from analytics.scroll_depth") == [("alice-page-2", 90)]
    assert rows(wh, "select zone_name, zone_label, visible_ms, path from analytics.zone_visibility") == [
        ("hero", "Hero banner", 1200, "/shoes")]


def test_channel_rules_annotations_classifications_exposed(wh):
    assert rows(wh, "select count(*) > 10 from analytics.channel_rules") == [(True,)]
    assert rows(wh, "select annotation_text from analytics.annotations") == [("Spring sale starts",)]
    assert rows(wh, "select dimension, dimension_value, attribute, attribute_value from analytics.classifications") == [
        ("campaign", "spring sale", "product_line", "Shoes")]


def test_sites_are_exposed_with_their_tracking_mode(wh):
    """The workbench names each site's report folder from this view; it is live (views down to collect.sites)."""
    sites = dict(rows(wh, "select site_name, tracking_mode from analytics.sites"))
    assert sites and set(sites.values()) <= {"cookieless", "cookie", "consent"}
    wh.execute("insert into collect.sites (name, tracking_mode) values ('Created after the build', 'consent')")
    try:
        assert rows(wh, "select tracking_mode from analytics.sites where site_name = 'Created after the build'") == [
            ("consent",)]
    finally:
        wh.execute("delete from collect.sites where name = 'Created after the build'")


def test_event_view_of_a_declared_event_has_typed_commented_columns(wh):
    assert rows(wh, "select plan, seats, trial from analytics.event_sign_up") == [("pro", 3, True)]
    types = dict(rows(wh, """select column_name, data_type from information_schema.columns
                              where table_schema = 'analytics' and table_name = 'event_sign_up'"""))
    assert types["seats"] == "numeric" and types["trial"] == "boolean" and types["plan"] == "text"
    assert rows(wh, "select obj_description('analytics.event_sign_up'::regclass)")[0][0].startswith(
        "Sign-up: A visitor created an account.")
    assert rows(wh, """select col_description('analytics.event_sign_up'::regclass, attnum) from pg_attribute
                        where attrelid = 'analytics.event_sign_up'::regclass and attname = 'seats'""")[0][0].startswith(
        "Seats: Seats at sign-up.")


def test_analytics_holds_only_documented_views(wh):
    relations = rows(wh, """select c.relname, c.relkind, obj_description(c.oid, 'pg_class')
                              from pg_class c join pg_namespace n on n.oid = c.relnamespace
                             where n.nspname = 'analytics'""")
    names = {name for name, _, _ in relations}
    assert REQUIRED_VIEWS <= names
    assert {kind for _, kind, _ in relations} == {"v"}, "the analytics schema holds views only"
    assert [name for name, _, comment in relations if not comment] == []
    undocumented = rows(wh, """select c.relname, a.attname
                                 from pg_attribute a
                                 join pg_class c on c.oid = a.attrelid
                                 join pg_namespace n on n.oid = c.relnamespace
                                where n.nspname = 'analytics' and a.attnum > 0 and not a.attisdropped
                                  and col_description(c.oid, a.attnum) is null""")
    assert undocumented == []


def test_every_model_and_column_is_documented_in_dbt():
    import json

    from pipelines.dbt_environment import manifest_path

    manifest = json.loads(manifest_path().read_text())
    missing = []
    for node in manifest["nodes"].values():
        if node["resource_type"] != "model":
            continue
        if not node["description"]:
            missing.append(node["name"])
        missing += [f"{node['name']}.{c}" for c, column in node["columns"].items() if not column["description"]]
    assert missing == []


def reader_url(url):
    password = reader_password(Settings(home=Path("/nonexistent"), server_secret_value=TEST_SECRET))
    return with_user(url, READER_ROLE, password)


def test_reader_reads_analytics_only_and_writes_nothing(built_database):
    with psycopg.connect(reader_url(built_database["url"]), autocommit=True) as reader:
        assert reader.execute("select count(*) from analytics.visits").fetchone()[0] == 5
        assert reader.execute("select count(*) from analytics.event_sign_up").fetchone()[0] == 1
        for query in ["select * from raw.events", "select * from marts.fct_attribution",
                      "select * from intermediate.int_visits", "select * from staging.stg_raw__events",
                      "select * from collect.sites", "select * from collect.privacy_requests",
                      "delete from analytics.visits", "create table analytics.x (id int)",
                      "create temporary table x (id int)", "create view analytics.v as select 1"]:
            with pytest.raises(psycopg.Error):
                reader.execute(query)


def test_person_columns_are_not_exposed(wh):
    exposed = {name for (name,) in rows(wh, """select distinct column_name from information_schema.columns
                                                where table_schema = 'analytics'""")}
    assert not exposed & {"user_id", "visitor_id"}
    assert rows(wh, "select count(*) from analytics.events where props::text like %s", f"%{ALICE_USER}%") == [(0,)]
