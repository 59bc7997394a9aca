"""`render_dashboard_pdf`: a dashboard as an A4 PDF, printed as someone, with filters and a theme.

Chromium (Debian's, driven by Playwright) opens the web application's print page of the dashboard
and prints it with `page.pdf`. The headless page never touches the network: every request it makes
is answered in-process by this same application (so there is no address to reach, no Host header to
trust, and nothing of the page can go elsewhere), the API's with a print ticket that acts as the
person for this one dashboard. Sharing and embedding call the same function with the identity the
link runs under and their shared view (`shared`), which the ticket carries.
"""
from __future__ import annotations

import datetime
import logging
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from flask import Flask, current_app

from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards
from workbench_app.errors import WorkbenchError
from workbench_app.printing import tickets
from workbench_app.printing.browser_slots import BROWSERS_AT_ONCE, slots
from workbench_app.printing.printers import Printers
from workbench_app.printing.page_templates import footer_template, header_template

log = logging.getLogger(__name__)

# An origin of the page's own: requests to it are answered in-process, every other is aborted.
ORIGIN = "http://print.localhost"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--disable-extensions"]
READY_TIMEOUT_MS = 40_000
# A4 by its millimetres: Playwright's format "A4" is 8.27 x 11.7 inches, a little larger (596 x 843 pt).
A4_MM = ("210mm", "297mm")
# The page is laid out at the printable width of A4 at 96 px per inch (Chromium's print scale).
VIEWPORT = {"portrait": {"width": 794, "height": 1123}, "landscape": {"width": 1123, "height": 794}}
printers = Printers(BROWSERS_AT_ONCE, LAUNCH_ARGS)
# The web application's build files, kept in memory once read by a print (at most this many: the
# build has about a hundred).
ASSETS = "/assets/"
ASSETS_KEPT = 400
_assets: dict[str, tuple[int, bytes, dict[str, str]]] = {}


def unavailable() -> WorkbenchError:
    return WorkbenchError(503, "pdf_unavailable", "PDF printing needs Chromium, which is not installed on this "
                                                  "server (Debian package chromium, or ANALYTICS_CHROMIUM_PATH).")


def chromium_executable(path: str) -> str:
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise unavailable()
    return path


