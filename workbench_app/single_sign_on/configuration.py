"""Single sign-on's configuration: what an administrator set (API), else the environment (Settings).

The client secret is sealed at rest with AES-256-GCM (the sealing of source passwords, with a key
derived for this use only) and never leaves the server: reading the configuration says whether a
secret is set, nothing more. Single sign-on is on once an issuer and a client id are known.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from pipelines.settings import Settings
from workbench_app.accounts.identity import Identity
from workbench_app.errors import invalid
from workbench_app.settings_over_environment import SettingsOverEnvironment

_ROW = SettingsOverEnvironment("sso_provider", "oidc_", secret_purpose="workbench-sso-client-secret",
                               secret_bound_to="sso-provider:1")
_CONNECTION_FIELDS = ("issuer", "client_id", "scopes", "display_name")
_CLAIM_FIELDS = ("email_claim", "name_claim", "groups_claim")
_FLAGS = ("groups_by_name", "create_accounts", "password_sign_in")


@dataclass(frozen=True)
class SingleSignOn:
    """The effective configuration (administrator's values over the environment's)."""

    issuer: str | None
    client_id: str | None
    client_secret: str | None = field(repr=False)
    scopes: str
    display_name: str
    email_claim: str
    name_claim: str
    groups_claim: str
    attribute_claims: dict[str, str]
    group_mapping: dict[str, str]
    groups_by_name: bool
    create_accounts: bool
    password_sign_in: bool
    break_glass_email: str | None
    source: str  # "settings", "environment" or "none": where the issuer came from

    @property
    def enabled(self) -> bool:
        return bool(self.issuer and self.client_id)




def effective(conn: psycopg.Connection, settings: Settings) -> SingleSignOn:
    stored = _ROW.stored(conn)
    pick = _ROW.picker(stored, settings)

    secret = _ROW.secret(settings, stored, "client_secret_sealed")
    source = _ROW.source(stored, settings, "issuer")
    return SingleSignOn(
        issuer=pick("issuer"), client_id=pick("client_id"), client_secret=secret, scopes=pick("scopes"),
        display_name=pick("display_name"), source=source,
        # A mapping an administrator set replaces the environment's; an empty one leaves it in force.
        attribute_claims=stored.get("attribute_claims") or dict(settings.oidc_attribute_claims),
        group_mapping=stored.get("group_mapping") or dict(settings.oidc_group_mapping),
        **{name: stored.get(name, default) for name, default in (
            ("email_claim", "email"), ("name_claim", "name"), ("groups_claim", "groups"), ("groups_by_name", True),
            ("create_accounts", True), ("password_sign_in", True), ("break_glass_email", None))})


def describe(config: SingleSignOn) -> dict[str, Any]:
    """The configuration as the API shows it to administrators (shapes.py's `SingleSignOnSettings`):
    every field but the client secret, of which only whether one is set."""
    shown = {name: value for name, value in asdict(config).items() if name != "client_secret"}
    return {"enabled": config.enabled, "client_secret_set": bool(config.client_secret), **shown}


def update(conn: psycopg.Connection, settings: Settings, who: Identity, given: dict) -> SingleSignOn:
    """Apply an administrator's change, the fields the request gave (single_sign_on/shapes.py's
    `SingleSignOnChange`, validated): a field given replaces the stored one; null clears it (the
    environment's value applies again); `client_secret` "" or null clears the secret."""
    changes: dict[str, Any] = {}
    if "issuer" in given:
        changes["issuer"] = given["issuer"].rstrip("/") if given["issuer"] else None
    for name in ("client_id", "scopes", "display_name"):
        if name in given:
            changes[name] = given[name] or None
    for name in _CLAIM_FIELDS:
        if name in given:
            changes[name] = given[name]
    for name in ("attribute_claims", "group_mapping"):
        if name in given:
            changes[name] = Jsonb(given[name])
    for name in _FLAGS:
        if name in given:
            changes[name] = given[name]
    if "break_glass_email" in given:
        changes["break_glass_email"] = given["break_glass_email"] or None
    changes.update(_ROW.sealed_change(settings, given, "client_secret"))
    stored = {**_ROW.stored(conn), **changes}
    if stored.get("password_sign_in") is False and not stored.get("break_glass_email"):
        # Without single sign-on working, nobody could sign in at all: one administrator keeps a password.
        raise invalid("Name a break-glass administrator before turning password sign-in off.",
                      field="break_glass_email")
    if changes:
        _ROW.write(conn, who, changes, "settings.sso_updated")
    return effective(conn, settings)


def password_sign_in_allowed(conn: psycopg.Connection, email: str) -> bool:
    """Whether a password may be used by `email`: always, unless an administrator turned password
    sign-in off, and then only for the break-glass administrator (an administrator's account)."""
    row = conn.execute("select password_sign_in, break_glass_email from sso_provider where id = 1").fetchone()
    if row is None or row[0]:
        return True
    break_glass = row[1] or ""
    return email.strip().lower() == break_glass.strip().lower() and conn.execute(
        "select 1 from users where lower(email) = lower(%s) and is_admin", (email.strip(),)).fetchone() is not None
