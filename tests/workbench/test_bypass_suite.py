"""The permission bypass suite: every attempt must fail closed.

Each attempt is run through the real engine (DuckDB with a SQLite file and a
DuckDB file attached read-only, external access off, configuration locked) as
the restricted ``analyst``. Refusals must carry the expected stable code; the
attempts that are allowed to run must not return anything the analyst may not
see (US rows, emails, clear visitor hashes, card numbers, other tables).
"""

from __future__ import annotations

import pytest

from workbench_app.engine import EngineError

# Values the analyst must never receive.
FORBIDDEN = (
    "sk-live-do-not-leak",  # crm.api_keys, no rule
    "1000000",  # analytics.salaries, no rule
    "ceo",
    "ann@example.fr",  # events.email is hidden
    "bob@example.de",
    "vh-1",  # events.visitor_hash is masked (hash)
    "vh-2",
    "4111111111111111",  # customers.card is hidden
    "cyd@example.com",  # a US row of events
    "dan@example.com",
    "/blog",  # only US events have /blog
)

@pytest.fixture(scope="module", params=["warehouse-file", "lake"])
def engine(request, engine):
    """Every attempt against the warehouse as a DuckDB file and as the lake the product reads."""
    return engine if request.param == "warehouse-file" else request.getfixturevalue("lake_engine")


