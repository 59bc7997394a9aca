"""Themes as stored: created, changed and deleted by administrators (a theme is the installation's
brand), read by every signed-in person, assigned to a folder or a dashboard by whoever may edit it.
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, folders
from workbench_app.errors import forbidden, not_found
from workbench_app.records import audit_log
from workbench_app.themes import settings as theme_settings

_THEME = "theme_id, name, settings, logo_type is not null as has_logo, created_at, updated_at"


def describe(row: dict[str, Any]) -> dict[str, Any]:
    """A theme as the API shows it: its own settings, and the whole theme they make over the defaults."""
    return {**row, "resolved": theme_settings.complete(row["settings"])}


def _require_admin(identity: Identity) -> None:
    if not identity.is_admin:
        raise forbidden("Only administrators create, change or delete themes.")


def list_themes(conn: psycopg.Connection) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        return [describe(row) for row in cur.execute(f"select {_THEME} from themes order by name, theme_id")]


def get_theme(conn: psycopg.Connection, theme_id: int) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"select {_THEME} from themes where theme_id = %s", (theme_id,)).fetchone()
    if row is None:
        raise not_found("Theme")
    return describe(row)


def create_theme(conn: psycopg.Connection, identity: Identity, name: str, settings: Any) -> dict[str, Any]:
    _require_admin(identity)
    theme_id = conn.execute("insert into themes (name, settings, created_by) values (%s, %s, %s) returning theme_id",
                            (name, Jsonb(theme_settings.checked(settings)), identity.user_id)).fetchone()[0]
    audit_log.record(conn, identity.user_id, identity.actor, "theme.create", str(theme_id), {"name": name})
    return get_theme(conn, theme_id)


def update_theme(conn: psycopg.Connection, identity: Identity, theme_id: int, name: str | None,
                 settings: Any) -> dict[str, Any]:
    """Change the name and/or replace the settings whole (None: unchanged)."""
    _require_admin(identity)
    current = get_theme(conn, theme_id)
    checked = theme_settings.checked(settings) if settings is not None else current["settings"]
    conn.execute("update themes set name = %s, settings = %s, updated_at = now() where theme_id = %s",
                 (name or current["name"], Jsonb(checked), theme_id))
    audit_log.record(conn, identity.user_id, identity.actor, "theme.update", str(theme_id), {})
    return get_theme(conn, theme_id)


def delete_theme(conn: psycopg.Connection, identity: Identity, theme_id: int) -> None:
    """Its folders and dashboards go back to inheriting (on delete set null)."""
    _require_admin(identity)
    get_theme(conn, theme_id)
    conn.execute("delete from themes where theme_id = %s", (theme_id,))
    audit_log.record(conn, identity.user_id, identity.actor, "theme.delete", str(theme_id), {})


def set_logo(conn: psycopg.Connection, identity: Identity, theme_id: int, logo: bytes | None,
             logo_type: str | None) -> dict[str, Any]:
    _require_admin(identity)
    get_theme(conn, theme_id)
    conn.execute("update themes set logo = %s, logo_type = %s, updated_at = now() where theme_id = %s",
                 (logo, logo_type, theme_id))
    return get_theme(conn, theme_id)


def get_logo(conn: psycopg.Connection, theme_id: int) -> tuple[bytes, str]:
    row = conn.execute("select logo, logo_type from themes where theme_id = %s", (theme_id,)).fetchone()
    if row is None or row[0] is None:
        raise not_found("Logo")
    return bytes(row[0]), row[1]


def _assignable(conn: psycopg.Connection, theme_id: int | None) -> None:
    if theme_id is not None:
        get_theme(conn, theme_id)


def assign_to_folder(conn: psycopg.Connection, identity: Identity, folder_id: int, theme_id: int | None) -> None:
    """The folder's own theme (None: as the folder above). Needs the edit right on the folder."""
    folders.require(conn, identity, folder_id, "edit")
    _assignable(conn, theme_id)
    conn.execute("update folders set theme_id = %s where folder_id = %s", (theme_id, folder_id))


def assign_to_dashboard(conn: psycopg.Connection, identity: Identity, dashboard_id: int,
                        theme_id: int | None) -> None:
    """The dashboard's own theme (None: its folder's). Needs the edit right on the dashboard."""
    dashboards.get_dashboard(conn, identity, dashboard_id, "edit")
    _assignable(conn, theme_id)
    conn.execute("update dashboards set theme_id = %s where dashboard_id = %s", (theme_id, dashboard_id))
