"""Posting a delivery to a webhook: the JSON body signed as the project's own receivers check
signatures (pipelines/inbound/signatures.py: `t=<unix seconds>,v1=<HMAC-SHA256 of "t.body">`), and
retried with growing pauses while the receiver fails in a way that may pass (5xx, 408, 429, a
timeout, a refused connection). Any other 4xx is the receiver refusing the message: no retry.

Every attempt carries the same delivery id, so a receiver that saw an attempt whose answer was
lost recognises the retry (no duplicate message); each attempt is signed again at its own time.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlsplit

import requests

from pipelines.inbound.signatures import signature_header
from workbench_app.deliveries.delivery_errors import DeliveryFailed

SIGNATURE_HEADER = "X-Analytics-Signature"
DELIVERY_HEADER = "X-Analytics-Delivery-Id"
USER_AGENT = "analytics-workbench-webhook/1"
# Pauses before the 2nd, 3rd, ... attempt (seconds): five attempts over about half a minute, then
# the delivery is failed and logged (the schedule's next run is the next chance).
BACKOFF_SECONDS = (1.0, 3.0, 9.0, 20.0)
RETRY_STATUSES = frozenset({408, 429})


@dataclass
class WebhookDelivery:
    """What happened: the status code of each attempt (None: no answer)."""

    attempts: list[int | None] = field(default_factory=list)

    @property
    def status(self) -> int | None:
        return self.attempts[-1] if self.attempts else None


def post_webhook(url: str, body: bytes, secret: str, delivery_id: str, *, timeout_seconds: float = 10.0,
                 backoff: tuple[float, ...] = BACKOFF_SECONDS, session: requests.Session | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> WebhookDelivery:
    """Deliver `body` (JSON bytes) to `url`; return the attempts, or raise DeliveryFailed with them."""
    check_webhook_url(url)
    http = session or requests.Session()
    outcome = WebhookDelivery()
    for attempt in range(len(backoff) + 1):
        if attempt:
            sleep(backoff[attempt - 1])
        headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
                   SIGNATURE_HEADER: signature_header(secret, body), DELIVERY_HEADER: delivery_id}
        try:
            answer = http.post(url, data=body, headers=headers, timeout=timeout_seconds, allow_redirects=False)
        except requests.Timeout:
            outcome.attempts.append(None)
            last = DeliveryFailed("timeout", f"The webhook did not answer within {timeout_seconds:g} s.",
                                  retryable=True)
            continue
        except requests.RequestException as error:
            outcome.attempts.append(None)
            last = DeliveryFailed("unreachable", f"The webhook could not be reached ({_reason(error)}).",
                                  retryable=True)
            continue
        outcome.attempts.append(answer.status_code)
        answer.close()
        if 200 <= answer.status_code < 300:
            return outcome
        if answer.status_code >= 500 or answer.status_code in RETRY_STATUSES:
            last = DeliveryFailed("server_error", f"The webhook answered {answer.status_code}.", retryable=True)
            continue
        error = DeliveryFailed("refused", f"The webhook answered {answer.status_code}: it refuses the message.",
                               retryable=False)
        error.delivery = outcome
        raise error
    last.delivery = outcome
    raise last


def check_webhook_url(url: str) -> None:
    """An http(s) URL with a host, or DeliveryFailed (what a form would also say when it is saved)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DeliveryFailed("invalid_url", "A webhook address is an http:// or https:// URL with a host.",
                             retryable=False)


def _reason(error: requests.RequestException) -> str:
    # The innermost cause (a refused connection, a name that does not resolve) says the most.
    cause: BaseException = error
    while cause.__cause__ is not None or (cause.__context__ is not None and not cause.__suppress_context__):
        cause = cause.__cause__ or cause.__context__
    return str(cause) or type(cause).__name__
