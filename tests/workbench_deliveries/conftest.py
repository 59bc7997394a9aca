"""A real SMTP server (aiosmtpd) with STARTTLS or implicit TLS and a password, on a free port, whose
received messages the tests read back; certificates from a test authority (trustme)."""
from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass, field

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER, PASSWORD = "reports", "s3cret-password"


@dataclass
class Mailbox:
    """What the server accepted: (envelope sender, recipients, raw message) per message."""

    messages: list[tuple[str, list[str], bytes]] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 Message accepted"


def _authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
        USER.encode(), PASSWORD.encode())
    # handled=False: the server answers 535 itself (True would mean this function already did).
    return AuthResult(success=ok, handled=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def authority() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def client_context(authority) -> ssl.SSLContext:
    context = ssl.create_default_context()
    authority.configure_trust(context)
    return context


def _server_context(authority) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


def _serving(**options):
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port(), authenticator=_authenticator,
                            auth_required=True, **options)
    controller.start()
    return controller, mailbox


@pytest.fixture
def starttls_server(authority):
    """STARTTLS required before authentication (submission, port 587's way)."""
    controller, mailbox = _serving(tls_context=_server_context(authority), require_starttls=True)
    yield controller, mailbox
    controller.stop()


@pytest.fixture
def implicit_tls_server(authority):
    """TLS from the first byte (port 465's way). auth_require_tls=False: aiosmtpd counts only
    STARTTLS as TLS for AUTH; here the whole connection is (its warning: pyproject's filterwarnings)."""
    controller, mailbox = _serving(ssl_context=_server_context(authority), auth_require_tls=False)
    yield controller, mailbox
    controller.stop()


@pytest.fixture
def plain_server():
    """A relay on this machine: no TLS, no password (security "none", as for a local relay)."""
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield controller, mailbox
    controller.stop()