REFUSED = [
    # hidden tables, however they are named
    ("plain hidden table", "SELECT * FROM salaries", "table_not_found"),
    ("catalog-qualified", "SELECT * FROM warehouse.analytics.salaries", "table_not_found"),
    ("quoted and cased", 'SELECT * FROM "SALARIES"', "table_not_found"),
    ("quoted catalog-qualified", 'SELECT * FROM "WAREHOUSE"."Analytics"."Salaries"', "table_not_found"),
    ("schema-qualified", "SELECT * FROM analytics.salaries", "table_not_found"),
    ("catalog without schema", "SELECT * FROM warehouse.salaries", "table_not_found"),
    ("from-first syntax", "FROM salaries", "table_not_found"),
    ("other catalog table", "SELECT * FROM crm.api_keys", "table_not_found"),
    ("other catalog fully qualified", "SELECT * FROM crm.main.api_keys", "table_not_found"),
    ("table of a schema without rule", "SELECT * FROM warehouse.main.sites", "table_not_found"),
    ("duckdb memory catalog", "SELECT * FROM memory.main.anything", "table_not_found"),
    ("duckdb system catalog", "SELECT * FROM system.main.duckdb_tables", "table_not_found"),
    ("temp catalog", "SELECT * FROM temp.main.t", "table_not_found"),
    ("the lake's hidden PostgreSQL catalog", "SELECT * FROM warehouse__postgres.analytics.salaries", "table_not_found"),
    ("the lake's hidden catalog, quoted", 'SELECT * FROM "warehouse__postgres"."analytics"."events"', "table_not_found"),
    ("a lake file read directly", "SELECT * FROM read_parquet('/tmp/*/lake/analytics/salaries/part-0.parquet')",
     "function_not_allowed"),
    # CTEs
    ("CTE over hidden table", "WITH s AS (SELECT * FROM salaries) SELECT * FROM s", "table_not_found"),
    (
        "CTE named like an allowed table",
        "WITH events AS (SELECT * FROM salaries) SELECT * FROM events",
        "table_not_found",
    ),
    (
        "recursive CTE over hidden table",
        "WITH RECURSIVE r AS (SELECT amount FROM salaries UNION ALL SELECT amount FROM r WHERE false) SELECT * FROM r",
        "table_not_found",
    ),
    (
        "inner CTE does not shadow an outer table",
        "SELECT * FROM (WITH salaries AS (SELECT 1 AS x) SELECT * FROM salaries) s, salaries",
        "table_not_found",
    ),
    (
        "CTE cannot reach hidden column",
        "WITH e AS (SELECT * FROM events) SELECT email FROM e",
        "column_not_found",
    ),
    # subqueries, set operations, lateral joins, windows
    ("IN subquery", "SELECT * FROM events WHERE id IN (SELECT amount FROM salaries)", "table_not_found"),
    ("EXISTS subquery", "SELECT 1 WHERE EXISTS (SELECT 1 FROM crm.api_keys)", "table_not_found"),
    ("scalar subquery", "SELECT (SELECT max(amount) FROM salaries) AS m", "table_not_found"),
    ("UNION", "SELECT page FROM events UNION ALL SELECT name FROM salaries", "table_not_found"),
    ("UNION BY NAME", "SELECT page FROM events UNION ALL BY NAME SELECT secret FROM crm.api_keys", "table_not_found"),
    ("INTERSECT", "SELECT name FROM salaries INTERSECT SELECT page FROM events", "table_not_found"),
    ("lateral join", "SELECT * FROM events e, LATERAL (SELECT * FROM salaries) s", "table_not_found"),
    ("lateral reaches hidden column", "SELECT * FROM events e, LATERAL (SELECT e.email) s", "column_not_found"),
    ("window over hidden column", "SELECT count(*) OVER (PARTITION BY email) FROM events", "column_not_found"),
    ("hidden column", "SELECT email FROM events", "column_not_found"),
    ("hidden column qualified", "SELECT e.email FROM events e", "column_not_found"),
    ("hidden column quoted and cased", 'SELECT "EMAIL" FROM events', "column_not_found"),
    ("hidden column fully qualified", "SELECT events.email FROM warehouse.analytics.events", "column_not_found"),
    ("hidden column in WHERE", "SELECT id FROM events WHERE email LIKE 'a%'", "column_not_found"),
    ("hidden column in USING", "SELECT * FROM events a JOIN events b USING (email)", "column_not_found"),
    ("hidden column of the other catalog", "SELECT card FROM crm.customers", "column_not_found"),
    (
        "hidden column across catalogs",
        "SELECT * FROM crm.customers c JOIN events e ON c.email = e.email",
        "column_not_found",
    ),
    # several statements and comments
    ("two statements", "SELECT 1; SELECT * FROM salaries", "statement_not_allowed"),
    ("statement after comment", "SELECT * FROM events /* ; */ ; DROP TABLE x", "statement_not_allowed"),
    ("line comment hides a join", "SELECT * FROM events -- harmless\n, salaries", "table_not_found"),
    # table functions, file paths, source functions
    ("read_csv", "SELECT * FROM read_csv('/etc/passwd')", "function_not_allowed"),
    ("read_csv_auto", "SELECT * FROM read_csv_auto('/etc/passwd')", "function_not_allowed"),
    ("read_parquet", "SELECT * FROM read_parquet('/tmp/x.parquet')", "function_not_allowed"),
    ("read_json", "SELECT * FROM read_json('/tmp/x.json')", "function_not_allowed"),
    ("read_text", "SELECT * FROM read_text('/etc/hostname')", "function_not_allowed"),
    ("quoted file path", "SELECT * FROM '/etc/passwd'", "table_not_found"),
    ("csv file as table", "SELECT * FROM 'data.csv'", "table_not_found"),
    ("glob", "SELECT * FROM glob('/*')", "function_not_allowed"),
    ("query()", "SELECT * FROM query('SELECT * FROM warehouse.analytics.salaries')", "function_not_allowed"),
    ("query_table()", "SELECT * FROM query_table('salaries')", "function_not_allowed"),
    ("sqlite_scan", "SELECT * FROM sqlite_scan('{crm}', 'api_keys')", "function_not_allowed"),
    ("postgres_query", "SELECT * FROM postgres_query('warehouse', 'SELECT 1')", "function_not_allowed"),
    ("postgres_scan", "SELECT * FROM postgres_scan('dbname=x', 'public', 't')", "function_not_allowed"),
    ("mysql_query", "SELECT * FROM mysql_query('crm', 'SELECT 1')", "function_not_allowed"),
    ("table function in scalar position", "SELECT sqlite_scan('{crm}', 'api_keys')", "function_not_allowed"),
    # macros stored in an attached database
    ("qualified table macro", "SELECT * FROM warehouse.analytics.range(1)", "function_not_allowed"),
    ("catalog-qualified table macro", "SELECT * FROM warehouse.range(1)", "function_not_allowed"),
    ("qualified scalar macro", "SELECT warehouse.main.abs(1)", "function_not_allowed"),
    ("schema-qualified scalar macro", "SELECT warehouse.abs(1)", "function_not_allowed"),
    # catalog functions and tables
    ("duckdb_tables", "SELECT * FROM duckdb_tables()", "function_not_allowed"),
    ("duckdb_columns", "SELECT * FROM duckdb_columns()", "function_not_allowed"),
    ("duckdb_settings", "SELECT * FROM duckdb_settings()", "function_not_allowed"),
    ("duckdb_databases", "SELECT * FROM duckdb_databases()", "function_not_allowed"),
    ("information_schema", "SELECT * FROM information_schema.tables", "table_not_found"),
    ("information_schema columns", "SELECT * FROM information_schema.columns", "table_not_found"),
    ("pg_catalog", "SELECT * FROM pg_catalog.pg_tables", "table_not_found"),
    ("sqlite_master", "SELECT * FROM crm.sqlite_master", "table_not_found"),
    ("current_setting", "SELECT current_setting('enable_external_access')", "function_not_allowed"),
    ("qualified system function", "SELECT system.main.current_setting('threads')", "function_not_allowed"),
    ("getvariable", "SELECT getvariable('x')", "function_not_allowed"),
    ("version", "SELECT version()", "function_not_allowed"),
    # JSON functions that run SQL
    ("json_serialize_sql", "SELECT json_serialize_sql('SELECT 1')", "function_not_allowed"),
    (
        "json_execute_serialized_sql",
        "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT * FROM salaries'))",
        "function_not_allowed",
    ),
    # statements
    ("ATTACH a SQLite file", "ATTACH '{crm}' AS stolen (TYPE sqlite)", "statement_not_allowed"),
    ("DETACH", "DETACH crm", "statement_not_allowed"),
    ("COPY", "COPY (SELECT 1) TO '/tmp/wb-copy.csv'", "statement_not_allowed"),
    ("SET", "SET enable_external_access = true", "statement_not_allowed"),
    ("RESET", "RESET lock_configuration", "statement_not_allowed"),
    ("PRAGMA", "PRAGMA show_tables", "statement_not_allowed"),
    ("INSTALL", "INSTALL httpfs", "statement_not_allowed"),
    ("LOAD", "LOAD httpfs", "statement_not_allowed"),
    ("CALL", "CALL pragma_show_tables()", "statement_not_allowed"),
    ("CREATE", "CREATE TABLE t AS SELECT 1", "statement_not_allowed"),
    ("INSERT", "INSERT INTO crm.customers VALUES (9, 'x', 'x', 'EU', 'x')", "statement_not_allowed"),
    ("UPDATE", "UPDATE events SET page = 'x'", "statement_not_allowed"),
    ("DELETE", "DELETE FROM events", "statement_not_allowed"),
    ("DESCRIBE", "DESCRIBE salaries", "statement_not_allowed"),
    ("SUMMARIZE", "SUMMARIZE events", "statement_not_allowed"),
    ("SHOW", "SHOW TABLES", "statement_not_allowed"),
    ("USE", "USE crm", "statement_not_allowed"),
    ("EXPORT", "EXPORT DATABASE '/tmp/wb-export'", "statement_not_allowed"),
    ("IMPORT", "-- restore\nIMPORT DATABASE '/tmp/wb-export'", "statement_not_allowed"),
    ("CREATE SECRET", "CREATE SECRET (TYPE s3, KEY_ID 'x')", "statement_not_allowed"),
    ("CHECKPOINT", "CHECKPOINT", "statement_not_allowed"),
    ("PREPARE", "PREPARE p AS SELECT * FROM salaries", "statement_not_allowed"),
    ("SET VARIABLE", "SET VARIABLE x = (SELECT 1)", "statement_not_allowed"),
    ("time travel", "SELECT * FROM events AT (VERSION => 1)", "statement_not_allowed"),
    ("EXPLAIN shows the rewritten plan", "EXPLAIN SELECT * FROM events", "statement_not_allowed"),
    ("EXPLAIN ANALYZE", "EXPLAIN ANALYZE SELECT * FROM events", "statement_not_allowed"),
    ("PIVOT statement", "PIVOT salaries ON name USING sum(amount)", "statement_not_allowed"),
    ("SHOW inside a subquery", "SELECT * FROM (SHOW TABLES)", "table_not_found"),
    ("undeclared variable", "SELECT * FROM events WHERE page = {{page}}", "variable_error"),
    # parameters the user writes themselves
    ("positional parameter", "SELECT * FROM events WHERE id = ?", "variable_error"),
    ("named parameter", "SELECT * FROM events WHERE id = $1", "variable_error"),
    ("guessed rule parameter", "SELECT $wbattr_region", "variable_error"),
]


