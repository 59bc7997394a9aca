"""Source passwords sealed at rest with AES-256-GCM.

The key is derived from the server secret for this use only, and each sealed value is bound to its
source id (associated data), so a value copied onto another source does not open.
"""
from __future__ import annotations

from pipelines.key_derivation import derive_key
from pipelines.sealing import seal, unseal
from pipelines.settings import Settings

_PURPOSE = "workbench-source-credentials"


def credentials_key(settings: Settings) -> bytes:
    return derive_key(settings.server_secret(), _PURPOSE)


def seal_password(settings: Settings, source_id: int, password: str) -> str:
    return seal(credentials_key(settings), password, f"source:{source_id}")


def unseal_password(settings: Settings, source_id: int, sealed: str) -> str:
    return unseal(credentials_key(settings), sealed, f"source:{source_id}")