def applied_filters(dashboard: dict[str, Any], values: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, value) of each filter with a value, given or default; a wrong value is refused by name."""
    applied = []
    for item in dashboard["filters"]:
        value = dashboards.filter_value(item, values.get(str(item["filter_id"]), item["default_value"]))
        if value is not None:
            applied.append((item["name"], str(value)))
    return applied


@dataclass(frozen=True)
class CardImage:
    """A question card of the print page as a PNG (a delivered report shows the first few inline)."""

    card_id: int
    title: str
    png: bytes


@dataclass(frozen=True)
class PrintedDashboard:
    pdf: bytes
    card_images: tuple[CardImage, ...] = ()


def render_dashboard_pdf(identity: Identity, dashboard_id: int, filters: dict[str, str],
                         theme: dict[str, Any], shared: Any = None) -> bytes:
    """The PDF of a dashboard as `identity` sees it, with filter values by filter id and a resolved theme;
    `shared`: the shared view (public link or embed) it is printed for, whose limits the ticket keeps."""
    return render_dashboard(identity, dashboard_id, filters, theme, shared).pdf


def render_dashboard(identity: Identity, dashboard_id: int, filters: dict[str, str], theme: dict[str, Any],
                     shared: Any = None, card_images: int = 0) -> PrintedDashboard:
    """The PDF, and PNGs of the first `card_images` question cards taken from the same page (one
    browser for both: the images are exactly what the PDF shows)."""
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    workbench = app.extensions["workbench"]
    with workbench.transaction() as conn:
        dashboard = dashboards.get_dashboard(conn, identity, dashboard_id)
    applied = applied_filters(dashboard, filters)
    chromium = chromium_executable(workbench.settings.chromium_path)
    layout = theme["settings"]
    query = {f"f.{key}": value for key, value in filters.items()}
    path = f"/print/dashboards/{dashboard_id}" + (f"?{urlencode(query)}" if query else "")
    printed_at = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = header_template(layout, dashboard["name"], applied)
    footer = footer_template(layout, printed_at)
    with slots.slot():
        secret = tickets.issue(identity, dashboard_id, theme, shared)
        try:
            return printers.print_with(chromium, lambda browser: _print(
                browser, app, secret, path, identity.locale, layout, header, footer, card_images))
        except ImportError:
            raise unavailable() from None
        except Exception as error:
            if not type(error).__module__.startswith("playwright"):
                raise
            # Chromium would not start, or died: the next print starts another.
            log.exception("starting the printer's browser failed")
            raise WorkbenchError(503, "pdf_failed", "The PDF could not be printed: try again.") from None
        finally:
            tickets.revoke(secret)


def _print(browser, app: Flask, secret: str, path: str, locale: str, layout: dict[str, Any],
           header: str, footer: str, card_images: int) -> PrintedDashboard:
    """Print in `browser` (a printer's, kept between prints), in a context of this print's own."""
    from playwright.sync_api import Error as PlaywrightError
    orientation = layout["pdf"]["orientation"]
    margins = {side: f"{mm}mm" for side, mm in layout["pdf"]["margins_mm"].items()}
    client = app.test_client()  # the in-process answerer of the headless page's requests

    def answer(route) -> None:
        request = route.request
        url = urlsplit(request.url)
        if f"{url.scheme}://{url.netloc}" != ORIGIN:
            route.abort()
            return
        if url.path.startswith(ASSETS) and request.method == "GET":
            # The build's hashed files never change under their name: answered from memory after the
            # first print (a print loads a couple of dozen of them).
            status, body, kept = _assets.get(url.path) or _asset(client, url.path)
            route.fulfill(status=status, body=body, headers=kept)
            return
        headers = {"Accept-Language": locale}
        if request.headers.get("content-type"):
            headers["Content-Type"] = request.headers["content-type"]
        if url.path.startswith("/api/"):
            headers["Authorization"] = f"{tickets.SCHEME} {secret}"
        response = client.open(url.path, method=request.method, query_string=url.query, headers=headers,
                               data=request.post_data_buffer)
        route.fulfill(status=response.status_code, body=response.get_data(), headers=_kept_headers(response))

    try:
        context = browser.new_context(locale=locale, viewport=VIEWPORT[orientation])
        try:
            page = context.new_page()
            page.route("**/*", answer)
            page.goto(ORIGIN + path, wait_until="domcontentloaded")
            page.wait_for_selector("html[data-print-ready]", state="attached", timeout=READY_TIMEOUT_MS)
            images = tuple(_card_image(card) for card in page.locator("section[data-card-id]").all()[:card_images])
            width, height = A4_MM if orientation == "portrait" else A4_MM[::-1]
            pdf = page.pdf(width=width, height=height, print_background=True,
                           display_header_footer=True, header_template=header, footer_template=footer,
                           margin=margins, prefer_css_page_size=False)
            return PrintedDashboard(pdf, images)
        finally:
            context.close()
    except PlaywrightError:
        log.exception("printing a dashboard failed")
        raise WorkbenchError(503, "pdf_failed", "The PDF could not be printed: try again.") from None


def _kept_headers(response) -> dict[str, str]:
    return {name: value for name, value in response.headers.items()
            if name.lower() not in ("content-length", "set-cookie")}


def _asset(client, path: str) -> tuple[int, bytes, dict[str, str]]:
    response = client.get(path)
    answer = (response.status_code, response.get_data(), _kept_headers(response))
    if response.status_code == 200 and len(_assets) < ASSETS_KEPT:
        _assets[path] = answer
    return answer


def _card_image(card) -> CardImage:
    return CardImage(int(card.get_attribute("data-card-id")), card.get_attribute("aria-label") or "",
                     card.screenshot(type="png", animations="disabled"))
