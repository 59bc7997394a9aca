"""The one place that says which theme applies: a dashboard's own, else the nearest folder's up the
chain (a subfolder's own theme wins over its parent's), else the defaults. Questions take their
folder's; shared links, embeds and PDF prints take their dashboard's. Rights are the caller's
business: this function only resolves.
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from workbench_app.themes import settings as theme_settings


def effective_theme(conn: psycopg.Connection, *, folder_id: int | None = None,
                    dashboard_id: int | None = None) -> dict[str, Any]:
    """The whole theme that applies to a dashboard (or to what a folder holds), and where it comes from."""
    with conn.cursor(row_factory=dict_row) as cur:
        if dashboard_id is not None:
            row = cur.execute("select folder_id, theme_id from dashboards where dashboard_id = %s",
                              (dashboard_id,)).fetchone()
            if row is None:
                return _default()
            if row["theme_id"] is not None:
                return _theme(cur, row["theme_id"], "dashboard", dashboard_id)
            folder_id = row["folder_id"]
        if folder_id is None:
            return _default()
        found = cur.execute(
            """with recursive chain as (
                   select folder_id, parent_id, theme_id, 0 as depth from folders where folder_id = %s
                   union all
                   select f.folder_id, f.parent_id, f.theme_id, c.depth + 1
                   from folders f join chain c on f.folder_id = c.parent_id where c.depth < 100)
               select folder_id, theme_id from chain where theme_id is not null order by depth limit 1""",
            (folder_id,)).fetchone()
    if found is None:
        return _default()
    with conn.cursor(row_factory=dict_row) as cur:
        return _theme(cur, found["theme_id"], "folder", found["folder_id"])


def _theme(cur, theme_id: int, kind: str, owner_id: int) -> dict[str, Any]:
    row = cur.execute("select theme_id, name, settings, logo_type is not null as has_logo from themes "
                      "where theme_id = %s", (theme_id,)).fetchone()
    return {"theme_id": row["theme_id"], "name": row["name"], "has_logo": row["has_logo"],
            "source": {"kind": kind, "id": owner_id}, "settings": theme_settings.complete(row["settings"])}


def _default() -> dict[str, Any]:
    return {"theme_id": None, "name": None, "has_logo": False, "source": {"kind": "default", "id": None},
            "settings": theme_settings.complete({})}
