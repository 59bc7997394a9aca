"""The CouchDB and Snowflake catalogs in the engine: types, nested fields, pushdown, bounds, failures."""
from __future__ import annotations

import json
import logging

import pytest

from workbench_app.engine import (
    CatalogSource, EngineError, EngineSettings, GroupPermissions, TableRule, UserContext, WorkbenchEngine,
)
from tests.workbench_sources.conftest import source_json
from tests.workbench_sources.servers import free_port, load_couch

ADMIN = UserContext("admin", (GroupPermissions("all", frozenset({"docs", "snow"})),))
RESTRICTED = UserContext("eu", (GroupPermissions("eu", table_rules=(
    TableRule("docs", "main", "people", row_filter="region = {{user.region}}", hidden_columns=frozenset({"email"})),
    TableRule("snow", "sales", "orders", row_filter="country IN ('FR', 'DE')",
              hidden_columns=frozenset({"amount"})),
)),), {"region": "EU"})


def engine_with(*sources: CatalogSource) -> WorkbenchEngine:
    return WorkbenchEngine(EngineSettings(mask_salt="salt", timeout_seconds=30, row_limit=1000), sources)


@pytest.fixture(scope="module")
def engine(couch_people, snowflake_shop):
    engine = engine_with(CatalogSource("docs", "couchdb", source_json({"url": couch_people, "databases": ["people"]})),
                         CatalogSource("snow", "snowflake", source_json({**snowflake_shop, "password": "x"})))
    yield engine
    engine.close()


def requested(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "workbench_app.engine.external_tables"]


def test_documents_read_as_typed_columns_with_nested_structs(engine):
    columns = {c.name: c.data_type for c in engine.schema.get(
        next(t for t in engine.schema.tables.values() if t.table.name == "people").table).columns}
    assert columns["_id"] == "VARCHAR" and columns["age"] == "BIGINT"
    assert columns["address"].startswith("STRUCT(") and "geo STRUCT(lat DOUBLE, lon DOUBLE)" in columns["address"]
    assert columns["tags"] == "VARCHAR[]" and columns["score"] == "JSON"
    rows = engine.run("SELECT doc._id, doc.address.city, doc.address.geo.lat, len(doc.tags), doc.phone, doc.score "
                      "FROM docs.people doc ORDER BY doc._id", ADMIN).rows
    assert rows == [("p1", "Lyon", 45.76, 2, "+33 1 23", "10"), ("p2", "Berlin", None, 0, None, '"high"'),
                    ("p3", "Boston", None, 1, None, "2.5"), ("p4", None, None, 1, None, None)]


def test_filters_and_projection_go_to_the_server(engine, caplog):
    caplog.set_level(logging.DEBUG, "workbench_app.engine.external_tables")
    rows = engine.run("SELECT name FROM docs.people WHERE age >= 30 AND country = 'US' AND upper(name) <> 'X'",
                      ADMIN).rows
    assert sorted(rows) == [("Cyd",), ("Dan",)]
    message = requested(caplog)[-1]
    assert "columns ['name', 'country', 'age']" in message
    assert "('age', '>=')" in message and "('country', '=')" in message


def test_restricted_user_on_both_kinds(engine, caplog):
    caplog.set_level(logging.DEBUG, "workbench_app.engine.external_tables")
    rows = engine.run("SELECT p.name, o.id FROM docs.people p JOIN snow.sales.orders o ON o.customer_id = p._id "
                      "ORDER BY o.id", RESTRICTED).rows
    assert rows == [("Ann", 1), ("Ann", 2), ("Bob", 3)]
    messages = requested(caplog)
    # The hidden columns are never requested; the row filters are pushed down.
    assert all("email" not in m and "amount" not in m for m in messages)
    assert any("docs.main.people" in m and "('region', '=')" in m for m in messages)
    assert any("snow.sales.orders" in m and "('country', 'in')" in m for m in messages)
    for sql in ("SELECT email FROM docs.people", "SELECT amount FROM snow.sales.orders"):
        with pytest.raises(EngineError) as refused:
            engine.run(sql, RESTRICTED)
        assert refused.value.code == "column_not_found"
    assert engine.run("SELECT count(*) FROM docs.people WHERE region = 'US'", RESTRICTED).rows == [(0,)]


