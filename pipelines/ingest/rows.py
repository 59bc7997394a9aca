"""Rows of raw.events, derived from validated events.

A row is a tuple of text values (or None) in `COLUMNS` order: the same tuple goes to `COPY` and,
as a JSON array, to the spool. It never holds the IP address or the raw user agent: `derive_row`
reads them, computes the visitor hash, the country and the device, and returns only those.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec
from iptocc import country_code as _country_code

from pipelines.ingest.visitors import Device, device_of, visitor_hash

COLUMNS = (
    "site_id", "occurred_at", "received_at", "source", "event_type", "event_name", "visitor_kind",
    "visitor_id", "user_id", "page_id", "url", "hostname", "path", "referrer", "referrer_host",
    "title", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "click_id_kind",
    "language", "country", "browser", "os", "device_class", "screen_class", "props", "items",
    "transaction_id", "revenue", "currency",
)
_NO_DEVICE = Device(None, None, None)
_NO_PROPS: dict = {}
_encode_json = msgspec.json.Encoder().encode


def _to_json(value: dict | list) -> str:
    """Compact JSON of props or items (dicts, lists, or the event model's Structs), in compiled
    code: integers past 64 bits included."""
    return _encode_json(value).decode()
UTM_PARAMETERS = ("utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content")
# Advertising click ids: which one was present is kept, its value (a per-click identifier) is not.
CLICK_IDS = ("gclid", "gbraid", "wbraid", "dclid", "fbclid", "msclkid", "ttclid", "twclid",
             "li_fat_id", "yclid", "epik", "rdt_cid", "sccid")


_PAGE_PARTS = ("url", "hostname", "path")
_PAGE_PARAMETERS = (*UTM_PARAMETERS, "click_id_kind")
_NO_PAGE = ((None, None, None), (None,) * len(_PAGE_PARAMETERS))


@functools.lru_cache(maxsize=4096)
def _page(url: str) -> tuple[tuple[str | None, ...], tuple[str | None, ...]]:
    """The values of a page URL's columns, in COLUMNS order: (url without click id values,
    hostname, path) and (the five UTM parameters, click id kind). Cached: the pages of a site
    repeat."""
    found: dict[str, str | None] = {"url": url}
    try:
        parts = urlsplit(url)
    except ValueError:
        return (url, None, None), _NO_PAGE[1]
    found["hostname"] = (parts.hostname or None) if parts.netloc else None
    found["path"] = parts.path or ("/" if parts.netloc else None)
    if parts.query:
        query = parse_qsl(parts.query, keep_blank_values=True)
        for key, value in query:
            lowered = key.lower()
            if lowered in UTM_PARAMETERS and value and lowered not in found:
                found[lowered] = value[:500]
            elif lowered in CLICK_IDS and "click_id_kind" not in found:
                found["click_id_kind"] = lowered
        if "click_id_kind" in found:
            kept = [(k, v) for k, v in query if k.lower() not in CLICK_IDS]
            found["url"] = urlunsplit(parts._replace(query=urlencode(kept)))
    return tuple(map(found.get, _PAGE_PARTS)), tuple(map(found.get, _PAGE_PARAMETERS))


@functools.lru_cache(maxsize=4096)
def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname or None
    except ValueError:
        return None


@functools.lru_cache(maxsize=4)
def _iso(moment: datetime) -> str:
    # A request's events share their time of receipt: format it once.
    return moment.isoformat()


def derive_row(site_id: str, source: str, fields: Mapping[str, Any], *, received_at: datetime,
               salt: bytes | None, visitor: str | None = None, ip: str | None = None,
               user_agent: str | None = None) -> tuple:
    """The raw.events row of an event given as named fields (type, name, occurred_at, url, ...: a
    missing one is None), for code that makes events itself (demo data, imports). `ip` and
    `user_agent` are used here and not kept."""
    get = fields.get
    return event_row(site_id, source, fields["occurred_at"], received_at, fields["type"], fields["name"],
                     get("user_id"), get("page_id"), get("url"), get("referrer"), get("title"), get("language"),
                     get("screen"), get("props"), get("items"), salt, visitor, ip, user_agent)


def event_row(site_id: str, source: str, occurred: datetime, received_at: datetime, event_type: str, name: str,
              user_id: str | None, page_id: str | None, url: str | None, referrer: str | None, title: str | None,
              language: str | None, screen: str | None, props: dict | None, items: list | None,
              salt: bytes | None, visitor: str | None, ip: str | None, user_agent: str | None) -> tuple:
    """The raw.events row of a checked event. Values may be None or `msgspec.UNSET` (both falsy)
    where absent. `ip` and `user_agent` are used here and not kept.

    Visitor precedence: user id, then the `_vis` cookie, then the daily hash (needs the IP and
    `salt`), else none. A signed-in user keeps the cookie or hash as visitor_id too.
    """
    visitor_id, kind = None, "none"
    if visitor:
        visitor_id, kind = visitor, "cookie"
    elif ip and salt is not None:
        visitor_id, kind = visitor_hash(salt, site_id, ip, user_agent), "hash"
    if user_id:
        kind = "user"
    device = device_of(user_agent) if user_agent else _NO_DEVICE
    props = props or _NO_PROPS
    revenue = props.get("value")
    received = _iso(received_at)
    page, parameters = _page(url) if url else _NO_PAGE
    country = None
    if ip:  # `country_of` inline (a call less per event)
        try:
            country = _country_code(ip)
        except (ValueError, TypeError):
            pass
    # One tuple expression, in COLUMNS order: a list filled by index cost a microsecond more.
    return (site_id, received if occurred is received_at else occurred.isoformat(), received, source,
            event_type, name, kind, visitor_id, user_id or None, page_id or None, *page,
            referrer or None, _host(referrer) if referrer else None, title or None, *parameters,
            language or None, country,
            device.browser, device.os, device.device_class, screen or None,
            _to_json(props) if props else "{}", _to_json(items) if items else None,
            props.get("transaction_id"), None if revenue is None else repr(revenue), props.get("currency"))


def row_from_mapping(values: Mapping[str, Any]) -> tuple:
    """A row from named values, for code that builds rows itself (demo data, imports).

    Values may be text, numbers, datetimes, or dicts and lists for props and items. Without
    `received_at`, the row is received now; without `props`, they are empty.
    """
    unknown = set(values) - set(COLUMNS)
    if unknown:
        raise ValueError(f"not columns of raw.events: {', '.join(sorted(unknown))}")
    row = []
    for name in COLUMNS:
        value = values.get(name)
        if value is None and name == "props":
            value = {}
        elif value is None and name == "received_at":
            value = datetime.now(timezone.utc)
        if value is None:
            row.append(None)
        elif isinstance(value, datetime):
            row.append(value.isoformat())
        elif isinstance(value, (dict, list)):
            row.append(_to_json(value))
        else:
            row.append(str(value))
    return tuple(row)


def as_rows(rows: Iterable[tuple | Mapping[str, Any]]) -> list[tuple]:
    return [row_from_mapping(r) if isinstance(r, Mapping) else tuple(r) for r in rows]
