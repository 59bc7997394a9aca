"""Folders: one personal folder per user, and shared folders opened to groups (view or edit).

Access to a folder is the best of: owning the personal tree it belongs to, being an
administrator, or a group grant on the folder or any folder above it. Everything saved in a
folder (questions, models, dashboards) has the folder's access.
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from workbench_app.accounts.identity import Identity
from workbench_app.errors import forbidden, invalid, not_found
from workbench_app.records import audit_log

LEVELS = ("view", "edit")
_RANK = {None: 0, "view": 1, "edit": 2}


def access_level(conn: psycopg.Connection, identity: Identity, folder_id: int) -> str | None:
    """'edit', 'view' or None for this person on this folder."""
    row = conn.execute(
        """with recursive chain as (
               select folder_id, parent_id, owner_id from folders where folder_id = %(folder)s
               union all
               select f.folder_id, f.parent_id, f.owner_id from folders f join chain c on f.folder_id = c.parent_id)
           select (select owner_id from chain where parent_id is null),
                  (select max(case a.level when 'edit' then 2 else 1 end)
                     from folder_access a join group_members m on m.group_id = a.group_id
                    where a.folder_id in (select folder_id from chain) and m.user_id = %(user)s),
                  exists (select 1 from chain)""",
        {"folder": folder_id, "user": identity.user_id},
    ).fetchone()
    owner, granted, exists = row
    if not exists:
        return None
    if identity.is_admin or (owner is not None and owner == identity.user_id):
        return "edit"
    return {2: "edit", 1: "view"}.get(granted)


def visible(conn: psycopg.Connection, identity: Identity, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows (each with a `folder_id`) this person may see; each folder is checked once."""
    levels: dict[int, str | None] = {}
    for row in rows:
        if row["folder_id"] not in levels:
            levels[row["folder_id"]] = access_level(conn, identity, row["folder_id"])
    return [row for row in rows if levels[row["folder_id"]] is not None]


def root_owner(conn: psycopg.Connection, folder_id: int) -> int | None:
    """The owner of the personal tree the folder belongs to, or None for a shared folder."""
    return conn.execute(
        """with recursive chain as (
               select folder_id, parent_id, owner_id from folders where folder_id = %s
               union all
               select f.folder_id, f.parent_id, f.owner_id from folders f join chain c on f.folder_id = c.parent_id)
           select owner_id from chain where parent_id is null""", (folder_id,)).fetchone()[0]


def require(conn: psycopg.Connection, identity: Identity, folder_id: int, level: str, what: str = "Folder") -> None:
    """404 when the person cannot see the folder, 403 when they see it but may not edit."""
    have = access_level(conn, identity, folder_id)
    if have is None:
        raise not_found(what)
    if _RANK[have] < _RANK[level]:
        raise forbidden(f"You may view but not change this {what.lower()}.")


def filed_item(conn: psycopg.Connection, identity: Identity, table: str, key: str, columns: str, item_id: int,
               level: str, what: str) -> dict[str, Any]:
    """The row `key = item_id` of a table of filed content (questions, dashboards, models, segments),
    when the caller has `level` on its folder: "<what> not found" otherwise, as for a missing one."""
    with conn.cursor(row_factory=dict_row) as cur:
        item = cur.execute(f"select {columns} from {table} where {key} = %s", (item_id,)).fetchone()
    if item is None:
        raise not_found(what)
    require(conn, identity, item["folder_id"], level, what)
    return item


def personal_folder(conn: psycopg.Connection, identity: Identity) -> int:
    """The person's personal folder, created on first use."""
    found = conn.execute("select folder_id from folders where owner_id = %s and parent_id is null",
                         (identity.user_id,)).fetchone()
    if found:
        return found[0]
    return conn.execute(
        """insert into folders (name, owner_id, created_by) values (%s, %s, %s)
           on conflict (owner_id) where parent_id is null and owner_id is not null
           do update set name = folders.name returning folder_id""",
        (f"{identity.email}'s folder", identity.user_id, identity.user_id),
    ).fetchone()[0]