@pytest.mark.parametrize("sql, code", [(sql, code) for _, sql, code in REFUSED], ids=[n for n, _, _ in REFUSED])
def test_attempt_is_refused(engine, analyst, source_files, sql, code):
    with pytest.raises(EngineError) as refused:
        engine.run(sql.replace("{crm}", str(source_files["crm"])), analyst)
    assert refused.value.code == code, refused.value.message
    # A refusal never names what the analyst may not see.
    for secret in ("salaries", "api_keys", "card") if code != "table_not_found" else ("api_keys",):
        if secret not in sql:
            assert secret not in refused.value.message


def test_the_suite_has_at_least_forty_distinct_attempts():
    assert len({sql for _, sql, _ in REFUSED}) >= 40


RUN_BUT_REVEAL_NOTHING = [
    ("struct packing of the alias", "SELECT e FROM events e"),
    ("row to JSON", "SELECT to_json(e) FROM events e"),
    ("JSON extraction of a packed row", "SELECT json_extract_string(to_json(e), '$.email') AS m FROM events e"),
    ("alias star", "SELECT e.* FROM events e"),
    ("star", "SELECT * FROM events"),
    ("COLUMNS regex", "SELECT COLUMNS('.*') FROM events"),
    ("filter on the clear value of a masked column", "SELECT * FROM events WHERE visitor_hash = 'vh-1'"),
    ("filter outside the row filter", "SELECT * FROM events WHERE region = 'US'"),
    ("OR true against the row filter", "SELECT * FROM events WHERE region = 'US' OR 1 = 1"),
    ("window over all rows", "SELECT sum(revenue) OVER () AS total, list(page) OVER () FROM events"),
    ("aggregate over all rows", "SELECT count(*), list(page), list(visitor_hash) FROM events"),
    ("self join", "SELECT * FROM events a JOIN events b ON a.id <> b.id"),
    ("conditional comment is only a comment", "SELECT * FROM events /*! , salaries */"),
    ("dollar-quoted string", "SELECT $$ ; SELECT * FROM salaries $$ AS s"),
    ("escape string", "SELECT e'\\x27; SELECT * FROM salaries' AS s"),
    ("CTE shadowing with a filtered body", "WITH events AS (SELECT * FROM events) SELECT * FROM events"),
    ("partial mask and hidden card", "SELECT * FROM crm.customers"),
    ("positional column aliases", "SELECT * FROM events AS e(a, b, c, d, f)"),
    ("table function", "SELECT * FROM events, range(2) r"),
    ("pivot", "SELECT * FROM events PIVOT (count(*) FOR region IN ('EU', 'US'))"),
]


