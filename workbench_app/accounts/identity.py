"""Who a request acts for: a user, signed in or through one of their API tokens."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Identity:
    """The person a request runs for. A token carries exactly its owner's rights."""

    user_id: int
    email: str
    is_admin: bool
    token_id: int | None = None
    locale: str = "en"
    # Set only for a signed embed token: its `user.attributes`, used in place of the stored ones
    # by the row filters (workbench_app/sharing/embed_tokens.py).
    attributes: Mapping[str, Any] | None = None

    @property
    def actor(self) -> str:
        """How the audit log names this caller."""
        suffix = f" (token {self.token_id})" if self.token_id is not None else ""
        return f"{self.email}{suffix}"
