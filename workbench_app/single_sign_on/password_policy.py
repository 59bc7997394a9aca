"""Password sign-in when single sign-on is the rule: refused for everyone but the break-glass
administrator, who keeps a way in when the provider is down or misconfigured."""
from __future__ import annotations

from workbench_app.errors import WorkbenchError
from workbench_app.records import audit_log
from workbench_app.services import WorkbenchServices
from workbench_app.single_sign_on.configuration import password_sign_in_allowed


def refuse_password_unless_allowed(workbench: WorkbenchServices, email: str) -> None:
    """403 `password_sign_in_off` (audited) when password sign-in is off for `email`."""
    with workbench.transaction() as conn:
        allowed = password_sign_in_allowed(conn, email)
        if not allowed:
            audit_log.record(conn, None, email[:200], "sign_in.failed", None,
                             {"method": "password", "reason": "password_sign_in_off"})
    if not allowed:
        raise WorkbenchError(403, "password_sign_in_off",
                             "Password sign-in is turned off: use single sign-on.")
