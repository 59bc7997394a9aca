"""From a person's checked claims to their workbench account, at every single sign-on.

The account is found by the provider's (issuer, subject), else by e-mail address (then linked);
created on first sign-in unless an administrator turned that off. Its display name, the attributes
the mapping names (so `{{user.<attribute>}}` row filters follow the directory) and its directory
groups are refreshed each time: a group the directory no longer lists is taken away. Audited with
the actor `sso`.
"""
from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from workbench_app.accounts import instance_settings
from workbench_app.accounts.identity import Identity
from workbench_app.records import audit_log
from workbench_app.single_sign_on.configuration import SingleSignOn
from workbench_app.single_sign_on.provider_client import SignOnRefused

ACTOR = "sso"
_EMAIL = re.compile(r"^[^@\s]{1,200}@[^@\s]{1,200}$")
_SCALAR = (str, int, float, bool)


def _attribute_value(value: Any) -> Any:
    """A claim usable as an attribute (what the People screen accepts), else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON in PostgreSQL has no NaN or infinity
    if isinstance(value, _SCALAR) and not (isinstance(value, str) and (len(value) > 1000 or "\x00" in value)):
        return value
    if isinstance(value, list) and value and all(_attribute_value(item) is not None and not isinstance(item, list)
                                                 for item in value):
        return value
    return None


def _directory_groups(config: SingleSignOn, claims: dict[str, Any]) -> list[str]:
    value = claims.get(config.groups_claim)
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _find_account(conn: psycopg.Connection, config: SingleSignOn, subject: str, email: str) -> tuple | None:
    row = conn.execute("""select u.user_id, u.email, u.is_admin, u.is_active, u.locale from sso_identities i
                          join users u using (user_id) where i.issuer = %s and i.subject = %s""",
                       (config.issuer, subject)).fetchone()
    if row is not None:
        return row
    row = conn.execute("select user_id, email, is_admin, is_active, locale from users where lower(email) = lower(%s)",
                       (email,)).fetchone()
    if row is not None:
        conn.execute("insert into sso_identities (issuer, subject, user_id) values (%s, %s, %s)",
                     (config.issuer, subject, row[0]))
    return row


def _create_account(conn: psycopg.Connection, config: SingleSignOn, subject: str, email: str, name: str) -> tuple:
    locale = instance_settings.default_locale(conn)
    row = conn.execute("""insert into users (email, display_name, password_hash, locale) values (%s, %s, null, %s)
                          returning user_id, email, is_admin, is_active, locale""", (email, name, locale)).fetchone()
    conn.execute("insert into sso_identities (issuer, subject, user_id) values (%s, %s, %s)",
                 (config.issuer, subject, row[0]))
    audit_log.record(conn, None, ACTOR, "user.created", str(row[0]), {"email": email, "is_admin": False,
                                                                      "method": "oidc"})
    return row


def _refresh_attributes(conn: psycopg.Connection, config: SingleSignOn, user_id: int, claims: dict[str, Any]) -> None:
    """The mapped attributes take the claims' values; one the directory no longer gives is removed
    (a row filter on it then lets nothing through, as for a missing attribute)."""
    names = sorted(set(config.attribute_claims.values()))
    if not names:
        return
    before = dict(conn.execute("select name, value from user_attributes where user_id = %s and name = any(%s)",
                               (user_id, names)).fetchall())
    after = {}
    for claim, name in config.attribute_claims.items():
        value = _attribute_value(claims.get(claim))
        if value is not None:
            after[name] = value
    if before == after:
        return
    conn.execute("delete from user_attributes where user_id = %s and name = any(%s)", (user_id, names))
    for name, value in after.items():
        conn.execute("insert into user_attributes (user_id, name, value) values (%s, %s, %s)",
                     (user_id, name, Jsonb(value)))
    audit_log.record(conn, None, ACTOR, "permissions.attributes_set", str(user_id), {"names": sorted(after)})


def _refresh_groups(conn: psycopg.Connection, config: SingleSignOn, user_id: int, claims: dict[str, Any]) -> None:
    """Directory groups become workbench groups (explicit table first, else the same name). Groups
    the table maps to, and those single sign-on gave before, follow the directory exactly."""
    groups = {name.lower(): group_id for group_id, name in conn.execute("select group_id, name from groups")}
    wanted: set[int] = set()
    for directory_group in _directory_groups(config, claims):
        target = config.group_mapping.get(directory_group)
        if target is None and config.groups_by_name:
            target = directory_group
        if target is not None and target.lower() in groups:
            wanted.add(groups[target.lower()])
    managed = {groups[name.lower()] for name in config.group_mapping.values() if name.lower() in groups}
    managed |= {row[0] for row in conn.execute("select group_id from sso_group_grants where user_id = %s", (user_id,))}
    current = {row[0] for row in conn.execute("select group_id from group_members where user_id = %s", (user_id,))}
    for group_id in sorted((managed & current) - wanted):
        conn.execute("delete from group_members where group_id = %s and user_id = %s", (group_id, user_id))
        audit_log.record(conn, None, ACTOR, "permissions.member_removed", str(group_id), {"user_id": user_id})
    conn.execute("delete from sso_group_grants where user_id = %s and not (group_id = any(%s))",
                 (user_id, sorted(wanted)))
    for group_id in sorted(wanted - current):
        conn.execute("insert into group_members (group_id, user_id) values (%s, %s)", (group_id, user_id))
        conn.execute("insert into sso_group_grants (group_id, user_id) values (%s, %s) on conflict do nothing",
                     (group_id, user_id))
        audit_log.record(conn, None, ACTOR, "permissions.member_added", str(group_id), {"user_id": user_id})


def sign_in(conn: psycopg.Connection, config: SingleSignOn, claims: dict[str, Any]) -> Identity:
    """The account of the person the claims describe, brought up to date (audited). Refusals are
    audited by the caller, after this transaction is rolled back."""
    subject = claims.get("sub")
    email = claims.get(config.email_claim)
    # Text PostgreSQL cannot store (NUL) is refused like any other malformed claim.
    if not isinstance(subject, str) or not subject or "\x00" in subject or len(subject) > 500:
        raise SignOnRefused("token_invalid", "the ID token has no subject")
    if not isinstance(email, str) or not _EMAIL.match(email.strip()) or "\x00" in email:
        raise SignOnRefused("no_email", f"claim {config.email_claim!r} is not an e-mail address")
    email = email.strip()
    name = claims.get(config.name_claim)
    name = name.replace("\x00", "")[:200] if isinstance(name, str) else ""
    row = _find_account(conn, config, subject, email)
    if row is None:
        if not config.create_accounts:
            raise SignOnRefused("account_missing", email)
        row = _create_account(conn, config, subject, email, name)
    user_id, account_email, is_admin, is_active, locale = row
    if not is_active:
        raise SignOnRefused("account_inactive", account_email)
    if name:
        conn.execute("update users set display_name = %s where user_id = %s and display_name <> %s",
                     (name, user_id, name))
    _refresh_attributes(conn, config, user_id, claims)
    _refresh_groups(conn, config, user_id, claims)
    conn.execute("update users set last_login_at = %s where user_id = %s", (dt.datetime.now(dt.timezone.utc), user_id))
    who = Identity(user_id, account_email, is_admin, locale=locale)
    audit_log.record(conn, user_id, who.actor, "sign_in.succeeded", str(user_id), {"method": "oidc"})
    return who
