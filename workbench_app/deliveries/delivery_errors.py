"""Why a delivery failed, in words a delivery log can show, and whether trying again may help."""
from __future__ import annotations


class DeliveryFailed(Exception):
    """A delivery that did not happen. `code` is stable (the log and the API show it); `retryable`
    says whether the same delivery may succeed later (a server down) or not (a refused address)."""

    def __init__(self, code: str, message: str, *, retryable: bool):
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        # What was tried before giving up (the webhook's attempts), for the delivery log.
        self.delivery = None
