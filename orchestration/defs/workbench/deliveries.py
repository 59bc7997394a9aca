"""Subscriptions and alerts run by Dagster (issue 32): a sensor finds what is due, a run sends it.

Every minute the sensor asks the workbench which subscriptions (and alerts) are owed a sending now
(`workbench_app/subscriptions/sending.due`: a daemon that was stopped owes the latest missed time
once, not a backlog) and requests one run for the new ones; its cursor remembers the due time
requested for each subscription, so a due time is requested once however often the sensor ticks.
In the run, each subscription or alert is a step of its own (a dynamic output), with its counts as the
step's metadata in the Dagster UI. A step retried, or a run started twice, sends nothing twice: each
recipient's delivery is claimed in the delivery log before its message goes out.

The run's steps run one after another in the run's own process (the in-process executor): they share
the printer's headless browser, started once, and the reports made for one delivery that another can
reuse (same dashboard, filters, theme, recipient and rights: workbench_app/subscriptions/report_content.py).
A step of its own process would start Python, the workbench and Chromium again for every delivery.
"""

import hashlib
import json
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


@contextmanager
def _workbench(settings: Settings):
    """The workbench application for one step (its PDF printing answers its own page), closed after:
    its connections do not outlive the step."""
    # Imported here: the workbench is a heavy import that only the delivery steps need.
    from workbench_app.app import create_app

    app = create_app(settings)
    try:
        with app.app_context():
            yield app
    finally:
        app.wsgi_app.close()
        app.extensions["workbench"].close()


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
    with _workbench(workbench_settings(warehouse)) as app:
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
