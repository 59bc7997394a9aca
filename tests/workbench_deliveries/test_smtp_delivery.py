"""Mail through a real SMTP server: STARTTLS and implicit TLS with a password, the MIME structure
read back, the PDF opens, the inline image is the one the HTML references; failures say why."""
from __future__ import annotations

import io
import struct
import zlib
from email import message_from_bytes, policy

import pypdf
import pytest

from pipelines.settings import Settings
from tests.workbench_deliveries.conftest import PASSWORD, USER, free_port
from workbench_app.deliveries.delivery_errors import DeliveryFailed
from workbench_app.deliveries.mail_messages import Attachment, InlineImage, compose
from workbench_app.deliveries.mail_server import MailServer
from workbench_app.deliveries.smtp_delivery import send_mail


def tiny_png() -> bytes:
    """A 1x1 PNG, written out by hand (no image library needed for a test)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def one_page_pdf() -> bytes:
    writer = pypdf.PdfWriter()
    writer.add_blank_page(width=595, height=842)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def report(recipient: str = "ana@example.org"):
    return compose(sender="reports@analytics.example", recipient=recipient, subject="Weekly: Überblick & <shop>",
                   text="Visitors: 1,234", html='<p>Visitors: 1,234</p><img src="cid:card-1@analytics" alt="">',
                   images=(InlineImage("card-1@analytics", tiny_png()),),
                   attachments=(Attachment("overview.pdf", one_page_pdf()),),
                   unsubscribe_url="https://bi.example/unsubscribe/abc")


def server_for(controller, security: str, client_context, **changes) -> MailServer:
    values = dict(host="127.0.0.1", port=controller.port, security=security, sender="reports@analytics.example",
                  username=USER, password=PASSWORD, timeout_seconds=5, ssl_context=client_context)
    values.update(changes)
    return MailServer(**values)


def test_a_report_goes_through_starttls_with_its_structure_pdf_and_inline_image(starttls_server, client_context):
    controller, mailbox = starttls_server
    send_mail(server_for(controller, "starttls", client_context), report())
    [(sender, recipients, raw)] = mailbox.messages
    assert (sender, recipients) == ("reports@analytics.example", ["ana@example.org"])
    message = message_from_bytes(raw, policy=policy.default)
    assert message["Subject"] == "Weekly: Überblick & <shop>"
    assert message["List-Unsubscribe"] == "<https://bi.example/unsubscribe/abc>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message.get_content_type() == "multipart/mixed"
    alternative, attachment = message.get_payload()
    assert alternative.get_content_type() == "multipart/alternative"
    plain, related = alternative.get_payload()
    assert plain.get_content().strip() == "Visitors: 1,234"
    html, image = related.get_payload()
    assert html.get_content_type() == "text/html" and "cid:card-1@analytics" in html.get_content()
    assert image["Content-ID"] == "<card-1@analytics>" and image.get_content() == tiny_png()
    assert attachment.get_filename() == "overview.pdf" and attachment.get_content_type() == "application/pdf"
    assert len(pypdf.PdfReader(io.BytesIO(attachment.get_content())).pages) == 1


def test_implicit_tls_delivers_too(implicit_tls_server, client_context):
    controller, mailbox = implicit_tls_server
    send_mail(server_for(controller, "tls", client_context), report("bo@example.org"))
    assert [recipients for _, recipients, _ in mailbox.messages] == [["bo@example.org"]]


def test_a_wrong_password_is_an_authentication_failure_not_retried(starttls_server, client_context):
    controller, mailbox = starttls_server
    with pytest.raises(DeliveryFailed) as failed:
        send_mail(server_for(controller, "starttls", client_context, password="wrong"), report())
    assert (failed.value.code, failed.value.retryable) == ("authentication_failed", False)
    assert PASSWORD not in failed.value.message and not mailbox.messages


def test_a_refused_recipient_says_which_and_is_not_retried(starttls_server, client_context):
    controller, mailbox = starttls_server
    mailbox.refuse.add("gone@example.org")
    with pytest.raises(DeliveryFailed) as failed:
        send_mail(server_for(controller, "starttls", client_context), report("gone@example.org"))
    assert failed.value.code == "recipient_refused" and "gone@example.org" in failed.value.message
    assert not failed.value.retryable and not mailbox.messages


def test_an_untrusted_certificate_fails_tls(starttls_server):
    controller, mailbox = starttls_server
    with pytest.raises(DeliveryFailed) as failed:
        send_mail(server_for(controller, "starttls", None), report())  # the system's authorities only
    assert failed.value.code == "tls_failed" and not mailbox.messages


def test_a_password_is_never_sent_without_tls(starttls_server):
    controller, mailbox = starttls_server
    with pytest.raises(DeliveryFailed) as failed:
        send_mail(server_for(controller, "none", None), report())
    assert failed.value.code == "authentication_needs_tls" and not mailbox.messages


def test_an_unreachable_server_is_retryable():
    server = MailServer(host="127.0.0.1", port=free_port(), security="starttls", sender="r@analytics.example",
                        timeout_seconds=2)
    with pytest.raises(DeliveryFailed) as failed:
        send_mail(server, report())
    assert (failed.value.code, failed.value.retryable) == ("unreachable", True)
    assert "127.0.0.1" in failed.value.message


def test_mail_is_off_until_a_host_and_a_sender_are_set_and_the_port_follows_the_security():
    assert MailServer.from_settings(Settings.from_env({})) is None
    assert MailServer.from_settings(Settings.from_env({"ANALYTICS_SMTP_HOST": "smtp.example"})) is None
    configured = MailServer.from_settings(Settings.from_env({
        "ANALYTICS_SMTP_HOST": "smtp.example", "ANALYTICS_SMTP_FROM": "reports@example.org",
        "ANALYTICS_SMTP_SECURITY": "tls", "ANALYTICS_SMTP_USERNAME": "u", "ANALYTICS_SMTP_PASSWORD": "p"}))
    assert (configured.host, configured.port, configured.security, configured.username) == ("smtp.example", 465, "tls", "u")
    assert "p" not in repr(configured).replace("port", "").replace("smtp", "").replace("example", "")
