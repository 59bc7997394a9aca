"""Reports made ahead of their delivery steps (workbench_app/subscriptions/made_ahead.py): in the
plan's order, never more than its bound beyond the step being run, and one failure stops nothing."""
from __future__ import annotations

import threading
from datetime import datetime, timezone

from flask import Flask

from workbench_app.subscriptions.made_ahead import MadeAhead

DUE = datetime(2026, 11, 27, 7, 0, tzinfo=timezone.utc)


def test_reports_are_made_in_the_plan_s_order_a_bounded_distance_ahead_and_a_failure_stops_nothing():
    plan = [("subscription", n, DUE) for n in range(1, 7)] + [("alert", 7, DUE)]
    made: list[int] = []
    gate = threading.Condition()

    def prepare(item_id: int, due_at: datetime) -> None:
        with gate:
            made.append(item_id)
            gate.notify_all()
        if item_id == 3:
            raise RuntimeError("the print crashed")

    def made_count(count: int) -> list[int]:
        with gate:
            assert gate.wait_for(lambda: len(made) >= count, timeout=10)
            return sorted(made)

    ahead = MadeAhead(Flask(__name__), plan, prepare, workers=2, ahead=2)
    try:
        assert made_count(2) == [1, 2]
        threading.Event().wait(0.2)
        assert sorted(made) == [1, 2]  # no more than two ahead of the steps
        ahead.step_started("subscription", 1)
        assert made_count(3) == [1, 2, 3]
        ahead.step_started("subscription", 4)  # its step came first: not made ahead
        ahead.step_started("subscription", 2)
        ahead.step_started("subscription", 3)  # its report failed: its step makes it
        assert made_count(5) == [1, 2, 3, 5, 6]
        for n in (5, 6):
            ahead.step_started("subscription", n)
    finally:
        ahead.close()
    assert sorted(made) == [1, 2, 3, 5, 6]  # an alert prints nothing: none is made ahead


def test_nothing_is_made_ahead_when_the_bound_is_zero():
    made: list[int] = []
    ahead = MadeAhead(Flask(__name__), [("subscription", 1, DUE)], lambda item_id, _: made.append(item_id), ahead=0)
    ahead.close()
    assert made == []
