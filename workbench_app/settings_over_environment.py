"""Settings an administrator sets over the environment's: one row of a table (id = 1) whose non-null
values win over the `Settings` fields of the same name, with one secret sealed at rest (AES-256-GCM,
under a key derived for that use only). Used by the assistant's provider, single sign-on and the
mail server: reading the row, the secret and where a value comes from, and an administrator's
change (`sealed_change`, `write`) or clearing (`clear`), each audit-logged by the names of the
fields it touched, never a secret's value."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from pipelines.key_derivation import derive_key
from pipelines.sealing import UnsealError, seal, unseal
from pipelines.settings import Settings
from workbench_app.accounts.identity import Identity
from workbench_app.errors import invalid
from workbench_app.records import audit_log


@dataclass(frozen=True)
class SettingsOverEnvironment:
    table: str  # one row, id = 1
    prefix: str  # of the Settings fields: "oidc_" reads settings.oidc_issuer for "issuer"
    secret_purpose: str  # the derived key's purpose
    secret_bound_to: str  # the sealed secret's associated data
    records_who: bool = False  # the table has an `updated_by` column

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

    def sealed_change(self, settings: Settings, given: dict[str, Any], name: str) -> dict[str, Any]:
        """The change of the secret `name` the request gave, as `{name}_sealed`: sealed, or None to
        clear it ("" or null); nothing when the request did not name it."""
        if name not in given:
            return {}
        return {f"{name}_sealed": self.seal(settings, given[name]) if given[name] else None}

    def write(self, conn: psycopg.Connection, who: Identity, changes: dict[str, Any], action: str) -> None:
        """Keep `changes` (column: value) in the row, made if missing, and audit-log `action` with
        the names of the fields changed. 400 when there is nothing to change."""
        if not changes:
            raise invalid("Nothing to change.")
        table = sql.Identifier(self.table)
        conn.execute(sql.SQL("insert into {} (id) values (1) on conflict (id) do nothing").format(table))
        assignments = [sql.SQL("{} = {}").format(sql.Identifier(name), sql.Placeholder(name)) for name in changes]
        assignments.append(sql.SQL("updated_at = now()"))
        values = dict(changes)
        if self.records_who:
            assignments.append(sql.SQL("updated_by = {}").format(sql.Placeholder("__who")))
            values["__who"] = who.user_id
        conn.execute(sql.SQL("update {} set {} where id = 1").format(table, sql.SQL(", ").join(assignments)), values)
        audit_log.record(conn, who.user_id, who.actor, action, None,
                         {"fields": sorted(name.removesuffix("_sealed") for name in changes)})

    def clear(self, conn: psycopg.Connection, who: Identity, action: str) -> None:
        """Forget the administrator's row (the environment's values apply again), audit-logged."""
        conn.execute(sql.SQL("delete from {} where id = 1").format(sql.Identifier(self.table)))
        audit_log.record(conn, who.user_id, who.actor, action)

    def _key(self, settings: Settings) -> bytes:
        return derive_key(settings.server_secret(), self.secret_purpose)
