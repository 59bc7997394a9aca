"""Benchmark of scheduled deliveries (issue 32): 100 subscriptions due at the same minute.

Starts an embedded PostgreSQL (the analytics and workbench databases, migrated), a small warehouse
view, a local SMTP server (aiosmtpd) and the workbench application; makes a two-card dashboard and
--subscriptions subscriptions to it, due at the same minute, each to one of five accounts (so each
message carries its recipient's own figures and the A4 PDF). Then, as the daemon does, the Dagster
sensor `subscriptions_due_sensor` is evaluated and the run it requests (`subscription_deliveries_job`,
one step per subscription) is executed in this process; the SMTP server timestamps each message.

Prints: the time from the run's start to the last message (target: all delivered within 2 minutes
on 2 cores), messages per second, the times at which 10 %, 50 % and 100 % had arrived, and the
resident memory of this process and its children (Chromium) sampled along the run (flat: the
memory after the last delivery against after the first ten), and each delivery's own time (claim to
end, from the delivery log) at p50/p90/max, the CPU time of the process and its children, and where
the time goes (bench/delivery_phases.py: the step, the reuse key, the cards' SQL, the print: its
page load, PNGs and PDF, the SMTP send). Baselines measured in the same run: one delivery alone
(its report computed and printed, sent: x N is the old one-by-one path), the same run with the
reuse of reports and the reports made ahead turned off (`--baseline-run`, the old path measured
whole), and the SMTP floor (100 plain messages through the same server, no report). The load
average is printed at the start and the end: the machine may be shared.

`--accounts N` spreads the subscriptions over N accounts of distinct rights (5 by default);
`--worst-case` gives every subscription an account of its own (no report can be reused: each is
printed, ahead of its step or in it).

Run: ``python bench/deliveries.py [--subscriptions 100] [--accounts 5 | --worst-case] [--baseline-run]``
(Debian chromium needed).
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psutil
import psycopg
from aiosmtpd.controller import Controller

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dagster import DagsterInstance, RunRequest, build_sensor_context  # noqa: E402

from orchestration.defs.resources import Warehouse  # noqa: E402
from orchestration.defs.workbench.deliveries import subscription_deliveries_job, subscriptions_due_sensor  # noqa: E402
from bench.delivery_phases import Phases, measured  # noqa: E402
from bench.resource_sampler import cpu_seconds  # noqa: E402
from pipelines.database import connection, embedded, migrate  # noqa: E402
from pipelines.key_derivation import reader_password  # noqa: E402
from pipelines.settings import Settings  # noqa: E402
from workbench_app import metadata_database  # noqa: E402
from workbench_app.accounts import api_tokens, users  # noqa: E402
from workbench_app.accounts.identity import Identity  # noqa: E402
from workbench_app.app import create_app  # noqa: E402
from workbench_app.deliveries.mail_messages import compose  # noqa: E402
from workbench_app.deliveries.mail_server import MailServer  # noqa: E402
from workbench_app.deliveries.smtp_delivery import send_mail  # noqa: E402
from workbench_app.subscriptions import made_ahead, report_content, sending  # noqa: E402

SECRET = "bench-server-secret"
REGIONS = ("EU", "US", "APAC")


class Inbox:
    """Counts the messages the SMTP server accepted, with their arrival times."""

    def __init__(self):
        self.arrivals: list[float] = []

    async def handle_DATA(self, server, session, envelope):
        self.arrivals.append(time.perf_counter())
        return "250 Message accepted"


class RssSampler(threading.Thread):
    """This process and its children (the headless Chromium), every 0.25 s."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self):
        me = psutil.Process()
        while not self.stop.wait(0.25):
            total = 0
            for process in [me, *me.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.NoSuchProcess:
                    pass
            self.samples.append((time.perf_counter(), total))

    def at(self, moment: float) -> int:
        return next((rss for when, rss in self.samples if when >= moment), self.samples[-1][1])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def mib(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscriptions", type=int, default=100)
    parser.add_argument("--accounts", type=int, default=5, help="recipients' accounts (distinct rights)")
    parser.add_argument("--worst-case", action="store_true",
                        help="every subscription to an account of its own (--accounts = --subscriptions): no "
                             "report can be reused")
    parser.add_argument("--baseline-run", action="store_true",
                        help="first run the same deliveries with the reuse of reports off (the old path)")
    args = parser.parse_args()
    if args.worst_case:
        args.accounts = args.subscriptions
    print(f"load average at the start: {' '.join(f'{load:.1f}' for load in os.getloadavg())} (2 cores, shared)")
    root = Path(tempfile.mkdtemp(prefix="bench-deliveries-"))
    pgdata = root / "pgdata"
    state = embedded.start(pgdata, extra_settings={"fsync": "off", "synchronous_commit": "off"})
    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    try:
        run(root, state, smtp, inbox, args.subscriptions, args.accounts, args.baseline_run)
    finally:
        smtp.stop()
        embedded.stop(pgdata)
        shutil.rmtree(root, ignore_errors=True)


def run(root: Path, state, smtp: Controller, inbox: Inbox, count: int, accounts_count: int,
        baseline_run: bool) -> None:
    server_url = state.url("postgres")
    with connection.connect(server_url, autocommit=True) as conn:
        conn.execute("create database analytics")
    url = connection.with_database(server_url, "analytics")
    settings = Settings(home=root / "home", database_url=url, server_secret_value=SECRET,
                        smtp_host="127.0.0.1", smtp_port=smtp.port, smtp_security="none",
                        smtp_from="reports@example.org", workbench_url="http://workbench.example")
    migrate.migrate(url, reader_password=reader_password(settings))
    metadata_database.prepare_metadata_database(settings)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create schema modeled")
        conn.execute("create table modeled.page_views (view_id int, page text, region text, revenue numeric)")
        conn.execute("""insert into modeled.page_views select n, '/p' || (n % 40), (array['EU','US','APAC'])[1 + n % 3],
                        n % 97 from generate_series(1, 50000) n""")
        conn.execute("create view analytics.page_views as select * from modeled.page_views")
    for name, value in {"ANALYTICS_SMTP_HOST": "127.0.0.1", "ANALYTICS_SMTP_PORT": str(smtp.port),
                        "ANALYTICS_SMTP_SECURITY": "none", "ANALYTICS_SMTP_FROM": "reports@example.org",
                        "ANALYTICS_WORKBENCH_URL": "http://workbench.example", "ANALYTICS_SECRET": SECRET}.items():
        os.environ[name] = value

    app = create_app(settings)
    client = app.test_client()
    with psycopg.connect(metadata_database.metadata_url(settings), autocommit=True) as conn:
        admin = users.create_user(conn, None, email="admin@example.org", password="a long enough password",
                                  is_admin=True)
        _, token = api_tokens.create_token(conn, Identity(admin["user_id"], admin["email"], True), "bench")
    headers = {"Authorization": f"Bearer {token}"}

    def api(method: str, path: str, body=None, status: int = 200):
        answer = client.open(f"/api/v1{path}", method=method, json=body, headers=headers)
        assert answer.status_code == status, answer.get_data(as_text=True)
        return answer.get_json()

    group = api("POST", "/groups", {"name": "Regional"}, 201)["group_id"]
    api("POST", f"/groups/{group}/rules", {"catalog": "warehouse", "schema": "analytics", "table": "page_views",
                                           "row_filter": "region = {{user.region}}"}, 201)
    folder = api("POST", "/folders", {"name": "Reports"}, 201)["folder_id"]
    api("PUT", f"/folders/{folder}/access/{group}", {"level": "view"})
    accounts = []
    for n in range(accounts_count):
        person = api("POST", "/users", {"email": f"person{n}@example.org", "password": "a long enough password"}, 201)
        api("PUT", f"/users/{person['user_id']}/attributes", {"attributes": {"region": REGIONS[n % 3]}})
        api("PUT", f"/groups/{group}/members/{person['user_id']}")
        accounts.append(person["user_id"])
    by_page = api("POST", "/questions", {"name": "Views by page", "folder_id": folder, "visualization": {"kind": "bar"},
                                         "sql": "SELECT page, count(*) AS views FROM page_views GROUP BY 1 ORDER BY 2 DESC LIMIT 10"}, 201)
    revenue = api("POST", "/questions", {"name": "Revenue by region", "folder_id": folder,
                                         "sql": "SELECT region, sum(revenue) AS revenue FROM page_views GROUP BY 1 ORDER BY 1"}, 201)
    dashboard = api("POST", "/dashboards", {"name": "Daily traffic", "folder_id": folder, "cards": [
        {"key": "a", "question_id": by_page["question_id"]}, {"key": "b", "question_id": revenue["question_id"]}]}, 201)
    schedule = {"every": "day", "hour": 6, "timezone": "UTC"}
    made = [api("POST", "/subscriptions", {"target_kind": "dashboard", "target_id": dashboard["dashboard_id"],
                                           "name": f"Traffic {n}", "schedule": schedule,
                                           "recipients": [{"user_id": accounts[n % accounts_count]}]}, 201)
            for n in range(count + 1)]
    services = app.extensions["workbench"]
    with services.transaction() as conn:
        conn.execute("update subscriptions set created_at = now() - interval '2 days'")

    # Baseline 1: one delivery alone (report computed under the recipient's rights, PDF printed, sent).
    due_at = datetime.now(timezone.utc).replace(hour=6, minute=0, second=0, microsecond=0)
    if due_at > datetime.now(timezone.utc):
        due_at -= timedelta(days=1)
    started = time.perf_counter()
    with app.app_context():
        alone = sending.deliver(services, made[-1]["subscription_id"], due_at)
    one_delivery = time.perf_counter() - started
    assert alone.sent == 1, alone.lines
    api("DELETE", f"/subscriptions/{made[-1]['subscription_id']}", status=204)

    # Baseline 2: the SMTP floor, 100 plain messages.
    server = MailServer.from_settings(settings)
    started = time.perf_counter()
    for n in range(100):
        send_mail(server, compose(sender=server.sender, recipient="floor@example.org", subject=f"floor {n}", text="x"))
    smtp_floor = time.perf_counter() - started
    inbox.arrivals.clear()

    # The daemon's way: the sensor sees everything due, its run sends it.
    resources = {"warehouse": Warehouse(home=str(settings.home), database_url=url)}
    os.environ["ANALYTICS_WORKBENCH_DATABASE_NAME"] = settings.workbench_database_name
    runs = []
    ahead = made_ahead.AHEAD
    if baseline_run:
        # The old path: every delivery makes its own report in its step, nothing made ahead.
        report_content.reused.seconds, made_ahead.AHEAD = 0.0, 0
        runs.append(("reuse off, nothing made ahead (old path)", delivery_run(services, resources, inbox)))
        with services.transaction() as conn:  # the same deliveries due again
            conn.execute("delete from deliveries")
            conn.execute("update subscriptions set last_due_at = null")
        report_content.reused.seconds, made_ahead.AHEAD = report_content.REUSE_SECONDS, ahead
    report_content.reused.clear()
    runs.append(("reuse on, reports made ahead", delivery_run(services, resources, inbox)))
    reuse = (f"reports made {report_content.reused.misses}, reused {report_content.reused.hits} (a report made ahead "
             f"counts as reused by its delivery)")

    print(f"subscriptions due at the same minute: {runs[-1][1]['planned']} (one account each, {accounts_count} "
          f"accounts, 2-card dashboard, PDF + 2 inline images per message)")
    for label, figures in runs:
        print(f"--- {label}" + (f"; {reuse}" if label.startswith("reuse on") else ""))
        print_figures(figures)
    print(f"baseline, one delivery alone: {one_delivery:.2f} s (x{runs[-1][1]['planned']} = "
          f"{one_delivery * runs[-1][1]['planned']:.0f} s one by one); SMTP floor: 100 plain messages in "
          f"{smtp_floor:.2f} s")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (2 cores)")
    app.wsgi_app.close()
    services.close()


def delivery_run(services, resources, inbox: Inbox) -> dict:
    """The sensor's tick and the run it requests, measured."""
    inbox.arrivals.clear()
    instance = DagsterInstance.ephemeral()
    request = subscriptions_due_sensor(build_sensor_context(instance=instance, resources=resources))
    assert isinstance(request, RunRequest), request
    planned = request.run_config["ops"]["planned_deliveries"]["config"]["deliveries"]
    sampler = RssSampler()
    sampler.start()
    me = psutil.Process()
    cpu_before = cpu_seconds(me)
    phases = Phases()
    started = time.perf_counter()
    with measured(phases):
        result = subscription_deliveries_job.execute_in_process(run_config=request.run_config, instance=instance,
                                                                resources=resources)
    ended = time.perf_counter()
    cpu = cpu_seconds(me) - cpu_before
    sampler.stop.set()
    sampler.join()
    assert result.success
    arrivals = sorted(when - started for when in inbox.arrivals)
    with services.transaction() as conn:
        statuses = dict(conn.execute("select status, count(*) from deliveries group by 1").fetchall())
        each = sorted(row[0] for row in conn.execute(
            "select extract(epoch from finished_at - started_at)::float from deliveries where status = 'sent'"))
    return {"planned": len(planned), "arrivals": arrivals, "run": ended - started, "cpu": cpu,
            "statuses": statuses, "each": each, "started": started, "samples": sampler.samples, "phases": phases}


def print_figures(figures: dict) -> None:
    arrivals, each, samples = figures["arrivals"], figures["each"], figures["samples"]
    total = arrivals[-1] if arrivals else float("nan")

    def reached(share: float) -> float:
        return arrivals[max(0, int(len(arrivals) * share) - 1)]

    def percentile(share: float) -> float:
        return each[min(len(each) - 1, int(len(each) * share))] if each else float("nan")

    tenth = figures["started"] + reached(0.1)
    after_tenth = next((rss for when, rss in samples if when >= tenth), samples[-1][1])
    print(f"messages received: {len(arrivals)}; delivery log: {figures['statuses']}")
    print(f"all delivered in {total:.1f} s (run {figures['run']:.1f} s; target <= 120 s on 2 cores) "
          f"-> {len(arrivals) / total:.2f} messages/s")
    print(f"arrived: 10 % at {reached(0.1):.1f} s, 50 % at {reached(0.5):.1f} s, 100 % at {total:.1f} s")
    print(f"each delivery (claim to end): p50 {percentile(0.5):.2f} s, p90 {percentile(0.9):.2f} s, "
          f"max {each[-1] if each else float('nan'):.2f} s")
    print(f"memory (this process + Chromium): after 10 % {mib(after_tenth)}, at the end {mib(samples[-1][1])}, "
          f"peak {mib(max(rss for _, rss in samples))}")
    print(f"CPU (this process, its driver and Chromium): {figures['cpu']:.1f} s in all, "
          f"{figures['cpu'] / max(1, figures['planned']):.2f} s per delivery")
    print("where the time goes (wall time summed over threads; overlapping phases add up to more than the run):")
    for line in figures["phases"].lines(figures["planned"], figures["run"]):
        print(line)


if __name__ == "__main__":
    main()
