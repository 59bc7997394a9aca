"""`/unsubscribe/<recipient>/<token>`: the page a report's unsubscribe link opens, without signing in.

Opening the link only shows a button (mail scanners that follow links must not unsubscribe anyone);
the button posts to the same address. A mail client's one-click unsubscribe (RFC 8058) posts
`List-Unsubscribe=One-Click` there directly. A server page, in the recipient's language, with no
script: it works in any browser a mail client opens.
"""
from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template_string, request
from flask_babel import force_locale, gettext

from workbench_app.i18n import LANGUAGES, select_language
from workbench_app.page_shell import web_app
from workbench_app.subscriptions import unsubscribe

blueprint = Blueprint("unsubscribe_page", __name__)

PAGE = """<!doctype html>
<html lang="{{ lang }}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ heading }}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; color: #1f2328; }
button { font: inherit; padding: .5rem 1rem; border-radius: .375rem; border: 1px solid #1f4fbf; background: #1f4fbf; color: #fff; cursor: pointer; }
</style></head>
<body><main>
<h1>{{ heading }}</h1>
<p>{{ message }}</p>
{% if ask %}<form method="post"><button type="submit">{{ button }}</button></form>{% endif %}
</main></body></html>
"""


@blueprint.route(f"{unsubscribe.PATH}/<int:recipient_id>/<token>", methods=["GET", "POST"])
def unsubscribe_page(recipient_id: int, token: str):
    services = current_app.extensions["workbench"]
    with services.transaction() as conn:
        found = unsubscribe.recipient(conn, services.settings, recipient_id, token) if len(token) <= 64 else None
        if found is not None and request.method == "POST":
            unsubscribe.unsubscribe(conn, found)
    language = found["locale"] if found and found["locale"] in LANGUAGES else select_language()
    with force_locale(language):
        if found is None:
            page = _page(language, gettext("This link does not work"),
                         gettext("It is not a link of ours, or its recipient was removed: nothing was changed."),
                         status=404)
        elif request.method == "POST" or found["unsubscribed_at"] is not None:
            page = _page(language, gettext("You are unsubscribed"),
                         gettext("%(address)s will receive no more messages of “%(name)s”.",
                                 address=found["email"], name=found["name"] or "—"))
        else:
            page = _page(language, gettext("Unsubscribe"),
                         gettext("Stop sending “%(name)s” to %(address)s?", name=found["name"] or "—",
                                 address=found["email"]),
                         button=gettext("Unsubscribe"))
    return page


def _page(language: str, heading: str, message: str, button: str | None = None, status: int = 200) -> Response:
    html = render_template_string(PAGE, lang=language, heading=heading, message=message, ask=button is not None,
                                  button=button)
    response = Response(html, status=status, mimetype="text/html")
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = web_app.CONTENT_SECURITY_POLICY
    # The token is in this page's address: it must not leave in a Referer header.
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
