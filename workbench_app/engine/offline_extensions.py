"""DuckDB extensions from installed wheels (pipelines.duckdb_extensions), failing as engine errors."""

from __future__ import annotations

import duckdb

from pipelines import duckdb_extensions
from pipelines.duckdb_extensions import EXTENSION_FOR_SOURCE_KIND  # noqa: F401 - re-exported for the engine
from workbench_app.engine.errors import CATALOG_ERROR, EngineError


def load_extension(connection: duckdb.DuckDBPyConnection, extension: str) -> None:
    """Load one extension from its wheel into ``connection`` (EngineError when it is missing)."""
    try:
        duckdb_extensions.load_extension(connection, extension)
    except duckdb_extensions.ExtensionUnavailable as error:
        raise EngineError(CATALOG_ERROR, str(error)) from None
