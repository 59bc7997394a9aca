"""Channel rules before they are saved: which channel a visit would get, how many past visits
would change channel, and how far the pipeline is from applying the saved rules.

Rules are matched in PostgreSQL with the pipeline's own function (`staging.rule_matches`), first
match by position, against the traffic sources the pipeline already derived and categorised
(`intermediate.int_traffic_source_channels`). Before the first build there is nothing to compare.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import psycopg
from psycopg.types.json import Jsonb

from pipelines.admin import validation
from pipelines.admin._records import require_site
from pipelines.admin.channel_rules import get_rules, validated_rules
from pipelines.admin.errors import InvalidInput

# The channel of each (source, medium, campaign, category) under %(rules)s, as
# dbt_project/models/intermediate/int_traffic_source_channels.sql decides it.
_FIRST_MATCH = """coalesce((
    select p.channel from jsonb_to_recordset(%(rules)s) as p(position int, channel text, source_pattern text,
                                                             medium_pattern text, campaign_pattern text,
                                                             source_category text)
     where staging.rule_matches({source}, p.source_pattern) and staging.rule_matches({medium}, p.medium_pattern)
       and staging.rule_matches({campaign}, p.campaign_pattern)
       and (p.source_category is null or p.source_category = {category})
     order by p.position limit 1), 'Unassigned')"""


def _rules_json(rules: list[dict[str, Any]]) -> Jsonb:
    return Jsonb([{**rule, "position": position} for position, rule in enumerate(rules, start=1)])


def _campaign_value(values: dict[str, list[str]], name: str) -> str | None:
    """A UTM value normalised as staging does (decoded, trimmed, spaces collapsed, lower case)."""
    value = " ".join((values.get(name) or [""])[0].split()).lower()
    return None if value in ("", "(not set)", "undefined", "null", "(none)") else value


def traffic_source(url: str, referrer: str, utm: dict[str, str]) -> dict[str, str | None]:
    """Source, medium and campaign of a landing, derived as dbt's stg_raw__events does: UTM
    values (from the fields, else the URL), else an ad click id, else the referring host (not the
    site itself), else direct."""
    parts = urlsplit(url or "")
    query = parse_qs(parts.query)
    for name, value in utm.items():
        if value:
            query[name] = [value]
    source, medium, campaign = (_campaign_value(query, f"utm_{name}") for name in ("source", "medium", "campaign"))
    click = "gclid" if "gclid" in query else "msclkid" if "msclkid" in query else None
    referrer_host = (urlsplit(referrer or "").hostname or "").lower()
    referrer_domain = None
    if referrer_host and referrer_host != (parts.hostname or "").lower():
        referrer_domain = referrer_host.removeprefix("www.") or None
    traffic = source or {"gclid": "google", "msclkid": "bing"}.get(click or "") or referrer_domain or "(direct)"
    if source or medium:
        traffic_medium = medium or "(not set)"
    elif click:
        traffic_medium = "cpc"
    elif referrer_domain:
        traffic_medium = "referral"
    else:
        traffic_medium = "(none)"
    return {"source": traffic, "medium": traffic_medium, "campaign": campaign}


def channel_for_landing(conn: psycopg.Connection, site_id: object, body: Any, *, url: str, referrer: str,
                 utm: dict[str, str]) -> dict[str, Any]:
    """The channel a landing would get under the rules in `body` (`{rules: [...]}`, validated as
    a save would be; None: the saved rules)."""
    site = require_site(conn, site_id)
    for field, value in (("url", url), ("referrer", referrer), *utm.items()):
        if not isinstance(value, str) or len(value) > 2048 or not validation.storable(value):
            raise InvalidInput(f"{field} must be text of at most 2048 characters", {"field": field})
    rules = validated_rules(conn, body) if body is not None else get_rules(conn, site)["rules"]
    found = traffic_source(url, referrer, utm)
    category = conn.execute(
        """select coalesce((select category from collect.source_categories where lower(source) = %(s)s),
                           (select category from collect.source_categories
                             where lower(source) = substring(%(s)s from '([^.]+)\\.[^.]+$')))""",
        {"s": found["source"]}).fetchone()[0]
    channel = conn.execute("select " + _FIRST_MATCH.format(source="%(source)s", medium="%(medium)s",
                                                           campaign="%(campaign)s", category="%(category)s"),
                           {**found, "category": category, "rules": _rules_json(rules)}).fetchone()[0]
    return {**found, "source_category": category, "channel": channel}


def preview_changes(conn: psycopg.Connection, site_id: object, body: Any) -> dict[str, Any]:
    """How many past visits would move, from which channel to which, under the rules in `body`
    (None: the saved rules, which is how far the last build is from them)."""
    site = require_site(conn, site_id)
    rules = validated_rules(conn, body) if body is not None else get_rules(conn, site)["rules"]
    built = conn.execute("select to_regclass('intermediate.int_traffic_source_channels') is not null"
                         " and to_regclass('intermediate.int_visits') is not null").fetchone()[0]
    if not built:
        return {"available": False, "visits": 0, "changes": []}
    rows = conn.execute(
        """with rematched as (
               select c.source, c.medium, c.campaign, c.channel,
                      """ + _FIRST_MATCH.format(source="c.source", medium="c.medium", campaign="c.campaign",
                                                category="c.source_category") + """ as new_channel
                 from intermediate.int_traffic_source_channels c where c.site_id = %(site)s),
           visits as (
               select visit_source, visit_medium, visit_campaign, count(*) as n from intermediate.int_visits
                where site_id = %(site)s group by 1, 2, 3)
           select r.channel, r.new_channel, sum(v.n)::bigint
             from rematched r join visits v
               on v.visit_source = r.source and v.visit_medium = r.medium
              and coalesce(v.visit_campaign, '') = coalesce(r.campaign, '')
            where r.channel is distinct from r.new_channel
            group by 1, 2 order by 3 desc, 1, 2""",
        {"site": site, "rules": _rules_json(rules)}).fetchall()
    changes = [{"from": old, "to": new, "visits": n} for old, new, n in rows]
    return {"available": True, "visits": sum(change["visits"] for change in changes), "changes": changes}
