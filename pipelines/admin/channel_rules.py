"""Channel rules of a site: an ordered list, first match wins (see migration 0010 for how the
pipeline matches). Every edit bumps collect.channel_rules_versions.version, which tells the
pipeline to re-apply the rules to past visits.
"""
from __future__ import annotations

import re
import warnings
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin import validation
from pipelines.admin._records import require_site
from pipelines.admin.errors import InvalidInput

SOURCE_CATEGORIES = ("search", "social", "shopping", "video", "email")
PATTERN_FIELDS = ("source_pattern", "medium_pattern", "campaign_pattern")
RULE_FIELDS = ("channel", *PATTERN_FIELDS, "source_category")
MAX_RULES = 200
MAX_PATTERN_LENGTH = 500


def get_rules(conn: psycopg.Connection, site_id: object) -> dict[str, Any]:
    """`{version, changed_at, rules: [...]}`, rules in evaluation order."""
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        version = cur.execute("select version, changed_at from collect.channel_rules_versions where site_id = %s",
                              (site,)).fetchone() or {"version": 0, "changed_at": None}
        rules = cur.execute(
            f"select {', '.join(RULE_FIELDS)} from collect.channel_rules where site_id = %s order by position",
            (site,),
        ).fetchall()
    return {"version": version["version"], "changed_at": version["changed_at"], "rules": rules}


def _check_pattern(conn: psycopg.Connection, pattern: str, field: str) -> None:
    """Refuse a pattern that Python or PostgreSQL cannot compile: the pipeline matches in SQL,
    and tooling may match in Python, so both must accept it."""
    try:
        # Python warns where it reads a pattern differently from POSIX engines ([[:alpha:]] is a
        # nested set to it, a class to PostgreSQL): such a pattern would mean two things, so refuse it.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            re.compile(pattern, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError, FutureWarning, DeprecationWarning) as exc:
        raise InvalidInput(f"{field} is not a valid regular expression: {exc}", {"field": field}) from None
    try:
        with conn.transaction():  # a savepoint: the failed check must not abort the request's transaction
            conn.execute("select '' ~* %s", (pattern,))
    except (psycopg.errors.DataError, psycopg.errors.ProgramLimitExceeded) as exc:
        message = (exc.diag.message_primary or str(exc)).strip()
        raise InvalidInput(f"{field} is not a valid PostgreSQL regular expression: {message}",
                           {"field": field}) from None


def validated_rules(conn: psycopg.Connection, body: Any) -> list[dict[str, Any]]:
    if isinstance(body, dict):
        validation.reject_unknown(body, ("rules",))
        body = body.get("rules")
    if not isinstance(body, list) or not 1 <= len(body) <= MAX_RULES:
        raise InvalidInput(f"rules must be a list of 1 to {MAX_RULES} rules", {"field": "rules"})
    rules = []
    for index, raw in enumerate(body):
        where = f"rules[{index}]."
        if not isinstance(raw, dict):
            raise InvalidInput("each rule must be an object", {"field": f"rules[{index}]"})
        validation.reject_unknown(raw, RULE_FIELDS, where)
        rule = {"channel": validation.text(raw, "channel", required=True, min_length=1, max_length=100, where=where)}
        for field in PATTERN_FIELDS:
            pattern = validation.text(raw, field, max_length=MAX_PATTERN_LENGTH, where=where, strip=False,
                                      nullable=True)
            if pattern == "":
                pattern = None
            if pattern is not None:
                _check_pattern(conn, pattern, where + field)
            rule[field] = pattern
        rule["source_category"] = validation.choice(raw, "source_category", SOURCE_CATEGORIES, where=where,
                                                     nullable=True)
        rules.append(rule)
    return rules


def _bump_version(conn: psycopg.Connection, site) -> int:
    return conn.execute(
        """insert into collect.channel_rules_versions (site_id, version, changed_at) values (%s, 1, now())
           on conflict (site_id) do update set version = collect.channel_rules_versions.version + 1,
                                               changed_at = now()
           returning version""",
        (site,),
    ).fetchone()[0]


def replace_rules(conn: psycopg.Connection, site_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    """Replace the whole ordered list (body: `{rules: [...]}` or the list itself); bumps the version.
    Audited as `channel_rules.replaced`."""
    site = require_site(conn, site_id, lock=True)
    rules = validated_rules(conn, body)
    conn.execute("delete from collect.channel_rules where site_id = %s", (site,))
    with conn.cursor() as cur:
        cur.executemany(
            """insert into collect.channel_rules (site_id, position, channel, source_pattern, medium_pattern,
                                                  campaign_pattern, source_category)
               values (%s, %s, %s, %s, %s, %s, %s)""",
            [(site, position, r["channel"], r["source_pattern"], r["medium_pattern"], r["campaign_pattern"],
              r["source_category"]) for position, r in enumerate(rules, start=1)],
        )
    version = _bump_version(conn, site)
    audit.record(conn, actor, "channel_rules.replaced", str(site), {"version": version, "rules": len(rules)})
    return get_rules(conn, site)


def reset_rules(conn: psycopg.Connection, site_id: object, *, actor: str) -> dict[str, Any]:
    """Back to GA4's default channel group (collect.default_channel_rules); bumps the version."""
    site = require_site(conn, site_id, lock=True)
    conn.execute("delete from collect.channel_rules where site_id = %s", (site,))
    conn.execute(
        """insert into collect.channel_rules (site_id, position, channel, source_pattern, medium_pattern,
                                              campaign_pattern, source_category)
           select %s, position, channel, source_pattern, medium_pattern, campaign_pattern, source_category
             from collect.default_channel_rules""",
        (site,),
    )
    version = _bump_version(conn, site)
    audit.record(conn, actor, "channel_rules.reset", str(site), {"version": version})
    return get_rules(conn, site)
