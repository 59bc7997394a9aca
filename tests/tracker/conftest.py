"""Browser fixtures for the tracking script.

Headless Debian Chromium (driven by Playwright through `executable_path`; nothing is downloaded)
loads test pages from one port of 127.0.0.1 and the script from another, so the collector is
cross-origin as in production. The collector side is `CaptureCollector`, a test peer that serves
the rendered script and the site configs and records every request the browser makes; the same
tests are meant to run later against the real collector, through the same small interface
(`base_url`, `add_site`, `payloads`, `wait_events`, `requests`).
"""
from __future__ import annotations

import io
import itertools
import json
import os
import re
import sys
import threading
import time
import wave
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from collector_app.tracker import tracker_asset

CHROMIUM = "/usr/bin/chromium"
# A regular desktop user agent: the real collector filters bots, and HeadlessChrome is one.
DESKTOP_UA = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/156.0.0.0 Safari/537.36")
# The user agent is set for the whole browser, not per context: a context's override does not
# reach a beacon sent while its page unloads (pagehide on navigation), which carries the
# browser's own "HeadlessChrome" user agent and would be filtered as a bot.
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-agent={DESKTOP_UA}"]
PAGES_DIR = Path(__file__).with_name("pages")
MODES = ("cookieless", "cookie", "consent")
# Script paths the peer serves, and the endpoint path each one is rendered with.
SCRIPTS = {"/a.js": "/collect", "/s.js": "/ingest/v1"}
DEFAULT_CONFIG = {
    "zones": [],
    "downloads": ["pdf", "zip", "csv", "docx"],
    "search_params": ["q", "s", "search"],
    "consent_granted_default": False,
}


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A page that unloads may close its connection before the answer: not a test failure.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class Recorded:
    """One HTTP request received by the capture collector."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes
    at: float = field(default_factory=time.time)

    def json(self):
        return json.loads(self.body)


class CaptureCollector:
    """Test peer of the browser: serves `/a.js` and site configs, records what the script sends."""

    def __init__(self):
        self.requests: list[Recorded] = []
        self.configs: dict[str, dict] = {}
        self.changed = threading.Condition()
        self._ids = itertools.count(1)
        self.server = QuietServer(("127.0.0.1", 0), self._handler())
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def add_site(self, mode: str, **config) -> str:
        """Declare a site with its tracking mode and config; returns its new site id."""
        site = f"site-{next(self._ids)}-{mode}"
        self.configs[site] = {**DEFAULT_CONFIG, "mode": mode, **config}
        return site

    def record(self, request: Recorded):
        with self.changed:
            self.requests.append(request)
            self.changed.notify_all()

    def requests_for(self, site: str) -> list[Recorded]:
        """Config fetches and posts of one site (posts are attributed by their body)."""
        found = []
        for r in list(self.requests):
            if r.method == "GET" and r.query.get("site") == [site]:
                found.append(r)
            elif r.method == "POST" and _site_of(r) == site:
                found.append(r)
        return found

    def payloads(self, site: str) -> list[dict]:
        return [r.json() for r in self.requests_for(site) if r.method == "POST"]

    def events(self, site: str) -> list[dict]:
        """Every event of the site, in arrival order, each with the payload's visitor (or None)
        under the test-only key `_visitor`."""
        return [{**e, "_visitor": p.get("visitor")} for p in self.payloads(site) for e in p["events"]]

    def wait_events(self, site: str, name: str | None = None, count: int = 1, timeout: float = 10,
                    where=lambda e: True) -> list[dict]:
        """Wait until `count` events of `site` match (name: an event name, or "pageview")."""
        def matching():
            return [e for e in self.events(site)
                    if (name is None or e.get("name", e["type"]) == name) and where(e)]
        deadline = time.monotonic() + timeout
        with self.changed:
            while len(found := matching()) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [e.get("name", e["type"]) for e in self.events(site)]
                    raise AssertionError(f"waited {timeout}s for {count} x {name!r} on {site}; got {seen}")
                self.changed.wait(min(left, 0.1))
        return found

    def _handler(self):
        collector = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _record(self) -> Recorded:
                length = int(self.headers.get("Content-Length") or 0)
                url = urlsplit(self.path)
                request = Recorded(self.command, url.path, parse_qs(url.query),
                                   {k.lower(): v for k, v in self.headers.items()},
                                   self.rfile.read(length) if length else b"")
                collector.record(request)
                return request

            def _send(self, status: int, body: bytes = b"", headers: dict | None = None):
                self.send_response(status)
                origin = self.headers.get("Origin")
                if origin:
                    self.send_header("Access-Control-Allow-Origin", origin)
                    self.send_header("Vary", "Origin")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def do_GET(self):
                request = self._record()
                if request.path in SCRIPTS:
                    self._serve_script(SCRIPTS[request.path])
                elif request.path in SCRIPTS.values():
                    site = (request.query.get("site") or [""])[0]
                    config = collector.configs.get(site)
                    if config is None:
                        self._send(404, b'{"error":{"code":"unknown_site"}}',
                                   {"Content-Type": "application/json"})
                    else:
                        self._send(200, json.dumps(config).encode(), {"Content-Type": "application/json"})
                else:
                    self._send(404)

            def _serve_script(self, endpoint_path: str):
                # Served the way the Flask route will: strong ETag, revalidation, gzip.
                asset = tracker_asset(endpoint_path)
                gzip = "gzip" in self.headers.get("Accept-Encoding", "")
                etag = asset.gzip_etag if gzip else asset.etag
                headers = {"ETag": etag, "Cache-Control": "public, max-age=300", "Vary": "Accept-Encoding",
                           "Content-Type": "text/javascript; charset=utf-8"}
                if self.headers.get("If-None-Match") == etag:
                    self._send(304, b"", headers)
                elif gzip:
                    self._send(200, asset.gzip_body, {**headers, "Content-Encoding": "gzip"})
                else:
                    self._send(200, asset.body, headers)

            def do_POST(self):
                self._record()
                self._send(204)

            def do_OPTIONS(self):
                # Recorded so that a test can prove that no preflight ever happens.
                self._record()
                self._send(204, b"", {"Access-Control-Allow-Methods": "POST",
                                      "Access-Control-Allow-Headers": "Content-Type"})

        return Handler


def _site_of(request: Recorded) -> str | None:
    try:
        return request.json().get("site")
    except (ValueError, AttributeError):
        return None


def silent_wav(seconds: float = 2.0, rate: int = 8000) -> bytes:
    """A short silent PCM WAV: real media that Chromium plays in a <video> element, made here."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(rate)
        w.writeframes(b"\x80" * int(seconds * rate))
    return out.getvalue()


