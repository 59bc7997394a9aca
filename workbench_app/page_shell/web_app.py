"""The web application: the Vite build of `workbench_app/frontend`, served by Flask.

`index.html` answers every application route (the browser routes from there), with the API
answers its screen starts with inside (`first_reads.py`), and is never cached; the hashed assets
under `/assets/` are cached for a year. Every page forbids framing (the embed entry, when it
exists, sets its own `frame-ancestors`).
"""
from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Flask, Response, request, send_from_directory, stream_with_context
from werkzeug.routing import PathConverter

from workbench_app.page_shell import first_reads

BUILD = Path(__file__).parents[1] / "frontend" / "dist"
ONE_YEAR = 365 * 24 * 3600


class AppRoute(PathConverter):
    """A path of the browser's router: anything but the server's own paths, which keep their 404 and 405."""

    regex = r"(?!(?:api|mcp|healthz|assets|embed|unsubscribe)(?:/|$))[^/].*?"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)

blueprint = Blueprint("web_app", __name__)


@blueprint.get("/")
@blueprint.get("/<app_route:route>")
def index(route: str = ""):
    page = BUILD / "index.html"
    if not page.is_file():
        return Response("The web application is not built: run `make frontend` (or `make run`).\n",
                        status=503, mimetype="text/plain")
    head, tail = _page(page.stat().st_mtime)

    def body():
        # The head goes out first: the browser fetches and compiles the scripts while the reads run.
        yield head
        yield first_reads.element(first_reads.first_reads(request.path)) + tail

    response = Response(stream_with_context(body()), mimetype="text/html")
    response.headers["Cache-Control"] = "no-store"  # it holds the session's CSRF token and the person's data
    return response


@lru_cache(maxsize=2)
def _page(mtime: float) -> tuple[str, str]:
    """`index.html` cut where the first reads go, before `</body>` (read once per build: its
    modification time is part of the key)."""
    html = (BUILD / "index.html").read_text(encoding="utf-8")
    cut = html.rindex("</body>")
    return html[:cut], html[cut:]


@lru_cache(maxsize=256)
def _compressed(path: Path, mtime: float) -> bytes:
    # Hashed assets never change under their name: each is compressed once per worker.
    return gzip.compress(path.read_bytes(), compresslevel=9, mtime=0)


@blueprint.get("/assets/<path:name>")
def asset(name: str):
    response = send_from_directory(BUILD / "assets", name, max_age=ONE_YEAR)
    response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"
    response.vary.add("Accept-Encoding")
    if response.status_code == 200 and "gzip" in request.accept_encodings and name.endswith((".js", ".css", ".svg")):
        path = (BUILD / "assets" / name).resolve()
        response.direct_passthrough = False
        response.set_data(_compressed(path, path.stat().st_mtime))
        response.headers["Content-Encoding"] = "gzip"
    return response


def add_security_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    if "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]:
        # The embed page names the hosts that may frame it; X-Frame-Options cannot, so it is left out there.
        response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def register_web_app(app: Flask) -> None:
    app.url_map.converters["app_route"] = AppRoute
    app.register_blueprint(blueprint)
    app.after_request(add_security_headers)
