"""Send demo events to a running collector's `POST /collect/server`, 100 per request."""
from __future__ import annotations

import requests

MAX_PER_REQUEST = 100


class CollectorRefused(RuntimeError):
    """The collector answered something other than 202."""


def post_server_events(base_url: str, secret: str, events: list[dict], timeout: float = 30) -> int:
    """Post `events` in requests of at most 100; returns the number accepted."""
    accepted = 0
    with requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {secret}"
        for start in range(0, len(events), MAX_PER_REQUEST):
            response = session.post(f"{base_url.rstrip('/')}/collect/server",
                                    json={"events": events[start:start + MAX_PER_REQUEST]}, timeout=timeout)
            if response.status_code != 202:
                raise CollectorRefused(f"POST /collect/server answered {response.status_code}: {response.text[:300]}")
            body = response.json()
            accepted += body.get("accepted", 0)
            if body.get("rejected"):
                raise CollectorRefused(f"events refused: {body['rejected'][:3]}")
    return accepted
