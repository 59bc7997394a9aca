from datetime import date

from pipelines import partitions

INSERT = """insert into raw.events (site_id, occurred_at, source, event_type, event_name, visitor_kind)
            values (gen_random_uuid(), %s, 'server', 'pageview', 'pageview', 'none')"""


def where(db):
    return [str(t) for (t,) in db.execute("select tableoid::regclass from raw.events order by occurred_at")]


def test_month_without_partition_lands_in_default(db):
    db.execute(INSERT, ("2011-03-15T10:00:00Z",))
    assert where(db) == ["raw.events_default"]


def test_creating_a_partition_moves_stray_rows(db):
    db.execute(INSERT, ("2011-03-15T10:00:00Z",))
    db.execute(INSERT, ("2011-03-31T23:59:59Z",))
    db.execute(INSERT, ("2011-04-01T00:00:00Z",))
    assert partitions.create_month_partition(db, date(2011, 3, 1))
    assert where(db) == ["raw.events_2011_03", "raw.events_2011_03", "raw.events_default"]
    assert not partitions.create_month_partition(db, date(2011, 3, 1))


def test_ensure_partitions_covers_today_and_stray_months(db):
    db.execute(INSERT, ("2012-07-04T12:00:00Z",))
    created = partitions.ensure_partitions(db, today=date(2026, 1, 10), months_back=1, months_ahead=2)
    assert created == ["events_2012_07", "events_2025_12", "events_2026_01", "events_2026_02", "events_2026_03"]
    assert db.execute("select count(*) from raw.events_default").fetchone()[0] == 0
    assert db.execute("select count(*) from raw.events").fetchone()[0] == 1


def test_month_arithmetic():
    assert partitions.add_months(date(2025, 11, 1), 3) == date(2026, 2, 1)
    assert partitions.add_months(date(2025, 1, 1), -1) == date(2024, 12, 1)
