"""Bring the database to a usable state: server running, databases present, schema migrated."""
from __future__ import annotations

from dataclasses import dataclass

from pipelines import partitions
from pipelines.database import connection, migrate
from pipelines.key_derivation import reader_password
from pipelines.settings import Settings

DAGSTER_DATABASE = "dagster"


@dataclass(frozen=True)
class DatabaseUrls:
    analytics: str
    workbench: str
    dagster: str
    reader: str


def database_urls(settings: Settings, start_embedded: bool = False) -> DatabaseUrls:
    """URLs of the analytics, workbench and Dagster databases and of the read-only role."""
    analytics = connection.server_url(settings, start_embedded=start_embedded)
    reader = connection.with_user(analytics, connection.READER_ROLE, reader_password(settings))
    return DatabaseUrls(
        analytics=analytics,
        workbench=connection.with_database(analytics, settings.workbench_database_name),
        dagster=connection.with_database(analytics, DAGSTER_DATABASE),
        reader=reader,
    )


def prepare(settings: Settings) -> tuple[DatabaseUrls, list[migrate.Migration]]:
    """Start the embedded server if needed, create the databases, migrate, create partitions."""
    urls = database_urls(settings, start_embedded=True)
    for name in (settings.database_name, settings.workbench_database_name, DAGSTER_DATABASE):
        connection.ensure_database(urls.analytics, name)
    applied = migrate.migrate(urls.analytics, reader_password=reader_password(settings))
    with connection.connect(urls.analytics, autocommit=True) as conn:
        partitions.ensure_partitions(conn)
    return urls, applied