def test_snowflake_types_and_pushdown(engine, caplog):
    caplog.set_level(logging.DEBUG, "workbench_app.engine.external_tables")
    result = engine.run("SELECT id, amount, placed FROM snow.sales.orders WHERE amount > 100 ORDER BY id", ADMIN)
    assert [str(r[1]) for r in result.rows] == ["120.50", "500.00"] and result.column_types[0] == "BIGINT"
    assert "('amount', '>')" in requested(caplog)[-1]


def test_a_statement_over_the_row_bound_fails_clearly(couch_url, snowflake_shop):
    load_couch(couch_url, "many", [{"_id": f"d{i:03}", "n": i} for i in range(30)])
    engine = engine_with(
        CatalogSource("docs", "couchdb", source_json({"url": couch_url, "databases": ["many"], "max_rows": 20})),
        CatalogSource("snow", "snowflake", source_json({**snowflake_shop, "password": "x", "max_rows": 4})))
    try:
        for sql in ("SELECT count(*) FROM docs.many", "SELECT count(*) FROM snow.sales.orders"):
            with pytest.raises(EngineError) as refused:
                engine.run(sql, ADMIN)
            assert refused.value.code == "query_failed" and "more than" in refused.value.message
        # A filter the source applies keeps the statement under the bound.
        assert engine.run("SELECT count(*) FROM docs.many WHERE n < 10", ADMIN).rows == [(10,)]
        assert engine.run("SELECT count(*) FROM snow.sales.orders WHERE id <= 4", ADMIN).rows == [(4,)]
    finally:
        engine.close()


def test_schema_refresh_sees_new_fields(couch_url):
    load_couch(couch_url, "evolving", [{"_id": "a", "x": 1}])
    engine = engine_with(CatalogSource("docs", "couchdb", source_json({"url": couch_url, "databases": ["evolving"]})))
    try:
        load_couch(couch_url, "evolving", [{"_id": "a", "x": 1, "y": {"z": True}}])
        with pytest.raises(EngineError):
            engine.run("SELECT y FROM docs.evolving", ADMIN)
        engine.refresh_schema()
        assert engine.run("SELECT y.z FROM docs.evolving", ADMIN).rows == [(True,)]
    finally:
        engine.close()


@pytest.mark.parametrize("kind, options, reason", [
    ("couchdb", lambda c, s: {"url": f"http://127.0.0.1:{free_port()}"}, "unreachable"),
    ("couchdb", lambda c, s: {"url": c, "databases": ["nope"]}, "no such database"),
    ("snowflake", lambda c, s: {**s, "password": "x", "port": free_port(), "connect_timeout": 2}, "unreachable"),
])
def test_an_unusable_source_says_why(couch_url, snowflake_shop, kind, options, reason):
    with pytest.raises(EngineError) as refused:
        engine_with(CatalogSource("x", kind, source_json(options(couch_url, snowflake_shop)))).close()
    assert refused.value.code == "catalog_error" and reason in refused.value.message
    assert "127.0.0.1" not in refused.value.message


def test_the_raw_placeholder_tables_hold_nothing_and_no_reader_function_exists(engine):
    # The only way to the source's rows is a statement through the rewrite.
    for sql in ("SELECT * FROM couchdb_find('people')", "SELECT * FROM snowflake_scan('orders')"):
        with pytest.raises(EngineError) as refused:
            engine.run(sql, ADMIN)
        assert refused.value.code in ("function_not_allowed", "table_not_found")


