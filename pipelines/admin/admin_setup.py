"""The first-run setup of the collector's administration pages: while no administrator account
exists, `analytics up` prints a one-time link to `/admin/setup`, where the first administrator is
created (rules shared with the workbench: `pipelines.web_auth.setup_links`).

`analytics admin create-user` stays for scripts; an administrator it creates closes the setup too.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

import psycopg

from pipelines import audit
from pipelines.admin import admin_users
from pipelines.admin.errors import AdminError
from pipelines.web_auth.setup_links import VALID_FOR, SetupLinks, SetupState

LINKS = SetupLinks("collect.admin_setup_link", users_table="collect.admin_users",
                   administrator_flag="is_administrator")
# Who the audit log names as the creator of the first account.
ACTOR = "setup-link"


class SetupDone(AdminError):
    """An administrator exists: the setup is over for good (HTTP 410)."""

    code = "setup_done"


class SetupLinkInvalid(AdminError):
    """The link is wrong, replaced or expired (HTTP 403)."""

    code = "setup_link_invalid"


def issue(conn: psycopg.Connection, valid_for: dt.timedelta = VALID_FOR) -> str | None:
    """A new setup token while no administrator account exists (the previous one stops working)."""
    return LINKS.issue(conn, valid_for)


def state(conn: psycopg.Connection, token: Any) -> SetupState:
    return LINKS.state(conn, token)


def _refuse(state_now: SetupState) -> None:
    if state_now is SetupState.DONE:
        raise SetupDone("this collector has an administrator already: sign in instead")
    if state_now is SetupState.INVALID:
        raise SetupLinkInvalid("this setup link is wrong or has expired: use the link `analytics up` printed last")


def create_first_administrator(conn: psycopg.Connection, token: Any, *, email: Any, password: Any,
                               locale: Any) -> dict[str, Any]:
    """Create the first administrator account (audited) and close the setup for good. The link is
    checked before the fields, so a wrong link learns nothing about them."""
    _refuse(LINKS.state(conn, token, lock=True))
    user = admin_users.create_user(conn, email=email, password=password, is_administrator=True, locale=locale,
                                   actor=ACTOR)
    LINKS.spend(conn)
    audit.record(conn, ACTOR, "admin_user.setup_completed", str(user["user_id"]), {"email": user["email"]})
    return user
