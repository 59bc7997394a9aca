"""Channel rules edited as rows, a tester, a preview of the past visits that would change
channel, and the rebuild's progress after saving (the pipeline's sensor on the rules' version
starts it; `analytics build` does it in process)."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from collector_app.admin_ui import one_time_values
from collector_app.admin_ui.forms import FormError, attempt, read
from collector_app.admin_ui.security import actor
from collector_app.admin_ui.site_pages import site_or_404
from pipelines.admin import channel_preview, channel_rules

BLANK_ROWS = 2
UTM_FIELDS = ("utm_source", "utm_medium", "utm_campaign")


def _rules_from_form(form) -> list[dict]:
    """The rows of the form, in the order of their position numbers; rows without a channel are
    blank rows left unused."""
    rows = []
    columns = zip(form.getlist("position"), form.getlist("channel"), form.getlist("source_pattern"),
                  form.getlist("medium_pattern"), form.getlist("campaign_pattern"), form.getlist("source_category"))
    for index, (position, channel, source, medium, campaign, category) in enumerate(columns):
        if not channel.strip() and not (source or medium or campaign or category):
            continue
        try:
            order = float(position)
        except ValueError:
            order = float(index + 1)
        rows.append((order, index, {"channel": channel, "source_pattern": source or None,
                                    "medium_pattern": medium or None, "campaign_pattern": campaign or None,
                                    "source_category": category or None}))
    return [rule for _, _, rule in sorted(rows, key=lambda row: row[:2])]


def _page(site_id: str, *, rules=None, error: FormError | None = None, tested=None, preview=None,
          saved: bool = False, status: int = 200):
    def load(conn):
        site = site_or_404(conn, site_id)
        saved_rules = channel_rules.get_rules(conn, site["id"])
        # How far the pipeline is from the saved rules: past visits still showing another channel.
        progress = channel_preview.preview_changes(conn, site["id"], None)
        return site, saved_rules, progress
    site, saved_rules, progress = read(load)
    return render_template("admin/channels.html", site=site, version=saved_rules, progress=progress,
                           rules=rules if rules is not None else saved_rules["rules"], error=error, tested=tested,
                           preview=preview, saved=saved, blank_rows=BLANK_ROWS, landing=request.form,
                           categories=channel_rules.SOURCE_CATEGORIES), status


def channels(site_id: str):
    if request.method == "GET":
        return _page(site_id, saved=bool(one_time_values.take(request.path)))
    rules = _rules_from_form(request.form)
    action = request.form.get("action", "preview")
    if action == "save":
        _, error = attempt(lambda conn: channel_rules.replace_rules(conn, site_id, {"rules": rules}, actor=actor()))
        if error is None:
            # Redirected, so a reload does not save another version of the rules.
            page = url_for("admin_ui.channels", site_id=site_id)
            return one_time_values.keep(redirect(page, code=303), page, {"saved": True})
        return _page(site_id, rules=rules, error=error, status=422)
    if action == "test":
        landing = {"url": request.form.get("url", ""), "referrer": request.form.get("referrer", ""),
                   "utm": {field: request.form.get(field, "") for field in UTM_FIELDS}}
        tested, error = attempt(lambda conn: channel_preview.channel_for_landing(conn, site_id, {"rules": rules},
                                                                                 **landing))
        return _page(site_id, rules=rules, tested=tested, error=error, status=422 if error else 200)
    preview, error = attempt(lambda conn: channel_preview.preview_changes(conn, site_id, {"rules": rules}))
    return _page(site_id, rules=rules, preview=preview, error=error, status=422 if error else 200)


def rebuild_progress(site_id: str):
    """The progress block alone, which the page's script refreshes until the rebuild is done."""
    def load(conn):
        site = site_or_404(conn, site_id)
        return site, channel_preview.preview_changes(conn, site["id"], None)
    site, progress = read(load)
    return render_template("admin/channel_progress.html", site=site, progress=progress)


def register(ui: Blueprint) -> None:
    ui.add_url_rule("/sites/<site_id>/channels", "channels", channels, methods=["GET", "POST"])
    ui.add_url_rule("/sites/<site_id>/channels/progress", "channel_progress", rebuild_progress)
