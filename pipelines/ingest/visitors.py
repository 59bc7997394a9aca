"""Who a visitor is, without keeping who they are.

- Cookieless: HMAC-SHA256 keyed by the random 32-byte salt of the UTC day, over the site id, the
  IP address and the user agent. Salts are random (never derived from a secret and a date), live
  in collect.daily_salts, and are destroyed the next day by `destroy_salts_before`, audited.
- The IP address gives a country (offline table of the `iptocc` package) and the user agent a
  browser, an OS and a device class (`ua-parser`); then both are dropped by the caller.
"""
from __future__ import annotations

import functools
import hashlib
import secrets
import threading
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import iptocc
import psycopg
import ua_parser

from pipelines import audit

SALT_BYTES = 32


class SaltUnavailable(RuntimeError):
    """The day's salt is neither cached nor obtainable (the database is down)."""


class DailySalts:
    """Salts per UTC day, created on demand race-free and cached in the process.

    Creation is `insert ... on conflict do nothing` followed by a read, so concurrent workers and
    hosts all end up with the one salt that won. Tomorrow's salt is created along with today's, so
    that a database outage across midnight does not leave the collector without a salt.
    """

    def __init__(self):
        self._salts: dict[date, bytes] = {}
        self._lock = threading.Lock()

    def cached(self, day: date) -> bytes | None:
        return self._salts.get(day)

    def get(self, conn: psycopg.Connection, day: date) -> bytes:
        """The salt of `day`, from the cache or the database (created when missing)."""
        salt = self._salts.get(day)
        if salt is not None:
            return salt
        with self._lock:
            for wanted in (day, day + timedelta(days=1)):
                if wanted not in self._salts:
                    self._salts[wanted] = salt_of_day(conn, wanted)
            # Only today's salt hashes new events: forget earlier ones, destroyed in the database.
            for old in [d for d in self._salts if d < day]:
                del self._salts[old]
            return self._salts[day]


def salt_of_day(conn: psycopg.Connection, day: date) -> bytes:
    """Read the salt of `day`, creating a random one first if there is none."""
    conn.execute(
        "insert into collect.daily_salts (salt_day, salt) values (%s, %s) on conflict (salt_day) do nothing",
        (day, secrets.token_bytes(SALT_BYTES)),
    )
    row = conn.execute("select salt from collect.daily_salts where salt_day = %s", (day,)).fetchone()
    if row is None:  # destroyed between the two statements: the day is over anyway
        raise SaltUnavailable(f"the salt of {day} was destroyed")
    return bytes(row[0])


def destroy_salts_before(conn: psycopg.Connection, day: date, actor: str = "maintenance") -> int:
    """Delete every salt of a day before `day` and audit it; returns how many were destroyed.

    The maintenance job calls it daily with today's date: yesterday's hashes can no longer be
    recomputed from an IP address and a user agent.
    """
    with conn.transaction():
        destroyed = conn.execute(
            "delete from collect.daily_salts where salt_day < %s returning salt_day", (day,)).fetchall()
        days = sorted(d.isoformat() for (d,) in destroyed)
        audit.record(conn, actor, "daily_salts.destroyed", None, {"before": day.isoformat(), "days": days})
    return len(days)


@functools.lru_cache(maxsize=1)  # the salt in use only: an earlier day's is not kept past the next call
def _keyed(salt: bytes) -> tuple:
    """SHA-256 already fed with the inner and outer pads of HMAC's key (RFC 2104): each hash then
    copies them, where `hmac` copies them through three Python-level calls."""
    key = salt if len(salt) <= _BLOCK else hashlib.sha256(salt).digest()
    key = key.ljust(_BLOCK, b"\0")
    return (hashlib.sha256(key.translate(_INNER_PAD)), hashlib.sha256(key.translate(_OUTER_PAD)))


_BLOCK = hashlib.sha256().block_size
_INNER_PAD = bytes(b ^ 0x36 for b in range(256))
_OUTER_PAD = bytes(b ^ 0x5C for b in range(256))


def visitor_hash(salt: bytes, site_id: str, ip: str, user_agent: str | None) -> str:
    """The day's cookieless visitor id: hex HMAC-SHA256 keyed by the salt, over the site id, the IP
    address and the user agent. 0.7 us, where hmac's copy of a keyed state cost 1.1 and
    hmac.digest, keying anew, 1.7."""
    inner, outer = _keyed(salt)
    inner = inner.copy()
    inner.update(f"{site_id}\x1f{ip}\x1f{user_agent or ''}".encode())
    outer = outer.copy()
    outer.update(inner.digest())
    return outer.hexdigest()


def country_of(ip: str) -> str | None:
    """ISO 3166 country code of a public address, None for private or unknown ones."""
    try:
        return iptocc.country_code(ip)
    except (ValueError, TypeError):
        return None


@dataclass(frozen=True)
class Device:
    browser: str | None
    os: str | None
    device_class: str | None


_TABLET_HINTS = ("ipad", "tablet", "kindle", "silk/", "playbook")


@functools.lru_cache(maxsize=8192)
def device_of(user_agent: str) -> Device:
    """The user agent reduced to browser family, OS family and device class
    (desktop, mobile, tablet or bot). Parsing takes about 10 us with ua-parser's compiled engine
    (ua-parser-rs; its pure Python one takes 0.6 ms); cached all the same."""
    parsed = ua_parser.parse(user_agent)
    browser = parsed.user_agent.family if parsed.user_agent else None
    os_family = parsed.os.family if parsed.os else None
    device = parsed.device.family if parsed.device else None
    lowered = user_agent.lower()
    if device == "Spider":
        device_class = "bot"
    elif any(hint in lowered for hint in _TABLET_HINTS) or (os_family == "Android" and "mobile" not in lowered):
        device_class = "tablet"
    elif "mobi" in lowered or os_family in ("iOS", "Android") or (device and device != "Other"):
        device_class = "mobile"
    else:
        device_class = "desktop"
    return Device(None if browser == "Other" else browser, None if os_family == "Other" else os_family, device_class)


def utc_day(moment: datetime) -> date:
    return moment.astimezone(timezone.utc).date()
