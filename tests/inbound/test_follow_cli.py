"""`analytics follow` as a process: follows the fake service, processes the inbox, stops on SIGTERM;
`--check` shows a stopped follower's error; `analytics up` starts it only when followers exist."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from analytics_cli.supervisor import follower_children
from tests.conftest import TEST_SECRET
from tests.inbound.conftest import make_source
from tests.inbound.fakes.database_service import FakeDatabaseService
from tests.inbound.test_stream_follower import wait_until

ANALYTICS = str(Path(sys.executable).parent / "analytics")


def cli_env(tmp_path, database_url):
    return {**os.environ, "ANALYTICS_HOME": str(tmp_path / "home"), "ANALYTICS_DATABASE_URL": database_url,
            "ANALYTICS_SECRET": TEST_SECRET}


@pytest.mark.slow
def test_follow_runs_until_sigterm_and_check_shows_figures(tmp_path, database_url, key, db, settings):
    service = FakeDatabaseService(revoke_close_seconds=0.2, keepalive_seconds=0.1)
    url = service.start()
    try:
        assert follower_children(settings, database_url) == []
        token = service.issue_token()
        make_source(database_url, key, {"kind": "db_stream", "base_url": url, "tenant": service.tenant,
                                        "base": service.base, "tables": ["deals"], "token": token})
        assert [c.name for c in follower_children(settings, database_url)] == ["follower"]
        process = subprocess.Popen([ANALYTICS, "follow", "--reload-seconds", "0.5"], env=cli_env(tmp_path, database_url),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_until(lambda: service.stream_requests, timeout=30, what="the follower's stream")
            service.write("deals", "r1", amount=3)
            wait_until(lambda: db.execute("select count(*) from raw.db_events").fetchone()[0] == 1, timeout=15,
                       what="the row")
            service.revoke(token)
            wait_until(lambda: db.execute("select state = 'stopped' from raw.db_follow_state").fetchone()[0],
                       timeout=15, what="the follower to stop")
            check = subprocess.run([ANALYTICS, "follow", "--check"], env=cli_env(tmp_path, database_url),
                                   capture_output=True, text=True, timeout=60)
            assert check.returncode == 1
            assert "stopped" in check.stdout and "HTTP 401" in check.stdout
        finally:
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        assert token not in out + err
    finally:
        service.stop()
