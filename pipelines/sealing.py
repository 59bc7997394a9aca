"""Secrets sealed at rest with AES-256-GCM.

A sealed value is `v1:` + base64(nonce || ciphertext+tag). The associated data binds a sealed
value to where it is stored (for instance a source id), so a value copied elsewhere won't open.
"""
from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_PREFIX = "v1:"


class UnsealError(ValueError):
    """The sealed value was altered, or the key changed since it was sealed."""


def seal(key: bytes, plaintext: str, associated_data: str = "") -> str:
    nonce = os.urandom(12)
    ciphertext = AESGCM(key).encrypt(nonce, plaintext.encode(), associated_data.encode())
    return _PREFIX + base64.b64encode(nonce + ciphertext).decode()


def unseal(key: bytes, sealed: str, associated_data: str = "") -> str:
    if not sealed.startswith(_PREFIX):
        raise UnsealError("unknown sealing format")
    try:
        raw = base64.b64decode(sealed[len(_PREFIX):], validate=True)
        return AESGCM(key).decrypt(raw[:12], raw[12:], associated_data.encode()).decode()
    except (InvalidTag, ValueError) as exc:
        raise UnsealError("the sealed value cannot be opened with this key") from exc
