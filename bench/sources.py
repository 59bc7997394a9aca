"""Benchmark of the document and cloud-warehouse sources (issue 16).

Reads the same 100,000 rows through the engine from each new kind of source and, as the
baseline measured in the same run, from the embedded PostgreSQL (the warehouse's kind):

* a CouchDB-compatible server (the test server, express-pouchdb in memory): one database of
  100,000 documents with a nested `address` object;
* Snowflake's protocol served by fakesnow (the test stand-in: its speed is fakesnow's, not
  Snowflake's), read with the official connector as Arrow;
* PostgreSQL: a table of the same rows, attached through DuckDB's postgres scanner.

For each: rows per second of an aggregate that reads every row (two columns), and of the same
aggregate with a filter the source applies (country = 'FR', a sixth of the rows). Median of 3.

Run: ``python bench/sources.py [--rows 100000]`` (after ``make test-servers``).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from psycopg.conninfo import make_conninfo  # noqa: E402

from pipelines.database import embedded  # noqa: E402
from bench.workbench_query import _time_runs as median_seconds  # noqa: E402 - warm-up, then the median
from tests.workbench_sources.servers import couch_server, fakesnow_server, load_couch, snowflake_execute  # noqa: E402
from workbench_app.engine import CatalogSource, EngineSettings, GroupPermissions, UserContext, WorkbenchEngine  # noqa: E402

COUNTRIES = ("FR", "DE", "US", "ES", "IT", "GB")
AGGREGATE = "SELECT count(*), sum(amount), count(DISTINCT country) FROM {table}"
FILTERED = AGGREGATE + " WHERE country = 'FR'"


def rows(count: int) -> list[tuple]:
    return [(i, COUNTRIES[i % 6], round((i % 997) * 1.5, 2), f"city-{i % 50}") for i in range(count)]


def couch_source(url: str, data: list[tuple]) -> CatalogSource:
    load_couch(url, "orders", [{"_id": f"o{i:07}", "id": i, "country": country, "amount": amount,
                                "address": {"city": city}} for i, country, amount, city in data])
    return CatalogSource("docs", "couchdb", json.dumps({"url": url, "databases": ["orders"],
                                                        "max_rows": len(data)}))


def snowflake_source(params: dict, count: int) -> CatalogSource:
    # The same rows as rows(): generated on the server (a 100,000-row INSERT takes fakesnow minutes).
    countries = " ".join(f"WHEN {i} THEN '{c}'" for i, c in enumerate(COUNTRIES))
    snowflake_execute(params, "CREATE DATABASE IF NOT EXISTS BENCH", "CREATE SCHEMA IF NOT EXISTS BENCH.PUBLIC",
                      f"CREATE OR REPLACE TABLE BENCH.PUBLIC.ORDERS AS SELECT ID, CASE MOD(ID, 6) {countries} END "
                      f"AS COUNTRY, ROUND(MOD(ID, 997) * 1.5, 2)::DOUBLE AS AMOUNT, 'city-' || MOD(ID, 50) AS CITY "
                      f"FROM (SELECT seq4() AS ID FROM TABLE(GENERATOR(ROWCOUNT => {int(count)})))")
    return CatalogSource("snow", "snowflake", json.dumps({**params, "password": "x", "database": "BENCH",
                                                          "max_rows": count}))


def postgres_source(url: str, data: list[tuple]) -> CatalogSource:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS public.orders (id integer, country text, amount double precision, "
                           "city text)")
        connection.execute("TRUNCATE public.orders")
        with connection.cursor().copy("COPY public.orders FROM STDIN") as copy:
            for row in data:
                copy.write_row(row)
    params = psycopg.conninfo.conninfo_to_dict(url)
    return CatalogSource("pg", "postgres", make_conninfo(**{k: str(v) for k, v in params.items()}),
                         default_schema="public")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    data = rows(args.rows)
    root = Path(tempfile.mkdtemp(prefix="analytics-bench-sources-"))
    try:
        state = embedded.start(root / "pgdata")
        with couch_server() as couch_url, fakesnow_server(root / "fakesnow") as snowflake:
            started = time.perf_counter()
            sources = {"PostgreSQL (baseline)": ("pg.orders", postgres_source(state.url("postgres"), data)),
                       "CouchDB": ("docs.orders", couch_source(couch_url, data)),
                       "Snowflake (fakesnow)": ("snow.public.orders", snowflake_source(snowflake, args.rows))}
            print(f"loaded {args.rows:,} rows into each source in {time.perf_counter() - started:.1f} s")
            engine = WorkbenchEngine(EngineSettings(timeout_seconds=600, row_limit=1000, mask_salt="bench"),
                                     [source for _, source in sources.values()])
            user = UserContext("bench", (GroupPermissions("all", frozenset({"pg", "docs", "snow"})),))
            try:
                print(f"rows read per second through the engine, median of 3 ({args.rows:,} rows):")
                for label, (table, _) in sources.items():
                    assert engine.run(AGGREGATE.format(table=table), user).rows[0][0] == args.rows
                    full = median_seconds(lambda: engine.run(AGGREGATE.format(table=table), user), 3)
                    filtered = median_seconds(lambda: engine.run(FILTERED.format(table=table), user), 3)
                    print(f"  {label:<22} all rows {args.rows / full:>12,.0f} rows/s ({full * 1000:7.1f} ms)"
                          f"   country = 'FR' pushed down {filtered * 1000:7.1f} ms")
            finally:
                engine.close()
    finally:
        embedded.stop(root / "pgdata")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
