"""`analytics admin create-user`: accounts of the collector's administration pages (/admin)."""
from __future__ import annotations

import click

from analytics_cli.admin_commands import _run
from pipelines.admin import admin_users


@click.group("admin")
def admin() -> None:
    """Accounts of the collector's administration pages (/admin)."""


@admin.command("create-user")
@click.option("--email", required=True, help="The sign-in name.")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
              help="At least 10 characters; prompted for when not given.")
@click.option("--locale", type=click.Choice(admin_users.LOCALES), default=None,
              help="Language of the pages (default: the browser's).")
def create_user(email: str, password: str, locale: str | None) -> None:
    """Create an administrator account (the first one, or another)."""
    user = _run(lambda conn: admin_users.create_user(conn, email=email, password=password, locale=locale,
                                                     actor="cli"))
    click.echo(f"account {user['email']} created (user {user['user_id']})")
