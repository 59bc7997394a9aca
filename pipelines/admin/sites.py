"""Sites: the measured websites and their settings (domains, tracking mode, retention...).

A new site gets GA4's default channel rules and its rules version row from a trigger
(migration 0010), so every site has them however it was created.
"""
from __future__ import annotations

import re
import uuid
import zoneinfo
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin import validation
from pipelines.admin._records import parse_id, require_site
from pipelines.admin.errors import InvalidInput, NotFound

TRACKING_MODES = ("cookieless", "cookie", "consent")
MAX_DOMAINS = 100
FIELDS = ("name", "domains", "tracking_mode", "accept_user_id", "retention_months", "timezone", "currency")

# Active ISO 4217 codes (2024), plus the precious metals and special codes are left out on purpose:
# a site's revenue is in a currency people pay with.
ISO_4217 = frozenset("""
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD
CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD
GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT
LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR
NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD
SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD
XCG XOF XPF YER ZAR ZMW ZWG ZWL
""".split())

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


@lru_cache(maxsize=1)
def time_zones() -> frozenset[str]:
    # UTC is always valid, even on a machine without a time zone database.
    return frozenset(zoneinfo.available_timezones()) | {"UTC"}


def normalize_domain(raw: Any, index: int) -> str:
    """A lowercase hostname (IDN turned to punycode) or `*.` + one; anything else is refused."""
    field = f"domains[{index}]"
    if not isinstance(raw, str):
        raise InvalidInput("each domain must be a string", {"field": field})
    value = raw.strip().lower().rstrip(".")
    if "://" in value or "/" in value or ":" in value:
        raise InvalidInput(f"{raw!r} is not a host name: give the host only, without scheme, port or path",
                           {"field": field})
    wildcard = value.startswith("*.")
    host = value[2:] if wildcard else value
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        raise InvalidInput(f"{raw!r} is not a valid host name", {"field": field}) from None
    labels = host.split(".")
    if (not host or len(host) > 253 or not all(_LABEL.match(label) for label in labels)
            or (wildcard and len(labels) < 2)):
        rule = "a host name such as example.com, or *.example.com for its subdomains"
        raise InvalidInput(f"{raw!r} is not {rule}", {"field": field})
    return ("*." if wildcard else "") + host


def _domains(body: dict[str, Any]) -> list[str] | None:
    if "domains" not in body:
        return None
    raw = body["domains"]
    if not isinstance(raw, list) or len(raw) > MAX_DOMAINS:
        raise InvalidInput(f"domains must be a list of at most {MAX_DOMAINS} host names", {"field": "domains"})
    seen: dict[str, None] = {}
    for index, item in enumerate(raw):
        seen.setdefault(normalize_domain(item, index), None)
    return list(seen)


def _timezone(body: dict[str, Any], default: str | None) -> str | None:
    value = validation.text(body, "timezone", default=default, min_length=1, max_length=64)
    if value is not None and value not in time_zones():
        raise InvalidInput(f"timezone {value!r} is not an IANA time zone such as Europe/Paris or UTC",
                           {"field": "timezone"})
    return value


def _currency(body: dict[str, Any], default: str | None) -> str | None:
    value = validation.text(body, "currency", default=default, min_length=3, max_length=3)
    if value is None:
        return None
    value = value.upper()
    if value not in ISO_4217:
        raise InvalidInput(f"currency {value!r} is not an ISO 4217 code such as EUR or USD", {"field": "currency"})
    return value


def _validated(body: Any, *, partial: bool) -> dict[str, Any]:
    body = validation.require_object(body)
    validation.reject_unknown(body, FIELDS)
    values = {
        "name": validation.text(body, "name", required=not partial, min_length=1, max_length=200),
        "domains": _domains(body),
        "tracking_mode": validation.choice(body, "tracking_mode", TRACKING_MODES,
                                           default=None if partial else "cookieless"),
        "accept_user_id": validation.boolean(body, "accept_user_id", default=None if partial else False),
        "retention_months": validation.integer(body, "retention_months", minimum=1, maximum=120,
                                               default=None if partial else 25),
        "timezone": _timezone(body, None if partial else "UTC"),
        "currency": _currency(body, None if partial else "EUR"),
    }
    if not partial and values["domains"] is None:
        values["domains"] = []
    return {field: value for field, value in values.items() if value is not None or field in body}


