"""Export and erasure requests, processed by the maintenance job the sensor starts."""
import json

import psycopg
from dagster import RunRequest, SkipReason, build_sensor_context, materialize

from orchestration.defs.maintenance.assets import privacy_requests
from orchestration.defs.maintenance.schedules import privacy_requests_sensor
from orchestration.defs.resources import build_resources
from pipelines.admin.privacy_requests import create_request, subject_key
from pipelines.event_views import regenerate_event_views
from tests.pipeline.conftest import ALICE_COOKIE, ALICE_USER, BOB_COOKIE, load_fixture_data, run_dbt


def tables_holding(db, value: str) -> list[str]:
    """Every table of the database (any schema) with a row whose text contains `value`."""
    tables = db.execute("""select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
                            where c.relkind in ('r', 'p', 'm') and n.nspname not in ('pg_catalog', 'information_schema')
                              and n.nspname not like 'pg_toast%'""").fetchall()
    found = []
    for schema, name in tables:
        hit = db.execute(psycopg.sql.SQL("select 1 from {} as t where t::text like %s limit 1").format(
            psycopg.sql.Identifier(schema, name)), (f"%{value}%",)).fetchone()
        if hit:
            found.append(f"{schema}.{name}")
    return found


def run_privacy_job(settings):
    result = materialize([privacy_requests], resources=build_resources(settings))
    assert result.success


def test_erasure_leaves_no_trace_of_the_person(db, database_url, site, settings):
    load_fixture_data(db, site)
    regenerate_event_views(db)
    run_dbt(database_url, "build")
    assert "intermediate.int_visits" in tables_holding(db, ALICE_USER)
    assert "raw.events" in tables_holding(db, ALICE_COOKIE)

    request_id = create_request(db, site, "erasure", "user_id", ALICE_USER, "admin-token:test",
                                subject_key=subject_key(settings))
    context = build_sensor_context(resources={"warehouse": build_resources(settings)["warehouse"]})
    assert isinstance(privacy_requests_sensor(context), RunRequest)
    run_privacy_job(settings)

    assert tables_holding(db, ALICE_USER) == []
    # Her cookie was seen with her user id: it is hers and goes too.
    assert tables_holding(db, ALICE_COOKIE) == []
    state, value, result = db.execute("""select state, subject_value, result from collect.privacy_requests
                                          where request_id = %s""", (request_id,)).fetchone()
    assert (state, value) == ("done", None)
    assert result["rows_deleted"] > 0
    assert db.execute("""select count(*) from collect.audit_log
                          where action = 'privacy_request.erasure_done' and target = %s""",
                      (str(request_id),)).fetchone()[0] == 1
    # Incremental tables lost her rows; others were untouched; the next build agrees.
    assert db.execute("select count(*) from intermediate.int_visits").fetchone()[0] == 3
    assert db.execute("select count(*) from analytics.orders").fetchone()[0] == 0
    run_dbt(database_url, "build")
    assert db.execute("select count(*) from analytics.visits").fetchone()[0] == 3
    assert isinstance(privacy_requests_sensor(build_sensor_context(
        resources={"warehouse": build_resources(settings)["warehouse"]})), SkipReason)


def test_export_writes_the_persons_events_as_json_lines(db, site, settings):
    load_fixture_data(db, site)
    request_id = create_request(db, site, "export", "visitor", BOB_COOKIE, "admin-token:test",
                                subject_key=subject_key(settings))
    run_privacy_job(settings)
    state, value, result = db.execute("""select state, subject_value, result from collect.privacy_requests
                                          where request_id = %s""", (request_id,)).fetchone()
    assert state == "done" and value is None
    assert result == {"export_file": f"exports/{request_id}.jsonl", "rows": 1}
    lines = (settings.home / result["export_file"]).read_text().splitlines()
    assert [json.loads(line)["path"] for line in lines] == ["/blog/post"]
    assert json.loads(lines[0])["visitor_id"] == BOB_COOKIE
