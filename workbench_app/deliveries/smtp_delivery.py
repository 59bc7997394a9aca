"""Sending a message through the configured SMTP server (smtplib: STARTTLS or implicit TLS, and
authentication only over an encrypted connection)."""
from __future__ import annotations

import smtplib
import socket
import ssl
from email.message import EmailMessage

from workbench_app.deliveries.delivery_errors import DeliveryFailed
from workbench_app.deliveries.mail_server import MailServer


def send_mail(server: MailServer, message: EmailMessage) -> None:
    """Hand `message` to the server for every recipient in its To header, or raise DeliveryFailed."""
    try:
        with _connect(server) as smtp:
            if server.username:
                if server.security == "none":
                    # The password would cross the network in clear text.
                    raise DeliveryFailed("authentication_needs_tls",
                                         "The mail server's password is only sent over TLS: choose STARTTLS or TLS.",
                                         retryable=False)
                smtp.login(server.username, server.password or "")
            refused = smtp.send_message(message, from_addr=server.sender)
    except DeliveryFailed:
        raise
    except smtplib.SMTPAuthenticationError as error:
        raise DeliveryFailed("authentication_failed", f"The mail server refused the credentials ({_reply(error)}).",
                             retryable=False) from None
    except smtplib.SMTPRecipientsRefused as error:
        replies = "; ".join(f"{address}: {_reply_of(code, text)}" for address, (code, text) in error.recipients.items())
        raise DeliveryFailed("recipient_refused", f"The mail server refused the recipient ({replies}).",
                             retryable=False) from None
    except smtplib.SMTPSenderRefused as error:
        raise DeliveryFailed("sender_refused", f"The mail server refused the sender {server.sender} "
                             f"({_reply(error)}).", retryable=False) from None
    except smtplib.SMTPNotSupportedError as error:
        raise DeliveryFailed("starttls_unsupported", f"The mail server does not offer STARTTLS ({error}).",
                             retryable=False) from None
    except ssl.SSLError as error:
        raise DeliveryFailed("tls_failed", f"The TLS connection to the mail server failed ({error.reason or error}).",
                             retryable=False) from None
    except smtplib.SMTPResponseException as error:
        # 4xx replies are temporary by definition (RFC 5321), 5xx permanent.
        raise DeliveryFailed("server_error", f"The mail server answered {_reply(error)}.",
                             retryable=400 <= error.smtp_code < 500) from None
    except (socket.timeout, TimeoutError):
        raise DeliveryFailed("timeout", f"The mail server {server.host}:{server.port} did not answer within "
                             f"{server.timeout_seconds:g} s.", retryable=True) from None
    except (OSError, smtplib.SMTPException) as error:
        raise DeliveryFailed("unreachable", f"The mail server {server.host}:{server.port} could not be reached "
                             f"({error}).", retryable=True) from None
    if refused:
        addresses = ", ".join(sorted(refused))
        raise DeliveryFailed("recipient_refused", f"The mail server refused {addresses}.", retryable=False)


def _connect(server: MailServer) -> smtplib.SMTP:
    if server.security == "tls":
        return smtplib.SMTP_SSL(server.host, server.port, timeout=server.timeout_seconds,
                                context=server.tls_context())
    smtp = smtplib.SMTP(server.host, server.port, timeout=server.timeout_seconds)
    try:
        if server.security == "starttls":
            smtp.ehlo()
            smtp.starttls(context=server.tls_context())
            smtp.ehlo()
    except BaseException:
        smtp.close()
        raise
    return smtp


def _reply(error: smtplib.SMTPResponseException) -> str:
    return _reply_of(error.smtp_code, error.smtp_error)


def _reply_of(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {text}".strip()
