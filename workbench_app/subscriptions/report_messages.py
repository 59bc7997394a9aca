"""A report as a message: the e-mail of one recipient (text, HTML with the first cards inline, the
PDF attached, a link back, their unsubscribe link), or a webhook's body (JSON with the figures, or
a Slack-compatible body).

Everything from data or from people (titles, column names, values) enters the HTML escaped and a
Slack body with its control characters escaped: a report shows text, never markup.
"""
from __future__ import annotations

import html
import json
from datetime import datetime
from email.message import EmailMessage
from typing import Any

from flask_babel import gettext

from workbench_app.deliveries.mail_messages import Attachment, InlineImage, compose
from workbench_app.engine import jsonable
from workbench_app.i18n import language
from workbench_app.subscriptions.report_content import CardFigures, Report

MAX_CELL = 200  # characters of one value shown in a message


def target_url(workbench_address: str, report: Report) -> str:
    return f"{workbench_address}/{report.target_kind}s/{report.target_id}"


def subject_of(name: str, report: Report, due_at: datetime) -> str:
    return f"{name or report.title} · {due_at:%Y-%m-%d}"


def email(*, sender: str, recipient: str, locale: str, name: str, report: Report, due_at: datetime,
          link: str | None, unsubscribe_url: str, alert: str | None = None) -> EmailMessage:
    """The message to one recipient, in their language. `link`: back to the workbench (None for an
    external recipient, who has no account to open it with)."""
    with language(locale):
        words = {"open": gettext("Open in the workbench"), "alert": gettext("Alert"), "unsubscribe": gettext("Unsubscribe"),
                 "attached": gettext("The whole report is attached as PDF."),
                 "more": gettext("%(shown)s of %(total)s rows shown."), "failed": gettext("Not available:"),
                 "why": gettext("You receive this report because you are subscribed to “%(name)s”.",
                                name=name or report.title)}
    images = {image.card_id: image for image in report.images}
    inline = tuple(InlineImage(f"card-{image.card_id}@analytics", image.png, f"card-{image.card_id}.png")
                   for image in report.images)
    text_parts = [report.title, ""]
    html_parts = [f"<h1>{_escape(report.title)}</h1>"]
    if alert:  # what fired, first
        text_parts[1:1] = [alert, ""]
        html_parts.append(f"<p><strong>{_escape(alert)}</strong></p>")
    for card in report.cards:
        text_parts += [_card_text(card, words), ""]
        if card.card_id in images:
            html_parts.append(f'<h2>{_escape(card.title)}</h2><img src="cid:card-{card.card_id}@analytics" '
                              f'alt="{_escape(card.title)}" style="max-width:100%">')
        else:
            html_parts.append(_card_html(card, words))
    if report.pdf:
        text_parts.append(words["attached"])
        html_parts.append(f"<p>{_escape(words['attached'])}</p>")
    if link:
        text_parts.append(f"{words['open']}: {link}")
        html_parts.append(f'<p><a href="{_escape(link)}">{_escape(words["open"])}</a></p>')
    text_parts += ["", words["why"], f"{words['unsubscribe']}: {unsubscribe_url}"]
    html_parts.append(f'<hr><p style="color:#57606a;font-size:12px">{_escape(words["why"])} '
                      f'<a href="{_escape(unsubscribe_url)}">{_escape(words["unsubscribe"])}</a></p>')
    attachments = (Attachment(_file_name(report.title) + ".pdf", report.pdf),) if report.pdf else ()
    body = "<!doctype html><html><body style=\"font-family:sans-serif\">" + "".join(html_parts) + "</body></html>"
    subject = f"{words['alert']}: {name or report.title}" if alert else subject_of(name, report, due_at)
    return compose(sender=sender, recipient=recipient, subject=subject,
                   text="\n".join(text_parts), html=body, images=inline, attachments=attachments,
                   unsubscribe_url=unsubscribe_url)


def webhook_body(*, kind: str, source_id: int, name: str, report: Report, due_at: datetime, link: str,
                 delivery_id: str, body_format: str, extra: dict[str, Any] | None = None) -> bytes:
    """The body posted to a webhook: `json` (the figures, for programs) or `slack` (a message)."""
    if body_format == "slack":
        return _json(_slack(name, report, link, extra))
    return _json({
        "type": f"{kind}.delivery", "delivery_id": delivery_id, kind: {"id": source_id, "name": name},
        "due_at": due_at, **(extra or {}),
        "target": {"kind": report.target_kind, "id": report.target_id, "title": report.title, "url": link},
        "cards": [{"title": card.title, "columns": list(card.columns), "rows": [list(row) for row in card.rows],
                   "row_count": card.row_count, "error": card.error} for card in report.cards]})


def _slack(name: str, report: Report, link: str, extra: dict[str, Any] | None) -> dict[str, Any]:
    lines = [f"*{_slack_escape(name or report.title)}*"]
    if extra and extra.get("message"):
        lines.append(_slack_escape(extra["message"]))
    for card in report.cards:
        lines.append(f"*{_slack_escape(card.title)}*")
        if card.error:
            lines.append(_slack_escape(card.error))
        elif len(card.rows) == 1 and len(card.columns) <= 4:
            lines.append(", ".join(f"{_slack_escape(c)}: {_slack_escape(_cell(v))}" for c, v in zip(card.columns, card.rows[0])))
        else:
            lines += ["```", *(" | ".join(_cell(v) for v in row) for row in card.rows[:5]), "```"]
    text = "\n".join(lines)
    return {"text": text, "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text[:2900]}},
                                     {"type": "context", "elements": [{"type": "mrkdwn", "text": f"<{link}>"}]}]}


def _card_text(card: CardFigures, words: dict[str, str]) -> str:
    if card.error:
        return f"{card.title}\n{words['failed']} {card.error}"
    lines = [card.title, " | ".join(card.columns)]
    lines += [" | ".join(_cell(value) for value in row) for row in card.rows]
    if card.row_count > len(card.rows):
        lines.append(words["more"] % {"shown": len(card.rows), "total": card.row_count})
    return "\n".join(lines)


def _card_html(card: CardFigures, words: dict[str, str]) -> str:
    if card.error:
        return f"<h2>{_escape(card.title)}</h2><p>{_escape(words['failed'])} {_escape(card.error)}</p>"
    head = "".join(f'<th style="text-align:left;padding:2px 8px">{_escape(c)}</th>' for c in card.columns)
    body = "".join("<tr>" + "".join(f'<td style="padding:2px 8px">{_escape(_cell(v))}</td>' for v in row) + "</tr>"
                   for row in card.rows)
    more = (f"<p>{_escape(words['more'] % {'shown': len(card.rows), 'total': card.row_count})}</p>"
            if card.row_count > len(card.rows) else "")
    return f"<h2>{_escape(card.title)}</h2><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def _cell(value: Any) -> str:
    shown = "" if value is None else str(jsonable(value))
    return shown if len(shown) <= MAX_CELL else shown[:MAX_CELL - 1] + "…"


def _escape(text: str) -> str:
    return html.escape(text, quote=True)


def _slack_escape(text: str) -> str:
    # Slack's own rule: &, < and > are control characters of its markup.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _file_name(title: str) -> str:
    kept = "".join(c if c.isalnum() or c in "-_ " else "_" for c in title).strip().replace(" ", "-")
    return kept[:80] or "report"


def _json(value: Any) -> bytes:
    return json.dumps(value, default=jsonable, ensure_ascii=False, separators=(",", ":")).encode()
