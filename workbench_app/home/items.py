"""Dashboards and questions named by (kind, id), as the home page lists them: only those that
still exist and that the person may read (their folder's access), in the order given."""
from __future__ import annotations

from typing import Any, Iterable

import psycopg
from psycopg.rows import dict_row

from workbench_app.accounts.identity import Identity
from workbench_app.content import folders

KINDS = ("dashboard", "question")


def describe(conn: psycopg.Connection, identity: Identity,
             wanted: Iterable[tuple[str, int, Any]]) -> list[dict[str, Any]]:
    """`wanted`: (kind, id, when) triples; each readable one as {kind, id, name, description, when}."""
    wanted = list(wanted)
    ids = {kind: [item_id for k, item_id, _ in wanted if k == kind] for kind in KINDS}
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            """select 'dashboard' as kind, dashboard_id as id, name, description, folder_id
                 from dashboards where dashboard_id = any(%(dashboards)s)
               union all
               select 'question', question_id, name, description, folder_id
                 from questions where question_id = any(%(questions)s)""",
            {"dashboards": ids["dashboard"], "questions": ids["question"]}).fetchall()
    readable = {(row["kind"], row["id"]): row for row in folders.visible(conn, identity, rows)}
    found = []
    for kind, item_id, when in wanted:
        row = readable.get((kind, item_id))
        if row is not None:
            found.append({"kind": kind, "id": item_id, "name": row["name"], "description": row["description"],
                          "when": when})
    return found
