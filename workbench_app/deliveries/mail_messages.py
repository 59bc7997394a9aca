"""The MIME message of a delivery: text and HTML bodies, images shown inline, a PDF attached.

Built with the standard library's `email` package (RFC 5322 and MIME done right: encodings, line
lengths, headers with non-ASCII names). The structure mail clients expect for a report:

    multipart/mixed
      multipart/alternative
        text/plain
        multipart/related
          text/html
          image/png ... (Content-ID, referenced from the HTML as cid:...)
      application/pdf (attachment)

(the layout of the standard library's own example: a client without HTML shows the text and the
attachment, and never lists the inline images as attachments).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid


@dataclass(frozen=True)
class InlineImage:
    """A PNG shown in the HTML body where it says <img src="cid:{content_id}">."""

    content_id: str  # without angle brackets, e.g. "card-1@analytics"
    png: bytes
    filename: str = "chart.png"


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    maintype: str = "application"
    subtype: str = "pdf"


def compose(*, sender: str, recipient: str, subject: str, text: str, html: str | None = None,
            images: tuple[InlineImage, ...] = (), attachments: tuple[Attachment, ...] = (),
            unsubscribe_url: str | None = None, sent_at: datetime | None = None) -> EmailMessage:
    """One message to one recipient (each recipient gets their own: figures and unsubscribe link
    are theirs). `html` must already be escaped by its caller: data goes in as text, never markup."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = recipient
    message["Subject"] = subject
    message["Date"] = format_datetime(sent_at or datetime.now(timezone.utc))
    message["Message-ID"] = make_msgid(domain=_domain_of(sender))
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to a report
    if unsubscribe_url:
        # RFC 2369 and RFC 8058: mail clients show an unsubscribe button that posts to the link.
        message["List-Unsubscribe"] = f"<{unsubscribe_url}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(text)
    if html is not None:
        message.add_alternative(html, subtype="html")
        if images:
            # The HTML part becomes a multipart/related holding the HTML and its images.
            html_part = message.get_payload()[1]
            for image in images:
                html_part.add_related(image.png, maintype="image", subtype="png", cid=f"<{image.content_id}>",
                                      filename=image.filename, disposition="inline")
    for attachment in attachments:
        message.add_attachment(attachment.content, maintype=attachment.maintype, subtype=attachment.subtype,
                               filename=attachment.filename)
    return message


def _domain_of(address: str) -> str:
    domain = address.rpartition("@")[2].strip(" >")
    return domain or "localhost"
