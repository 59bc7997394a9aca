"""The browser endpoints, at paths renamable in the settings (`script_path`, `collect_path`):

- `GET /a.js`: the tracking script, strong ETag (one per encoding), gzip, Cache-Control;
- `GET /collect?site=<id>`: the site's config for the script, with CORS for allowed origins
  (400 for a missing or malformed id, 404 for an unknown site);
- `POST /collect`: the script's beacon, answered in front of Flask by `beacon.BeaconEndpoint`.

CORS headers go only to allowed origins.
"""
from __future__ import annotations

import re

from flask import Blueprint, Response, jsonify, request

from collector_app.collect_api.context import database_unavailable, ingestion
from collector_app.errors import error_response
from collector_app.tracker import tracker_asset
from pipelines.ingest.browser import SiteConfig
from pipelines.ingest.service import DatabaseDown

SCRIPT_CACHE_CONTROL = "public, max-age=3600"
CONFIG_CACHE_CONTROL = "public, max-age=60"
_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")


def _cors(response: Response, site: SiteConfig | None) -> Response:
    origin = request.headers.get("Origin")
    response.headers.add("Vary", "Origin")
    if site is not None and origin and site.allows_origin(origin):
        response.headers["Access-Control-Allow-Origin"] = origin
    return response


def make_browser_blueprint(settings) -> Blueprint:
    bp = Blueprint("collect_browser", __name__)
    script_path, collect_path = settings.script_path, settings.collect_path

    @bp.get(script_path)
    def script():
        asset = tracker_asset(collect_path)
        gzip = "gzip" in request.headers.get("Accept-Encoding", "").lower()
        etag = asset.gzip_etag if gzip else asset.etag
        headers = {"ETag": etag, "Cache-Control": SCRIPT_CACHE_CONTROL, "Vary": "Accept-Encoding",
                   "Content-Type": "text/javascript; charset=utf-8", "X-Content-Type-Options": "nosniff"}
        if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
            return Response(status=304, headers=headers)
        if gzip:
            return Response(asset.gzip_body, headers={**headers, "Content-Encoding": "gzip"})
        return Response(asset.body, headers=headers)

    @bp.get(collect_path)
    def config():
        site_id = request.args.get("site", "")
        if not _UUID.fullmatch(site_id):
            return _cors(error_response(400, "invalid_site", "site must be a site id (a UUID)."), None)
        try:
            site = ingestion().site_config(site_id)
        except DatabaseDown:
            raise database_unavailable() from None
        if site is None:
            return _cors(error_response(404, "unknown_site", "No site has this id."), None)
        body = {"mode": site.mode, "zones": [{"name": n, "selector": s} for n, s in site.zones],
                "downloads": list(settings.download_extensions), "search_params": list(settings.search_params),
                "consent_granted_default": False}
        response = jsonify(body)
        response.headers["Cache-Control"] = CONFIG_CACHE_CONTROL
        return _cors(response, site)

    return bp

