"""Subscriptions and alerts run by Dagster (issue 32): a sensor finds what is due, a run sends it.

Every minute the sensor asks the workbench which subscriptions (and alerts) are owed a sending now
(`workbench_app/subscriptions/sending.due`: a daemon that was stopped owes the latest missed time
once, not a backlog) and requests one run for the new ones; its cursor remembers the due time
requested for each subscription, so a due time is requested once however often the sensor ticks.
In the run, each subscription or alert is a step of its own (a dynamic output), with its counts as the
step's metadata in the Dagster UI. A step retried, or a run started twice, sends nothing twice: each
recipient's delivery is claimed in the delivery log before its message goes out.

The run's steps run one after another in the run's own process (the in-process executor): they share
the printer's headless browsers, started once, one workbench application (its connections, its
engine; made by the first step, closed after the run's last), and the reports made for one delivery
that another can reuse (same dashboard, filters, theme, recipient and rights:
workbench_app/subscriptions/report_content.py). A step of its own process would start Python, the
workbench and Chromium again for every delivery. While a step sends, the next subscriptions' reports
are made in two threads beside it (workbench_app/subscriptions/made_ahead.py): two prints at once,
each delivery still taking its report only under its own key read at sending time, each still a
step with its own outcome.
"""

import hashlib
import json
import threading
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timezone

from dagster import (Config, DefaultSensorStatus, DynamicOut, DynamicOutput, OpExecutionContext, Output, RunConfig,
                     RunRequest, SensorEvaluationContext, SkipReason, in_process_executor, job, op, sensor)

from orchestration.defs.resources import Warehouse
from pipelines.settings import Settings


class PlannedDeliveries(Config):
    """(kind: subscription or alert, its id, due time in ISO 8601) of each sending of the run."""

    deliveries: list[list[str]]


def workbench_settings(warehouse: Warehouse) -> Settings:
    """The environment's settings (mail server, workbench address) on the warehouse's database."""
    located = warehouse.settings()
    return replace(Settings.from_env(), home=located.home, database_url=located.database_url,
                   server_secret_value=located.server_secret_value, lake_dir=located.lake_dir)


class _RunWorkbench:
    """The workbench application of one run's steps and the reports it makes ahead; closed when the
    last of the run's steps ends (or with the process: a run is a process of its own)."""

    def __init__(self, settings: Settings, plan: list[list[str]]):
        # Imported here: the workbench is a heavy import that only the delivery steps need.
        from workbench_app.app import create_app
        from workbench_app.subscriptions import sending
        from workbench_app.subscriptions.made_ahead import MadeAhead

        self.app = create_app(settings)
        services = self.app.extensions["workbench"]
        planned = [(kind, int(item_id), datetime.fromisoformat(due_at)) for kind, item_id, due_at in plan]
        self.ahead = MadeAhead(self.app, planned, lambda item_id, due_at: sending.prepare(services, item_id, due_at))
        self.steps_left = len(plan)

    def close(self) -> None:
        try:
            self.ahead.close()
        finally:
            self.app.wsgi_app.close()
            self.app.extensions["workbench"].close()


_runs: dict[str, _RunWorkbench] = {}
_runs_lock = threading.Lock()


@contextmanager
def _workbench(context: OpExecutionContext, settings: Settings, kind: str, item_id: int):
    """The run's workbench application, in an application context, for one step (its PDF printing
    answers its own page); the run's last step closes it."""
    plan = context.run_config["ops"]["planned_deliveries"]["config"]["deliveries"]
    with _runs_lock:
        run = _runs.get(context.run_id)
        if run is None:
            run = _runs[context.run_id] = _RunWorkbench(settings, plan)
    run.ahead.step_started(kind, item_id)
    try:
        with run.app.app_context():
            yield run.app
    finally:
        with _runs_lock:
            run.steps_left -= 1
            last = run.steps_left <= 0
            if last:
                del _runs[context.run_id]
        if last:
            run.close()


@op(out=DynamicOut(str), description="The sendings this run was asked for, one step each.")
def planned_deliveries(context: OpExecutionContext, config: PlannedDeliveries):
    for kind, item_id, due_at in config.deliveries:
        yield DynamicOutput(f"{kind}|{item_id}|{due_at}", mapping_key=f"{kind}_{item_id}")


@op(description="Send a subscription's report, or check an alert and send it if it fires, for its due time: "
                "to each recipient, under each one's rights.")
def deliver(context: OpExecutionContext, warehouse: Warehouse, planned: str):
    from workbench_app.subscriptions import sending

    kind, item_id, due_at = planned.split("|")
    send = sending.deliver if kind == "subscription" else sending.check_alert
    with _workbench(context, workbench_settings(warehouse), kind, int(item_id)) as app:
        outcome = send(app.extensions["workbench"], int(item_id), datetime.fromisoformat(due_at))
    for line in outcome.lines:
        context.log.info(line)
    if outcome.failed:
        context.log.warning(f"{kind} {item_id}: {outcome.failed} deliveries failed (see its delivery log)")
    metadata = {f"{kind}_id": int(item_id), "due_at": due_at, "sent": outcome.sent, "failed": outcome.failed,
                "skipped": outcome.skipped}
    if outcome.fired is not None:
        metadata["fired"] = outcome.fired
    return Output(None, metadata=metadata)


@job(description="Deliver the subscriptions and check the alerts that are due (started by subscriptions_due_sensor).",
     executor_def=in_process_executor)
def subscription_deliveries_job():
    planned_deliveries().map(deliver)


def newly_due(cursor: str | None, owed: list[tuple[str, int, datetime]]) -> tuple[list[tuple[str, int, datetime]], str]:
    """The owed sendings not yet requested, and the cursor that remembers them too."""
    requested = json.loads(cursor) if cursor else {}
    new = [(kind, item, due_at) for kind, item, due_at in owed if requested.get(f"{kind}:{item}") != due_at.isoformat()]
    live = {f"{kind}:{item}" for kind, item, _ in owed}
    # Only what is still owed something needs remembering: the cursor stays the size of the lists.
    kept = {key: due for key, due in requested.items() if key in live}
    kept.update({f"{kind}:{item}": due_at.isoformat() for kind, item, due_at in new})
    return new, json.dumps(kept, sort_keys=True)


@sensor(job=subscription_deliveries_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING,
        description="Each minute: request a delivery run for the subscriptions and alerts that became due.")
def subscriptions_due_sensor(context: SensorEvaluationContext, warehouse: Warehouse):
    from workbench_app.services import WorkbenchServices
    from workbench_app.subscriptions import sending
    from workbench_app.subscriptions.store import ALERT

    services = WorkbenchServices(settings=workbench_settings(warehouse))
    now = datetime.now(timezone.utc)
    try:
        owed = [("subscription", item, due_at) for item, due_at in sending.due(services, now)]
        owed += [("alert", item, due_at) for item, due_at in sending.due(services, now, ALERT)]
    finally:
        services.close()
    new, cursor = newly_due(context.cursor, owed)
    context.update_cursor(cursor)
    if not new:
        return SkipReason("no subscription or alert is due")
    planned = [[kind, str(item), due_at.isoformat()] for kind, item, due_at in new]
    # The same sendings asked again (a tick repeated before its cursor was kept) are the same run.
    key = hashlib.sha256(json.dumps(planned).encode()).hexdigest()[:16]
    return RunRequest(run_key=f"deliveries-{key}",
                      run_config=RunConfig(ops={"planned_deliveries": PlannedDeliveries(deliveries=planned)}),
                      tags={"analytics/deliveries": str(len(new))})
