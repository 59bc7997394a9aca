"""`analytics admin-token ...`: the tokens that open the administration API."""
from __future__ import annotations

import json

import click
import psycopg

from pipelines.admin import admin_tokens
from pipelines.admin.errors import AdminError
from pipelines.database import connection
from pipelines.settings import Settings, SettingsError


def _connect() -> psycopg.Connection:
    try:
        url = connection.server_url(Settings.from_env())
        return connection.connect(url)
    except (SettingsError, connection.DatabaseUnavailable) as exc:
        raise click.ClickException(str(exc)) from None


def _run(operation):
    """Run `operation(conn)` in one transaction, turning refusals into readable CLI errors."""
    try:
        with _connect() as conn:
            return operation(conn)
    except AdminError as exc:
        raise click.ClickException(exc.message) from None
    except psycopg.errors.UndefinedTable:
        raise click.ClickException("the database is not migrated: run `analytics migrate` first") from None


def _plain(value):
    """A token field as JSON: times in ISO 8601, ids as strings."""
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


@click.group("admin-token")
def admin_token() -> None:
    """Create, list and revoke tokens of the administration API (/api/v1)."""


@admin_token.command("create")
@click.option("--name", default="", help="What the token is for (shown in lists and the audit log).")
def create(name: str) -> None:
    """Create a token and print its secret: the only time it is shown."""
    record, secret = _run(lambda conn: admin_tokens.create_token(conn, name=name, actor="cli"))
    click.echo(f"token {record['token_id']} created; its secret (shown once, keep it safe):", err=True)
    click.echo(secret)


@admin_token.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
def list_(as_json: bool) -> None:
    """List tokens with their state and last use (never the secrets)."""
    tokens = _run(admin_tokens.list_tokens)
    for token in tokens:
        if as_json:
            click.echo(json.dumps({name: _plain(value) for name, value in token.items()}))
        else:
            last_used = token["last_used_at"].isoformat(timespec="seconds") if token["last_used_at"] else "never"
            click.echo(f"{token['token_id']}  {token['state']:<8} created {token['created_at'].isoformat(timespec='seconds')}"
                       f"  last used {last_used}  {token['name']}")
    if not tokens and not as_json:
        click.echo("no admin tokens", err=True)


@admin_token.command("revoke")
@click.argument("token_id")
def revoke(token_id: str) -> None:
    """Revoke a token (final; revoking twice is harmless)."""
    record = _run(lambda conn: admin_tokens.revoke_token(conn, token_id, actor="cli"))
    click.echo(f"token {record['token_id']} revoked")
