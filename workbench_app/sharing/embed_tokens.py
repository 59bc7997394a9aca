"""Embed tokens: HS256 JWTs signed by a customer's backend with one of the embedding secrets.

Checked on every call of the embed page (the page, the dashboard, each card run, each CSV): the
header says `alg: HS256` and names a live secret in `kid`; the signature matches that secret;
`exp` is present, not past, and at most the installation's longest lifetime ahead;
`resource.dashboard` is a dashboard id; `user.id` is a string and `user.attributes` an object of
attributes, which take the place of stored ones in the secret's group's row filters; the optional
`permissions` lists what the viewer may do beyond viewing (`download_pdf`). Any failure is a 401
that says what is wrong and gives no data.

Permissions are signed into each token, per viewer, as the signed embeds of the best-known BI tools
do: the customer's backend, which knows its own people, decides who may download, and a token
without the claim only views. The embedding secret stays a key, not a policy.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import jwt
import psycopg

from pipelines.settings import Settings
from workbench_app.accounts import instance_settings
from workbench_app.errors import WorkbenchError
from workbench_app.sharing import embedding_secrets

ALGORITHM = "HS256"
_ATTRIBUTE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_SCALAR = (str, int, float, bool)
MAX_TOKEN_LENGTH = 8000
DOWNLOAD_PDF = "download_pdf"
PERMISSIONS = frozenset({DOWNLOAD_PDF})


@dataclass(frozen=True)
class EmbedClaims:
    """What a checked token says, with the secret that signed it."""

    kid: str
    secret_id: int
    group_id: int
    account_id: int
    account_email: str
    dashboard_id: int
    user_id: str
    attributes: dict[str, Any]
    expires_at: int
    allowed_origins: tuple[str, ...]
    permissions: frozenset[str] = frozenset()


INVALID, EXPIRED = "embed_token_invalid", "embed_token_expired"


def token_kid(token: str) -> str | None:
    """The `kid` of a token's header, unchecked (to choose the frame's allowed hosts)."""
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.InvalidTokenError:
        return None
    return kid if isinstance(kid, str) else None


def _attributes(user: Any) -> tuple[str, dict[str, Any]]:
    ok = isinstance(user, dict) and isinstance(user.get("id"), str) and 0 < len(user["id"]) <= 200 \
        and isinstance(user.get("attributes", {}), dict)
    attributes = user.get("attributes", {}) if ok else {}
    for name, value in attributes.items():
        items = value if isinstance(value, list) and value else [value]
        if not _ATTRIBUTE_NAME.match(name) or not all(
                isinstance(item, _SCALAR) and not (isinstance(item, str) and (len(item) > 1000 or "\x00" in item))
                for item in items):
            ok = False
    if not ok:
        raise WorkbenchError(401, INVALID, "The embed token needs user.id (a string) and user.attributes (an object of texts, "
                      "numbers, booleans or lists of them).")
    return user["id"], dict(attributes)


def _permissions(claims: dict[str, Any]) -> frozenset[str]:
    """The token's `permissions`; an unknown one is refused rather than ignored (a typo must not
    silently take away, nor seem to give, a right)."""
    value = claims.get("permissions", [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item in PERMISSIONS for item in value):
        raise WorkbenchError(401, INVALID, "The embed token's permissions is a list of: {0}.".format(
            ", ".join(sorted(PERMISSIONS))))
    return frozenset(value)


def verify(conn: psycopg.Connection, settings: Settings, token: str | None) -> EmbedClaims:
    """The claims of a valid token, or a 401 WorkbenchError saying why it is refused."""
    if not token:
        raise WorkbenchError(401, INVALID, "An embed token is required.")
    if len(token) > MAX_TOKEN_LENGTH:
        raise WorkbenchError(401, INVALID, "The embed token is not a valid signed token.")
    try:
        header = jwt.get_unverified_header(token)
    except jwt.InvalidTokenError:
        raise WorkbenchError(401, INVALID, "The embed token is not a valid signed token.") from None
    if header.get("alg") != ALGORITHM:
        raise WorkbenchError(401, INVALID, "The embed token must be signed with HS256.")
    kid = header.get("kid")
    found = embedding_secrets.active_secret(conn, settings, kid) if isinstance(kid, str) and len(kid) <= 64 else None
    if found is None:
        raise WorkbenchError(401, INVALID, "The embed token's kid names no active embedding secret.")
    record, secret = found
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM], options={"require": ["exp"]})
    except jwt.ExpiredSignatureError:
        # The signature matched: the host origins may hear so, to send the renewal message.
        raise WorkbenchError(401, EXPIRED, "The embed token has expired: the host page must hand in a new one.",
                             {"allowed_origins": list(record["allowed_origins"])}) from None
    except jwt.MissingRequiredClaimError:
        raise WorkbenchError(401, INVALID, "The embed token needs an expiry (exp).") from None
    except jwt.InvalidSignatureError:
        raise WorkbenchError(401, INVALID, "The embed token's signature does not match its kid's secret.") from None
    except jwt.InvalidTokenError:
        raise WorkbenchError(401, INVALID, "The embed token is not a valid signed token.") from None
    longest = instance_settings.sharing(conn)["embed_max_lifetime_seconds"]
    if not isinstance(claims["exp"], int) or claims["exp"] - time.time() > longest:
        raise WorkbenchError(401, INVALID, f"The embed token's expiry (exp) is at most {longest} seconds ahead.")
    resource = claims.get("resource")
    dashboard_id = resource.get("dashboard") if isinstance(resource, dict) else None
    if isinstance(dashboard_id, bool) or not isinstance(dashboard_id, int) or not 0 < dashboard_id < 2**63:
        raise WorkbenchError(401, INVALID, "The embed token needs resource.dashboard (a dashboard id).")
    user_id, attributes = _attributes(claims.get("user"))
    return EmbedClaims(kid, record["secret_id"], record["group_id"], record["account_id"], record["account_email"],
                       dashboard_id, user_id, attributes, claims["exp"], tuple(record["allowed_origins"]),
                       _permissions(claims))
