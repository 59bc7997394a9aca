"""analytics_reader reads the analytics schema and nothing else, and writes nothing."""
import psycopg
import pytest

from pipelines.database import connection
from pipelines.key_derivation import reader_password
from pipelines.settings import Settings


@pytest.fixture
def reader(settings, db):
    db.execute("create view analytics.probe_view as select 1 as answer")
    db.execute("create table collect.secret_table (x int)")
    db.execute("insert into collect.secret_table values (1)")
    url = connection.with_user(settings.database_url, connection.READER_ROLE, reader_password(settings))
    with psycopg.connect(url, autocommit=True) as conn:
        yield conn


def test_reads_analytics_views(reader):
    assert reader.execute("select answer from analytics.probe_view").fetchone() == (1,)


@pytest.mark.parametrize("statement", [
    "select count(*) from raw.events",
    "select count(*) from collect.sites",
    "select count(*) from collect.secret_table",
    "select count(*) from public.schema_migrations",
])
def test_reads_nothing_else(reader, statement):
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        reader.execute(statement)


@pytest.mark.parametrize("statement", [
    "create table analytics.t (x int)",
    "create view analytics.v as select 1",
    "create temporary table t (x int)",
    "create schema mine",
    "insert into raw.events (site_id, occurred_at, source, event_type, event_name, visitor_kind)"
    " values (gen_random_uuid(), now(), 'server', 'pageview', 'pageview', 'none')",
    "delete from collect.secret_table",
])
def test_creates_and_writes_nothing(reader, statement):
    with pytest.raises(psycopg.Error):
        reader.execute(statement)


def test_cannot_write_even_outside_read_only_default(reader):
    reader.execute("set default_transaction_read_only = off")
    for statement in ["create table analytics.t (x int)", "create temporary table t (x int)"]:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            reader.execute(statement)
