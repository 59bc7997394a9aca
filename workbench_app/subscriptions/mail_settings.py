"""The mail server that subscriptions and alerts go out through: what an administrator set in the
Settings screen (API), else the environment's `ANALYTICS_SMTP_*` (Settings).

The two are not mixed field by field: a server set in Settings (one with a host) replaces the
environment's whole, so the environment's password is never sent to a host an administrator typed.
Clearing the host (or `DELETE /settings/mail`) brings the environment's server back. The password
is sealed at rest with AES-256-GCM under a key derived for this use only (as the assistant's
provider key and single sign-on's client secret are) and never leaves the server: reading the
settings says whether one is set, nothing more.
"""
from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

import psycopg
from flask_babel import gettext

from pipelines.settings import Settings
from workbench_app.accounts.identity import Identity
from workbench_app.deliveries.delivery_errors import DeliveryFailed
from workbench_app.deliveries.mail_messages import compose
from workbench_app.deliveries.mail_server import DEFAULT_PORTS, MailServer
from workbench_app.deliveries.smtp_delivery import send_mail
from workbench_app.errors import WorkbenchError, invalid
from workbench_app.i18n import language
from workbench_app.settings_over_environment import SettingsOverEnvironment

_ROW = SettingsOverEnvironment("mail_server", "smtp_", secret_purpose="workbench-smtp-password",
                               secret_bound_to="mail-server:1", records_who=True)
FIELDS = ("host", "port", "security", "username", "from_address")


@dataclass(frozen=True)
class MailSettings:
    """The effective mail server and where it comes from ("settings", "environment" or "none")."""

    source: str
    host: str | None
    port: int | None
    security: str
    username: str | None
    password_set: bool
    from_address: str | None
    server: MailServer | None  # None: mail is off (no host, or no From address)


def effective(conn: psycopg.Connection, settings: Settings) -> MailSettings:
    stored = _ROW.stored(conn)
    if stored.get("host"):
        password = _ROW.secret(settings, stored, "password_sealed") if stored.get("password_sealed") else None
        security = stored["security"]
        values = {"host": stored["host"], "port": stored["port"] or DEFAULT_PORTS[security], "security": security,
                  "username": stored["username"], "from_address": stored["from_address"]}
        server = MailServer(host=values["host"], port=values["port"], security=security,
                            sender=values["from_address"], username=values["username"], password=password,
                            timeout_seconds=float(settings.smtp_timeout_seconds)) if values["from_address"] else None
        return MailSettings(source="settings", password_set=bool(password), server=server, **values)
    server = MailServer.from_settings(settings)
    return MailSettings(
        source="environment" if settings.smtp_host else "none", host=settings.smtp_host,
        port=settings.smtp_port or (DEFAULT_PORTS[settings.smtp_security] if settings.smtp_host else None),
        security=settings.smtp_security, username=settings.smtp_username,
        password_set=bool(settings.smtp_password), from_address=settings.smtp_from, server=server)


def mail_server(conn: psycopg.Connection, settings: Settings) -> MailServer | None:
    """The server mail goes out through now, or None when mail is off."""
    return effective(conn, settings).server


def describe(config: MailSettings) -> dict[str, Any]:
    """The settings as the API shows them to administrators: never the password itself."""
    return {"enabled": config.server is not None, "source": config.source, "host": config.host, "port": config.port,
            "security": config.security, "username": config.username, "password_set": config.password_set,
            "from_address": config.from_address}


def update(conn: psycopg.Connection, settings: Settings, who: Identity, given: dict[str, Any]) -> MailSettings:
    """Apply an administrator's change (shapes.py's `MailServerChange`, validated): a field given
    replaces the stored one; null or "" clears it; `password` "" or null clears the password."""
    changes: dict[str, Any] = {}
    for name in FIELDS:
        if name in given:
            value = given[name]
            changes[name] = (value.strip() or None) if isinstance(value, str) else value
    if "security" in changes and changes["security"] is None:
        changes["security"] = "starttls"
    changes.update(_ROW.sealed_change(settings, given, "password"))
    if not changes:
        raise invalid("Nothing to change.")
    stored = {**_ROW.stored(conn), **changes}
    if stored.get("host"):
        if not stored.get("from_address"):
            raise invalid("A mail server needs a From address.", field="from_address")
        if stored.get("username") and (stored.get("security") or "starttls") == "none":
            # smtp_delivery never sends a password over a connection without TLS.
            raise invalid("A mail server with a username needs STARTTLS or TLS.", field="security")
    _ROW.write(conn, who, changes, "settings.mail_updated")
    return effective(conn, settings)


def clear(conn: psycopg.Connection, settings: Settings, who: Identity) -> MailSettings:
    """Forget the administrator's server (the environment's, if any, applies again)."""
    _ROW.clear(conn, who, "settings.mail_cleared")
    return effective(conn, settings)


def send_test(config: MailSettings, recipient: str, locale: str) -> None:
    """A short message through the effective server to `recipient`, or a refusal saying why not."""
    if config.server is None:
        raise WorkbenchError(409, "mail_off", "No mail server is set: enter a host and a From address.")
    with language(locale):
        message: EmailMessage = compose(
            sender=config.server.sender, recipient=recipient, subject=gettext("Test message from the workbench"),
            text=gettext("The workbench's mail server works: subscriptions and alerts can be delivered."))
    try:
        send_mail(config.server, message)
    except DeliveryFailed as failure:
        raise WorkbenchError(502, "mail_failed", f"The test message was not sent: {failure.message}",
                             {"reason": failure.code}) from None
