"""Keys derived from the server secret, one per use.

A key for sealing chat secrets is never the key for workbench credentials: HKDF with a distinct
`purpose` label gives independent keys from the one secret.
"""
from __future__ import annotations

import base64

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pipelines.settings import Settings


def derive_key(secret: bytes, purpose: str, length: int = 32) -> bytes:
    """A `length`-byte key for `purpose`, derived from `secret` with HKDF-SHA256."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=purpose.encode()).derive(secret)


def reader_password(settings: Settings) -> str:
    """Password of the analytics_reader role: derived, so nobody has to invent or store one."""
    return base64.urlsafe_b64encode(derive_key(settings.server_secret(), "analytics-reader-password")).decode().rstrip("=")
