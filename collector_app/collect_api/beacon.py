"""`POST /collect` (path renamable: `collect_path`), the tracking script's beacon: its rules, once,
for both servers that answer it.

It is the collector's hottest path: one small request per page view or click, thousands a
second. The collector's server answers it in the event loop, before anything reaches Flask
(`collector_app/collect_api/beacon_asgi.py`); the WSGI middleware here answers it for the Flask
app used on its own (tests, `flask run`). Both read the request into a `BeaconRequest`, ask
`BeaconRules.decide` for a `Decision` (the answer, and what to hand to the writer), wait on the
writer their own way, and answer `BeaconRules.answer(decision, written)`. The rules are the
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
from dataclasses import dataclass
from datetime import datetime
from http import HTTPStatus
from typing import NamedTuple

from flask import Response

from collector_app.collect_api.context import database_unavailable, ingestion, parse_json
from collector_app.errors import ApiError, error_document, internal_error
from pipelines.ingest.browser import UNKNOWN_SITE_ID, SiteConfig, client_ip, is_bot
from pipelines.ingest.event_model import MAX_BROWSER_EVENTS_PER_REQUEST, BrowserBatch
from pipelines.ingest.events import VISITOR_COOKIE
from pipelines.ingest.service import CacheMiss, DatabaseDown, Ingestion, utc_now
from pipelines.ingest.visitors import SaltUnavailable
from pipelines.ingest.writer import WriterUnavailable

_log = logging.getLogger(__name__)

# sendBeacon refuses bodies past 64 KiB; a little room for fetch.
BROWSER_BODY_LIMIT = 96 * 1024
STATUS_LINES = {status.value: f"{status.value} {status.phrase}" for status in HTTPStatus}
_PAYLOAD_SHAPE = f"The payload holds site, an optional visitor and 1 to {MAX_BROWSER_EVENTS_PER_REQUEST} events."
_PAYLOAD_KEYS = frozenset(BrowserBatch.__struct_fields__)


class BeaconRequest(NamedTuple):
    """What the rules read of a request; `body` is None when it was past the limit."""

    body: bytes | None
    origin: str | None
    user_agent: str | None
    remote_addr: str | None
    forwarded_for: str | None


def declared_length(content_length: str | bytes | None) -> int:
    """The length a Content-Length header announces, -1 when there is none or it is not a number."""
    try:
        return int(content_length or -1)
    except ValueError:
        return -1


@dataclass(slots=True)
class Decision:
    """The answer to a beacon, and what the writer must make durable before it is sent: the rows of
    accepted events, or only the count of refused ones (a count that cannot be written is not
    worth failing the answer for, events that cannot be are: 503)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    rows: list[tuple] | None = None  # None: nothing to write
    rejections: list[list] | None = None
    site: SiteConfig | None = None
    origin: str | None = None

    @property
    def writes(self) -> bool:
        return self.rows is not None or self.rejections is not None


class Refusal(Exception):
    """A refused beacon: answered with `status` and counted under `reason` for `site_id`."""

    def __init__(self, status: int, reason: str, message: str, site_id: str, events: int, site=None,
                 headers: tuple = (), code: str | None = None):
        super().__init__(message)
        self.status, self.reason, self.message, self.site_id, self.events = status, reason, message, site_id, events
        self.site, self.headers, self.code = site, headers, code or reason


def _minute(now: datetime) -> str:
    return now.replace(second=0, microsecond=0).isoformat()


def _error_body(code: str, message: str) -> bytes:
    return json.dumps(error_document(code, message)).encode()


def _cors(headers: list, site: SiteConfig | None, origin: str | None) -> list:
    headers.append(("Vary", "Origin"))
    if site is not None and origin and site.allows_origin(origin):
        headers.append(("Access-Control-Allow-Origin", origin))
    return headers


