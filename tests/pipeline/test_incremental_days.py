"""Built day by day, as the 15-minute job does, the tables and views equal a full rebuild's.

Every intermediate table is compared whole (all columns), with the exposed views that join them:
visits crossing midnight, a visit extended and two visits joined by late events, a transaction
reported twice under two visitor identities (once late, as earlier), a goal edited, new sources
appearing on later days.
"""
from datetime import timedelta

from tests.pipeline.conftest import NOW, insert_event, run_dbt

TABLES = ["intermediate.int_events_sessionized", "intermediate.int_visits", "intermediate.int_conversions",
          "intermediate.int_attribution_touches", "intermediate.int_traffic_source_channels",
          "analytics.visits", "analytics.conversions", "analytics.attribution", "analytics.traffic_sources",
          "analytics.orders"]


def contents(db) -> dict[str, list[str]]:
    """Every row of every table as text; built_at (when the row was written) differs by design."""
    return {table: [row for (row,) in db.execute(f"select (to_jsonb(t) - 'built_at')::text from {table} as t order by 1")]
            for table in TABLES}


def day_of_events(db, site, day: int) -> None:
    """The events received on day `day` (0 = four days ago), some of them late."""
    start = NOW - timedelta(days=4 - day)
    received = start + timedelta(hours=23, minutes=59)
    sources = [{"referrer": "https://www.google.com/"}, {"utm": {"source": "newsletter", "medium": "email",
                                                                 "campaign": f"week {day}"}},
               {}, {"referrer": f"https://blog{day}.example.org/post"}]
    for visitor in range(4):
        at = start + timedelta(hours=visitor * 5 + 1)
        insert_event(db, site, at, visitor=f"visitor-{visitor}", path="/", received_at=received,
                     **sources[(visitor + day) % len(sources)])
        insert_event(db, site, at + timedelta(minutes=3), visitor=f"visitor-{visitor}", path="/pricing",
                     received_at=received)
        if visitor == day % 4:
            insert_event(db, site, at + timedelta(minutes=4), name="purchase", visitor=f"visitor-{visitor}",
                         path="/checkout", transaction_id=f"T-{day}", revenue=40 + day, currency="EUR",
                         items=[{"id": "SKU-1", "price": 40 + day, "quantity": 1}], received_at=received)
    # A visit crossing midnight into the next day.
    insert_event(db, site, start + timedelta(hours=23, minutes=50), visitor="night-owl", path="/blog",
                 received_at=received)
    if day:
        # Late: continues yesterday's midnight visit, and joins two of yesterday's visits of visitor 3
        # (16:00 and 16:03, then 16:40 after a 37-minute pause: the event at 16:20 joins them).
        yesterday = start - timedelta(days=1)
        insert_event(db, site, start + timedelta(minutes=5), visitor="night-owl", path="/blog/more",
                     received_at=received)
        insert_event(db, site, yesterday + timedelta(hours=16, minutes=20), visitor="visitor-3", path="/late",
                     received_at=received)
        # The same transaction as yesterday's, reported again by the server under the user id.
        insert_event(db, site, start + timedelta(hours=2), name="purchase", user_id=f"user-{day}",
                     path="/checkout", transaction_id=f"T-{day - 1}", revenue=40 + day - 1, currency="EUR",
                     received_at=received)
    if day == 2:
        # Day 0's transaction reported late, as having happened before day 0's purchase: it becomes the
        # transaction's conversion, in another visitor's visit.
        insert_event(db, site, NOW - timedelta(days=4, minutes=-30), name="purchase", user_id="user-late",
                     path="/checkout", transaction_id="T-0", revenue=40, currency="EUR", received_at=received)
    insert_event(db, site, start + timedelta(hours=16, minutes=40), visitor="visitor-3", path="/pricing/teams",
                 received_at=received)


def test_day_by_day_builds_equal_a_full_build(db, database_url, site):
    db.execute("""insert into collect.goals (site_id, name, kind, path_pattern, value)
                  values (%s, 'Pricing viewed', 'pageview', '/pricing*', 5)""", (site,))
    day_of_events(db, site, 0)
    run_dbt(database_url, "build")
    for day in (1, 2, 3):
        if day == 3:
            # A goal edit reaches past visits (every conversion is recomputed).
            db.execute("update collect.goals set path_pattern = '/pricing/teams*', value = 7 where site_id = %s",
                       (site,))
        day_of_events(db, site, day)
        # What the 15-minute job runs: the tables (views stay as built).
        run_dbt(database_url, "build", "--exclude", "config.materialized:view")
    incremental = contents(db)
    assert len(incremental["intermediate.int_traffic_source_channels"]) >= 6
    assert len(incremental["intermediate.int_conversions"]) >= 6
    late = db.execute("""select c.visitor_key = md5('user:user-late') from intermediate.int_conversions c
                          where c.transaction_id = 'T-0'""").fetchall()
    assert late == [(True,)]
    assert db.execute("""select count(*) from intermediate.int_conversions
                          where conversion_kind = 'goal' and conversion_value <> 7""").fetchone()[0] == 0

    run_dbt(database_url, "build", "--full-refresh")
    full = contents(db)
    for table in TABLES:
        assert incremental[table] == full[table], table
