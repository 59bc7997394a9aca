"""Versioned SQL migrations: numbered files applied once each, in order, recorded in the database.

A migration is `NNNN_description.sql` in `pipelines/database/migrations`. Each runs in its own
transaction together with its record, under an advisory lock so that two processes starting at
once cannot apply the same file twice. A file changed after it was applied is reported, not rerun.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import psycopg
from psycopg import sql

from pipelines.database.connection import READER_ROLE, connect

_FILE_PATTERN = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
# Any constant works; it only has to be the same for every process of this project.
_LOCK_ID = 7_205_114_001


class MigrationError(RuntimeError):
    """A migration failed or the recorded history does not match the files."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql_text: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql_text.encode()).hexdigest()


def available_migrations(directory: Path | None = None) -> list[Migration]:
    """The migration files, ordered by version."""
    folder = directory or Path(str(resources.files("pipelines.database") / "migrations"))
    migrations = []
    for path in sorted(folder.iterdir()):
        match = _FILE_PATTERN.match(path.name)
        if not match:
            continue
        migrations.append(Migration(int(match.group(1)), match.group(2), path.read_text()))
    versions = [m.version for m in migrations]
    if len(versions) != len(set(versions)):
        raise MigrationError(f"two migration files share a version number in {folder}")
    return migrations


def applied_versions(conn: psycopg.Connection) -> dict[int, str]:
    """Versions recorded in the database, with their checksums."""
    exists = conn.execute("select to_regclass('public.schema_migrations')").fetchone()[0]
    if not exists:
        return {}
    return dict(conn.execute("select version, checksum from public.schema_migrations").fetchall())


def migrate(url: str, reader_password: str | None = None, directory: Path | None = None) -> list[Migration]:
    """Apply the pending migrations to the database at `url`. Returns those applied now."""
    applied_now = []
    with connect(url, autocommit=True) as conn:
        conn.execute("select pg_advisory_lock(%s)", (_LOCK_ID,))
        try:
            conn.execute(
                """create table if not exists public.schema_migrations (
                       version    integer primary key,
                       name       text not null,
                       checksum   text not null,
                       applied_at timestamptz not null default now())"""
            )
            done = applied_versions(conn)
            for migration in available_migrations(directory):
                if migration.version in done:
                    if done[migration.version] != migration.checksum:
                        raise MigrationError(
                            f"migration {migration.version:04d}_{migration.name} was changed after it was applied; "
                            "add a new migration instead"
                        )
                    continue
                try:
                    with conn.transaction():
                        conn.execute(migration.sql_text)
                        conn.execute(
                            "insert into public.schema_migrations (version, name, checksum) values (%s, %s, %s)",
                            (migration.version, migration.name, migration.checksum),
                        )
                except psycopg.Error as exc:
                    raise MigrationError(f"migration {migration.version:04d}_{migration.name} failed: {exc}") from exc
                applied_now.append(migration)
            secure_database(conn, reader_password)
        finally:
            conn.execute("select pg_advisory_unlock(%s)", (_LOCK_ID,))
    return applied_now


def secure_database(conn: psycopg.Connection, reader_password: str | None) -> None:
    """Database-level rights that a migration cannot carry (they are not copied with a template).

    Nobody but the owner may create temporary tables here, so the reader role writes nothing at all.
    """
    database = conn.info.dbname
    conn.execute(sql.SQL("revoke temporary on database {} from public").format(sql.Identifier(database)))
    conn.execute(
        sql.SQL("grant temporary, connect on database {} to current_user").format(sql.Identifier(database))
    )
    conn.execute(sql.SQL("grant connect on database {} to {}").format(
        sql.Identifier(database), sql.Identifier(READER_ROLE)))
    if reader_password is not None:
        conn.execute(sql.SQL("alter role {} password {}").format(
            sql.Identifier(READER_ROLE), sql.Literal(reader_password)))