class PageServer:
    """Serves tests/tracker/pages/ under /<site>/<page>, with the tag pointing at the collector."""

    def __init__(self, collector_url: str):
        self.collector_url = collector_url
        self.wav = silent_wav()
        self.server = QuietServer(("127.0.0.1", 0), self._handler())
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        # Another host name for the same server: links there are outbound.
        self.other_url = f"http://localhost:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def url(self, site: str, page: str) -> str:
        return f"{self.base_url}/{site}/{page}"

    def _handler(self):
        pages = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status, body=b"", content_type="text/html; charset=utf-8", headers=None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                match = re.fullmatch(r"/([\w-]+)/(.+)", urlsplit(self.path).path)
                if not match:
                    return self._send(404)
                site, name = match.groups()
                if name.startswith("media/"):
                    return self._send_media()
                if name.startswith("files/"):
                    return self._send(200, b"%PDF-1.4 test file\n", "application/octet-stream",
                                      {"Content-Disposition": "attachment"})
                path = PAGES_DIR / Path(name).name
                if not path.is_file():
                    return self._send(404)
                html = (path.read_text(encoding="utf-8")
                        .replace("{{COLLECTOR}}", pages.collector_url)
                        .replace("{{OTHER}}", f"{pages.other_url}/{site}")
                        .replace("{{SITE}}", site))
                self._send(200, html.encode())

            def do_POST(self):
                # Form targets: the submitted values are read and thrown away.
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.do_GET()

            def _send_media(self):
                data = pages.wav
                ranged = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
                if not ranged:
                    return self._send(200, data, "audio/wav", {"Accept-Ranges": "bytes"})
                start = int(ranged.group(1))
                end = int(ranged.group(2)) if ranged.group(2) else len(data) - 1
                self._send(206, data[start:end + 1], "audio/wav",
                           {"Accept-Ranges": "bytes", "Content-Range": f"bytes {start}-{end}/{len(data)}"})

        return Handler


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    message = f"{CHROMIUM} is not installed (Debian package chromium)"
    if os.environ.get("CI") == "true":
        pytest.fail(message + "; .ci/run must install it")
    pytest.skip(message)


class _SessionBrowser:
    """The one Chromium of the test session. Packages that import the `browser` fixture get
    fixtures of their own, and Playwright's sync API runs one instance per thread: they share
    this one, closed when the last of them is torn down."""

    users = 0
    playwright = None
    browser = None


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    shared = _SessionBrowser
    if shared.users == 0:
        shared.playwright = sync_playwright().start()
        shared.browser = shared.playwright.chromium.launch(executable_path=chromium_path, args=LAUNCH_ARGS)
    shared.users += 1
    yield shared.browser
    shared.users -= 1
    if shared.users == 0:
        shared.browser.close()
        shared.playwright.stop()