_SELECT = """
select s.site_id as id, s.name,
       coalesce((select array_agg(d.domain order by d.domain) from collect.site_domains d
                  where d.site_id = s.site_id), '{}') as domains,
       s.tracking_mode, s.accept_user_id, s.retention_months, s.timezone, s.currency,
       s.created_at, s.updated_at,
       (select v.version from collect.channel_rules_versions v where v.site_id = s.site_id) as channel_rules_version
  from collect.sites s
"""


def get_site(conn: psycopg.Connection, site_id: object) -> dict[str, Any]:
    """One site with its domains and channel rules version, or NotFound."""
    site = parse_id(site_id, "site")
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(_SELECT + " where s.site_id = %s", (site,)).fetchone()
    if record is None:
        raise NotFound("site not found", {"site_id": str(site)})
    return record


def list_sites(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Every site, oldest first."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(_SELECT + " order by s.created_at, s.site_id").fetchall()


def _write_domains(conn: psycopg.Connection, site: uuid.UUID, domains: list[str]) -> None:
    conn.execute("delete from collect.site_domains where site_id = %s", (site,))
    if domains:
        with conn.cursor() as cur:
            cur.executemany("insert into collect.site_domains (site_id, domain) values (%s, %s)",
                            [(site, domain) for domain in domains])


def create_site(conn: psycopg.Connection, body: Any, *, actor: str) -> dict[str, Any]:
    """Create a site from an API body; audited as `site.created`."""
    values = _validated(body, partial=False)
    site = conn.execute(
        """insert into collect.sites (name, tracking_mode, accept_user_id, retention_months, timezone, currency)
           values (%s, %s, %s, %s, %s, %s) returning site_id""",
        (values["name"], values["tracking_mode"], values["accept_user_id"], values["retention_months"],
         values["timezone"], values["currency"]),
    ).fetchone()[0]
    _write_domains(conn, site, values["domains"])
    audit.record(conn, actor, "site.created", str(site), dict(values))
    return get_site(conn, site)


def update_site(conn: psycopg.Connection, site_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    """Change the given fields (a given `domains` list replaces the whole list); audited as
    `site.updated` with the new values."""
    site = require_site(conn, site_id, lock=True)
    values = _validated(body, partial=True)
    # A given `domains` is always a list (`_domains` refuses anything else, null included).
    columns = [field for field in values if field != "domains"]
    missing = next((field for field in columns if values[field] is None), None)
    if missing is not None:
        raise InvalidInput(f"{missing} cannot be null", {"field": missing})
    if values:
        assignments = [sql.SQL("{} = %s").format(sql.Identifier(column)) for column in columns]
        conn.execute(sql.SQL("update collect.sites set {} where site_id = %s").format(
                         sql.SQL(", ").join([*assignments, sql.SQL("updated_at = now()")])),
                     [values[column] for column in columns] + [site])
        if "domains" in values:
            _write_domains(conn, site, values["domains"])
        audit.record(conn, actor, "site.updated", str(site), values)
    return get_site(conn, site)


def delete_site(conn: psycopg.Connection, site_id: object, *, actor: str) -> None:
    """Delete a site, its metadata, keys and requests (cascade) and its raw events."""
    site = require_site(conn, site_id, lock=True)
    conn.execute("delete from raw.events where site_id = %s", (site,))
    conn.execute("delete from collect.rejections where site_id = %s", (site,))
    name = conn.execute("delete from collect.sites where site_id = %s returning name", (site,)).fetchone()[0]
    audit.record(conn, actor, "site.deleted", str(site), {"name": name})
