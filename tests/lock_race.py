"""Two transactions racing for the same row lock, for the tests of "at most one" rules (the
first-run setup links): the second attempt must wait for the first, then see its outcome."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

import psycopg


def waits_on_a_lock(observer: psycopg.Connection, seconds: float = 30) -> bool:
    """Whether some session of this database is waiting on a lock (awaited, not slept for)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if observer.execute("select count(*) from pg_stat_activity where wait_event_type = 'Lock' "
                            "and datname = current_database()").fetchone()[0]:
            return True
        time.sleep(0.05)
    return False


def second_attempt_while_locked(observer: psycopg.Connection, holder: psycopg.Connection,
                                challenger: psycopg.Connection,
                                attempt: Callable[[psycopg.Connection], object]) -> str:
    """Run `attempt(challenger)` while `holder`'s open transaction holds the lock; commit `holder`
    once the attempt waits on it. The attempt's outcome: "created", or the refusal's `code`."""
    outcome: dict[str, str] = {}

    def race():
        try:
            attempt(challenger)
            challenger.commit()
            outcome["second"] = "created"
        except Exception as exc:  # noqa: BLE001 - the refusal is what the test inspects
            challenger.rollback()
            outcome["second"] = getattr(exc, "code", repr(exc))

    racer = threading.Thread(target=race)
    racer.start()
    assert waits_on_a_lock(observer), "the second attempt must wait for the first one's lock"
    holder.commit()
    racer.join(timeout=30)
    return outcome["second"]
