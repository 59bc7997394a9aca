"""The delivery log on the real metadata database: one message per firing and recipient, through
retries, a crashed sender and two checkers at once."""
from __future__ import annotations

import json
import threading
from datetime import datetime, timezone

import psycopg
import pytest

from workbench_app.deliveries.delivery_log import claim, finish, log_of

DUE = datetime(2026, 11, 30, 7, 0, tzinfo=timezone.utc)


@pytest.fixture
def subscription(workbench_db) -> int:
    owner = workbench_db.execute("insert into users (email, display_name) values ('owner@example.org', 'Owner')"
                                 " returning user_id").fetchone()[0]
    return workbench_db.execute(
        """insert into subscriptions (owner_id, target_kind, schedule, channel)
           values (%s, 'dashboard', %s, 'email') returning subscription_id""",
        (owner, json.dumps({"every": "day", "hour": 7}))).fetchone()[0]


def test_a_sent_delivery_is_never_claimed_again(workbench_db, subscription):
    first = claim(workbench_db, subscription_id=subscription, recipient="ana@example.org", due_at=DUE)
    assert first.attempt == 1
    finish(workbench_db, first, "sent")
    assert claim(workbench_db, subscription_id=subscription, recipient="ana@example.org", due_at=DUE) is None
    # Another recipient, or the next due time, is a delivery of its own.
    assert claim(workbench_db, subscription_id=subscription, recipient="bo@example.org", due_at=DUE)
    [entry, *_] = log_of(workbench_db, subscription_id=subscription)
    assert entry["recipient"] in ("ana@example.org", "bo@example.org")


def test_a_failed_delivery_is_retried_under_the_same_id(workbench_db, subscription):
    first = claim(workbench_db, subscription_id=subscription, recipient="ana@example.org", due_at=DUE)
    finish(workbench_db, first, "failed", error_code="unreachable", error_message="The mail server could not be reached.")
    again = claim(workbench_db, subscription_id=subscription, recipient="ana@example.org", due_at=DUE)
    assert (again.delivery_id, again.attempt) == (first.delivery_id, 2)
    finish(workbench_db, again, "sent")
    [entry] = log_of(workbench_db, subscription_id=subscription)
    assert (entry["status"], entry["attempts"], entry["error_code"]) == ("sent", 2, None)


def test_a_sender_that_died_mid_delivery_is_taken_over_only_after_the_lease(workbench_db, subscription):
    held = claim(workbench_db, subscription_id=subscription, recipient="ana@example.org", due_at=DUE)
    assert claim(workbench_db, subscription_id=subscription, recipient="ana@example.org", due_at=DUE) is None
    workbench_db.execute("update deliveries set started_at = now() - interval '11 minutes' where delivery_id = %s",
                         (held.delivery_id,))
    taken = claim(workbench_db, subscription_id=subscription, recipient="ana@example.org", due_at=DUE)
    assert taken.delivery_id == held.delivery_id and taken.attempt == 2


def test_of_many_checkers_at_once_exactly_one_holds_the_claim(workbench_settings, workbench_db, subscription):
    from workbench_app.metadata_database import metadata_url
    url = metadata_url(workbench_settings)
    claims, barrier = [], threading.Barrier(8)

    def checker():
        with psycopg.connect(url, autocommit=True) as conn:
            barrier.wait()
            claims.append(claim(conn, subscription_id=subscription, recipient="ana@example.org", due_at=DUE))
    threads = [threading.Thread(target=checker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len([c for c in claims if c is not None]) == 1


def test_a_delivery_belongs_to_one_subscription_or_one_alert(workbench_db, subscription):
    with pytest.raises(ValueError):
        claim(workbench_db, recipient="ana@example.org", due_at=DUE)
    with pytest.raises(ValueError):
        finish(workbench_db, claim(workbench_db, subscription_id=subscription, recipient="x@example.org", due_at=DUE),
               "delivered")
