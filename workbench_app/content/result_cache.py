"""Dashboard card results cached by the statement after the permission rewrite.

The key is the SHA-256 of the rewritten SQL (row filters and masks already in it, the person's
attributes bound), its parameters and the row limit, so a cached answer is only ever the one the
same statement would produce for anyone with the same effective rights. Entries live in the
workbench database for the dashboard's `cache_ttl_seconds` (0: no cache); a build of the views
drops the entries that read what it rebuilt (`invalidate_tables`), and the warm-up runs them again.
Hits and misses are counted per dashboard for administrators.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from workbench_app.accounts.identity import Identity
from workbench_app.engine import EngineError
from workbench_app.services import WorkbenchServices
from workbench_app.statements.query_runner import open_session


# A bound variable's parameter is `$wbv_<nonce>_<name>` (engine/variables.py), its nonce keyed per
# worker process: left in, the same card with the same values would have another key in each worker.
_PARAMETER_NONCE = re.compile(r"^wbv_[0-9a-f]{8}_")


def _without_nonces(material: str, parameters: Mapping[str, Any]) -> str:
    """The key's material with the nonces of this statement's own parameters taken out (only those:
    the same letters written in the statement's text by hand stay, and a nonce is unguessable)."""
    for nonce in {found.group() for name in parameters if (found := _PARAMETER_NONCE.match(name))}:
        material = material.replace(nonce, "wbv_")
    return material


def statement_key(conn: psycopg.Connection, services: WorkbenchServices, identity: Identity, sql: str,
                  variable_types: Mapping[str, str], variables: Mapping[str, Any], row_limit: int | None
                  ) -> tuple[str, list[str]] | None:
    """(key, tables read) of the statement as it would run for `identity`; None when it is refused
    (the run that follows reports the refusal and records it)."""
    session = open_session(services, identity, conn)
    try:
        rewritten = session.engine.rewrite(sql, session.user, variables=variables, variable_types=variable_types,
                                           row_limit=row_limit)
    except EngineError:
        return None
    material = _without_nonces(json.dumps([rewritten.sql, rewritten.parameters, row_limit], sort_keys=True,
                                          default=str), rewritten.parameters)
    tables = sorted({".".join(table.key) for table in rewritten.tables})
    return hashlib.sha256(material.encode()).hexdigest(), tables


def _without_flush(conn: psycopg.Connection) -> None:
    """Counts and cached results are disposable: their commit need not wait for the disk (at worst a
    crash loses the last few counts or entries), and a card's answer does not wait for it either."""
    conn.execute("set local synchronous_commit = off")


def _count(conn: psycopg.Connection, dashboard_id: int, column: str) -> None:
    conn.execute(f"""insert into dashboard_cache_counts (dashboard_id, {column}) values (%s, 1)
                     on conflict (dashboard_id) do update set {column} = dashboard_cache_counts.{column} + 1""",
                 (dashboard_id,))


@dataclass(frozen=True)
class Lookup:
    """What the cache holds for one card run: the fresh result (a hit), or where to store one."""

    dashboard_id: int
    ttl: int
    key: str | None = None  # None: not cached (no TTL, or the statement is refused)
    tables: tuple[str, ...] = ()
    hit: dict[str, Any] | None = None


def lookup(conn: psycopg.Connection, services: WorkbenchServices, identity: Identity, dashboard: Mapping[str, Any],
           statement: tuple[str, Mapping[str, str], Mapping[str, Any]], row_limit: int | None,
           counted: bool = True) -> Lookup:
    """The card's cached result when fresh, in the caller's transaction (the one that read the
    dashboard: a cached card costs one round of the metadata database), counted as a hit or a miss
    (`counted=False`: neither, for the warm-up)."""
    ttl = dashboard.get("cache_ttl_seconds") or 0
    sql, types, values = statement
    found = statement_key(conn, services, identity, sql, types, values, row_limit) if ttl > 0 else None
    if found is None:
        return Lookup(dashboard["dashboard_id"], ttl)
    key, tables = found
    row = conn.execute("""select result, created_at from dashboard_result_cache
                          where dashboard_id = %s and cache_key = %s and expires_at > now()""",
                       (dashboard["dashboard_id"], key)).fetchone()
    if counted:
        _without_flush(conn)
        _count(conn, dashboard["dashboard_id"], "hits" if row else "misses")
    hit = {**row[0], "cached": True, "cached_at": row[1].isoformat()} if row else None
    return Lookup(dashboard["dashboard_id"], ttl, key, tuple(tables), hit)


def store(services: WorkbenchServices, found: Lookup, identity: Identity, card_id: int,
          filter_values: Mapping[str, Any], result: dict[str, Any]) -> None:
    """Keep a card's fresh `result` for the dashboard's TTL (nothing when `found` says not cached)."""
    if found.key is None:
        return
    with services.transaction() as conn:
        _without_flush(conn)
        conn.execute(
            """insert into dashboard_result_cache (cache_key, dashboard_id, card_id, user_id, filter_values, tables,
                                                   result, expires_at)
               values (%s, %s, %s, %s, %s, %s, %s, now() + make_interval(secs => %s))
               on conflict (dashboard_id, cache_key) do update set result = excluded.result,
                   created_at = now(), expires_at = excluded.expires_at, user_id = excluded.user_id,
                   card_id = excluded.card_id, filter_values = excluded.filter_values""",
            (found.key, found.dashboard_id, card_id, identity.user_id, Jsonb(dict(filter_values)),
             list(found.tables), Jsonb(result), found.ttl))


def invalidate_tables(conn: psycopg.Connection, tables: list[str]) -> list[dict[str, Any]]:
    """Drop the entries that read any of `tables` (catalog.schema.name); returns what they were, for
    the warm-up to run again."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute("""delete from dashboard_result_cache where tables && %s::text[]
                              returning dashboard_id, card_id, user_id, filter_values""", (tables,)).fetchall()


def cache_counts(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Per dashboard: hits, misses, the hit ratio and the fresh entries held (for administrators)."""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute("""
            select d.dashboard_id, d.name, d.cache_ttl_seconds, d.warm_up,
                   coalesce(c.hits, 0) as hits, coalesce(c.misses, 0) as misses,
                   (select count(*) from dashboard_result_cache r
                    where r.dashboard_id = d.dashboard_id and r.expires_at > now()) as entries
            from dashboards d left join dashboard_cache_counts c using (dashboard_id)
            order by d.dashboard_id""").fetchall()
    for row in rows:
        total = row["hits"] + row["misses"]
        row["hit_ratio"] = round(row["hits"] / total, 4) if total else None
    return rows
