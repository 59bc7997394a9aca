"""When a credential (a server key, an administration token) was last used.

Written at most once a minute per credential, and never waiting for a lock: a burst of requests
with one key would otherwise queue on its row, and the minute's precision is all the pages show.
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql


def record_use(conn: psycopg.Connection, table: str, id_column: str, credential_id: Any) -> None:
    """Set `last_used_at` of the row of `table` (schema.name) whose `id_column` is `credential_id`,
    unless it was set within the last minute or another request is setting it now."""
    conn.execute(sql.SQL(
        """update {table} set last_used_at = now()
            where {column} = (select {column} from {table}
                               where {column} = %s
                                 and (last_used_at is null or last_used_at < now() - interval '1 minute')
                               for update skip locked)""").format(
        table=sql.Identifier(*table.split(".")), column=sql.Identifier(id_column)), (credential_id,))
