"""Single sign-on (OpenID Connect): the sign-in page's button, the browser's round trip to the
provider, and the administrators' configuration.

`/sso/start` and `/sso/callback` are navigations, not API calls: they answer redirects. A refusal
sends the browser back to the sign-in page with `sso_error=<code>`, which the page translates; the
password form there keeps working whatever the provider does. The `state` is single-use, expires
after ten minutes and is bound to the browser that started the sign-in (a cookie whose SHA-256 is
stored with it), so a callback forged or replayed in another browser signs nobody in.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlencode

from flask import Blueprint, jsonify, redirect, request

from workbench_app.api.authentication import json_body, require_admin, services
from workbench_app.api.public_views import public
from workbench_app.api.session_routes import open_session_for, set_session_cookie
from workbench_app.input_checks import single_query_value
from workbench_app.records import audit_log
from workbench_app.request_shapes import validated
from workbench_app.single_sign_on import configuration, directory_sync, provider_client
from workbench_app.single_sign_on.provider_client import SignOnRefused
from workbench_app.single_sign_on.shapes import SingleSignOnChange

blueprint = Blueprint("sso", __name__)

BROWSER_COOKIE = "wb_sso"
MAX_MINUTES = 10


def _safe_next(value: str | None) -> str:
    """Only same-site paths are followed after sign-in (the sign-in page's rule)."""
    return value if value and value.startswith("/") and not value.startswith("//") and "\\" not in value \
        and "\x00" not in value and not value.startswith("/sign-in") and len(value) <= 2000 else "/"


def _redirect_uri() -> str:
    return request.url_root.rstrip("/") + "/api/v1/sso/callback"


def _back_to_sign_in(code: str, next_path: str = "/"):
    query = {"sso_error": code, **({"next": next_path} if next_path != "/" else {})}
    response = redirect("/sign-in?" + urlencode(query), 303)
    response.delete_cookie(BROWSER_COOKIE, path="/api/v1/sso")
    return response


def _refused(refusal: SignOnRefused, next_path: str = "/"):
    with services().transaction() as conn:
        audit_log.record(conn, None, directory_sync.ACTOR, "sign_in.failed", None,
                         {"method": "oidc", "reason": refusal.code,
                          "detail": refusal.detail.replace("\x00", "")[:500]})
    return _back_to_sign_in(refusal.code, next_path)


def _browser_hash(value: str | None) -> bytes:
    return hashlib.sha256((value or "").encode()).digest()


@public
@blueprint.get("/sso")
def read_sign_on():
    """Whether the sign-in page offers single sign-on, and the provider's name for its button."""
    with services().transaction() as conn:
        config = configuration.effective(conn, services().settings)
    return jsonify({"enabled": config.enabled, "display_name": config.display_name if config.enabled else None})


@public
@blueprint.get("/sso/start")
def start_sign_on():
    next_path = _safe_next(request.args.get("next"))
    with services().transaction() as conn:
        config = configuration.effective(conn, services().settings)
    if not config.enabled:
        return _back_to_sign_in("not_configured", next_path)
    try:
        started = provider_client.start(config, _redirect_uri())
    except SignOnRefused as refusal:
        return _refused(refusal, next_path)
    browser = secrets.token_urlsafe(32)
    with services().transaction() as conn:
        conn.execute("delete from sso_sign_in_requests where created_at < now() - make_interval(mins => %s)",
                     (MAX_MINUTES,))
        conn.execute("""insert into sso_sign_in_requests (state, browser_hash, nonce, code_verifier, return_to)
                        values (%s, %s, %s, %s, %s)""",
                     (started.state, _browser_hash(browser), started.nonce, started.code_verifier, next_path))
    response = redirect(started.url, 303)
    # SameSite=Lax: the provider's redirect back is a top-level navigation, which carries it.
    response.set_cookie(BROWSER_COOKIE, browser, max_age=MAX_MINUTES * 60, path="/api/v1/sso",
                        secure=request.is_secure, httponly=True, samesite="Lax")
    return response


@public
@blueprint.get("/sso/callback")
def finish_sign_on():
    state = (single_query_value(request.args, "state") or "").replace("\x00", "")
    with services().transaction() as conn:
        pending = conn.execute(
            """delete from sso_sign_in_requests where state = %s
               and created_at >= now() - make_interval(mins => %s)
               returning browser_hash, nonce, code_verifier, return_to""", (state, MAX_MINUTES)).fetchone()
        config = configuration.effective(conn, services().settings)
    if pending is None or not hmac.compare_digest(bytes(pending[0]),
                                                  _browser_hash(request.cookies.get(BROWSER_COOKIE))):
        return _refused(SignOnRefused("state_mismatch", "unknown, used, expired or another browser's state"))
    _, nonce, code_verifier, next_path = pending
    if request.args.get("error"):
        return _refused(SignOnRefused("provider_refused", str(request.args.get("error"))[:200]), next_path)
    code = single_query_value(request.args, "code")
    if not config.enabled or not code:
        return _refused(SignOnRefused("not_configured" if not config.enabled else "code_refused", "no code"),
                        next_path)
    try:
        claims = provider_client.finish(config, _redirect_uri(), code, code_verifier, nonce)
        with services().transaction() as conn:
            who = directory_sync.sign_in(conn, config, claims)
    except SignOnRefused as refusal:
        return _refused(refusal, next_path)
    secret, _ = open_session_for(who.user_id)
    response = redirect(next_path, 303)
    set_session_cookie(response, secret)
    response.delete_cookie(BROWSER_COOKIE, path="/api/v1/sso")
    return response


@blueprint.get("/settings/sso")
def read_sso_settings():
    require_admin()
    with services().transaction() as conn:
        return jsonify(configuration.describe(configuration.effective(conn, services().settings)))


@blueprint.patch("/settings/sso")
def update_sso_settings():
    actor = require_admin()
    given = validated(SingleSignOnChange, json_body()).given()
    with services().transaction() as conn:
        before = configuration.effective(conn, services().settings)
        after = configuration.update(conn, services().settings, actor, given)
    for issuer in {before.issuer, after.issuer} - {None}:
        provider_client.forget(issuer)
    return jsonify(configuration.describe(after))
