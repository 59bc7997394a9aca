"""What the Spark standalone master says of its cluster (its status page's `/json/`): read by
`analytics up` to know when its workers joined, and by Dagster's dbt runs on Spark to notice a
cluster left without workers."""
from __future__ import annotations

import requests

from pipelines.settings import Settings


def master_ui_url(settings: Settings) -> str:
    host = settings.spark_master.removeprefix("spark://").rsplit(":", 1)[0]
    return f"http://{host}:{settings.spark_master_ui_port}"


def alive_workers(settings: Settings) -> int:
    """How many workers the master counts as alive (0 when it does not answer)."""
    try:
        answer = requests.get(f"{master_ui_url(settings)}/json/", timeout=2)
        return int(answer.json().get("aliveworkers", 0)) if answer.status_code == 200 else 0
    except (requests.RequestException, ValueError):
        return 0
