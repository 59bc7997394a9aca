"""Local accounts: creation, sign-in with a password, attributes used by row rules."""
from __future__ import annotations

import datetime as dt
import re
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from pipelines.web_auth import passwords
from workbench_app.accounts.identity import Identity
from workbench_app.errors import WorkbenchError, conflict, invalid, not_found
from workbench_app.records import audit_log

_EMAIL = re.compile(r"^[^@\s]{1,200}@[^@\s]{1,200}$")
_ATTRIBUTE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_PUBLIC = "user_id, email, display_name, is_admin, is_active, locale, created_at, last_login_at"


def _check_password(password: Any) -> str:
    if not passwords.acceptable(password):
        raise invalid(f"password must be a string of {passwords.MIN_LENGTH} to {passwords.MAX_LENGTH} characters.",
                      field="password")
    return password


def is_email_address(email: Any) -> bool:
    """Whether `email` reads as an address (one @, no spaces): what an account's e-mail must be."""
    return isinstance(email, str) and bool(_EMAIL.match(email.strip()))


def _check_email(email: Any) -> str:
    if not is_email_address(email):
        raise invalid("email must be an e-mail address.", field="email")
    return email.strip()


def create_user(conn: psycopg.Connection, actor: Identity | None, *, email: str, password: str | None,
                display_name: str = "", is_admin: bool = False, locale: str = "en") -> dict[str, Any]:
    """Create an account (audited). `actor` None means the command line."""
    email = _check_email(email)
    password_hash = passwords.hash_password(_check_password(password)) if password is not None else None
    if locale not in ("en", "fr", "es"):
        raise invalid("locale must be en, fr or es.", field="locale")
    with conn.cursor(row_factory=dict_row) as cur:
        if cur.execute("select 1 from users where lower(email) = lower(%s)", (email,)).fetchone():
            raise conflict("An account with this e-mail address exists already.", field="email")
        user = cur.execute(
            f"""insert into users (email, display_name, password_hash, is_admin, locale)
                values (%s, %s, %s, %s, %s) returning {_PUBLIC}""",
            (email, display_name, password_hash, is_admin, locale),
        ).fetchone()
    audit_log.record(conn, actor.user_id if actor else None, actor.actor if actor else "cli", "user.created",
                     str(user["user_id"]), {"email": email, "is_admin": is_admin})
    return user


def get_user(conn: psycopg.Connection, user_id: int) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        user = cur.execute(f"select {_PUBLIC} from users where user_id = %s", (user_id,)).fetchone()
    if user is None:
        raise not_found("User")
    user["attributes"] = attributes(conn, user_id)
    user["groups"] = [row[0] for row in conn.execute(
        "select group_id from group_members where user_id = %s order by group_id", (user_id,))]
    return user


def active_identity(conn: psycopg.Connection, user_id: int) -> Identity | None:
    """The account as the identity its work runs under when no request carries it (a warm-up, a
    scheduled delivery), or None when it is gone or deactivated."""
    row = conn.execute("select email, is_admin, locale from users where user_id = %s and is_active",
                       (user_id,)).fetchone()
    return Identity(user_id, row[0], row[1], locale=row[2]) if row else None


