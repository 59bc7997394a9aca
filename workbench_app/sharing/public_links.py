"""Public links of dashboards: made by someone who may change the dashboard, while the
installation allows public sharing; each runs under its creator's rights (read fresh on every
call, so it is never wider than theirs), with only the filters chosen when it was made.

The link's secret is shown once; only its SHA-256 is kept. Creating and revoking are audited.
"""
from __future__ import annotations

import hashlib
import secrets
from typing import Any

import psycopg
from psycopg.rows import dict_row

from workbench_app.accounts import instance_settings
from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards
from workbench_app.errors import forbidden, invalid, not_found
from workbench_app.records import audit_log

_PUBLIC = "link_id, dashboard_id, allowed_filters, allow_pdf, created_by, created_at, revoked_at"


def secret_sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_link(conn: psycopg.Connection, actor: Identity, dashboard_id: int,
                allowed_filters: list[str], allow_pdf: bool = False) -> tuple[dict[str, Any], str]:
    """(link, secret): the secret goes into the address `/public/<secret>` and is never shown again."""
    if not instance_settings.sharing(conn)["public_sharing"]:
        raise forbidden("Public sharing is off for this installation: an administrator may turn it on in Settings.")
    dashboard = dashboards.get_dashboard(conn, actor, dashboard_id, "edit")
    names = {str(item["filter_id"]): item["name"] for item in dashboard["filters"]}
    known = set(names.values())
    chosen = []
    for name in allowed_filters:
        name = names.get(name, name)
        if name not in known:
            raise invalid(f"The dashboard has no filter {name}.", field="allowed_filters")
        if name not in chosen:
            chosen.append(name)
    secret = secrets.token_urlsafe(32)
    with conn.cursor(row_factory=dict_row) as cur:
        link = cur.execute(f"""insert into public_links (dashboard_id, secret_sha256, allowed_filters, allow_pdf,
                                                         created_by)
                               values (%s, %s, %s, %s, %s) returning {_PUBLIC}""",
                           (dashboard_id, secret_sha256(secret), chosen, allow_pdf, actor.user_id)).fetchone()
    audit_log.record(conn, actor.user_id, actor.actor, "share.public_link_created", f"dashboard:{dashboard_id}",
                     {"link_id": link["link_id"], "allowed_filters": chosen, "allow_pdf": allow_pdf})
    return link, secret


def list_links(conn: psycopg.Connection, actor: Identity, dashboard_id: int) -> list[dict[str, Any]]:
    """The dashboard's links, revoked ones included (people who may change the dashboard)."""
    dashboards.get_dashboard(conn, actor, dashboard_id, "edit")
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"select {_PUBLIC} from public_links where dashboard_id = %s order by link_id desc",
                           (dashboard_id,)).fetchall()


def revoke_link(conn: psycopg.Connection, actor: Identity, dashboard_id: int, link_id: int) -> None:
    """Revoked at once: the next call with its address is a 404."""
    dashboards.get_dashboard(conn, actor, dashboard_id, "edit")
    revoked = conn.execute("""update public_links set revoked_at = now(), revoked_by = %s
                              where link_id = %s and dashboard_id = %s and revoked_at is null returning 1""",
                           (actor.user_id, link_id, dashboard_id)).fetchone()
    if revoked is None:
        raise not_found("Link")
    audit_log.record(conn, actor.user_id, actor.actor, "share.public_link_revoked", f"dashboard:{dashboard_id}",
                     {"link_id": link_id})


def find_link(conn: psycopg.Connection, secret: str) -> dict[str, Any] | None:
    """The live link of this secret with its creator's account, or None (unknown, revoked, or public
    sharing turned off since)."""
    return _live_link(conn, "l.secret_sha256 = %s", secret_sha256(secret))


def newest_live_link(conn: psycopg.Connection, dashboard_id: int) -> dict[str, Any] | None:
    """The dashboard's newest live link (as `find_link` reads it): what outsiders may see of it."""
    return _live_link(conn, "l.dashboard_id = %s order by l.link_id desc limit 1", dashboard_id)


def _live_link(conn: psycopg.Connection, condition: str, value: Any) -> dict[str, Any] | None:
    if not instance_settings.sharing(conn)["public_sharing"]:
        return None
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            f"""select l.link_id, l.dashboard_id, l.allowed_filters, l.allow_pdf, u.user_id, u.email, u.is_admin, u.locale
                from public_links l join users u on u.user_id = l.created_by
                where l.revoked_at is null and u.is_active and {condition}""", (value,)).fetchone()
