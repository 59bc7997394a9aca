"""Component logs: what reaches the console, the files, and `analytics logs`."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from analytics_cli import component_logs
from analytics_cli.component_logs import ConsoleFilter

ANALYTICS = str(Path(sys.executable).parent / "analytics")

DAGSTER_TICK = "2026-11-25 06:33:40 +0000 - dagster.daemon.SensorDaemon - INFO - Checking for new runs for sensor"
DAGSTER_DEBUG = "2026-11-25 06:33:40 +0000 - dagster - DEBUG - demo - 6dd3 - STEP_START - Started execution"
GUNICORN_BOOT = "[2026-11-25 06:31:49 +0000] [5208] [INFO] Booting worker with pid: 5208"
ACCESS = '[25/Nov/2026:06:31:59 +0000] "GET /healthz HTTP/1.1" 200 109 12ms'


def test_the_console_gets_warnings_errors_and_whole_tracebacks_only():
    console = ConsoleFilter(verbose=False)
    assert not any(console.shows(line) for line in (DAGSTER_TICK, DAGSTER_DEBUG, GUNICORN_BOOT, ACCESS))
    assert console.shows("[2026-11-25 06:31:49 +0000] [5208] [WARNING] Worker timeout")
    assert console.shows("2026-11-25 06:33:40 +0000 - dagster - ERROR - run failed")
    traceback = ["Traceback (most recent call last):", '  File "x.py", line 1, in <module>', "    boom()",
                 "ValueError: boom"]
    assert [console.shows(line) for line in traceback] == [True, True, True, True]
    assert not console.shows(ACCESS)
    assert ConsoleFilter(verbose=True).shows(DAGSTER_DEBUG)


def test_a_child_s_output_goes_to_its_rotating_file(tmp_path):
    logger = component_logs.component_logger(tmp_path, "unit-test-child")
    logger.handlers[0].maxBytes = 200
    shown: list[str] = []
    stream = io.BytesIO("".join(f"{DAGSTER_TICK} {n}\n" for n in range(10)).encode() + b"boom ERROR here\n")
    component_logs.pump("unit-test-child", stream, logger, verbose=False, echo=shown.append).join(10)
    assert shown == ["unit-test-child    | boom ERROR here"]
    files = sorted(path.name for path in (tmp_path / "logs").iterdir())
    assert files[0] == "unit-test-child.log" and "unit-test-child.log.1" in files
    assert len(files) <= 1 + component_logs.BACKUPS
    assert (tmp_path / "logs" / "unit-test-child.log").read_text().endswith("boom ERROR here\n")


def test_analytics_logs_shows_a_component_and_names_the_known_ones(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "workbench.log").write_text("".join(f"line {n}\n" for n in range(100)))
    (logs / "collector.log").write_text("collector line\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANALYTICS_")}
    env["ANALYTICS_HOME"] = str(tmp_path)

    def logs_command(*args):
        return subprocess.run([ANALYTICS, "logs", *args], env=env, capture_output=True, text=True, timeout=30)

    one = logs_command("workbench", "-n", "3")
    assert one.returncode == 0 and one.stdout == "line 97\nline 98\nline 99\n"
    every = logs_command()
    assert "collector line" in every.stdout and "line 99" in every.stdout and "line 49" not in every.stdout
    unknown = logs_command("dagster")
    assert unknown.returncode == 1
    assert "no log named 'dagster'" in unknown.stderr and "collector, workbench" in unknown.stderr


# Lines `analytics up` printed to the console though nobody had anything to do (issue 30), as the
# components write them; each stays in its component's log.
ROUTINE = (
    "2026-11-27 09:15:31 +0000 - dagster - INFO - incremental_build_job - 5f1c - analytics_dbt_models - "
    "Finished running node model.analytics.int_conversions. Done. PASS=41 WARN=0 ERROR=0 SKIP=0 NO-OP=0 TOTAL=41",
    "09:15:31  Done. PASS=41 WARN=0 ERROR=0 SKIP=0 NO-OP=0 TOTAL=41",
    "2026-11-27 09:15:31 +0000 - dagster - WARNING - incremental_build_job - 5f1c - analytics_dbt_models - "
    "Logging an `AssetObservation` instead of an `AssetCheckResult` for dbt test `assert_attribution_credits_sum_to_one`.",
    "WARNING:root:Retrying failed database creation",
    "[2026-11-27 09:20:02 +0000] [5212] [INFO] Error while closing socket [Errno 9] Bad file descriptor",
)


def test_routine_lines_that_look_like_warnings_stay_in_the_component_logs():
    console = ConsoleFilter(verbose=False)
    assert [line for line in ROUTINE if console.shows(line)] == []
    # What a person must act on still shows: a failed build, a socket error other than a closed one.
    assert console.shows("09:15:31  Done. PASS=40 WARN=0 ERROR=1 SKIP=0 NO-OP=0 TOTAL=41")
    assert console.shows("09:15:31  Done. PASS=40 WARN=1 ERROR=0 SKIP=0 NO-OP=0 TOTAL=41")
    assert console.shows("[2026-11-27 09:20:02 +0000] [5212] [ERROR] Error while closing socket [Errno 104] reset")
    assert all(ConsoleFilter(verbose=True).shows(line) for line in ROUTINE)
