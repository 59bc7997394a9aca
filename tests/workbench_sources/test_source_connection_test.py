""""Test connection" for every kind of source, against the real servers the tests start.

PostgreSQL is the session's embedded server, MySQL the local MariaDB, the document source the
express-pouchdb server and Snowflake fakesnow's server (which accepts any password and creates any
database it is asked for, so those two Snowflake refusals are checked on the connector's errors).
A failure answers 200 with `ok: false` and a structured, translated error naming the reason.
"""
from __future__ import annotations

import json
import sqlite3

import psycopg
import pytest

from tests.workbench_api.conftest import ok
from tests.workbench_api.test_sources import MARIADB, mariadb_table  # noqa: F401 - MariaDB, skipped when absent
from tests.workbench_sources.servers import free_port
from tests.workbench_sources.test_sources_api import refusing_server  # noqa: F401


def _postgres_options(pg_server_url: str, **changes) -> dict:
    parts = psycopg.conninfo.conninfo_to_dict(pg_server_url)
    options = {"host": parts.get("host") or "127.0.0.1", "database": parts.get("dbname") or "postgres",
               "user": parts.get("user") or "postgres"}
    if parts.get("port"):
        options["port"] = int(parts["port"])
    return {**options, **changes}


def _failed(answer, reason: str) -> dict:
    body = ok(answer)
    assert body["ok"] is False, body
    assert body["error"]["details"]["reason"] == reason, body
    return body["error"]


def test_postgres_reached_or_refused_with_a_reason(admin, pg_server_url):
    reached = ok(admin.post("/sources/test", {"kind": "postgres", "options": _postgres_options(pg_server_url)}))
    assert reached["ok"] is True and reached["tables"] >= 0
    error = _failed(admin.post("/sources/test", {"kind": "postgres", "options": _postgres_options(
        pg_server_url, database="no_such_database")}), "database_not_found")
    assert error["code"] == "source_database_not_found" and error["message"] == "The server has no such database."
    # The embedded server trusts its local users: a role it does not know is the refused sign-in.
    _failed(admin.post("/sources/test", {"kind": "postgres", "password": "secret", "options": _postgres_options(
        pg_server_url, user="nobody_here")}), "authentication_failed")
    _failed(admin.post("/sources/test", {"kind": "postgres", "options": _postgres_options(
        pg_server_url, host="127.0.0.1", port=free_port())}), "unreachable")


def test_mysql_reached_or_refused_with_a_reason(admin, mariadb_table):  # noqa: F811
    reached = ok(admin.post("/sources/test", {"kind": "mysql", "options": MARIADB}))
    assert reached["ok"] is True and reached["tables"] >= 1
    _failed(admin.post("/sources/test", {"kind": "mysql", "options": {**MARIADB, "database": "no_such_db"}}),
            "database_not_found")
    _failed(admin.post("/sources/test", {"kind": "mysql", "password": "wrong-password",
                                         "options": {**MARIADB, "user": "nobody_here"}}), "authentication_failed")
    _failed(admin.post("/sources/test", {"kind": "mysql", "options": {**MARIADB, "port": free_port()}}),
            "unreachable")


def test_couchdb_reached_or_refused_with_a_reason(admin, couch_people, refusing_server):  # noqa: F811
    reached = ok(admin.post("/sources/test", {"kind": "couchdb", "options": {"url": couch_people,
                                                                           "databases": ["people"]}}))
    assert reached == {"ok": True, "tables": 1}
    _failed(admin.post("/sources/test", {"kind": "couchdb", "options": {"url": couch_people,
                                                                       "databases": ["nothing_here"]}}),
            "database_not_found")
    _failed(admin.post("/sources/test", {"kind": "couchdb", "password": "wrong",
                                         "options": {"url": refusing_server, "user": "reader"}}),
            "authentication_failed")
    _failed(admin.post("/sources/test", {"kind": "couchdb", "options": {"url": f"http://127.0.0.1:{free_port()}"}}),
            "unreachable")


def test_snowflake_reached_or_refused_with_a_reason(admin, snowflake_shop):
    options = {key: snowflake_shop[key] for key in ("account", "user", "database", "host", "port", "protocol")}
    reached = ok(admin.post("/sources/test", {"kind": "snowflake", "password": "any",
                                              "options": {**options, "schema": "SALES"}}))
    assert reached == {"ok": True, "tables": 1}
    _failed(admin.post("/sources/test", {"kind": "snowflake", "password": "any",
                                         "options": {**options, "port": free_port()}}), "unreachable")


