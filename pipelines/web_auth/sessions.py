"""Server-side browser sessions: the cookie holds a random secret, the table only its SHA-256.

Each app keeps its sessions in a table of its own database with this shape:

    create table <name> (
        session_id   bigint generated always as identity primary key,
        user_id      bigint not null references <users> on delete cascade,
        secret_hash  bytea not null unique,
        csrf_token   text not null,
        created_at   timestamptz not null default now(),
        last_seen_at timestamptz not null default now()
    );

A session ends after `idle` without a request or `absolute` after sign-in, whichever comes
first. Each has a CSRF token that the page sends back in a header or a form field on every
state-changing request; a request authenticated by the cookie without it changes nothing.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from dataclasses import dataclass

import psycopg
from psycopg import sql

# A request refreshes `last_seen_at` at most this often: one write a minute, not one per request.
TOUCH_EVERY = dt.timedelta(seconds=60)


@dataclass(frozen=True)
class WebSession:
    session_id: int
    user_id: int
    csrf_token: str
    created_at: dt.datetime
    last_seen_at: dt.datetime


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def csrf_matches(session: WebSession, supplied: str | None) -> bool:
    """Whether the token a request carries is its session's (compared in constant time)."""
    return bool(supplied) and hmac.compare_digest(session.csrf_token.encode(), supplied.encode())


@dataclass(frozen=True)
class SessionStore:
    table: str
    idle: dt.timedelta = dt.timedelta(hours=8)
    absolute: dt.timedelta = dt.timedelta(days=7)

    def _sql(self, statement: str) -> sql.Composed:
        # "schema.table" names a table outside the search path (the collector's live in `collect`).
        return sql.SQL(statement).format(table=sql.Identifier(*self.table.split(".")))

    def open(self, conn: psycopg.Connection, user_id: int) -> tuple[str, WebSession]:
        """A new session for `user_id`: the cookie's secret (returned once) and the session."""
        secret = secrets.token_urlsafe(32)
        row = conn.execute(self._sql(
            "insert into {table} (user_id, secret_hash, csrf_token) values (%s, %s, %s) "
            "returning session_id, user_id, csrf_token, created_at, last_seen_at"),
            (user_id, _digest(secret), secrets.token_urlsafe(32))).fetchone()
        return secret, WebSession(*row)

    def find(self, conn: psycopg.Connection, secret: str | None) -> WebSession | None:
        """The live session of a cookie's secret; an expired one is deleted and gives None."""
        if not secret or len(secret) > 200:
            return None
        row = conn.execute(self._sql(
            "select session_id, user_id, csrf_token, created_at, last_seen_at, now() from {table} "
            "where secret_hash = %s"), (_digest(secret),)).fetchone()
        if row is None:
            return None
        session, now = WebSession(*row[:5]), row[5]
        if now - session.last_seen_at > self.idle or now - session.created_at > self.absolute:
            conn.execute(self._sql("delete from {table} where session_id = %s"), (session.session_id,))
            return None
        if now - session.last_seen_at > TOUCH_EVERY:
            conn.execute(self._sql("update {table} set last_seen_at = %s where session_id = %s"),
                         (now, session.session_id))
        return session

    def close(self, conn: psycopg.Connection, secret: str | None) -> None:
        if secret:
            conn.execute(self._sql("delete from {table} where secret_hash = %s"), (_digest(secret),))

    def close_all(self, conn: psycopg.Connection, user_id: int) -> int:
        """End every session of a person (deactivation, password change); how many were open."""
        return conn.execute(self._sql("delete from {table} where user_id = %s"), (user_id,)).rowcount

    def purge_expired(self, conn: psycopg.Connection) -> int:
        return conn.execute(self._sql(
            "delete from {table} where last_seen_at < now() - %s or created_at < now() - %s"),
            (self.idle, self.absolute)).rowcount
