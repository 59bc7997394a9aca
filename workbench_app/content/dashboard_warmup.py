"""The dashboard cache's warm-up after a build (called by the Dagster sensor in orchestration/).

A build makes stale the cached results that read what it rebuilt: they are dropped first
(`result_cache.invalidate_tables`). Then each dashboard marked `warm_up` runs its cards again,
as the people its cache serves: its owner with the filters' defaults, and every person who has
(or just had) an entry, with the filter values of that entry. Each run goes through the same
permission rewrite as a page load, so the entries written are exactly those the page will look
up. A fresh entry is reused rather than run again, and warm-up runs count neither as hits nor as
misses (the counters describe what people saw).
"""
from __future__ import annotations

import json
import logging
from typing import Any

from psycopg.rows import dict_row

from workbench_app.accounts import users
from workbench_app.content import dashboards, result_cache
from workbench_app.errors import WorkbenchError
from workbench_app.services import WorkbenchServices

log = logging.getLogger(__name__)


def warehouse_tables(services: WorkbenchServices, relations: list[str]) -> list[str]:
    """`schema.name` relations of the analytics database as the engine names them
    (`<warehouse source>.schema.name`), the form cache entries record."""
    with services.transaction() as conn:
        names = [row[0] for row in conn.execute("select name from sources where kind = 'warehouse'")]
    return sorted({f"{name}.{relation}" for name in names or ["warehouse"] for relation in relations})


def warm_up(services: WorkbenchServices, tables: list[str]) -> dict[str, Any]:
    """Drop the entries that read `tables` (catalog.schema.name), then fill the cache of the
    dashboards marked for warm-up. Returns counts: dropped, warmed (runs made or found fresh),
    failed (a card that failed or a person who may no longer see the dashboard)."""
    with services.transaction() as conn:
        dropped = result_cache.invalidate_tables(conn, tables)
        with conn.cursor(row_factory=dict_row) as cur:
            marked = cur.execute("select dashboard_id, created_by from dashboards where warm_up "
                                 "order by dashboard_id").fetchall()
            stored = cur.execute("select dashboard_id, card_id, user_id, filter_values from dashboard_result_cache "
                                 "where dashboard_id = any(%s)", ([d["dashboard_id"] for d in marked],)).fetchall()
    # (dashboard, person, card or None for every card, filter values): each run once.
    wanted: dict[tuple[int, int, int | None, str], dict[str, Any]] = {}
    marked_ids = {d["dashboard_id"] for d in marked}
    for dashboard in marked:
        if dashboard["created_by"] is not None:
            wanted[(dashboard["dashboard_id"], dashboard["created_by"], None, "{}")] = {}
    for entry in [*dropped, *stored]:
        if entry["dashboard_id"] in marked_ids and entry["user_id"] is not None:
            values = entry["filter_values"] or {}
            key = (entry["dashboard_id"], entry["user_id"], entry["card_id"], json.dumps(values, sort_keys=True))
            wanted[key] = values
    warmed = failed = 0
    for (dashboard_id, user_id, card_id, _), values in wanted.items():
        with services.transaction() as conn:
            identity = users.active_identity(conn, user_id)
            try:
                dashboard = dashboards.get_dashboard(conn, identity, dashboard_id) if identity else None
            except WorkbenchError:
                dashboard = None
        if dashboard is None:
            failed += 1
            continue
        cards = [c["card_id"] for c in dashboard["cards"] if c["kind"] == "question" and card_id in (None, c["card_id"])]
        for card in cards:
            try:
                dashboards.run_card(services, identity, dashboard_id, card, values, origin="api", counted=False)
                warmed += 1
            except WorkbenchError as error:
                # A required filter without a default, a source down: the page will say so itself.
                log.info("warm-up of dashboard %s card %s as user %s: %s", dashboard_id, card, user_id, error)
                failed += 1
    return {"dropped": len(dropped), "warmed": warmed, "failed": failed, "dashboards": sorted(marked_ids)}