@pytest.mark.parametrize("sql, expected", [
    ("SELECT t.n FROM (SELECT name AS n, age FROM docs.people) t ORDER BY 1", [("Ann",), ("Bob",), ("Cyd",), ("Dan",)]),
    ("SELECT to_json(p)->>'name' FROM docs.people p ORDER BY 1", [("Ann",), ("Bob",), ("Cyd",), ("Dan",)]),
    ("SELECT region FROM docs.people GROUP BY region HAVING max(age) > 40", [("US",)]),
    ("SELECT name FROM docs.people ORDER BY age DESC LIMIT 1", [("Cyd",)]),
    ("SELECT max(name) FILTER (WHERE country = 'DE') FROM docs.people", [("Bob",)]),
    ("SELECT count(*) FROM docs.people p JOIN docs.people q USING (country)", [(6,)]),
    ("SELECT n FROM (SELECT name AS n FROM docs.people WHERE age > 30 LIMIT 10) WHERE n = 'Ann'", [("Ann",)]),
    ("SELECT x.name FROM docs.people x WHERE x.age BETWEEN 30 AND 40 ORDER BY 1", [("Ann",), ("Dan",)]),
])
def test_pruned_columns_are_the_ones_the_statement_reads(engine, sql, expected):
    assert engine.run(sql, ADMIN).rows == expected


@pytest.mark.parametrize("sql", [
    "SELECT * FROM docs.people", "SELECT to_json(p) FROM docs.people p", "SELECT * FROM docs.people AS p(a, b, c)",
    "SELECT COLUMNS(*) FROM docs.people", "SELECT * FROM docs.people NATURAL JOIN docs.people",
    "SELECT p.* FROM docs.people p", "WITH c AS (SELECT * FROM docs.people) SELECT * FROM c",
])
def test_a_hidden_column_is_never_requested(engine, caplog, sql):
    caplog.set_level(logging.DEBUG, "workbench_app.engine.external_tables")
    try:
        engine.run(sql, RESTRICTED)
    except EngineError:
        pass  # refused or not: either way nothing may have asked for the hidden column
    messages = requested(caplog)
    assert all("'email'" not in message for message in messages), messages


def test_a_field_name_with_a_dot_is_not_read_as_a_nested_field(couch_url):
    load_couch(couch_url, "dots", [{"_id": "a", "a.b": 1, "a": {"b": 2}}, {"_id": "b", "a.b": 3, "a": {"b": 4}}])
    engine = engine_with(CatalogSource("docs", "couchdb", source_json({"url": couch_url, "databases": ["dots"]})))
    try:
        assert engine.run('SELECT "a.b", d.a.b FROM docs.dots d WHERE "a.b" = 1', ADMIN).rows == [(1, 2)]
    finally:
        engine.close()


def test_each_side_of_a_self_join_reads_only_what_the_statement_uses(engine, caplog):
    caplog.set_level(logging.DEBUG, "workbench_app.engine.external_tables")
    rows = engine.run("SELECT p.name FROM docs.people p JOIN docs.people q ON p._id = q._id ORDER BY 1", RESTRICTED).rows
    assert rows == [("Ann",), ("Bob",)]
    messages = requested(caplog)
    assert len(messages) == 2 and all("columns ['_id', 'name', 'region']" in m for m in messages), messages


def test_snowflake_key_pair_authentication(snowflake_shop, tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = tmp_path / "reader.pem"
    key.write_bytes(rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    engine = engine_with(CatalogSource("snow", "snowflake", source_json({**snowflake_shop,
                                                                        "private_key_path": str(key)})))
    try:
        assert engine.run("SELECT count(*) FROM snow.sales.orders", ADMIN).rows == [(5,)]
    finally:
        engine.close()
    key.write_text("not a key")
    with pytest.raises(EngineError) as refused:
        engine_with(CatalogSource("snow", "snowflake", source_json({**snowflake_shop, "private_key_path": str(key)})))
    assert refused.value.code == "catalog_error" and "private key" in refused.value.message
