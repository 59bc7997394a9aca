"""The browser side of collection: site configs, origin check, bot filter, client address, and a
per-address rate limit. No HTTP here; `collector_app/collect_api/browser.py` is the adapter.

Refused events are counted per site, reason and minute in collect.rejections (through the batch
writer, in the same group commit as the events). Reasons: `origin_not_allowed`, `bot`,
`invalid_payload`, `unknown_site`, `rate_limited`. Refusals that name no known site (unknown
site id, unreadable payload) are counted under the nil UUID `UNKNOWN_SITE_ID`, so that a flood of
made-up ids cannot create rows without end.
"""
from __future__ import annotations

import functools
import hashlib
import secrets
import threading
import time
import uuid
from dataclasses import dataclass

import psycopg
from crawlerdetect import CrawlerDetect

from pipelines.ingest.events import canonical_ip

UNKNOWN_SITE_ID = "00000000-0000-0000-0000-000000000000"


@dataclass(frozen=True)
class SiteConfig:
    site_id: str
    mode: str
    domains: tuple[str, ...]
    zones: tuple[tuple[str, str], ...]

    def allows_origin(self, origin: str | None) -> bool:
        """Whether a page of `origin` (scheme://host[:port]) may send events for this site.

        A domain matches its host exactly; `*.example.com` matches any subdomain of example.com
        (not example.com itself: list both for both). The port does not matter."""
        return _origin_allowed(self.domains, origin)


@functools.lru_cache(maxsize=4096)
def _origin_allowed(domains: tuple[str, ...], origin: str | None) -> bool:
    """SiteConfig.allows_origin, remembered: a beacon asks twice (the check and CORS), and a site's
    pages share a handful of origins (a page's origin is no personal data)."""
    host = origin_host(origin)
    if host is None:
        return False
    for domain in domains:
        if domain.startswith("*."):
            if host.endswith(domain[1:]) and len(host) > len(domain) - 1:
                return True
        elif host == domain:
            return True
    return False


def origin_host(origin: str | None) -> str | None:
    """Host of an Origin header value, lower case; None for a missing, opaque or odd one."""
    if not origin or origin == "null" or "://" not in origin:
        return None
    scheme, _, rest = origin.partition("://")
    if scheme not in ("http", "https") or "/" in rest or "@" in rest:
        return None
    if rest.startswith("["):  # IPv6 literal
        return rest[1:rest.find("]")].lower() if "]" in rest else None
    return rest.rsplit(":", 1)[0].lower() if ":" in rest else rest.lower()


def load_site_config(conn: psycopg.Connection, site_id: str) -> SiteConfig | None:
    """The site's mode, domains and zones; None when `site_id` names no site."""
    try:
        parsed = uuid.UUID(site_id)
    except (ValueError, AttributeError, TypeError):
        return None
    row = conn.execute(
        """select s.tracking_mode,
                  coalesce((select array_agg(domain order by domain) from collect.site_domains d
                             where d.site_id = s.site_id), '{}'),
                  coalesce((select array_agg(array[name, selector] order by name) from collect.zones z
                             where z.site_id = s.site_id), '{}')
             from collect.sites s where s.site_id = %s""",
        (parsed,),
    ).fetchone()
    if row is None:
        return None
    mode, domains, zones = row
    return SiteConfig(str(parsed), mode, tuple(domains), tuple((name, selector) for name, selector in zones))


class SiteConfigs:
    """Site configs cached for `ttl` seconds per process; a stale one serves while the database
    is down. Edits of a site reach the collector within `ttl`."""

    def __init__(self, ttl: float = 10.0):
        self.ttl = ttl
        self._cache: dict[str, tuple[float, SiteConfig | None]] = {}

    def lookup(self, site_id: str) -> tuple[bool, bool, SiteConfig | None]:
        """(known, fresh, config): known is False when the id was never looked up."""
        found = self._cache.get(site_id)
        if found is None:
            return False, False, None
        return True, time.monotonic() - found[0] < self.ttl, found[1]

    def remember(self, site_id: str, config: SiteConfig | None) -> None:
        if len(self._cache) > 10_000:  # made-up ids must not grow the cache without end
            self._cache.clear()
        self._cache[site_id] = (time.monotonic(), config)


_crawler_lock = threading.Lock()
_crawler_detect = CrawlerDetect()


@functools.lru_cache(maxsize=8192)
def is_bot(user_agent: str | None) -> bool:
    """Crawlers, headless browsers, HTTP libraries, and requests without a user agent."""
    if not user_agent:
        return True
    with _crawler_lock:  # the detector keeps per-call state on its instance
        return bool(_crawler_detect.isCrawler(user_agent))


@functools.lru_cache(maxsize=8)
def _canonical_set(addresses: tuple[str, ...]) -> frozenset[str | None]:
    return frozenset(canonical_ip(a) for a in addresses)


def _trusted(trusted_proxies) -> frozenset[str | None]:
    """The trusted proxies' canonical addresses (cached per list; settings may hold a list)."""
    return _canonical_set(trusted_proxies if isinstance(trusted_proxies, tuple) else tuple(trusted_proxies))


def is_trusted_proxy(remote_addr: str | None, trusted_proxies: tuple[str, ...]) -> bool:
    """Whether the socket peer is one of the trusted proxies."""
    address = canonical_ip(remote_addr)
    return address is not None and address in _trusted(trusted_proxies)


def client_ip(remote_addr: str | None, forwarded_for: str | None, trusted_proxies: tuple[str, ...]) -> str | None:
    """The visitor's address: the socket peer, or, when the peer is a trusted proxy, the nearest
    X-Forwarded-For entry that is not itself a trusted proxy (entries further left can be forged
    by the client)."""
    address = canonical_ip(remote_addr)
    trusted = _trusted(trusted_proxies)
    if address is None or address not in trusted or not forwarded_for:
        return address
    for entry in reversed([part.strip() for part in forwarded_for.split(",")]):
        hop = canonical_ip(entry)
        if hop is None:
            return address  # a malformed chain: believe only the socket
        if hop not in trusted:
            return hop
    return address


class AddressRateLimit:
    """A token bucket per client address in this worker's memory: `per_minute` events, refilled
    continuously. Addresses are keyed by an HMAC under a key random to the process, so not even
    memory holds a list of addresses; buckets idle for a minute are dropped."""

    def __init__(self, per_minute: int = 600):
        self.per_minute = per_minute
        self._key = secrets.token_bytes(32)
        self._buckets: dict[bytes, tuple[float, float]] = {}
        self._lock = threading.Lock()
        self._swept = time.monotonic()

    def allow(self, ip: str | None, events: int) -> bool:
        if ip is None:
            return True
        # Keyed BLAKE2b is a MAC like HMAC-SHA256, in one call instead of copy, update and digest.
        key = hashlib.blake2b(ip.encode(), key=self._key, digest_size=16).digest()
        now = time.monotonic()
        rate = self.per_minute / 60.0
        with self._lock:
            if now - self._swept > 60:
                self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < 60}
                self._swept = now
            tokens, last = self._buckets.get(key, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * rate)
            allowed = tokens >= events
            self._buckets[key] = (tokens - events if allowed else tokens, now)
            return allowed
