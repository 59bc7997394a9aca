"""Faults while writing the lake: a write that fails (a full disk) keeps the old file and fails the
asset with the reason; two exports of one day at once leave one whole file."""
from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
import textwrap
from datetime import timedelta

import duckdb
import psycopg

from pipelines.lake.export import LakeWriter
from tests.pipeline.conftest import NOW, insert_event


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_write_that_fails_keeps_the_old_files_and_fails_the_asset(built, tmp_path):
    settings = built["settings"]
    with LakeWriter(settings).open() as writer:
        writer.refresh_views(full=True)
    files = sorted((settings.lake_path / "analytics").rglob("*.parquet"))
    before = {path: digest(path) for path in files}
    # The asset in a process whose files may not grow past 512 bytes: as a full disk, every write fails.
    script = textwrap.dedent(f"""
        import resource, signal, sys
        from dagster import materialize
        from orchestration.defs.lake.assets import FULL_REFRESH, FULL_REFRESH_TAG, lake_analytics_views
        from orchestration.defs.resources import build_resources
        from pipelines.settings import Settings
        from pathlib import Path
        settings = Settings(home=Path({str(settings.home)!r}), database_url={settings.database_url!r},
                            server_secret_value="x", lake_dir=Path({str(settings.lake_path)!r}))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))
        result = materialize([lake_analytics_views], resources=build_resources(settings), raise_on_error=False,
                             tags={{FULL_REFRESH_TAG: FULL_REFRESH}})
        failure = result.get_step_failure_events()[0].event_specific_data.error.message
        print("FAILED:" + failure if not result.success else "SUCCEEDED")
    """)
    outcome = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert "FAILED:" in outcome.stdout, outcome.stdout[-2000:] + outcome.stderr[-2000:]
    reason = outcome.stdout.split("FAILED:", 1)[1].lower()
    assert "file too large" in reason or "could not write" in reason or "error" in reason
    assert {path: digest(path) for path in files} == before
    assert not [p for p in (settings.lake_path / ".staging").rglob("*") if p.is_file()]
    with psycopg.connect(built["url"]) as db:
        assert db.execute("select count(*) from analytics.visits").fetchone()[0] == 5


def test_two_exports_of_one_day_at_once_leave_one_whole_file(built):
    settings = built["settings"]
    day = (NOW - timedelta(days=3)).date()
    with psycopg.connect(built["url"], autocommit=True) as db:
        for n in range(2000):
            insert_event(db, built["site_id"], NOW - timedelta(days=3, seconds=n), visitor=f"many-{n:022d}")
        expected = db.execute("select count(*) from raw.events where (occurred_at at time zone 'UTC')::date = %s",
                              (day,)).fetchone()[0]
    errors = []

    def export():
        try:
            with LakeWriter(settings).open() as writer:
                writer.export_raw_day(day)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=export) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    files = list((settings.lake_path / "raw" / "events").rglob("*.parquet"))
    assert len(files) == 1
    assert duckdb.connect().execute(f"select count(*) from read_parquet('{files[0]}')").fetchone()[0] == expected
