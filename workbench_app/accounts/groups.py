"""Groups and their members. Rights are given to groups, never to single users."""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from workbench_app.accounts import users
from workbench_app.accounts.identity import Identity
from workbench_app.errors import conflict, not_found
from workbench_app.records import audit_log


def create_group(conn: psycopg.Connection, actor: Identity, name: str, description: str = "") -> dict[str, Any]:
    if conn.execute("select 1 from groups where lower(name) = lower(%s)", (name,)).fetchone():
        raise conflict("A group with this name exists already.", field="name")
    with conn.cursor(row_factory=dict_row) as cur:
        group = cur.execute(
            "insert into groups (name, description) values (%s, %s) returning group_id, name, description, created_at",
            (name, description),
        ).fetchone()
    audit_log.record(conn, actor.user_id, actor.actor, "permissions.group_created", str(group["group_id"]),
                     {"name": name})
    group["members"] = []
    return group


def get_group(conn: psycopg.Connection, group_id: int) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        group = cur.execute("select group_id, name, description, created_at from groups where group_id = %s",
                            (group_id,)).fetchone()
    if group is None:
        raise not_found("Group")
    group["members"] = [row[0] for row in conn.execute(
        "select user_id from group_members where group_id = %s order by user_id", (group_id,))]
    return group


def list_groups(conn: psycopg.Connection) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        groups = cur.execute("select group_id, name, description, created_at from groups order by group_id").fetchall()
    members: dict[int, list[int]] = {}
    for group_id, user_id in conn.execute("select group_id, user_id from group_members order by user_id"):
        members.setdefault(group_id, []).append(user_id)
    for group in groups:
        group["members"] = members.get(group["group_id"], [])
    return groups


def delete_group(conn: psycopg.Connection, actor: Identity, group_id: int) -> None:
    group = get_group(conn, group_id)
    conn.execute("delete from groups where group_id = %s", (group_id,))
    audit_log.record(conn, actor.user_id, actor.actor, "permissions.group_deleted", str(group_id),
                     {"name": group["name"]})


def add_member(conn: psycopg.Connection, actor: Identity, group_id: int, user_id: int) -> dict[str, Any]:
    get_group(conn, group_id)
    users.refuse_embedding_account(conn, user_id)  # 404 for no account
    added = conn.execute("insert into group_members (group_id, user_id) values (%s, %s) on conflict do nothing "
                         "returning 1", (group_id, user_id)).fetchone()
    if added:
        audit_log.record(conn, actor.user_id, actor.actor, "permissions.member_added", str(group_id),
                         {"user_id": user_id})
    return get_group(conn, group_id)


def remove_member(conn: psycopg.Connection, actor: Identity, group_id: int, user_id: int) -> dict[str, Any]:
    get_group(conn, group_id)
    users.refuse_embedding_account(conn, user_id)
    removed = conn.execute("delete from group_members where group_id = %s and user_id = %s returning 1",
                           (group_id, user_id)).fetchone()
    if not removed:
        raise not_found("Membership")
    audit_log.record(conn, actor.user_id, actor.actor, "permissions.member_removed", str(group_id),
                     {"user_id": user_id})
    return get_group(conn, group_id)
