"""Sources limited to some schemas, through the API: the warehouse keeps `analytics`, others choose."""
from __future__ import annotations

import duckdb
import pytest

from tests.workbench_api.conftest import Api, ok


def _schemas(tables) -> set[tuple[str, str]]:
    return {(t["catalog"], t["schema"]) for t in tables}


def test_the_warehouse_shows_its_analytics_schema_only(admin, db):
    # The reader role lists raw, collect, modeled... but can read none of them.
    assert db.execute("select count(*) from information_schema.tables where table_schema in ('raw', 'collect')"
                      ).fetchone()[0] > 0
    tables = ok(admin.get("/schema?catalog=warehouse"))["tables"]
    assert _schemas(tables) == {("warehouse", "analytics")}
    analytics = db.execute("select count(*) from information_schema.tables where table_schema = 'analytics'").fetchone()[0]
    assert ok(admin.get("/datasources"))["datasources"] == [{"name": "warehouse", "tables": analytics}]
    assert ok(admin.get("/schema?search=events"))["tables"] == []  # raw.events is not there to be found
    assert admin.get("/schema/tables/raw.events").status_code == 404
    assert admin.get("/schema/tables/warehouse.collect.sites").status_code == 404
    for sql in ("SELECT count(*) FROM warehouse.raw.events", "SELECT count(*) FROM raw.events",
                "SELECT * FROM warehouse.collect.sites", "SELECT * FROM warehouse.modeled.page_views"):
        refused = admin.post("/sql", {"sql": sql})
        assert refused.status_code == 404 and refused.get_json()["error"]["code"] == "table_not_found", sql
    suggestions = ok(admin.post("/sql/autocomplete", {"sql": "SELECT * FROM warehouse."}))["suggestions"]
    labels = {s["label"] for s in suggestions}
    assert "analytics" in labels and not labels & {"raw", "collect", "modeled"}


@pytest.fixture
def duckdb_file(tmp_path):
    path = tmp_path / "company.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute("create schema sales")
    connection.execute("create table sales.orders as select * from (values (1, 120.0), (2, 80.0)) t(id, amount)")
    connection.execute("create schema hr")
    connection.execute("create table hr.salaries as select * from (values ('ceo', 1000000)) t(name, amount)")
    connection.close()
    return path


def test_a_source_created_with_a_list_of_schemas_shows_only_those(admin, analyst, duckdb_file):
    source = ok(admin.post("/sources", {"name": "company", "kind": "duckdb", "options": {
        "path": str(duckdb_file), "schemas": ["sales"], "default_schema": "sales"}}), 201)
    assert source["options"]["schemas"] == ["sales"] and source["status"] == "attached"
    assert _schemas(ok(admin.get("/schema?catalog=company"))["tables"]) == {("company", "sales")}
    assert ok(admin.post("/sql", {"sql": "SELECT sum(amount) AS total FROM company.orders"}))["rows"] == [[200.0]]
    refused = admin.post("/sql", {"sql": "SELECT * FROM company.hr.salaries"})
    assert refused.status_code == 404 and refused.get_json()["error"]["code"] == "table_not_found"
    # Not even a catalog grant reaches it.
    group = ok(admin.post("/groups", {"name": "company readers"}), 201)
    ok(admin.put(f"/groups/{group['group_id']}/catalogs", {"catalogs": ["company"]}))
    user_id, _ = analyst
    ok(admin.put(f"/groups/{group['group_id']}/members/{user_id}"))
    reader = Api(admin.client, analyst[1])
    assert ok(reader.post("/sql", {"sql": "SELECT count(*) FROM company.sales.orders"}))["rows"] == [[2]]
    assert reader.post("/sql", {"sql": "SELECT * FROM company.hr.salaries"}).status_code == 404
    # Native SQL would reach the other schemas: refused for such a source.
    assert admin.post("/sql/native", {"catalog": "company", "sql": "SELECT 1"}).status_code in (400, 403)
    # Lifting the limit (null) brings the other schemas back, in every worker.
    ok(admin.patch(f"/sources/{source['source_id']}", {"options": {"schemas": None}}))
    assert ok(admin.post("/sql", {"sql": "SELECT count(*) FROM company.hr.salaries"}))["rows"] == [[1]]


@pytest.mark.parametrize(
    "options, field",
    [
        ({"schemas": []}, "schemas"),
        ({"schemas": "sales"}, "schemas"),
        ({"schemas": ["sales", 3]}, "schemas"),
        ({"schemas": ["sales\n"]}, "schemas"),
        ({"schemas": ["s" * 64]}, "schemas"),
        ({"schemas": ["sales"], "default_schema": "hr"}, "default_schema"),
    ],
)
def test_an_unusable_list_of_schemas_is_refused(admin, duckdb_file, options, field):
    refused = admin.post("/sources", {"name": "company", "kind": "duckdb",
                                      "options": {"path": str(duckdb_file), **options}})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == field
    assert admin.post("/sources", {"name": "reference", "kind": "sqlite", "options": {
        "path": str(duckdb_file), "schemas": ["main"]}}).status_code == 400  # one schema only: no list


def test_the_warehouses_list_can_change_and_native_sql_follows(admin):
    warehouse = ok(admin.get("/sources"))["sources"][0]
    assert warehouse["kind"] == "warehouse"
    native = {"catalog": "warehouse", "sql": "SELECT count(*)::int AS n FROM analytics.page_views"}
    assert ok(admin.post("/sql/native", native))["rows"] == [[5]]
    # Listing a schema the reader cannot read: native SQL could then not be kept to the list.
    ok(admin.patch(f"/sources/{warehouse['source_id']}", {"options": {"schemas": ["analytics", "modeled"]}}))
    assert admin.post("/sql/native", native).status_code == 403
    assert _schemas(ok(admin.get("/schema?catalog=warehouse"))["tables"]) == {("warehouse", "analytics"),
                                                                               ("warehouse", "modeled")}
    ok(admin.patch(f"/sources/{warehouse['source_id']}", {"options": {"schemas": None}}))
    assert ok(admin.post("/sql/native", native))["rows"] == [[5]]
    assert _schemas(ok(admin.get("/schema?catalog=warehouse"))["tables"]) == {("warehouse", "analytics")}