def list_users(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """People: the accounts of embedding secrets are not listed (nor offered in person pickers)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"select {_PUBLIC} from users where kind = 'person' order by user_id").fetchall()


def refuse_embedding_account(conn: psycopg.Connection, user_id: int) -> None:
    """404 for no account; 403 `embedding_account` for an embedding secret's own account, which
    changes only with its secret (its group, its revocation): an attribute, a group, a password or
    an administrator flag given to it would change what every token of the secret reads."""
    found = conn.execute("select kind from users where user_id = %s", (user_id,)).fetchone()
    if found is None:
        raise not_found("User")
    if found[0] == "embedding":
        raise WorkbenchError(403, "embedding_account", "This account belongs to an embedding secret: change or revoke "
                                                       "the secret under Embedding instead.")


def update_user(conn: psycopg.Connection, actor: Identity, user_id: int, changes: dict[str, Any]) -> dict[str, Any]:
    """Change display name, locale, administrator flag, active flag or password (audited)."""
    refuse_embedding_account(conn, user_id)
    assignments, values, audited = [], [], {}
    for column in ("display_name", "locale", "is_admin", "is_active"):
        if column in changes and changes[column] is not None:
            assignments.append(f"{column} = %s")
            values.append(changes[column])
            audited[column] = changes[column]
    if changes.get("password") is not None:
        assignments.append("password_hash = %s")
        values.append(passwords.hash_password(_check_password(changes["password"])))
        audited["password"] = "changed"
    if "locale" in audited and audited["locale"] not in ("en", "fr", "es"):
        raise invalid("locale must be en, fr or es.", field="locale")
    if user_id == actor.user_id and (audited.get("is_admin") is False or audited.get("is_active") is False):
        raise invalid("You cannot remove your own administrator rights or deactivate yourself.")
    if assignments:
        conn.execute(f"update users set {', '.join(assignments)} where user_id = %s", (*values, user_id))
        audit_log.record(conn, actor.user_id, actor.actor, "user.updated", str(user_id), audited)
    if audited.get("is_active") is False:
        # Refused at their next request anyway (sessions and tokens check is_active); gone now, and
        # for good: reactivating the account later must not bring back a token or a session.
        conn.execute("delete from web_sessions where user_id = %s", (user_id,))
        conn.execute("update api_tokens set revoked_at = now() where user_id = %s and revoked_at is null", (user_id,))
        conn.execute("delete from password_links where user_id = %s", (user_id,))
    return get_user(conn, user_id)


def set_password(conn: psycopg.Connection, user_id: int, password: str) -> None:
    """Replace a password (the caller audits how it was allowed)."""
    conn.execute("update users set password_hash = %s where user_id = %s",
                 (passwords.hash_password(_check_password(password)), user_id))


def update_profile(conn: psycopg.Connection, who: Identity, display_name: str | None,
                   locale: str | None) -> dict[str, Any]:
    """A person's own display name and language."""
    if locale is not None and locale not in ("en", "fr", "es"):
        raise invalid("locale must be en, fr or es.", field="locale")
    conn.execute("update users set display_name = coalesce(%s, display_name), locale = coalesce(%s, locale) "
                 "where user_id = %s", (display_name, locale, who.user_id))
    return get_user(conn, who.user_id)


def attributes(conn: psycopg.Connection, user_id: int) -> dict[str, Any]:
    return dict(conn.execute("select name, value from user_attributes where user_id = %s order by name",
                             (user_id,)).fetchall())


def set_attributes(conn: psycopg.Connection, actor: Identity, user_id: int, values: dict[str, Any]) -> dict[str, Any]:
    """Replace a user's attributes (audited: they decide what row rules let through)."""
    refuse_embedding_account(conn, user_id)
    for name, value in values.items():
        if not _ATTRIBUTE_NAME.match(name):
            raise invalid("Attribute names are letters, digits and underscores.", field=name)
        scalar = (str, int, float, bool)
        if not (isinstance(value, scalar) or (isinstance(value, list) and value
                                               and all(isinstance(v, scalar) for v in value))):
            raise invalid("An attribute is a string, number, boolean or non-empty list of them.", field=name)
        items = value if isinstance(value, list) else [value]
        if any(isinstance(item, str) and (len(item) > 1000 or "\x00" in item) for item in items):
            raise invalid("An attribute value is at most 1000 characters.", field=name)
    conn.execute("delete from user_attributes where user_id = %s", (user_id,))
    for name, value in values.items():
        conn.execute("insert into user_attributes (user_id, name, value) values (%s, %s, %s)",
                     (user_id, name, Jsonb(value)))
    audit_log.record(conn, actor.user_id, actor.actor, "permissions.attributes_set", str(user_id),
                     {"names": sorted(values)})
    return attributes(conn, user_id)


def sign_in(conn: psycopg.Connection, email: str, password: str) -> Identity | None:
    """Check a password; success and failure are both audited. None when refused (the caller
    commits the audit entry, then answers without saying which part was wrong)."""
    with conn.cursor(row_factory=dict_row) as cur:
        user = cur.execute(
            "select user_id, email, password_hash, is_admin, is_active, locale from users where lower(email) = lower(%s)",
            (email,),
        ).fetchone()
    matches = passwords.verify_password(user["password_hash"] if user else None, password)
    if not user or not matches or not user["is_active"]:
        audit_log.record(conn, user["user_id"] if user else None, email[:200], "sign_in.failed", None, {})
        return None
    if passwords.needs_rehash(user["password_hash"]):
        conn.execute("update users set password_hash = %s where user_id = %s",
                     (passwords.hash_password(password), user["user_id"]))
    conn.execute("update users set last_login_at = %s where user_id = %s",
                 (dt.datetime.now(dt.timezone.utc), user["user_id"]))
    identity = Identity(user["user_id"], user["email"], user["is_admin"], locale=user["locale"])
    audit_log.record(conn, identity.user_id, identity.actor, "sign_in.succeeded", str(identity.user_id), {})
    return identity
