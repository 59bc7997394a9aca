"""The first-run setup link, shared by the workbench and the collector's administration pages: who
may create the first administrator of a fresh installation.

`analytics up` issues a random token while an app has no administrator and prints it in a link;
the database keeps only its SHA-256 and an expiry (24 hours, renewed by each `analytics up` that
finds no administrator, which also makes the previous link useless). Creating the first
administrator happens after `state(..., lock=True)` said OPEN and ends with `spend`, in one
transaction: the row lock makes a second, concurrent attempt wait, then find the link gone and
the administrator there (DONE), so two attempts never make two administrators. Once an
administrator exists the setup is over for good, whatever the token.

Each app keeps its link in a table of its own database with this shape:

    create table <name> (
        singleton  boolean primary key default true check (singleton),
        token_hash bytea not null,
        expires_at timestamptz not null,
        created_at timestamptz not null default now()
    );
"""
from __future__ import annotations

import datetime as dt
import enum
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

VALID_FOR = dt.timedelta(hours=24)
TOKEN_BYTES = 32


class SetupState(enum.Enum):
    OPEN = "open"        # the token is the current, unexpired one and no administrator exists
    INVALID = "invalid"  # wrong, forged, replaced, expired or missing token
    DONE = "done"        # an administrator exists: the setup is over


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _identifier(name: str) -> sql.Identifier:
    # "schema.table" names a table outside the search path (the collector's live in `collect`).
    return sql.Identifier(*name.split("."))


@dataclass(frozen=True)
class SetupLinks:
    """The setup link of one app: its table, and where that app's administrators are."""

    table: str
    users_table: str
    administrator_flag: str

    def administrator_exists(self, conn: psycopg.Connection) -> bool:
        return conn.execute(sql.SQL("select exists (select 1 from {users} where {flag})").format(
            users=_identifier(self.users_table), flag=sql.Identifier(self.administrator_flag))).fetchone()[0]

    def issue(self, conn: psycopg.Connection, valid_for: dt.timedelta = VALID_FOR) -> str | None:
        """A new token while no administrator exists (replacing any earlier one); None otherwise."""
        if self.administrator_exists(conn):
            self.spend(conn)
            return None
        token = secrets.token_urlsafe(TOKEN_BYTES)
        conn.execute(sql.SQL(
            """insert into {table} (token_hash, expires_at) values (%s, now() + %s)
               on conflict (singleton) do update set token_hash = excluded.token_hash,
                                                     expires_at = excluded.expires_at, created_at = now()"""
        ).format(table=_identifier(self.table)), (_digest(token), valid_for))
        return token

    def state(self, conn: psycopg.Connection, token: Any, lock: bool = False) -> SetupState:
        """Whether `token` opens the setup now. With `lock`, the link's row stays locked until the
        transaction ends: take it before creating the administrator."""
        row = conn.execute(sql.SQL("select token_hash, expires_at > now() from {table}" + (
            " for update" if lock else "")).format(table=_identifier(self.table))).fetchone()
        # Read after the lock: a concurrent setup that just committed has its administrator visible.
        if self.administrator_exists(conn):
            return SetupState.DONE
        if (row is None or not isinstance(token, str) or not token
                or not hmac.compare_digest(row[0], _digest(token)) or not row[1]):
            return SetupState.INVALID
        return SetupState.OPEN

    def spend(self, conn: psycopg.Connection) -> None:
        """Delete the link: done in the transaction that creates the first administrator."""
        conn.execute(sql.SQL("delete from {table}").format(table=_identifier(self.table)))
