"""What a collection request does, without HTTP: authenticate, limit, validate, derive, write.

One `Ingestion` per collector app and process. It reaches the database through a connection pool
for the small reads of a request (key, idempotency key, rate limit, salt) and through the
process's `BatchWriter` for the events. When the database is down it still accepts events of
keys it has seen authenticated before (nothing can revoke a key while the database is down), and
the writer spools them.
"""
from __future__ import annotations

import hashlib
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Iterator

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from pipelines.admin.privacy_requests import create_request, subject_key
from pipelines.admin.server_keys import ServerKeyIdentity, authenticate_and_count, authenticate_server_key
from pipelines.database.connection import DatabaseUnavailable
from pipelines.ingest import rate_limits
from pipelines.ingest.browser import AddressRateLimit, SiteConfig, SiteConfigs, load_site_config
from pipelines.ingest.events import EventRefused, browser_event_times, check_browser_event, check_server_event
from pipelines.ingest.rows import event_row
from pipelines.ingest.visitors import DailySalts, SaltUnavailable, utc_day
from pipelines.ingest.writer import IdempotencyRecord, KeyCheck, writer_for


class DatabaseDown(RuntimeError):
    """The database is needed for this step and does not answer."""


class CacheMiss(RuntimeError):
    """Raised instead of a database read when the caller may not block (an event loop): the
    caller runs the step again in a thread, where the read may wait."""


@dataclass(frozen=True)
class ServerRequest:
    """The outcome of the checks that precede validation of a server request."""

    identity: ServerKeyIdentity
    stored: tuple[str, dict] | None = None  # (request hash, response) of an idempotency key seen before
    retry_after: float | None = None  # set when the rate limit refuses the request
    key_check: KeyCheck | None = None  # the key's check and count, left to the writer (cached_server_request)


