"""The workbench's first-run setup link (`pipelines.web_auth.setup_links` holds the rules: random
token kept as a SHA-256, 24 hours, replaced at each `analytics up`, spent under a row lock).

The link lives in the table `setup_link`; the workbench's administrators are `users.is_admin`.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

import psycopg

from pipelines.web_auth.setup_links import VALID_FOR, SetupLinks, SetupState
from workbench_app.accounts import users
from workbench_app.errors import WorkbenchError
from workbench_app.records import audit_log

LINKS = SetupLinks("setup_link", users_table="users", administrator_flag="is_admin")


def administrator_exists(conn: psycopg.Connection) -> bool:
    return LINKS.administrator_exists(conn)


def issue(conn: psycopg.Connection, valid_for: dt.timedelta = VALID_FOR) -> str | None:
    """A new setup token while no administrator exists (replacing any earlier one); None otherwise."""
    return LINKS.issue(conn, valid_for)


def done() -> WorkbenchError:
    return WorkbenchError(410, "setup_done", "This installation has an administrator already: sign in instead.")


def invalid_link() -> WorkbenchError:
    return WorkbenchError(403, "setup_link_invalid",
                          "This setup link is wrong or has expired: use the link `analytics up` printed last "
                          "(restarting `analytics up` prints a new one).")


def check(conn: psycopg.Connection, token: Any, lock: bool = False) -> None:
    """Refuse unless the setup is open and `token` is its current, unexpired token."""
    state = LINKS.state(conn, token, lock=lock)
    if state is SetupState.DONE:
        raise done()
    if state is SetupState.INVALID:
        raise invalid_link()


def create_first_administrator(conn: psycopg.Connection, token: Any, *, email: str, password: str,
                               display_name: str, locale: str) -> dict[str, Any]:
    """Create the first administrator (audited) and close the setup for good."""
    check(conn, token, lock=True)
    user = users.create_user(conn, None, email=email, password=password, display_name=display_name,
                             is_admin=True, locale=locale)
    LINKS.spend(conn)
    audit_log.record(conn, user["user_id"], user["email"], "setup.completed", str(user["user_id"]), {})
    return user
