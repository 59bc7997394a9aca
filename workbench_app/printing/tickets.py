"""Print tickets: how the server's own headless browser acts as the requesting person.

The person's session never leaves their browser. For one print the server issues a random ticket
bound to the person, the dashboard and the theme, adds it to the requests of its own headless page
(which never reach the network: dashboard_pdf answers them in-process) and revokes it when the
print ends; it also expires after a minute. A ticket opens only the few reads the print page makes,
of that one dashboard. A ticket of a shared dashboard's print (a public link, an embed) carries its
shared view: its card runs go through the same checks as the shared page's (only the filters the
link opens), so the ticket never reaches further than the link or the token it was issued for.
"""
from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

from workbench_app.accounts.identity import Identity
from workbench_app.errors import WorkbenchError

SCHEME = "PrintTicket"
LIFETIME_SECONDS = 60.0
# The endpoints the print page calls, each about the ticket's dashboard (checked on `dashboard_id`).
ALLOWED_ENDPOINTS = {"api_v1.dashboards.get_dashboard", "api_v1.dashboards.run_card",
                     "api_v1.themes.dashboard_theme"}
LOGO_ENDPOINT = "api_v1.themes.theme_logo"


@dataclass(frozen=True)
class PrintTicket:
    identity: Identity
    dashboard_id: int
    theme: dict[str, Any]
    expires_at: float
    shared: Any = None  # the sharing.shared_view.SharedView it prints, or None for a person's own print


_tickets: dict[str, PrintTicket] = {}
_lock = threading.Lock()


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def issue(identity: Identity, dashboard_id: int, theme: dict[str, Any], shared: Any = None) -> str:
    """A new ticket's secret (kept only as a digest here)."""
    secret = secrets.token_urlsafe(32)
    now = time.monotonic()
    with _lock:
        for key in [key for key, ticket in _tickets.items() if ticket.expires_at <= now]:
            del _tickets[key]
        _tickets[_digest(secret)] = PrintTicket(identity, dashboard_id, theme, now + LIFETIME_SECONDS, shared)
    return secret


def revoke(secret: str) -> None:
    with _lock:
        _tickets.pop(_digest(secret), None)


def authenticate(header: str, endpoint: str | None, view_args: dict[str, Any] | None) -> PrintTicket:
    """The ticket of an `Authorization: PrintTicket <secret>` header, for one of the print page's reads."""
    secret = header.partition(" ")[2].strip()
    with _lock:
        ticket = _tickets.get(_digest(secret))
    if ticket is None or ticket.expires_at <= time.monotonic():
        raise WorkbenchError(401, "unauthorized", "This print ticket is not valid.")
    if endpoint == LOGO_ENDPOINT:
        if str((view_args or {}).get("theme_id")) != str(ticket.theme.get("theme_id")):
            raise WorkbenchError(403, "forbidden", "A print ticket opens only its own dashboard.")
        return ticket
    if endpoint not in ALLOWED_ENDPOINTS or str((view_args or {}).get("dashboard_id")) != str(ticket.dashboard_id):
        raise WorkbenchError(403, "forbidden", "A print ticket opens only its own dashboard.")
    return ticket
