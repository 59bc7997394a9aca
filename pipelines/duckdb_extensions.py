"""DuckDB extensions loaded from installed wheels, never downloaded.

The scanners come from the ``duckdb-extension-*`` wheels pinned to the same
version as ``duckdb`` (DESIGN.md). Each wheel ships its binary as
``<package>/extensions/v<duckdb version>/<name>.duckdb_extension``; we load that
file by path, with autoinstall and autoload switched off on the connection, so
a missing wheel fails loudly instead of reaching for the network.

Used by the workbench's engine and by the lake's exporter (which reads PostgreSQL through the
same scanner).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import duckdb

#: Extension needed by each kind of source (DuckDB files need none).
EXTENSION_FOR_SOURCE_KIND = {
    "postgres": "postgres_scanner",
    "lake": "postgres_scanner",
    "sqlite": "sqlite_scanner",
    "mysql": "mysql_scanner",
}

#: Settings of every DuckDB connection we open: nothing is fetched or loaded behind our back.
OFFLINE_CONFIG = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
}


class ExtensionUnavailable(RuntimeError):
    """An extension's wheel is missing or does not match the installed duckdb."""


def extension_path(extension: str) -> Path:
    """Path of the extension binary shipped by its wheel for the running DuckDB version."""
    package_name = f"duckdb_extension_{extension}"
    try:
        package = importlib.import_module(package_name)
    except ImportError:
        raise ExtensionUnavailable(
            f"The DuckDB extension {extension} is not installed (package {package_name}).") from None
    version = duckdb.__version__
    candidate = Path(package.__file__).parent / "extensions" / f"v{version}" / f"{extension}.duckdb_extension"
    if not candidate.is_file():
        raise ExtensionUnavailable(
            f"The installed {package_name} does not match duckdb {version}; keep the two pins in lockstep.")
    return candidate


def load_extension(connection: duckdb.DuckDBPyConnection, extension: str) -> None:
    """Load one extension from its wheel into ``connection``."""
    path = str(extension_path(extension)).replace("'", "''")
    connection.execute(f"LOAD '{path}'")