def _describe(conn: psycopg.Connection, identity: Identity, folder: dict[str, Any]) -> dict[str, Any]:
    folder["access"] = access_level(conn, identity, folder["folder_id"])
    folder.pop("owner_id")
    owner = root_owner(conn, folder["folder_id"])
    folder["personal"] = owner is not None
    folder["mine"] = owner == identity.user_id
    folder["groups"] = [{"group_id": g, "level": lvl} for g, lvl in conn.execute(
        "select group_id, level from folder_access where folder_id = %s order by group_id", (folder["folder_id"],))]
    return folder


def list_folders(conn: psycopg.Connection, identity: Identity) -> list[dict[str, Any]]:
    personal_folder(conn, identity)
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute("select folder_id, name, parent_id, owner_id, created_at from folders order by folder_id").fetchall()
    return [_describe(conn, identity, row) for row in visible(conn, identity, rows)]


def get_folder(conn: psycopg.Connection, identity: Identity, folder_id: int) -> dict[str, Any]:
    require(conn, identity, folder_id, "view")
    with conn.cursor(row_factory=dict_row) as cur:
        folder = cur.execute("select folder_id, name, parent_id, owner_id, created_at from folders where folder_id = %s",
                             (folder_id,)).fetchone()
    return _describe(conn, identity, folder)


def create_folder(conn: psycopg.Connection, identity: Identity, name: str, parent_id: int | None) -> dict[str, Any]:
    """A subfolder (edit right on the parent) or, for administrators, a new shared top folder."""
    if parent_id is None:
        if not identity.is_admin:
            raise forbidden("Only administrators create shared top-level folders; create a subfolder instead.")
    else:
        require(conn, identity, parent_id, "edit")
    folder_id = conn.execute("insert into folders (name, parent_id, created_by) values (%s, %s, %s) returning folder_id",
                             (name, parent_id, identity.user_id)).fetchone()[0]
    return get_folder(conn, identity, folder_id)


def rename_folder(conn: psycopg.Connection, identity: Identity, folder_id: int, name: str) -> dict[str, Any]:
    require(conn, identity, folder_id, "edit")
    conn.execute("update folders set name = %s where folder_id = %s", (name, folder_id))
    return get_folder(conn, identity, folder_id)


def delete_folder(conn: psycopg.Connection, identity: Identity, folder_id: int) -> None:
    require(conn, identity, folder_id, "edit")
    if conn.execute("select 1 from folders where folder_id = %s and owner_id is not null and parent_id is null",
                    (folder_id,)).fetchone():
        raise invalid("A personal folder cannot be deleted.")
    conn.execute("delete from folders where folder_id = %s", (folder_id,))


def share_folder(conn: psycopg.Connection, identity: Identity, folder_id: int, group_id: int,
                 level: str | None) -> dict[str, Any]:
    """Give a group view or edit access (None removes it). Administrators only; audited."""
    if not identity.is_admin:
        raise forbidden("Only administrators share folders with groups.")
    require(conn, identity, folder_id, "edit")
    if root_owner(conn, folder_id) is not None:
        raise invalid("Personal folders are not shared; move the content to a shared folder.")
    if not conn.execute("select 1 from groups where group_id = %s", (group_id,)).fetchone():
        raise not_found("Group")
    if level is None:
        conn.execute("delete from folder_access where folder_id = %s and group_id = %s", (folder_id, group_id))
    else:
        conn.execute("""insert into folder_access (folder_id, group_id, level) values (%s, %s, %s)
                        on conflict (folder_id, group_id) do update set level = excluded.level""",
                     (folder_id, group_id, level))
    audit_log.record(conn, identity.user_id, identity.actor, "share.folder", str(folder_id),
                     {"group_id": group_id, "level": level})
    return get_folder(conn, identity, folder_id)
