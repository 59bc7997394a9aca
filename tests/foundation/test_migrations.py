import pytest

from pipelines.database import migrate


def test_migrate_is_idempotent(database_url, db):
    assert migrate.migrate(database_url) == []
    versions = [v for (v,) in db.execute("select version from public.schema_migrations order by 1")]
    assert versions == [m.version for m in migrate.available_migrations()]


def test_schemas_exist(db):
    schemas = {s for (s,) in db.execute("select nspname from pg_namespace")}
    assert {"collect", "raw", "analytics"} <= schemas


def test_new_migration_applied_once(database_url, db, tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    for m in migrate.available_migrations():
        (folder / f"{m.version:04d}_{m.name}.sql").write_text(m.sql_text)
    (folder / "9001_add_probe.sql").write_text("create table collect.probe (id int);")
    applied = migrate.migrate(database_url, directory=folder)
    assert [m.version for m in applied] == [9001]
    assert migrate.migrate(database_url, directory=folder) == []
    assert db.execute("select to_regclass('collect.probe')").fetchone()[0] == "collect.probe"


def test_changed_migration_is_refused(database_url, tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    for m in migrate.available_migrations():
        (folder / f"{m.version:04d}_{m.name}.sql").write_text(m.sql_text + "\n-- edited\n")
    with pytest.raises(migrate.MigrationError, match="changed after it was applied"):
        migrate.migrate(database_url, directory=folder)


def test_failed_migration_leaves_nothing_behind(database_url, db, tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    for m in migrate.available_migrations():
        (folder / f"{m.version:04d}_{m.name}.sql").write_text(m.sql_text)
    (folder / "9002_broken.sql").write_text("create table collect.half (id int); select 1/0;")
    with pytest.raises(migrate.MigrationError, match="9002_broken"):
        migrate.migrate(database_url, directory=folder)
    assert db.execute("select to_regclass('collect.half')").fetchone()[0] is None
    assert db.execute("select count(*) from public.schema_migrations where version = 9002").fetchone()[0] == 0


def test_0024_drops_the_sessionized_events_table_and_its_views_but_not_the_view(db):
    """A table int_events_sessionized from before the shards goes, with the views reading it (a
    full build makes them again); the view that replaced it is left alone when 0024 runs again."""
    (migration,) = [m for m in migrate.available_migrations() if m.version == 24]
    db.execute("create schema if not exists intermediate")
    db.execute("create schema if not exists marts")
    db.execute("create table intermediate.int_events_sessionized (event_id uuid)")
    db.execute("create view marts.fct_events as select event_id from intermediate.int_events_sessionized")
    db.execute(migration.sql_text)
    assert db.execute("select to_regclass('intermediate.int_events_sessionized'),"
                      " to_regclass('marts.fct_events')").fetchone() == (None, None)

    db.execute("create view intermediate.int_events_sessionized as select null::uuid as event_id")
    db.execute(migration.sql_text)
    assert db.execute("select to_regclass('intermediate.int_events_sessionized') is not null").fetchone()[0]
