"""The benchmark's corpus of analytics queries runs through the engine as its restricted user.

Keeps bench/workbench_query.py honest: every statement it times must really be
accepted and executable, with the same schema and rules.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import duckdb
import pytest

from workbench_app.engine import CatalogSource, EngineSettings, WorkbenchEngine

BENCH = Path(__file__).resolve().parents[2] / "bench" / "workbench_query.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("workbench_query_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench_engine(bench, tmp_path_factory):
    directory = tmp_path_factory.mktemp("bench_schema")
    files = {"warehouse": directory / "warehouse.duckdb", "crm": directory / "crm.duckdb"}
    connections = {name: duckdb.connect(str(path)) for name, path in files.items()}
    for info in bench.WAREHOUSE_SCHEMA:
        connection = connections[info.table.catalog]
        connection.execute(f'CREATE SCHEMA IF NOT EXISTS "{info.table.schema}"')
        columns = ", ".join(f'"{column.name}" {column.data_type}' for column in info.columns)
        connection.execute(f'CREATE TABLE "{info.table.schema}"."{info.table.name}" ({columns})')
    for connection in connections.values():
        connection.close()
    engine = WorkbenchEngine(
        EngineSettings(default_catalog="warehouse", default_schema="analytics", mask_salt="bench"),
        [
            CatalogSource("warehouse", "duckdb", str(files["warehouse"])),
            CatalogSource("crm", "duckdb", str(files["crm"]), default_schema="public"),
        ],
    )
    yield engine
    engine.close()


def test_every_corpus_statement_runs(bench, bench_engine):
    for sql in bench.CORPUS:
        variables = bench.VARIABLE_VALUES if "{{" in sql else None
        types = bench.VARIABLE_TYPES if "{{" in sql else None
        result = bench_engine.run(sql, bench.RESTRICTED_USER, variables, types)
        assert result.columns, sql
        assert "user_email" not in result.columns and "card_last4" not in result.columns
