"""The health report that /healthz of every web component answers with."""
from __future__ import annotations

from pipelines.database.connection import DatabaseUnavailable, database_status, server_url
from pipelines.settings import Settings


def health_report(settings: Settings, component: str) -> tuple[int, dict]:
    """(HTTP status, body): 200 when the database answers, 503 when it does not."""
    try:
        database = database_status(server_url(settings))
    except DatabaseUnavailable as exc:
        database = {"status": "unavailable", "error": str(exc)}
    healthy = database["status"] == "ok"
    return (200 if healthy else 503), {
        "status": "ok" if healthy else "unavailable",
        "component": component,
        "database": database,
    }
