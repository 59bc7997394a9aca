"""`POST /collect` (path renamable: `collect_path`), the tracking script's beacon, as plain WSGI.

It is the collector's hottest path: one small request per page view or click, thousands a
second. Flask's request context, routing and response objects cost about as much CPU as
everything the beacon itself does, so this endpoint sits in front of the Flask app as a WSGI
middleware and answers on its own; every other request goes on to Flask. The rules are the
endpoint's (collector_app/tracker/README.md):

- 204 when the events are durable (committed or spooled); bots get a 204 too (nothing to learn
  from the answer);
- refusals answer the structured error and are counted by reason in the site's check figures:
  400 `invalid_payload` (413 for a body past the limit), 403 `origin_not_allowed`, 404
  `unknown_site`, 429 `rate_limited`; 503 `database_unavailable` when the events could be
  neither committed nor spooled;
- CORS headers only for the site's own origins; cookies sent along with a beacon are ignored.
"""
from __future__ import annotations

import json
import logging
from datetime import datetime
from http import HTTPStatus

from flask import Response

from collector_app.collect_api.context import database_unavailable, ingestion, parse_json
from collector_app.errors import ApiError, error_document, internal_error
from pipelines.ingest.browser import UNKNOWN_SITE_ID, SiteConfig, client_ip, is_bot
from pipelines.ingest.events import MAX_BROWSER_EVENTS_PER_REQUEST, VISITOR_COOKIE
from pipelines.ingest.service import DatabaseDown, utc_now
from pipelines.ingest.visitors import SaltUnavailable
from pipelines.ingest.writer import WriterUnavailable

_log = logging.getLogger(__name__)

# sendBeacon refuses bodies past 64 KiB; a little room for fetch.
BROWSER_BODY_LIMIT = 96 * 1024
_STATUS_LINES = {status.value: f"{status.value} {status.phrase}" for status in HTTPStatus}
_PAYLOAD_SHAPE = f"The payload holds site, an optional visitor and 1 to {MAX_BROWSER_EVENTS_PER_REQUEST} events."


class Refusal(Exception):
    """A refused beacon: answered with `status` and counted under `reason` for `site_id`."""

    def __init__(self, status: int, reason: str, message: str, site_id: str, events: int, site=None,
                 headers: tuple = (), code: str | None = None):
        super().__init__(message)
        self.status, self.reason, self.message, self.site_id, self.events = status, reason, message, site_id, events
        self.site, self.headers, self.code = site, headers, code or reason


def _minute(now: datetime) -> str:
    return now.replace(second=0, microsecond=0).isoformat()


def _too_large() -> Refusal:
    return Refusal(413, "invalid_payload", f"The body is larger than {BROWSER_BODY_LIMIT} bytes.", UNKNOWN_SITE_ID, 1,
                   code="payload_too_large")


def _error_body(code: str, message: str) -> bytes:
    return json.dumps(error_document(code, message)).encode()


class BeaconEndpoint:
    """WSGI middleware: answers `POST <collect_path>` itself and hands everything else to `app`."""

    def __init__(self, flask_app, wsgi_app):
        self.flask_app = flask_app
        self.next = wsgi_app
        self.settings = flask_app.config["ANALYTICS_SETTINGS"]
        self.path = self.settings.collect_path

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") != self.path or environ.get("REQUEST_METHOD") != "POST":
            return self.next(environ, start_response)
        status, headers, body = self.answer(environ)
        start_response(_STATUS_LINES[status], headers)
        return [body]

    def flask_response(self, environ):
        """The same answer as a Flask response (for a request that reached Flask's router)."""
        status, headers, body = self.answer(environ)
        return Response(body, status=status, headers=headers)

    def answer(self, environ) -> tuple[int, list[tuple[str, str]], bytes]:
        service = ingestion(self.flask_app)
        now = utc_now()
        origin = environ.get("HTTP_ORIGIN")
        site = None
        try:
            site, payload = self._payload(service, environ, origin)
            self._accept(service, environ, site, payload, now)
        except Refusal as refusal:
            self._count(service, now, refusal.site_id, refusal.reason, refusal.events)
            if refusal.reason == "bot":
                return 204, self._cors([], refusal.site, origin), b""
            headers = [("Content-Type", "application/json"), *refusal.headers]
            return refusal.status, self._cors(headers, refusal.site, origin), _error_body(refusal.code, refusal.message)
        except ApiError as error:  # database_unavailable(): neither committed nor spooled, not counted
            return self._error(error, site, origin)
        except Exception:
            # Logged without the request: its body or headers hold an address.
            _log.exception("unexpected error on a beacon")
            return self._error(internal_error(), None, origin)
        return 204, self._cors([], site, origin), b""

    def _error(self, error: ApiError, site: SiteConfig | None, origin: str | None):
        headers = [("Content-Type", "application/json"), *error.headers.items()]
        return error.status, self._cors(headers, site, origin), _error_body(error.code, error.message)

    @staticmethod
    def _cors(headers: list, site: SiteConfig | None, origin: str | None) -> list:
        headers.append(("Vary", "Origin"))
        if site is not None and origin and site.allows_origin(origin):
            headers.append(("Access-Control-Allow-Origin", origin))
        return headers

    @staticmethod
    def _body(environ) -> bytes:
        """The body, at most BROWSER_BODY_LIMIT bytes (a Refusal with 413 beyond)."""
        try:
            declared = int(environ.get("CONTENT_LENGTH") or -1)
        except ValueError:
            declared = -1
        if declared > BROWSER_BODY_LIMIT:
            raise _too_large()
        stream = environ["wsgi.input"]
        body = stream.read(declared) if declared >= 0 else stream.read(BROWSER_BODY_LIMIT + 1)
        if len(body) > BROWSER_BODY_LIMIT:
            raise _too_large()
        return body

    def _payload(self, service, environ, origin: str | None) -> tuple[SiteConfig, dict]:
        body = self._body(environ)
        try:
            payload = parse_json(body)
        except ValueError:
            payload = None
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
        if not site.allows_origin(origin):
            raise Refusal(403, "origin_not_allowed", "This origin is not among the site's domains.",
                          site.site_id, count, site)
        if set(payload) - {"site", "visitor", "events"} or not isinstance(events, list) \
                or not 1 <= len(events) <= MAX_BROWSER_EVENTS_PER_REQUEST:
            raise Refusal(400, "invalid_payload", _PAYLOAD_SHAPE, site.site_id, count, site)
        visitor = payload.get("visitor")
        if visitor is not None and not (isinstance(visitor, str) and VISITOR_COOKIE.fullmatch(visitor)):
            raise Refusal(400, "invalid_payload", "visitor is not a _vis cookie value.", site.site_id, count, site)
        return site, payload

    def _accept(self, service, environ, site: SiteConfig, payload: dict, now: datetime) -> None:
        events = payload["events"]
        user_agent = environ.get("HTTP_USER_AGENT")
        if is_bot(user_agent):
            raise Refusal(204, "bot", "", site.site_id, len(events), site)
        ip = client_ip(environ.get("REMOTE_ADDR"), environ.get("HTTP_X_FORWARDED_FOR"), self.settings.trusted_proxies)
        if not service.address_limit.allow(ip, len(events)):
            raise Refusal(429, "rate_limited", "Too many events from this address; slow down.", site.site_id,
                          len(events), site, headers=(("Retry-After", "60"),))
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

    @staticmethod
    def _count(service, now: datetime, site_id: str, reason: str, events: int) -> None:
        try:
            service.store([], rejections=[[site_id, reason, _minute(now), events]])
        except WriterUnavailable:
            pass  # a count is not worth failing the answer for
