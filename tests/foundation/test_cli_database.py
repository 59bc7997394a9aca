"""`analytics db ...` and `analytics migrate` through the real console script."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ANALYTICS = str(Path(sys.executable).parent / "analytics")


def run(home, *args, check=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANALYTICS_")}
    env["ANALYTICS_HOME"] = str(home)
    result = subprocess.run([ANALYTICS, *args], env=env, capture_output=True, text=True, timeout=180)
    if check and result.returncode != 0:
        raise AssertionError(f"analytics {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture
def home(product_home):
    yield product_home
    run(home, "db", "stop", check=False)


def test_embedded_lifecycle_keeps_data(home):
    if not os.path.exists(ANALYTICS):
        pytest.skip("the analytics console script is not installed in this environment")
    stopped = run(home, "db", "status", check=False)
    assert stopped.returncode == 1 and "stopped" in stopped.stdout

    assert "running" in run(home, "db", "start").stdout
    assert "applied 0001_" in run(home, "migrate").stdout
    assert "up to date" in run(home, "migrate").stdout
    assert "running (embedded" in run(home, "db", "status").stdout
    url = run(home, "db", "url").stdout.strip()
    assert url.startswith("postgresql://") and "/analytics" in url
    assert "analytics_reader" in run(home, "db", "url", "--reader").stdout

    run(home, "db", "psql", "-c", "insert into collect.annotations (site_id, on_date, text) "
                                  "select gen_random_uuid(), current_date, 'kept' where false")
    run(home, "db", "psql", "-c", "create table collect.kept_marker as select 42 as answer")
    assert "stopped" in run(home, "db", "stop").stdout
    assert run(home, "db", "status", check=False).returncode == 1

    run(home, "db", "start")
    out = run(home, "db", "psql", "-At", "-c", "select answer from collect.kept_marker").stdout
    assert out.strip() == "42"


def test_db_commands_refuse_a_configured_server(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANALYTICS_")}
    env.update(ANALYTICS_HOME=str(tmp_path), ANALYTICS_DATABASE_URL="postgresql://x@127.0.0.1:1/a")
    result = subprocess.run([ANALYTICS, "db", "start"], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "managed outside" in result.stderr
