"""Browser sign-in pieces shared by both apps: server-side sessions and the failure throttle."""
from __future__ import annotations

import datetime as dt

import pytest

from pipelines.web_auth.sessions import SessionStore, csrf_matches
from pipelines.web_auth.throttle import SignInThrottle


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_throttle_lets_the_first_failures_through_then_doubles_the_wait():
    clock = Clock()
    throttle = SignInThrottle(free_failures=3, base_delay=2, max_delay=10, clock=clock)
    for _ in range(2):
        assert throttle.failed("ann@example.org", "192.0.2.1") == 0
    assert throttle.failed("ann@example.org", "192.0.2.1") == 2
    assert throttle.retry_after("ANN@example.org ", "198.51.100.7") == 2  # the account is slowed down anywhere
    assert throttle.retry_after("bob@example.org", "192.0.2.1") == 2  # and the address for any account
    assert throttle.retry_after("bob@example.org", "198.51.100.7") == 0
    clock.now += 2
    assert throttle.failed("ann@example.org", "192.0.2.1") == 4
    clock.now += 4
    assert throttle.failed("ann@example.org", "192.0.2.1") == 8
    clock.now += 8
    assert throttle.failed("ann@example.org", "192.0.2.1") == 10  # capped


def test_throttle_forgets_after_the_window_and_a_success_clears_the_account():
    clock = Clock()
    throttle = SignInThrottle(free_failures=1, base_delay=5, window=60, clock=clock)
    throttle.failed("ann@example.org", "192.0.2.1")
    assert throttle.retry_after("ann@example.org", None) == 5
    clock.now += 61
    assert throttle.retry_after("ann@example.org", "192.0.2.1") == 0
    throttle.failed("ann@example.org", "192.0.2.1")
    throttle.succeeded("ann@example.org", "192.0.2.1")
    assert throttle.retry_after("ann@example.org", None) == 0
    assert throttle.retry_after("bob@example.org", "192.0.2.1") == 5


def test_throttle_keeps_no_address_in_clear():
    throttle = SignInThrottle()
    throttle.failed("ann@example.org", "203.0.113.99")
    assert "203.0.113.99" not in repr(throttle.__dict__)
    assert all(b"203.0.113.99" not in key for key in throttle._failures)


@pytest.fixture
def session_table(db):
    db.execute("create table people (person_id bigint primary key)")
    db.execute("insert into people values (1), (2)")
    db.execute("""create table test_sessions (
        session_id bigint generated always as identity primary key,
        user_id bigint not null references people on delete cascade,
        secret_hash bytea not null unique, csrf_token text not null,
        created_at timestamptz not null default now(), last_seen_at timestamptz not null default now())""")
    return db


def test_sessions_are_found_by_secret_and_stored_hashed(session_table):
    store = SessionStore("test_sessions")
    secret, session = store.open(session_table, 1)
    assert store.find(session_table, secret) == session
    assert store.find(session_table, secret + "x") is None
    assert store.find(session_table, None) is None
    stored = session_table.execute("select secret_hash::text from test_sessions").fetchone()[0]
    assert secret not in stored
    assert csrf_matches(session, session.csrf_token)
    assert not csrf_matches(session, "") and not csrf_matches(session, None)
    assert not csrf_matches(session, session.csrf_token[:-1])


def test_sessions_expire_when_idle_or_too_old(session_table):
    store = SessionStore("test_sessions", idle=dt.timedelta(minutes=30), absolute=dt.timedelta(hours=2))
    idle_secret, _ = store.open(session_table, 1)
    old_secret, _ = store.open(session_table, 2)
    session_table.execute("update test_sessions set last_seen_at = now() - interval '31 minutes' where user_id = 1")
    session_table.execute("update test_sessions set created_at = now() - interval '3 hours' where user_id = 2")
    assert store.find(session_table, idle_secret) is None
    assert store.find(session_table, old_secret) is None
    assert session_table.execute("select count(*) from test_sessions").fetchone()[0] == 0


def test_closing_a_session_or_all_of_a_persons(session_table):
    store = SessionStore("test_sessions")
    first, _ = store.open(session_table, 1)
    second, _ = store.open(session_table, 1)
    other, _ = store.open(session_table, 2)
    store.close(session_table, first)
    assert store.find(session_table, first) is None and store.find(session_table, second) is not None
    assert store.close_all(session_table, 1) == 1
    assert store.find(session_table, second) is None and store.find(session_table, other) is not None
