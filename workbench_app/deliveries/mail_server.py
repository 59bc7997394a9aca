"""The SMTP server that mail goes out through, as the settings describe it."""
from __future__ import annotations

import ssl
from dataclasses import dataclass, field

from pipelines.settings import Settings

# The port each security mode listens on unless told otherwise (RFC 8314: 465 is implicit TLS,
# 587 submission upgraded by STARTTLS; 25 only for a relay on the same machine).
DEFAULT_PORTS = {"starttls": 587, "tls": 465, "none": 25}


@dataclass(frozen=True)
class MailServer:
    host: str
    port: int
    security: str  # starttls, tls or none
    sender: str  # the From address
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout_seconds: float = 30.0
    # The certificates trusted for TLS: the system's by default (a test passes its own authority).
    ssl_context: ssl.SSLContext | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> MailServer | None:
        """The configured server, or None when mail is off (no host, or no From address)."""
        if not settings.smtp_host or not settings.smtp_from:
            return None
        return cls(host=settings.smtp_host, port=settings.smtp_port or DEFAULT_PORTS[settings.smtp_security],
                   security=settings.smtp_security, sender=settings.smtp_from, username=settings.smtp_username,
                   password=settings.smtp_password, timeout_seconds=float(settings.smtp_timeout_seconds))

    def tls_context(self) -> ssl.SSLContext:
        return self.ssl_context or ssl.create_default_context()