def test_snowflake_refusals_are_sorted_by_the_connectors_error():
    """fakesnow creates any database it is asked for and accepts any password: these two
    refusals of the real service are checked on the connector's own exceptions."""
    from snowflake.connector import errors
    from workbench_app.engine.snowflake_catalog import _reason

    missing = errors.ProgrammingError(msg="Database 'NO_SUCH_DB' does not exist or not authorized.", errno=2003)
    refused = errors.DatabaseError(msg="Incorrect username or password was specified.", errno=390100)
    assert _reason(missing)[1] == "database_not_found" and _reason(refused)[1] == "authentication_failed"


def test_files_sqlite_and_duckdb_paths(admin, tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.csv").write_text("x\n1\n")
    assert ok(admin.post("/sources/test", {"kind": "files", "options": {"path": str(tmp_path / "data")}})) == {
        "ok": True, "tables": 1}
    _failed(admin.post("/sources/test", {"kind": "files", "options": {"path": str(tmp_path / "missing")}}),
            "path_not_found")
    with sqlite3.connect(tmp_path / "ref.sqlite") as conn:
        conn.execute("create table t (x int)")
    assert ok(admin.post("/sources/test", {"kind": "sqlite", "options": {"path": str(tmp_path / "ref.sqlite")}}))[
        "ok"] is True
    (tmp_path / "not-a-db.sqlite").write_text("hello, this is text")
    _failed(admin.post("/sources/test", {"kind": "sqlite", "options": {"path": str(tmp_path / "not-a-db.sqlite")}}),
            "unreadable")
    _failed(admin.post("/sources/test", {"kind": "duckdb", "options": {"path": str(tmp_path / "not-a-db.sqlite")}}),
            "unreadable")


def test_a_saved_source_is_tested_with_its_sealed_password_or_the_forms_changes(admin, couch_people,
                                                                                refusing_server):  # noqa: F811
    saved = ok(admin.post("/sources", {"name": "docs", "kind": "couchdb", "password": "sealed-pw",
                                       "options": {"url": couch_people, "databases": ["people"]}}), 201)
    assert ok(admin.post(f"/sources/{saved['source_id']}/test")) == {"ok": True, "tables": 1}
    changed = admin.post(f"/sources/{saved['source_id']}/test", {"options": {"url": refusing_server, "user": "r"}})
    _failed(changed, "authentication_failed")
    # Testing saved nothing: the source still points at the working server.
    assert ok(admin.get(f"/sources/{saved['source_id']}"))["options"]["url"] == couch_people
    warehouse = next(s for s in ok(admin.get("/sources"))["sources"] if s["kind"] == "warehouse")
    assert ok(admin.post(f"/sources/{warehouse['source_id']}/test"))["ok"] is True


def test_the_reason_is_in_the_persons_language_and_no_password_is_echoed(admin, pg_server_url):
    ok(admin.patch("/me", {"locale": "fr"}))
    answer = admin.post("/sources/test", {"kind": "postgres", "password": "do-not-echo-me", "options":
                                          _postgres_options(pg_server_url, database="no_such_database")})
    error = _failed(answer, "database_not_found")
    assert error["message"] == "Le serveur n'a pas de base de données de ce nom."
    assert "do-not-echo-me" not in answer.get_data(as_text=True)


@pytest.mark.parametrize("body, field", [
    ({"kind": "postgres", "options": {"host": "h"}}, None),
    ({"kind": "nope", "options": {}}, "kind"),
    ({"kind": "sqlite", "options": {"path": "/tmp/x"}, "password": "x"}, "password"),
    ({"kind": "files", "options": {"path": "relative/path"}}, "path"),
])
def test_bad_forms_are_refused_before_any_connection(admin, body, field):
    refused = admin.post("/sources/test", body)
    assert refused.status_code == 400, refused.get_data(as_text=True)
    if field:
        assert refused.get_json()["error"]["details"]["field"] == field


def test_only_administrators_may_test(admin, analyst, app):
    from tests.workbench_api.conftest import Api

    user = Api(admin.client, analyst[1])
    assert user.post("/sources/test", {"kind": "files", "options": {"path": "/tmp"}}).status_code == 403
    assert user.post("/sources/1/test").status_code == 403
    assert json.loads(user.post("/sources/test", {}).get_data())["error"]["code"] == "forbidden"