class BeaconRules:
    """The beacon's rules, without HTTP and without waiting: `decide`, then `answer`."""

    def __init__(self, service: Ingestion, trusted_proxies: tuple[str, ...]):
        self.service = service
        self.trusted_proxies = trusted_proxies

    def decide(self, request: BeaconRequest, now: datetime, may_block: bool = True) -> Decision:
        """The decision on a beacon. With `may_block` False, CacheMiss instead of a database read
        (the site's config or the day's salt not at hand): decide again where a read may wait."""
        origin = request.origin
        site = None
        try:
            site, payload = self._payload(request, may_block)
            rows, rejections = self._accept(request, site, payload, now, may_block)
        except Refusal as refusal:
            count = [[refusal.site_id, refusal.reason, _minute(now), refusal.events]]
            if refusal.reason == "bot":
                return Decision(204, _cors([], refusal.site, origin), b"", rejections=count)
            headers = [("Content-Type", "application/json"), *refusal.headers]
            return Decision(refusal.status, _cors(headers, refusal.site, origin),
                            _error_body(refusal.code, refusal.message), rejections=count)
        except ApiError as error:  # database_unavailable(): neither committed nor spooled, not counted
            return self._error(error, site, origin)
        except CacheMiss:
            raise
        except Exception:
            # Logged without the request: its body or headers hold an address.
            _log.exception("unexpected error on a beacon")
            return self._error(internal_error(), None, origin)
        return Decision(204, _cors([], site, origin), b"", rows, rejections, site, origin)

    def answer(self, decision: Decision, written: bool) -> tuple[int, list[tuple[str, str]], bytes]:
        """Status, headers and body once the writer is done; `written` False: WriterUnavailable."""
        if not written and decision.rows is not None:
            decision = self._error(database_unavailable(), decision.site, decision.origin)
        return decision.status, decision.headers, decision.body

    @staticmethod
    def _error(error: ApiError, site: SiteConfig | None, origin: str | None) -> Decision:
        headers = [("Content-Type", "application/json"), *error.headers.items()]
        return Decision(error.status, _cors(headers, site, origin), _error_body(error.code, error.message))

    def _payload(self, request: BeaconRequest, may_block: bool) -> tuple[SiteConfig, dict]:
        if request.body is None:
            raise Refusal(413, "invalid_payload", f"The body is larger than {BROWSER_BODY_LIMIT} bytes.",
                          UNKNOWN_SITE_ID, 1, code="payload_too_large")
        try:
            payload = parse_json(request.body)
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            raise Refusal(400, "invalid_payload", "The body is not the script's JSON payload.", UNKNOWN_SITE_ID, 1)
        events = payload.get("events")
        count = len(events) if isinstance(events, list) and events else 1
        site_id = payload.get("site")
        try:
            site = self.service.site_config(site_id, may_block) if isinstance(site_id, str) else None
        except DatabaseDown:
            raise database_unavailable() from None
        if site is None:
            raise Refusal(404, "unknown_site", "No site has this id.", UNKNOWN_SITE_ID, count)
        if not site.allows_origin(request.origin):
            raise Refusal(403, "origin_not_allowed", "This origin is not among the site's domains.",
                          site.site_id, count, site)
        if not _PAYLOAD_KEYS.issuperset(payload) or not isinstance(events, list) \
                or not 1 <= len(events) <= MAX_BROWSER_EVENTS_PER_REQUEST:
            raise Refusal(400, "invalid_payload", _PAYLOAD_SHAPE, site.site_id, count, site)
        visitor = payload.get("visitor")
        if visitor is not None and not (isinstance(visitor, str) and VISITOR_COOKIE.fullmatch(visitor)):
            raise Refusal(400, "invalid_payload", "visitor is not a _vis cookie value.", site.site_id, count, site)
        return site, payload

    def _accept(self, request: BeaconRequest, site: SiteConfig, payload: dict, now: datetime,
                may_block: bool) -> tuple[list[tuple], list[list] | None]:
        events = payload["events"]
        user_agent = request.user_agent
        if is_bot(user_agent):
            raise Refusal(204, "bot", "", site.site_id, len(events), site)
        ip = client_ip(request.remote_addr, request.forwarded_for, self.trusted_proxies)
        service = self.service
        # The salt before the rate limit: a CacheMiss must not leave tokens taken from the bucket.
        try:
            visitor, salt = service.beacon_visitor(site, payload.get("visitor"), ip, now, may_block)
        except SaltUnavailable:
            raise database_unavailable() from None
        if not service.address_limit.allow(ip, len(events)):
            raise Refusal(429, "rate_limited", "Too many events from this address; slow down.", site.site_id,
                          len(events), site, headers=(("Retry-After", "60"),))
        rows, refused = service.browser_rows(site, events, visitor=visitor, salt=salt, ip=ip, user_agent=user_agent,
                                             now=now)
        return rows, [[site.site_id, "invalid_payload", _minute(now), refused]] if refused else None


class BeaconEndpoint:
    """WSGI middleware: answers `POST <collect_path>` itself and hands everything else to `app`."""

    def __init__(self, flask_app, wsgi_app):
        self.flask_app = flask_app
        self.next = wsgi_app
        self.settings = flask_app.config["ANALYTICS_SETTINGS"]
        self.path = self.settings.collect_path
        self._rules: BeaconRules | None = None

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") != self.path or environ.get("REQUEST_METHOD") != "POST":
            return self.next(environ, start_response)
        status, headers, body = self.answer(environ)
        start_response(STATUS_LINES[status], headers)
        return [body]

    def flask_response(self, environ):
        """The same answer as a Flask response (for a request that reached Flask's router)."""
        status, headers, body = self.answer(environ)
        return Response(body, status=status, headers=headers)

    def rules(self) -> BeaconRules:
        """The rules over the app's Ingestion (created on first use: after gunicorn's fork)."""
        if self._rules is None:
            self._rules = BeaconRules(ingestion(self.flask_app), self.settings.trusted_proxies)
        return self._rules

    def answer(self, environ) -> tuple[int, list[tuple[str, str]], bytes]:
        rules = self.rules()
        request = BeaconRequest(self._body(environ), environ.get("HTTP_ORIGIN"), environ.get("HTTP_USER_AGENT"),
                                environ.get("REMOTE_ADDR"), environ.get("HTTP_X_FORWARDED_FOR"))
        decision = rules.decide(request, utc_now())
        written = True
        if decision.writes:
            try:
                rules.service.store(decision.rows or [], rejections=decision.rejections)
            except WriterUnavailable:
                written = False
        return rules.answer(decision, written)

    @staticmethod
    def _body(environ) -> bytes | None:
        """The body, or None past BROWSER_BODY_LIMIT bytes."""
        declared = declared_length(environ.get("CONTENT_LENGTH"))
        if declared > BROWSER_BODY_LIMIT:
            return None
        stream = environ["wsgi.input"]
        body = stream.read(declared) if declared >= 0 else stream.read(BROWSER_BODY_LIMIT + 1)
        return None if len(body) > BROWSER_BODY_LIMIT else body
