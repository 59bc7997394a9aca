"""The browser endpoints, at paths renamable in the settings (`script_path`, `collect_path`):

- `GET /a.js`: the tracking script, strong ETag (one per encoding), gzip, Cache-Control;
- `GET /collect?site=<id>`: the site's config for the script, with CORS for allowed origins
  (400 for a missing or malformed id, 404 for an unknown site);
- `POST /collect`: the script's `text/plain` JSON payload (collector_app/tracker/README.md).

`POST /collect` answers 204 when the events are durable (committed or spooled), and refuses with
400 `invalid_payload`, 403 `origin_not_allowed`, 404 `unknown_site`, 429 `rate_limited`; bots get
a 204 too (nothing to learn from the answer). Every refused event is counted by reason. CORS
headers go only to allowed origins. Cookies sent along with a beacon are ignored.
"""
from __future__ import annotations

import re
from datetime import datetime

from flask import Blueprint, Response, jsonify, request

from collector_app.collect_api.context import database_unavailable, ingestion, parse_json
from collector_app.errors import error_response
from collector_app.tracker import tracker_asset
from pipelines.ingest.browser import UNKNOWN_SITE_ID, SiteConfig, client_ip, is_bot
from pipelines.ingest.events import MAX_BROWSER_EVENTS_PER_REQUEST, VISITOR_COOKIE
from pipelines.ingest.service import DatabaseDown, utc_now
from pipelines.ingest.visitors import SaltUnavailable
from pipelines.ingest.writer import WriterUnavailable

# sendBeacon refuses bodies past 64 KiB; a little room for fetch.
BROWSER_BODY_LIMIT = 96 * 1024
SCRIPT_CACHE_CONTROL = "public, max-age=3600"
CONFIG_CACHE_CONTROL = "public, max-age=60"
_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")


def _cors(response: Response, site: SiteConfig | None) -> Response:
    origin = request.headers.get("Origin")
    response.headers.add("Vary", "Origin")
    if site is not None and origin and site.allows_origin(origin):
        response.headers["Access-Control-Allow-Origin"] = origin
    return response


def _minute(now: datetime) -> str:
    return now.replace(second=0, microsecond=0).isoformat()


class Refusal(Exception):
    def __init__(self, status: int, reason: str, message: str, site_id: str, events: int):
        super().__init__(message)
        self.status, self.reason, self.message, self.site_id, self.events = status, reason, message, site_id, events


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

    @bp.post(collect_path)
    def collect():
        service = ingestion()
        now = utc_now()
        site = None
        try:
            site, payload = _payload(service)
            _accept(service, site, payload, now)
        except Refusal as refusal:
            _count(service, now, refusal.site_id, refusal.reason, refusal.events)
            if refusal.reason == "bot":
                return _cors(Response(status=204), site)
            headers = {"Retry-After": "60"} if refusal.status == 429 else None
            return _cors(error_response(refusal.status, refusal.reason, refusal.message, headers=headers), site)
        return _cors(Response(status=204), site)

    def _payload(service) -> tuple[SiteConfig, dict]:
        request.max_content_length = BROWSER_BODY_LIMIT
        try:
            payload = parse_json(request.get_data())
        except ValueError:
            raise Refusal(400, "invalid_payload", "The body is not the script's JSON payload.", UNKNOWN_SITE_ID, 1)
        if not isinstance(payload, dict):
            raise Refusal(400, "invalid_payload", "The body is not the script's JSON payload.", UNKNOWN_SITE_ID, 1)
        events = payload.get("events")
        count = len(events) if isinstance(events, list) and events else 1
        site_id = payload.get("site")
        try:
            site = service.site_config(site_id) if isinstance(site_id, str) else None
        except DatabaseDown:
            raise database_unavailable() from None
        if site is None:
            raise Refusal(404, "unknown_site", "No site has this id.", UNKNOWN_SITE_ID, count)
        if not site.allows_origin(request.headers.get("Origin")):
            raise Refusal(403, "origin_not_allowed", "This origin is not among the site's domains.", site.site_id, count)
        if set(payload) - {"site", "visitor", "events"} or not isinstance(events, list) \
                or not 1 <= len(events) <= MAX_BROWSER_EVENTS_PER_REQUEST:
            raise Refusal(400, "invalid_payload",
                          f"The payload holds site, an optional visitor and 1 to {MAX_BROWSER_EVENTS_PER_REQUEST} events.",
                          site.site_id, count)
        visitor = payload.get("visitor")
        if visitor is not None and not (isinstance(visitor, str) and VISITOR_COOKIE.fullmatch(visitor)):
            raise Refusal(400, "invalid_payload", "visitor is not a _vis cookie value.", site.site_id, count)
        return site, payload

    def _accept(service, site: SiteConfig, payload: dict, now: datetime) -> None:
        events = payload["events"]
        user_agent = request.headers.get("User-Agent")
        if is_bot(user_agent):
            raise Refusal(204, "bot", "", site.site_id, len(events))
        ip = client_ip(request.remote_addr, request.headers.get("X-Forwarded-For"), settings.trusted_proxies)
        if not service.address_limit.allow(ip, len(events)):
            raise Refusal(429, "rate_limited", "Too many events from this address; slow down.", site.site_id, len(events))
        try:
            rows, refused = service.browser_rows(site, events, visitor=payload.get("visitor"), ip=ip,
                                                 user_agent=user_agent, now=now)
        except SaltUnavailable:
            raise database_unavailable() from None
        rejections = [[site.site_id, "invalid_payload", _minute(now), refused]] if refused else None
        try:
            service.store(rows, rejections=rejections)
        except WriterUnavailable:
            raise database_unavailable() from None

    def _count(service, now: datetime, site_id: str, reason: str, events: int) -> None:
        try:
            service.store([], rejections=[[site_id, reason, _minute(now), events]])
        except WriterUnavailable:
            pass  # a count is not worth failing the answer for

    return bp