@pytest.fixture(scope="session")
def collector():
    peer = CaptureCollector().start()
    yield peer
    peer.stop()


@pytest.fixture(scope="session")
def pages(collector):
    server = PageServer(collector.base_url).start()
    yield server
    server.stop()


@pytest.fixture
def make_context(browser):
    """New isolated browser contexts (own cookies and storage), closed after the test."""
    contexts = []

    def make(screen_width: int = 1280, **options):
        context = browser.new_context(
            locale="fr-FR",
            viewport={"width": min(screen_width, 1280), "height": 800},
            screen={"width": screen_width, "height": 900}, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def context(make_context):
    return make_context()


@pytest.fixture
def page(context):
    return context.new_page()


@pytest.fixture(autouse=True)
def no_preflight_and_plain_text(request):
    """After every browser test: no CORS preflight reached the collector, and every post was
    text/plain;charset=UTF-8."""
    if "collector" not in request.fixturenames:
        yield
        return
    collector = request.getfixturevalue("collector")
    start = len(collector.requests)
    yield
    mine = collector.requests[start:]
    assert [r.path for r in mine if r.method == "OPTIONS"] == []
    types = {r.headers.get("content-type", "").lower() for r in mine if r.method == "POST"}
    assert types <= {"text/plain;charset=utf-8"}, types


@dataclass
class Visit:
    """A site in one tracking mode, opened in a browser page."""

    collector: CaptureCollector
    pages: PageServer
    page: object
    site: str
    mode: str

    def url(self, name: str) -> str:
        return self.pages.url(self.site, name)

    def open(self, name: str):
        """Load a page of the site; returns its page view (a new one when the page was seen before)."""
        url = self.url(name)
        seen = sum(e["url"] == url for e in self.events("pageview"))
        self.page.goto(url)
        return self.wait("pageview", count=seen + 1, where=lambda e: e["url"] == url)[-1]

    def wait(self, name=None, count=1, timeout=10, where=lambda e: True):
        return self.collector.wait_events(self.site, name, count, timeout, where)

    def events(self, name=None):
        return [e for e in self.collector.events(self.site) if name is None or e.get("name", e["type"]) == name]

    def cookies(self, timeout: float = 5):
        """Cookies of the site's own host, by name. A write to document.cookie reaches the
        browser's cookie store asynchronously: on a page of that host, wait until the store has
        the names the page itself sees."""
        deadline = time.monotonic() + timeout
        while True:
            found = {c["name"]: c for c in self.page.context.cookies(self.pages.base_url)}
            if not self.page.url.startswith(self.pages.base_url + "/") or time.monotonic() > deadline:
                return found
            seen = self.page.evaluate("document.cookie.split('; ').filter(Boolean).map(c => c.split('=')[0])")
            if set(found) == set(seen):
                return found
            time.sleep(0.02)

    def set_hidden(self, hidden: bool) -> float:
        """Headless Chromium keeps every page visible (no window to minimise, background tabs
        included), so the Page Visibility state is emulated: the properties the script reads, then
        the event it listens to. Returns the page's clock (performance.now()) at the change."""
        return self.page.evaluate("""hidden => {
            Object.defineProperty(document, 'hidden', {value: hidden, configurable: true});
            Object.defineProperty(document, 'visibilityState', {value: hidden ? 'hidden' : 'visible', configurable: true});
            document.dispatchEvent(new Event('visibilitychange'));
            return performance.now();
        }""", hidden)

    def check_identity(self, granted: bool = False):
        """What each mode may write and send: cookieless nothing; cookie `_vis`, sent as visitor;
        consent nothing until granted."""
        # Pages of the site's own host (an outbound link may lead to another host of the test server).
        payloads = [p for p in self.collector.payloads(self.site)
                    if all(e["url"].startswith(self.pages.base_url) for e in p["events"])]
        assert payloads
        storage = self.page.evaluate("[document.cookie, localStorage.length, sessionStorage.length]")
        assert storage[1:] == [0, 0]
        if self.mode == "cookie" or granted:
            cookie = self.cookies()["_vis"]
            assert re.fullmatch(r"[0-9a-v]{26}", cookie["value"])
            assert {p.get("visitor") for p in payloads} == {cookie["value"]}
        else:
            assert storage[0] == "" and self.page.context.cookies() == []
            assert all("visitor" not in p for p in payloads)


@pytest.fixture
def visit(collector, pages, page):
    """Factory: `visit(mode, **config)` declares a site and returns its `Visit`."""
    def make(mode: str, **config) -> Visit:
        return Visit(collector, pages, page, collector.add_site(mode, **config), mode)
    return make
