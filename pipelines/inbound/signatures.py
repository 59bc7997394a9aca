"""Webhook signatures of the chat and database services: the one place they are built and checked.

Header `t=<unix seconds>,v1=<hex>`: `v1` is HMAC-SHA256, keyed by the whole secret (its `whsec_`
prefix included), over the ASCII bytes of `t` exactly as sent, a dot, and the raw body. The chat
service's spec gives this construction; the database service's spec does not show its signed
string, so the same construction is used for both, and only here.

Everything is checked on the raw bytes, before any JSON decoding. Any malformed header is simply
"not verified" (never an exception): a receiver answers 401, not 500.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import time
from dataclasses import dataclass
from typing import Iterable

TOLERANCE_SECONDS = 300
SCHEME = "v1"
# Bounds on the work an unauthenticated header can cause.
MAX_HEADER_LENGTH = 4096
MAX_SIGNATURES = 16

_DIGITS = re.compile(r"[0-9]{1,15}")
_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


@dataclass(frozen=True)
class SignatureScheme:
    """Header names of one service."""

    service: str
    signature_header: str
    delivery_header: str


CHAT = SignatureScheme("chat", "X-Msg-Signature", "X-Msg-Delivery-Id")
DATABASE = SignatureScheme("db", "X-Db-Signature", "X-Db-Delivery-Id")


@dataclass(frozen=True)
class Verification:
    ok: bool
    reason: str  # "ok" or why it failed: missing_header, malformed_header, stale_timestamp, mismatch, no_secret

    def __bool__(self) -> bool:
        return self.ok


def compute(secret: str, timestamp: str, body: bytes) -> str:
    """The hex `v1` value of `body` signed at `timestamp` (its decimal text) with `secret`."""
    return hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()


def signature_header(secret: str, body: bytes, timestamp: int | None = None) -> str:
    """A complete header value, as the services send it."""
    t = str(int(time.time()) if timestamp is None else timestamp)
    return f"t={t},{SCHEME}={compute(secret, t, body)}"


def parse_header(header: str | None) -> tuple[str, list[str]] | None:
    """(t, [v1 values]) of a well-formed header, or None. Entries of other schemes are ignored;
    a `v1` entry that is not 64 hex digits is dropped (it can match nothing)."""
    if not header or len(header) > MAX_HEADER_LENGTH or not header.isascii():
        return None
    timestamp = None
    signatures: list[str] = []
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep:
            return None
        key, value = key.strip(), value.strip()
        if key == "t":
            if timestamp is not None or not _DIGITS.fullmatch(value):
                return None
            timestamp = value
        elif key == SCHEME and _HEX64.fullmatch(value):
            signatures.append(value.lower())
    if timestamp is None:
        return None
    return timestamp, signatures[:MAX_SIGNATURES]


def verify(header: str | None, body: bytes, secrets: Iterable[str], *, now: float | None = None,
           tolerance: int = TOLERANCE_SECONDS) -> Verification:
    """Check a signature header against the raw body and every active secret of a source."""
    if not header:
        return Verification(False, "missing_header")
    parsed = parse_header(header)
    if parsed is None:
        return Verification(False, "malformed_header")
    timestamp, candidates = parsed
    if not candidates:
        return Verification(False, "malformed_header")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance:
        return Verification(False, "stale_timestamp")
    secrets = list(secrets)
    if not secrets:
        return Verification(False, "no_secret")
    matched = False
    # Every comparison runs, so the time taken says nothing about which one matched.
    for secret in secrets:
        expected = compute(secret, timestamp, body)
        for candidate in candidates:
            matched |= hmac.compare_digest(expected, candidate)
    return Verification(True, "ok") if matched else Verification(False, "mismatch")
