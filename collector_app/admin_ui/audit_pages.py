"""The audit log, filtered by site, kind of action and dates."""
from __future__ import annotations

import datetime as dt

from flask import Blueprint, render_template, request

from collector_app.admin_ui.forms import read
from pipelines.admin import audit_log, sites

# The kinds offered in the filter: the prefixes of the actions the collector records.
KINDS = ("site", "server_key", "declared_event", "zone", "goal", "annotation", "classifications", "channel_rules",
         "privacy_request", "admin_user", "admin_token", "inbound_source", "daily_salts", "retention")
PAGE_SIZE = 100


def _date(name: str) -> dt.date | None:
    raw = request.args.get(name, "")
    try:
        return dt.date.fromisoformat(raw) if len(raw) == 10 else None
    except ValueError:
        return None


def audit():
    site_id = request.args.get("site", "")
    kind = request.args.get("kind", "")
    date_from, date_to = _date("from"), _date("to")
    before = request.args.get("before", "")

    def load(conn):
        all_sites = sites.list_sites(conn)
        site = next((str(s["id"]) for s in all_sites if str(s["id"]) == site_id), None)
        entries = audit_log.list_entries(
            conn, action=f"{kind}.*" if kind in KINDS else None, site_id=site,
            since=dt.datetime.combine(date_from, dt.time(), dt.timezone.utc) if date_from else None,
            until=dt.datetime.combine(date_to + dt.timedelta(days=1), dt.time(), dt.timezone.utc) if date_to else None,
            before_id=int(before) if before.isdigit() and len(before) < 19 else None, limit=PAGE_SIZE)
        return all_sites, entries
    all_sites, entries = read(load)
    names = {str(site["id"]): site["name"] for site in all_sites}
    return render_template("admin/audit.html", sites=all_sites, names=names, entries=entries, kinds=KINDS,
                           filters={"site": site_id, "kind": kind, "from": request.args.get("from", ""),
                                    "to": request.args.get("to", "")})


def register(ui: Blueprint) -> None:
    ui.add_url_rule("/audit", "audit", audit)