@pytest.mark.parametrize("sql", [sql for _, sql in RUN_BUT_REVEAL_NOTHING], ids=[n for n, _ in RUN_BUT_REVEAL_NOTHING])
def test_attempt_reveals_nothing(engine, analyst, sql):
    result = engine.run(sql, analyst)
    text = repr(result.rows) + repr(result.columns)
    for secret in FORBIDDEN:
        assert secret not in text, f"{secret!r} leaked"
    assert "email" not in [c.lower() for c in result.columns] or sql.startswith("SELECT * FROM crm")


def test_natural_join_does_not_join_on_a_hidden_column(engine, analyst):
    with pytest.raises(EngineError) as refused:
        engine.run("SELECT * FROM events NATURAL JOIN (SELECT 'x' AS email) AS x", analyst)
    assert "email" not in refused.value.message.lower() or "no columns" in refused.value.message.lower()


def test_json_extraction_of_hidden_column_is_null(engine, analyst):
    result = engine.run("SELECT json_extract_string(to_json(e), '$.email') AS m FROM events e", analyst)
    assert result.rows == [(None,), (None,), (None,)]


def test_variable_injection_is_bound_as_a_value(engine, analyst):
    injected = "/home' UNION SELECT name FROM salaries --"
    result = engine.run(
        "SELECT page FROM events WHERE page = {{page}}",
        analyst,
        variables={"page": injected},
        variable_types={"page": "text"},
    )
    assert result.rows == []
    result = engine.run(
        "SELECT page FROM events WHERE page = {{page}}", analyst, {"page": "/home"}, {"page": "text"}
    )
    assert result.rows == [("/home",), ("/home",)]


