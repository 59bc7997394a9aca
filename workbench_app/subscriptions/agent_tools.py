"""Tools of the agent tool server for subscriptions and alerts: list them and create them, under
the caller's rights, through the same store and checks as `/api/v1/subscriptions` and `/alerts`.

Published by the agent tool server only (the AI assistant's tools read and never change anything).
A body the API would refuse is refused with the same message.
"""
from __future__ import annotations

from typing import Any

from workbench_app.agent_tools.reading_tools import ToolCaller
from workbench_app.request_shapes import validated
from workbench_app.subscriptions import store
from workbench_app.subscriptions.shapes import NewAlert, NewSubscription


def list_subscriptions(caller: ToolCaller) -> dict[str, Any]:
    """Your subscriptions (dashboards or questions sent on a schedule) and alerts (questions watched),
    with their recipients, schedules and next sending."""
    with caller.services.transaction() as conn:
        return {"subscriptions": store.list_subscriptions(conn, caller.identity),
                "alerts": store.list_alerts(conn, caller.identity)}


def create_subscription(caller: ToolCaller, target_kind: str, target_id: int, schedule: dict[str, Any],
                        recipients: list[dict[str, Any]], name: str = "",
                        filters: dict[str, str] | None = None) -> dict[str, Any]:
    """Send a dashboard (target_kind "dashboard") or a question ("question") by e-mail on a schedule.
    schedule: {"every": "day" | "week" | "month", "hour": 0-23, "minute": 0-59, "weekday": 0-6 (weekly,
    0 is Monday), "day": 1-31 (monthly), "timezone": an IANA name}. recipients: [{"user_id": ...} or
    {"email": ...}]. Each recipient receives what their own rights show at sending time."""
    fields = validated(NewSubscription, {"target_kind": target_kind, "target_id": target_id, "schedule": schedule,
                                         "recipients": recipients, "name": name, "filters": filters or {}})
    with caller.services.transaction() as conn:
        return store.create(conn, caller.services.settings, caller.identity, fields)


def create_alert(caller: ToolCaller, question_id: int, schedule: dict[str, Any], condition: str,
                 recipients: list[dict[str, Any]], name: str = "", value_column: str | None = None,
                 threshold: float | None = None, repeat: str = "every_time") -> dict[str, Any]:
    """Watch a saved question on a schedule (as in create_subscription) and e-mail the recipients when
    it fires. condition: "has_rows", "above" or "below" (value_column of the first row against
    threshold), or "changes_by" (more than threshold percent since the previous check). repeat:
    "once" or "every_time"."""
    fields = validated(NewAlert, {"question_id": question_id, "schedule": schedule, "condition": condition,
                                  "recipients": recipients, "name": name, "value_column": value_column,
                                  "threshold": threshold, "repeat": repeat})
    with caller.services.transaction() as conn:
        return store.create_alert(conn, caller.services.settings, caller.identity, fields)


TOOLS = {"list_subscriptions": list_subscriptions, "create_subscription": create_subscription,
         "create_alert": create_alert}
