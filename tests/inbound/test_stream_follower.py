"""The change-stream follower against the fake database service over real HTTP: signals, read-back
with an overlapping cursor, catch-up, reconnection with Last-Event-ID, revocation, polling."""
from __future__ import annotations

import dataclasses
import threading
import time

import psycopg
import pytest

from pipelines.inbound import sources
from pipelines.inbound.stream_follower import FollowerGroup, TableFollower
from tests.inbound.conftest import make_source
from tests.inbound.fakes.database_service import FakeDatabaseService


def wait_until(condition, timeout: float = 10.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def service():
    fake = FakeDatabaseService(revoke_close_seconds=0.3, keepalive_seconds=0.1)
    fake.url = fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def stream_source(service, database_url, key):
    token = service.issue_token()
    record = make_source(database_url, key, {"kind": "db_stream", "base_url": service.url, "tenant": service.tenant,
                                             "base": service.base, "tables": ["deals"], "token": token,
                                             "overlap_seconds": 2, "page_size": 5})
    return record, token


def config_of(database_url, key, record, **changes):
    with psycopg.connect(database_url) as conn:
        config = sources.follower_configs(conn, key, record["id"])[0]
    return dataclasses.replace(config, **changes)


class Running:
    """A follower in a thread, stopped at the end of the test."""

    def __init__(self, config, database_url, **options):
        self.follower = TableFollower(config, database_url, backoff_base=0.05, backoff_cap=0.2, **options)
        self.thread = threading.Thread(target=self.follower.run, daemon=True)
        self.thread.start()

    def stop(self):
        self.follower.stop()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


@pytest.fixture
def running():
    started = []

    def start(config, database_url, **options):
        item = Running(config, database_url, **options)
        started.append(item)
        return item
    yield start
    for item in started:
        item.stop()


def events(db, record_id=None):
    query = "select record_id, event_type, via, after->>'amount' from raw.db_events"
    params = ()
    if record_id:
        query += " where record_id = %s"
        params = (record_id,)
    return db.execute(query + " order by occurred_at, event_id", params).fetchall()


def test_signals_are_read_back_and_existing_rows_caught_up(service, stream_source, database_url, key, db, running):
    record, _ = stream_source
    for i in range(7):  # more than a page: the first read pages through them
        service.write("deals", f"old{i}", amount=i)
    running(config_of(database_url, key, record), database_url)
    wait_until(lambda: len(service.stream_requests) == 1, what="the stream to open")
    wait_until(lambda: db.execute("select count(*) from raw.db_rows").fetchone()[0] == 7, what="catch-up")
    service.write("deals", "new1", amount=100)
    wait_until(lambda: events(db, "new1"), what="the signalled row")
    service.write("deals", "new1", amount=150)
    wait_until(lambda: len(events(db, "new1")) == 2, what="the update")
    history = events(db, "new1")
    assert [(e[1], e[2], e[3]) for e in history] == [("record.created", "stream", "100"),
                                                      ("record.updated", "stream", "150")]
    changed = db.execute("select changed from raw.db_events where record_id = 'new1' and event_type = 'record.updated'").fetchone()[0]
    assert changed == ["_updated_at", "amount"]
    state = db.execute("select state, rows_read > 0, connections, last_error from raw.db_follow_state").fetchone()
    assert state == ("running", True, 1, None)
    assert all("Bearer" not in str(r) for r in service.read_requests)
    assert service.read_requests[-1]["filter"].startswith('_updated_at gt "')


def test_shared_timestamps_and_late_commits_are_ingested_once(service, stream_source, database_url, key, db, running):
    record, _ = stream_source
    running(config_of(database_url, key, record), database_url)
    wait_until(lambda: len(service.stream_requests) == 1, what="the stream")
    moment = service.now()
    for i in range(12):  # twelve rows sharing one timestamp, more than two pages of five
        service.write("deals", f"same{i}", at=moment, amount=i)
    wait_until(lambda: db.execute("select count(*) from raw.db_rows").fetchone()[0] == 12, what="shared timestamps")
    service.write("deals", "after", amount=1)
    wait_until(lambda: events(db, "after"), what="a later row")
    # Committed late: its _updated_at is a second behind rows already read (inside the overlap).
    service.commit_late("deals", "late", behind_seconds=1, amount=7)
    wait_until(lambda: events(db, "late"), what="the late row")
    service.write("deals", "after2", amount=2)
    wait_until(lambda: events(db, "after2"), what="another row")
    counts = db.execute("select count(*), count(distinct (record_id, occurred_at)) from raw.db_events").fetchone()
    assert counts == (15, 15)


def test_reconnects_with_last_event_id_and_catches_up(service, stream_source, database_url, key, db, running):
    record, _ = stream_source
    run = running(config_of(database_url, key, record), database_url)
    wait_until(lambda: len(service.stream_requests) == 1, what="the stream")
    service.write("deals", "a", amount=1)
    wait_until(lambda: events(db, "a"), what="row a")
    wait_until(lambda: db.execute("select last_event_id = '1' from raw.db_follow_state").fetchone()[0],
               what="the signal of row a to be handled")
    service.drop_streams()
    service.write("deals", "b", amount=2)  # while disconnected
    wait_until(lambda: len(service.stream_requests) >= 2, what="a reconnection")
    wait_until(lambda: events(db, "b"), what="row b after reconnection")
    assert service.stream_requests[1]["last_event_id"] == "1"
    service.write("deals", "c", amount=3)
    wait_until(lambda: events(db, "c"), what="row c on the new stream")
    assert run.follower.connections >= 2
    wait_until(lambda: db.execute("select last_event_id = '3' and connections >= 2 from raw.db_follow_state").fetchone()[0],
               what="the last event id to be kept")


def test_revoked_token_stops_the_follower_and_shows_the_error(service, stream_source, database_url, key, db, running,
                                                              client, admin_headers):
    record, token = stream_source
    run = running(config_of(database_url, key, record), database_url)
    wait_until(lambda: len(service.stream_requests) == 1, what="the stream")
    service.revoke(token)
    run.thread.join(timeout=10)
    assert not run.thread.is_alive()  # stopped, not looping
    requests_after = len(service.stream_requests)
    # The first stream (closed by the service), then at most one refused attempt: the refusal may
    # also come first from the read-back that follows the stream's opening.
    assert requests_after in (1, 2)
    reads_after = len(service.read_requests)
    state, error = db.execute("select state, last_error from raw.db_follow_state").fetchone()
    assert state == "stopped" and "HTTP 401" in error
    figures = client.get(f"/api/v1/inbound-sources/{record['id']}/figures", headers=admin_headers).get_json()
    assert figures["followers"][0]["state"] == "stopped" and "401" in figures["followers"][0]["last_error"]
    # Started again with the same token: it does not even try.
    again = running(config_of(database_url, key, record), database_url)
    again.thread.join(timeout=10)
    assert len(service.stream_requests) == requests_after and len(service.read_requests) == reads_after


def test_deleted_rows_named_by_a_signal_are_recorded(service, stream_source, database_url, key, db, running):
    record, _ = stream_source
    running(config_of(database_url, key, record), database_url)
    wait_until(lambda: len(service.stream_requests) == 1, what="the stream")
    service.write("deals", "gone", amount=5)
    wait_until(lambda: events(db, "gone"), what="the row")
    service.delete("deals", "gone")
    wait_until(lambda: len(events(db, "gone")) == 2, what="the deletion")
    assert db.execute("select deleted from raw.db_rows where record_id = 'gone'").fetchone() == (True,)
    before = db.execute("select before->>'amount' from raw.db_events where event_type = 'record.deleted'").fetchone()
    assert before == ("5",)


def test_transient_read_failures_are_retried(service, stream_source, database_url, key, db, running):
    record, _ = stream_source
    service.write("deals", "x", amount=1)
    service.fail_reads = 2
    running(config_of(database_url, key, record), database_url)
    wait_until(lambda: events(db, "x"), what="the row after two 503s")
    assert db.execute("select state from raw.db_follow_state").fetchone() == ("running",)


def test_followers_without_a_stream_poll_on_their_period(service, stream_source, database_url, key, db, running):
    record, _ = stream_source
    config = config_of(database_url, key, record, use_stream=False, poll_seconds=0.2)
    running(config, database_url)
    service.write("deals", "p1", amount=1, signal=False)
    wait_until(lambda: events(db, "p1"), what="a polled row")
    service.write("deals", "p1", amount=2, signal=False)
    wait_until(lambda: len(events(db, "p1")) == 2, what="a polled update")
    assert service.stream_requests == []
    assert {e[2] for e in events(db)} == {"poll"}


def test_follower_group_picks_up_configuration(service, stream_source, database_url, key, db):
    record, _ = stream_source

    def load():
        with psycopg.connect(database_url) as conn:
            return sources.follower_configs(conn, key)
    group = FollowerGroup(load, database_url, reload_seconds=0.1, backoff_base=0.05, backoff_cap=0.2)
    thread = threading.Thread(target=group.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: len(service.stream_requests) == 1, what="the group's follower")
        db.execute("update collect.inbound_sources set state = 'paused'")
        wait_until(lambda: not group.running, what="the paused follower to stop")
    finally:
        group.stop()
        thread.join(timeout=10)


def test_a_wrong_read_path_shows_in_the_figures(service, stream_source, database_url, key, db, running):
    record, _ = stream_source
    service.write("deals", "x", amount=1)
    config = config_of(database_url, key, record, read_path="/api/v1/{tenant}/nowhere/{table}")
    running(config, database_url)
    wait_until(lambda: (db.execute("select last_error from raw.db_follow_state").fetchone() or [None])[0],
               what="an error")
    error = db.execute("select state, last_error from raw.db_follow_state").fetchone()
    assert error[0] == "running" and "HTTP 404" in error[1]


def test_a_token_sealed_under_another_server_secret_is_skipped(stream_source, database_url, key, settings):
    record, _ = stream_source
    from pipelines.key_derivation import derive_key
    other_key = derive_key(b"another server secret", sources.SEALING_PURPOSE)
    with psycopg.connect(database_url) as conn:
        assert sources.follower_configs(conn, other_key) == []
        assert len(sources.follower_configs(conn, key)) == 1