def test_error_oracle_does_not_see_rows_outside_the_filter(engine, analyst):
    # If the user's predicate ran on US rows before the row filter, this would fail
    # with a conversion error and reveal that US rows exist.
    oracle = "SELECT count(*) FROM events WHERE CASE WHEN region = 'US' THEN CAST('x' AS INT) ELSE 1 END = 1"
    assert engine.run(oracle, analyst).rows == [(3,)]


def test_unqualified_functions_are_built_ins_not_a_sources_macros(engine, analyst):
    assert engine.run("SELECT * FROM range(1)", analyst).rows == [(0,)]
    assert engine.run("SELECT abs(-1)", analyst).rows == [(1,)]


def test_variable_cannot_name_a_table(engine, analyst):
    with pytest.raises(EngineError) as refused:
        engine.run("SELECT * FROM {{t}}", analyst, {"t": "salaries"}, {"t": "text"})
    assert refused.value.code in {"table_not_found", "syntax_error"}


def test_attribute_injection_is_bound_as_a_value(engine):
    from workbench_app.engine import UserContext
    from tests.workbench.conftest import ANALYSTS_EU

    sly = UserContext("sly", (ANALYSTS_EU,), {"region": "EU' OR '1'='1"})
    assert engine.run("SELECT * FROM events", sly).rows == []


def test_missing_attribute_closes_access(engine):
    from workbench_app.engine import UserContext
    from tests.workbench.conftest import ANALYSTS_EU

    nobody = UserContext("nobody", (ANALYSTS_EU,), {})
    with pytest.raises(EngineError) as refused:
        engine.run("SELECT count(*) FROM events", nobody)
    assert refused.value.code == "table_not_found"
    # Tables whose rule does not use the attribute stay readable.
    assert engine.run('SELECT count(*) FROM "PageViews"', nobody).rows == [(2,)]


def test_user_without_groups_sees_nothing(engine):
    from workbench_app.engine import UserContext

    for sql in ("SELECT * FROM events", 'SELECT * FROM "PageViews"', "SELECT * FROM crm.customers"):
        with pytest.raises(EngineError) as refused:
            engine.run(sql, UserContext("stranger"))
        assert refused.value.code == "table_not_found"
    assert engine.run("SELECT 1 + 1 AS two", UserContext("stranger")).rows == [(2,)]
