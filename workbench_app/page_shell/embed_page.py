"""`GET /embed?token=<JWT>`: the web application's page for an inline frame on a customer's site.

Only the host origins of the token's embedding secret may frame it (`frame-ancestors`); every
other page of the workbench forbids framing. The page itself holds no data: each of its calls
sends the token again and is checked (workbench_app/api/sharing_routes.py).
"""
from __future__ import annotations

from flask import Blueprint, current_app, request

from workbench_app.page_shell import web_app
from workbench_app.sharing import embed_tokens, embedding_secrets

blueprint = Blueprint("embed_page", __name__)


def content_security_policy(origins: list[str]) -> str:
    ancestors = " ".join(origins) if origins else "'none'"
    return web_app.CONTENT_SECURITY_POLICY.replace("frame-ancestors 'none'", f"frame-ancestors {ancestors}")


@blueprint.get("/embed")
def embed():
    token = request.args.get("token", "")
    kid = embed_tokens.token_kid(token) if 0 < len(token) <= embed_tokens.MAX_TOKEN_LENGTH else None
    origins: list[str] = []
    if kid is not None:
        with current_app.extensions["workbench"].transaction() as conn:
            origins = embedding_secrets.frame_origins(conn, kid)
    response = web_app.index()
    response.headers["Content-Security-Policy"] = content_security_policy(origins)
    # The token is in this page's address: it must not leave in a Referer header.
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
