"""Sharing in `/api/v1`: public links (made by editors of a dashboard), embedding secrets
(administrators), and the calls of the public and embed pages, which need no session: a public
link's secret is in the path, an embed token in the `X-Embed-Token` header, checked on every call."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.accounts import instance_settings
from workbench_app.api.authentication import identity, json_body, require_admin, services
from workbench_app.api.public_views import public
from workbench_app.errors import WorkbenchError, not_found
from workbench_app.printing.pdf_request import pdf_response, requested_filters, requested_orientation
from workbench_app.content.shapes import ValuesQuery
from workbench_app.request_shapes import validated, validated_query
from workbench_app.sharing import embedding_secrets, public_links, request_throttle, shared_view
from workbench_app.sharing.shapes import CardFilters, EmbeddingSecretRequest, PublicLinkRequest
from workbench_app.sharing.shared_pdf import shared_pdf

blueprint = Blueprint("sharing", __name__)
EMBED_HEADER = "X-Embed-Token"


def _link_token(value: str) -> str:
    if not (0 < len(value) <= 100) or not all(c.isalnum() or c in "-_" for c in value):
        raise not_found("Link")
    return value


def _public_view(link_token: str) -> shared_view.SharedView:
    """The link's view, after counting the call against the link's requests a minute (429 past it)."""
    workbench = services()
    with workbench.transaction() as conn:
        view = shared_view.resolve(conn, workbench.settings, link_secret=_link_token(link_token))
        # Counted in the database: every worker shares the link's minute.
        wait = request_throttle.retry_after(
            conn, view.link_id, instance_settings.sharing(conn)["public_link_requests_per_minute"])
    if wait:
        raise WorkbenchError(429, "rate_limited",
                             f"This shared dashboard is asked too often: try again in {wait} seconds.",
                             {"retry_after": wait})
    return view


def _embed_view() -> shared_view.SharedView:
    workbench = services()
    with workbench.transaction() as conn:
        return shared_view.resolve(conn, workbench.settings, embed_token=request.headers.get(EMBED_HEADER, ""))


def _filters() -> dict:
    return validated(CardFilters, json_body(optional=True)).filters


# --- public links, for people who may change the dashboard --------------------------------------

@blueprint.get("/dashboards/<dashboard_id>/public-links")
def list_public_links(dashboard_id):
    with services().transaction() as conn:
        links = public_links.list_links(conn, identity(), check.path_id(dashboard_id, "Dashboard"))
        enabled = instance_settings.sharing(conn)["public_sharing"]
    return jsonify({"public_sharing": enabled, "links": links})


@blueprint.post("/dashboards/<dashboard_id>/public-links")
def create_public_link(dashboard_id):
    """`{"allowed_filters": ["Country"], "allow_pdf": true}`: the filters a visitor may set (the others keep
    their defaults), and whether the link offers the dashboard as PDF (off unless asked)."""
    terms = validated(PublicLinkRequest, json_body())
    with services().transaction() as conn:
        link, secret = public_links.create_link(conn, identity(), check.path_id(dashboard_id, "Dashboard"),
                                                terms.allowed_filters, terms.allow_pdf)
    return jsonify({"link": link, "secret": secret, "path": f"/public/{secret}"}), 201


@blueprint.delete("/dashboards/<dashboard_id>/public-links/<link_id>")
def revoke_public_link(dashboard_id, link_id):
    with services().transaction() as conn:
        public_links.revoke_link(conn, identity(), check.path_id(dashboard_id, "Dashboard"),
                                 check.path_id(link_id, "Link"))
    return "", 204


# --- embedding secrets, for administrators ------------------------------------------------------

@blueprint.get("/embedding-secrets")
def list_embedding_secrets():
    require_admin()
    with services().transaction() as conn:
        return jsonify({"secrets": embedding_secrets.list_secrets(conn)})


@blueprint.post("/embedding-secrets")
def create_embedding_secret():
    actor = require_admin()
    new = validated(EmbeddingSecretRequest, json_body())
    workbench = services()
    with workbench.transaction() as conn:
        record, secret = embedding_secrets.create_secret(conn, workbench.settings, actor, new.name, new.group_id,
                                                         new.allowed_origins)
    return jsonify({"embedding_secret": record, "secret": secret}), 201


@blueprint.delete("/embedding-secrets/<secret_id>")
def revoke_embedding_secret(secret_id):
    actor = require_admin()
    with services().transaction() as conn:
        embedding_secrets.revoke_secret(conn, actor, check.path_id(secret_id, "Embedding secret"))
    return "", 204


# --- the public page's calls ----------------------------------------------------------------------

@public
@blueprint.get("/public/<link_token>")
def public_dashboard(link_token):
    view = _public_view(link_token)
    with services().transaction() as conn:
        return jsonify(shared_view.shared_dashboard(conn, view))


@public
@blueprint.post("/public/<link_token>/cards/<card_id>/run")
def run_public_card(link_token, card_id):
    view = _public_view(link_token)
    return jsonify(shared_view.run_card(services(), view, check.path_id(card_id, "Card"), _filters()))


@public
@blueprint.post("/public/<link_token>/cards/<card_id>/csv")
def public_card_csv(link_token, card_id):
    view = _public_view(link_token)
    return shared_view.card_csv(services(), view, check.path_id(card_id, "Card"), _filters())


@public
@blueprint.get("/public/<link_token>/filters/<filter_id>/values")
def public_filter_values(link_token, filter_id):
    view = _public_view(link_token)
    return jsonify(shared_view.filter_values(services(), view, check.path_id(filter_id, "Filter"),
                                             validated_query(ValuesQuery, request.args).search))


@public
@blueprint.get("/public/<link_token>/pdf")
def public_pdf(link_token):
    view = _public_view(link_token)
    orientation, filters = requested_orientation(), requested_filters()
    return pdf_response(shared_pdf(services(), view, filters, orientation), view.dashboard_id)


# --- the embed page's calls (the token in X-Embed-Token) ------------------------------------------

@public
@blueprint.get("/embed/dashboard")
def embed_dashboard():
    view = _embed_view()
    with services().transaction() as conn:
        return jsonify(shared_view.shared_dashboard(conn, view))


@public
@blueprint.post("/embed/cards/<card_id>/run")
def run_embed_card(card_id):
    view = _embed_view()
    return jsonify(shared_view.run_card(services(), view, check.path_id(card_id, "Card"), _filters()))


@public
@blueprint.post("/embed/cards/<card_id>/csv")
def embed_card_csv(card_id):
    view = _embed_view()
    return shared_view.card_csv(services(), view, check.path_id(card_id, "Card"), _filters())


@public
@blueprint.get("/embed/pdf")
def embed_pdf():
    view = _embed_view()
    orientation, filters = requested_orientation(), requested_filters()
    return pdf_response(shared_pdf(services(), view, filters, orientation), view.dashboard_id)


@public
@blueprint.get("/embed/filters/<filter_id>/values")
def embed_filter_values(filter_id):
    view = _embed_view()
    return jsonify(shared_view.filter_values(services(), view, check.path_id(filter_id, "Filter"),
                                             validated_query(ValuesQuery, request.args).search))
