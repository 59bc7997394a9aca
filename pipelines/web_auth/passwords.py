"""Password hashing with argon2id (argon2-cffi's defaults follow RFC 9106), for both apps' accounts."""
from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_hasher = PasswordHasher()
MIN_LENGTH = 10
MAX_LENGTH = 1000
# Verified when the account does not exist, so both cases take the same time.
_DUMMY_HASH = _hasher.hash("not-a-real-password-for-timing")


def acceptable(password: object) -> bool:
    """The rule of both apps' passwords: a string of MIN_LENGTH to MAX_LENGTH characters."""
    return isinstance(password, str) and MIN_LENGTH <= len(password) <= MAX_LENGTH


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """True when `password` matches; a missing hash still costs one verification."""
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    return _hasher.check_needs_rehash(password_hash)
