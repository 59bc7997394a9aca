"""Privacy in the lake: erasure rewrites every file holding the person, retention drops partitions,
and no file holds an IP address or a user agent. The Parquet files themselves are searched."""
from __future__ import annotations

from datetime import date, timedelta

import duckdb
import psycopg
from dagster import materialize

from orchestration.defs.maintenance.assets import event_retention, privacy_requests
from orchestration.defs.resources import build_resources
from pipelines.admin.privacy_requests import create_request, subject_key
from pipelines.lake.export import LakeWriter
from tests.pipeline.conftest import ALICE_COOKIE, ALICE_USER, BOB_COOKIE, NOW


def lake_files_holding(lake_root, value: str) -> list[str]:
    """Every Parquet file of the lake with a row whose text (any column) contains `value`."""
    con = duckdb.connect()
    found = []
    for path in sorted(lake_root.rglob("*.parquet")):
        hit = con.execute(f"select 1 from read_parquet('{path}') as t where cast(t as varchar) like ? limit 1",
                          [f"%{value}%"]).fetchone()
        if hit:
            found.append(str(path.relative_to(lake_root)))
    return found


def export_everything(settings) -> None:
    with LakeWriter(settings).open() as writer:
        writer.refresh_views()
        for days_back in range(0, 12):
            writer.export_raw_day((NOW - timedelta(days=days_back)).date())


def test_erasure_rewrites_every_lake_file_holding_the_person(built):
    settings, lake = built["settings"], built["settings"].lake_path
    export_everything(settings)
    with psycopg.connect(built["url"], autocommit=True) as db:
        visit_ids = [v for (v,) in db.execute(
            "select visit_id::text from analytics.visits v join intermediate.int_visits i using (visit_id)"
            " where i.user_id = %s", (ALICE_USER,))]
        assert visit_ids
        assert lake_files_holding(lake, ALICE_USER) and lake_files_holding(lake, ALICE_COOKIE)
        assert any("analytics/visits" in f for f in lake_files_holding(lake, visit_ids[0]))
        bob_files = lake_files_holding(lake, BOB_COOKIE)

        request_id = create_request(db, built["site_id"], "erasure", "user_id", ALICE_USER, "admin-token:test",
                                    subject_key=subject_key(settings))
        assert materialize([privacy_requests], resources=build_resources(settings)).success
        state, result = db.execute("select state, result from collect.privacy_requests where request_id = %s",
                                   (request_id,)).fetchone()
    assert state == "done", result
    assert result["lake_partitions_rewritten"] > 0
    for value in (ALICE_USER, ALICE_COOKIE, *visit_ids):
        assert lake_files_holding(lake, value) == [], value
    # Other people's rows stay.
    assert lake_files_holding(lake, BOB_COOKIE) == bob_files


def test_retention_drops_whole_lake_partitions(built):
    settings, lake = built["settings"], built["settings"].lake_path
    export_everything(settings)
    # A one-month retention, evaluated two months from now: every day the fixture has is past it.
    with psycopg.connect(built["url"], autocommit=True) as db:
        db.execute("update collect.sites set retention_months = 1")
        from pipelines.maintenance.retention import apply_retention
        from pipelines.lake.layout import Lake
        result = apply_retention(db, today=date.today() + timedelta(days=62), lake=Lake(lake))
    assert result.lake_partitions_removed
    assert list(lake.rglob("site_id=*/**/*.parquet")) == []
    # Tables without a site keep their file.
    assert (lake / "analytics" / "channel_rules" / "part-0.parquet").is_file()


def test_no_lake_file_holds_an_ip_or_a_user_agent(built):
    settings, lake = built["settings"], built["settings"].lake_path
    export_everything(settings)
    con = duckdb.connect()
    for path in lake.rglob("*.parquet"):
        names = {name.lower() for (name,) in con.execute(
            f"select name from parquet_schema('{path}')").fetchall()}
        assert not names & {"ip", "ip_address", "user_agent", "remote_addr"}, path
    assert lake_files_holding(lake, "Mozilla/") == []


def test_the_retention_asset_reaches_the_lake(built):
    settings = built["settings"]
    export_everything(settings)
    assert materialize([event_retention], resources=build_resources(settings)).success


def test_erasure_keeps_the_other_rows_of_a_view_spark_built(built):
    """A view Spark built is rewritten from its own files less the person's rows, not from
    PostgreSQL (on the Spark engine PostgreSQL's copy is not that build): a visit only the lake has,
    beside Alice's on her purchase day, stays; Alice's goes; the view is still Spark's."""
    from pipelines.lake.layout import ANALYTICS, Lake
    from pipelines.maintenance.privacy import erase_everywhere, resolve_subject

    settings, site_id = built["settings"], built["site_id"]
    export_everything(settings)
    lake = Lake(settings.lake_path)
    with psycopg.connect(built["url"], autocommit=True) as db:
        purchase_visit = db.execute("select visit_id::text from intermediate.int_visits where user_id = %s"
                                    " and purchase_count > 0", (ALICE_USER,)).fetchone()[0]
    con = duckdb.connect()
    file = next(path for path in lake.partitions(ANALYTICS, "visits").values()
                if con.execute(f"select count(*) from read_parquet('{path}') where visit_id::varchar = ?",
                               [purchase_visit]).fetchone()[0])
    # Another visit in the same partition, which PostgreSQL does not have (as if Spark's build held it).
    staged = file.with_name("staged.parquet")
    con.execute(f"""copy (select * from read_parquet('{file}') union all
                          select * replace ('lake-only-visitor' as visitor_key, gen_random_uuid() as visit_id)
                          from read_parquet('{file}') where visit_id::varchar = '{purchase_visit}')
                   to '{staged}' (format parquet)""")
    staged.replace(file)
    state = lake.read_state(ANALYTICS, "visits")
    state.extra["built_by"] = "spark"
    lake.write_state(ANALYTICS, "visits", state)

    with psycopg.connect(built["url"], autocommit=True) as db:
        erase_everywhere(db, settings, resolve_subject(db, site_id, "user_id", ALICE_USER))
    assert lake_files_holding(lake.root, ALICE_USER) == [] and lake_files_holding(lake.root, ALICE_COOKIE) == []
    kept = [path for path in lake.partitions(ANALYTICS, "visits").values()
            if con.execute(f"select count(*) from read_parquet('{path}') where visitor_key = 'lake-only-visitor'"
                           ).fetchone()[0]]
    assert kept == [file]
    assert lake.read_state(ANALYTICS, "visits").extra["built_by"] == "spark"