class Ingestion:
    POOL_WAIT_SECONDS = 1.0
    # After a failure, requests skip the database for this long instead of each waiting on it.
    DOWN_PAUSE_SECONDS = 1.0

    def __init__(self, settings, pool: Callable[[], ConnectionPool], url: Callable[[], str]):
        self.settings = settings
        self._pool = pool
        self.writer = writer_for(settings, url)
        self.salts = DailySalts()
        self._known_keys: dict[bytes, ServerKeyIdentity] = {}
        self._down_until = 0.0
        self._subject_key: bytes | None = None
        self.sites = SiteConfigs()
        self.address_limit = AddressRateLimit()

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled connection in autocommit, or DatabaseDown quickly.

        Each statement commits on its own: the reads and counters of a request need no BEGIN and
        COMMIT, two round trips of the five a server batch made. Statements that belong together
        run in `conn.transaction()`."""
        if time.monotonic() < self._down_until:
            raise DatabaseDown("the database did not answer a moment ago")
        try:
            with self._pool().connection(timeout=self.POOL_WAIT_SECONDS) as conn:
                conn.autocommit = True
                try:
                    yield conn
                finally:
                    # The pool is the collector's, shared with the administration API: back as lent.
                    if conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                        conn.autocommit = False
        except (PoolTimeout, psycopg.OperationalError, psycopg.InterfaceError, DatabaseUnavailable):
            self._down_until = time.monotonic() + self.DOWN_PAUSE_SECONDS
            raise DatabaseDown("the database does not answer") from None

    def begin_server_request(self, secret: str, events: int, idempotency_key_hash: str | None,
                             now: datetime) -> ServerRequest | None:
        """Authenticate the key, find an earlier answer to the idempotency key, count the events
        against the rate limit, and make sure the day's salt is at hand. None: unknown key."""
        fingerprint = hashlib.sha256(secret.encode()).digest()
        try:
            with self.connection() as conn:
                if idempotency_key_hash is None:
                    identity, allowed = authenticate_and_count(conn, secret, events)
                    if identity is None:
                        self._known_keys.pop(fingerprint, None)
                        return None
                    self._known_keys[fingerprint] = identity
                    self.salts.get(conn, utc_day(now))
                    return ServerRequest(identity, retry_after=None if allowed else rate_limits.retry_after())
                identity = authenticate_server_key(conn, secret)
                if identity is None:
                    self._known_keys.pop(fingerprint, None)
                    return None
                self._known_keys[fingerprint] = identity
                stored = None
                if idempotency_key_hash is not None:
                    stored = conn.execute(
                        "select request_hash, response from raw.idempotency_keys where key_id = %s and key_hash = %s",
                        (identity.key_id, idempotency_key_hash)).fetchone()
                    if stored is not None:
                        return ServerRequest(identity, stored=tuple(stored))
                retry_after = rate_limits.count_events(conn, identity.key_id, events,
                                                       identity.rate_limit_per_minute)
                self.salts.get(conn, utc_day(now))
                return ServerRequest(identity, retry_after=retry_after)
        except DatabaseDown:
            identity = self._known_keys.get(fingerprint)
            if identity is None:
                raise
            return ServerRequest(identity)

    def cached_key_check(self, secret: str, events: int, now: datetime) -> ServerRequest | None:
        """The checks of `begin_server_request` left to the writer's group query, for a request
        without an Idempotency-Key whose key this process has authenticated before: its cached
        identity, to derive the rows with, and the `KeyCheck` that the writer runs with them (the
        key still active with that identity, `events` counted against its minute). None when the
        request must take `begin_server_request`: a key not seen yet, no salt for today at hand,
        the database just found down (the answer is then the spool's, as before)."""
        if not self._known_keys or time.monotonic() < self._down_until or self.salts.cached(utc_day(now)) is None:
            return None
        fingerprint = hashlib.sha256(secret.encode()).digest()  # the key's secret_hash
        identity = self._known_keys.get(fingerprint)
        if identity is None:
            return None
        return ServerRequest(identity, key_check=KeyCheck(fingerprint, str(identity.key_id), str(identity.site_id),
                                                          identity.accept_user_id, events))

    def server_rows(self, identity: ServerKeyIdentity, events: list, now: datetime,
                    escapes: bool = True) -> tuple[list[tuple], list[dict]]:
        """Check each event (undecoded JSON, `msgspec.Raw`, or Python objects) and derive its row.
        Returns (rows, rejected) where rejected holds `{index, code, message}` per refused event.
        `escapes` False: the body holds no \\u escape (see `check_server_event`). The IP and user
        agent end here."""
        site_id = str(identity.site_id)
        salt = self.salts.cached(utc_day(now))
        accept_user_id = identity.accept_user_id
        rows, rejected = [], []
        for index, event in enumerate(events):
            try:
                e, occurred_at = check_server_event(event, now=now, accept_user_id=accept_user_id, escapes=escapes)
            except EventRefused as refused:
                rejected.append({"index": index, "code": refused.code, "message": refused.message})
                continue
            ip, visitor = e.ip, e.visitor
            if ip and not visitor and salt is None:
                raise SaltUnavailable("no salt for today and the database is down")
            rows.append(event_row(site_id, "server", occurred_at, now, e.type, e.name, e.user_id, None, e.url,
                                  e.referrer, e.title, e.language, None, e.props, e.items, salt, visitor, ip,
                                  e.user_agent))
        return rows, rejected

    def store(self, rows: list[tuple], idempotency: IdempotencyRecord | None = None,
              rejections: list[list] | None = None, key_check: KeyCheck | None = None) -> str:
        """Hand rows to the writer and wait until durable: `stored`, `spooled` or `duplicate`;
        `unchecked` when the writer did not confirm `key_check` (`BatchWriter.submit`)."""
        return self.writer.submit(rows, idempotency, rejections, key_check=key_check)

    async def store_async(self, rows: list[tuple], idempotency: IdempotencyRecord | None = None,
                          rejections: list[list] | None = None, key_check: KeyCheck | None = None) -> str:
        """`store` for a coroutine."""
        return await self.writer.submit_async(rows, idempotency, rejections, key_check)

    def site_config(self, site_id: str, may_block: bool = True) -> SiteConfig | None:
        """The site's config (cached a few seconds), None for an unknown site; a stale config
        serves while the database is down, DatabaseDown when there is none. CacheMiss when the
        database would be asked and `may_block` is False."""
        known, fresh, config = self.sites.lookup(site_id)
        if fresh:
            return config
        if not may_block:
            raise CacheMiss(site_id)
        try:
            with self.connection() as conn:
                config = load_site_config(conn, site_id)
        except DatabaseDown:
            if known:
                return config
            raise
        self.sites.remember(site_id, config)
        return config

    def salt_of(self, now: datetime, may_block: bool = True) -> bytes:
        day = utc_day(now)
        salt = self.salts.cached(day)
        if salt is None:
            if not may_block:
                raise CacheMiss(day)
            try:
                with self.connection() as conn:
                    salt = self.salts.get(conn, day)
            except DatabaseDown:
                raise SaltUnavailable("no salt for today and the database is down") from None
        return salt

    def beacon_visitor(self, site: SiteConfig, visitor: str | None, ip: str | None, now: datetime,
                       may_block: bool = True) -> tuple[str | None, bytes | None]:
        """The `_vis` cookie value that counts (none where the site's mode allows no cookie), and
        the day's salt when the visitor is the daily hash instead (an address and no such cookie).
        SaltUnavailable when the salt cannot be had; CacheMiss when `may_block` is False and the
        database would be asked."""
        if site.mode == "cookieless":
            visitor = None
        return visitor, (self.salt_of(now, may_block) if ip and not visitor else None)

    def browser_rows(self, site: SiteConfig, events: list, *, visitor: str | None, salt: bytes | None,
                     ip: str | None, user_agent: str | None, now: datetime) -> tuple[list[tuple], int]:
        """Validate the script's events and derive their rows; returns (rows, refused count).
        `visitor` and `salt` as `beacon_visitor` gives them."""
        rows, refused = [], 0
        for event, occurred_at in zip(events, browser_event_times(events, now)):
            try:
                e = check_browser_event(event)
            except EventRefused:
                refused += 1
                continue
            rows.append(event_row(site.site_id, "browser", occurred_at, now, e.type, e.name, None, e.page_id,
                                  e.url, e.referrer, e.title, e.language, e.screen, e.props, e.items, salt,
                                  visitor, ip, user_agent))
        return rows, refused

    def stored_response(self, key_id, idempotency_key_hash: str) -> tuple[str, dict] | None:
        with self.connection() as conn:
            row = conn.execute(
                "select request_hash, response from raw.idempotency_keys where key_id = %s and key_hash = %s",
                (key_id, idempotency_key_hash)).fetchone()
        return tuple(row) if row else None

    def request_erasure(self, secret: str, subject_kind: str, subject_value: str):
        """Record an erasure request for the key's site; returns its id, or None for an unknown key.
        Needs the database (no spool for requests about a person)."""
        if self._subject_key is None:
            self._subject_key = subject_key(self.settings)
        with self.connection() as conn, conn.transaction():
            identity = authenticate_server_key(conn, secret)
            if identity is None:
                return None
            return create_request(conn, identity.site_id, "erasure", subject_kind, subject_value,
                                  f"server-key:{identity.key_id}", subject_key=self._subject_key)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)
