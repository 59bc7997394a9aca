"""Settings an administrator sets over the environment's: one row of a table (id = 1) whose non-null
values win over the `Settings` fields of the same name, with one secret sealed at rest (AES-256-GCM,
under a key derived for that use only). Used by the assistant's provider and by single sign-on."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from pipelines.key_derivation import derive_key
from pipelines.sealing import UnsealError, seal, unseal
from pipelines.settings import Settings


@dataclass(frozen=True)
class SettingsOverEnvironment:
    table: str  # one row, id = 1
    prefix: str  # of the Settings fields: "oidc_" reads settings.oidc_issuer for "issuer"
    secret_purpose: str  # the derived key's purpose
    secret_bound_to: str  # the sealed secret's associated data

    def stored(self, conn: psycopg.Connection) -> dict[str, Any]:
        with conn.cursor(row_factory=dict_row) as cur:
            return cur.execute(sql.SQL("select * from {} where id = 1").format(sql.Identifier(self.table))).fetchone() or {}

    def picker(self, stored: dict[str, Any], settings: Settings) -> Callable[[str], Any]:
        """`pick(name)`: the administrator's value, else the environment's."""
        def pick(name: str) -> Any:
            value = stored.get(name)
            return value if value is not None else getattr(settings, f"{self.prefix}{name}")
        return pick

    def secret(self, settings: Settings, stored: dict[str, Any], sealed_column: str) -> str | None:
        """The administrator's sealed secret, else the environment's; None when the server secret
        changed since it was sealed (the administrator must enter it again)."""
        if not stored.get(sealed_column):
            return getattr(settings, f"{self.prefix}{sealed_column.removesuffix('_sealed')}")
        try:
            return unseal(self._key(settings), stored[sealed_column], self.secret_bound_to)
        except UnsealError:
            return None

    def source(self, stored: dict[str, Any], settings: Settings, name: str) -> str:
        """Where `name` comes from: "settings", "environment" or "none"."""
        return "settings" if stored.get(name) else "environment" if getattr(settings, f"{self.prefix}{name}") else "none"

    def seal(self, settings: Settings, secret: str) -> bytes:
        return seal(self._key(settings), secret, self.secret_bound_to)

    def _key(self, settings: Settings) -> bytes:
        return derive_key(settings.server_secret(), self.secret_purpose)
