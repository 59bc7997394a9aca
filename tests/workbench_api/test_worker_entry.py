"""The gunicorn entry point of the workbench."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_worker_keeps_its_loaded_objects_out_of_full_collections(tmp_path):
    # In a process of its own: freezing would otherwise keep this test session's garbage forever.
    env = {**os.environ, "ANALYTICS_HOME": str(tmp_path), "ANALYTICS_SECRET": "test-secret"}
    env.pop("ANALYTICS_DATABASE_URL", None)
    probe = "import gc, workbench_app.wsgi; print(gc.get_freeze_count(), len(gc.get_objects()))"
    output = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, check=True,
                            capture_output=True, text=True).stdout.split()
    frozen, still_tracked = int(output[0]), int(output[1])
    assert frozen > 50_000 and still_tracked < frozen / 10
    assert not (tmp_path / "pgdata").exists()  # importing the entry point touches no database
