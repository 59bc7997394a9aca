"""Webhooks to a real HTTP receiver: signed as the project's own receivers check, retried with
growing pauses on 5xx and timeouts under one delivery id, stopped by a 4xx."""
from __future__ import annotations

import json
import threading
import time

import pytest
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from pipelines.inbound.signatures import verify
from tests.workbench_deliveries.conftest import free_port
from workbench_app.deliveries.delivery_errors import DeliveryFailed
from workbench_app.deliveries.webhook_delivery import DELIVERY_HEADER, SIGNATURE_HEADER, post_webhook

SECRET = "whsec_test-subscription-secret"
BODY = json.dumps({"dashboard": "Overview", "figures": {"visitors": 1234}}).encode()


class Receiver:
    """Answers each request with the next scripted status (a float: sleep that long, then 200)."""

    def __init__(self, script):
        self.script = list(script)
        self.requests: list[tuple[dict, bytes]] = []
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @Request.application
    def app(self, request: Request) -> Response:
        self.requests.append((dict(request.headers), request.get_data()))
        step = self.script.pop(0) if self.script else 200
        if isinstance(step, float):
            time.sleep(step)
            step = 200
        return Response("{}", status=step, content_type="application/json")


@pytest.fixture
def receiver():
    made = []

    def start(*script):
        made.append(Receiver(script))
        made[-1].thread.start()
        return made[-1]
    yield start
    for server in made:
        server.server.shutdown()


def test_retried_on_5xx_under_one_delivery_id_each_attempt_signed(receiver):
    hook = receiver(500, 503, 200)
    pauses = []
    delivery = post_webhook(hook.url, BODY, SECRET, "delivery-42", sleep=pauses.append)
    assert delivery.attempts == [500, 503, 200] and pauses == [1.0, 3.0]
    assert {headers[DELIVERY_HEADER] for headers, _ in hook.requests} == {"delivery-42"}
    for headers, body in hook.requests:
        assert body == BODY and headers["Content-Type"] == "application/json"
        assert verify(headers[SIGNATURE_HEADER], body, [SECRET])
        assert not verify(headers[SIGNATURE_HEADER], body + b" ", [SECRET])


def test_a_4xx_stops_at_once(receiver):
    hook = receiver(400)
    with pytest.raises(DeliveryFailed) as failed:
        post_webhook(hook.url, BODY, SECRET, "d", sleep=lambda _: None)
    assert (failed.value.code, failed.value.retryable) == ("refused", False)
    assert failed.value.delivery.attempts == [400] and len(hook.requests) == 1


def test_429_and_timeouts_are_retried(receiver):
    hook = receiver(429, 2.0, 200)
    delivery = post_webhook(hook.url, BODY, SECRET, "d", timeout_seconds=0.5, sleep=lambda _: None)
    assert delivery.attempts == [429, None, 200]


def test_a_receiver_that_keeps_failing_ends_in_a_failure_after_every_attempt(receiver):
    hook = receiver(*[502] * 10)
    with pytest.raises(DeliveryFailed) as failed:
        post_webhook(hook.url, BODY, SECRET, "d", sleep=lambda _: None)
    assert failed.value.code == "server_error" and failed.value.retryable
    assert failed.value.delivery.attempts == [502] * 5


def test_an_unreachable_receiver_and_a_bad_address_say_why():
    with pytest.raises(DeliveryFailed) as failed:
        post_webhook(f"http://127.0.0.1:{free_port()}/hook", BODY, SECRET, "d", backoff=(0.0,), sleep=lambda _: None)
    assert failed.value.code == "unreachable" and failed.value.delivery.attempts == [None, None]
    for address in ("ftp://example.org/x", "http:///nohost", "javascript:alert(1)"):
        with pytest.raises(DeliveryFailed) as failed:
            post_webhook(address, BODY, SECRET, "d")
        assert failed.value.code == "invalid_url"
