"""The collector as `analytics up` starts it (gunicorn, uvicorn workers, collector_app.asgi), over
real HTTP: the beacon answered in the event loop gives the answers of the Flask app's, the access
log leaves successful beacons out and logs everything else, and no line carries an address."""
from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from analytics_cli.collector_http import MAX_REQUESTS_PER_CONNECTION
from analytics_cli.supervisor import collector_command
from tests.conftest import free_port

REPO = Path(__file__).resolve().parents[2]
ADDRESS = "203.0.113.77"
ORIGIN = "https://shop.example.com"
AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


def start_collector(database_url, tmp_path, **environment):
    port = free_port()
    log_path = tmp_path / "collector.log"
    access_path = tmp_path / "access.log"
    env = {**os.environ, "ANALYTICS_DATABASE_URL": database_url, "ANALYTICS_HOME": str(tmp_path / "home"),
           "ANALYTICS_SECRET": "access-log-test-secret", **environment}
    with log_path.open("w") as log:
        process = subprocess.Popen(collector_command(1, f"127.0.0.1:{port}", "--access-logfile", str(access_path)),
                                   cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        assert process.poll() is None, log_path.read_text()[-3000:]
        try:
            if requests.get(base + "/healthz", timeout=1).status_code == 200:
                break
        except requests.RequestException:
            pass
        assert time.monotonic() < deadline, "the collector did not answer /healthz"
        time.sleep(0.1)
    return process, base, access_path, log_path


@pytest.fixture
def collector(database_url, tmp_path):
    process, *started = start_collector(database_url, tmp_path)
    yield started
    process.terminate()
    process.wait(30)


def _beacon(base: str, site_id: str, origin: str = ORIGIN, agent: str = AGENT, body: bytes | None = None):
    if body is None:
        body = json.dumps({"site": site_id, "events": [{"type": "pageview", "url": f"{ORIGIN}/pricing",
                                                         "ts": int(time.time() * 1000)}]}).encode()
    return requests.post(base + "/collect", data=body, timeout=10, headers={
        "Content-Type": "text/plain;charset=UTF-8", "Origin": origin, "User-Agent": agent,
        "X-Forwarded-For": ADDRESS})


def _flask_beacon(client, site_id: str, origin: str = ORIGIN, agent: str = AGENT, body: bytes | None = None):
    if body is None:
        body = json.dumps({"site": site_id, "events": [{"type": "pageview", "url": f"{ORIGIN}/pricing",
                                                         "ts": int(time.time() * 1000)}]}).encode()
    return client.post("/collect", data=body, headers={
        "Content-Type": "text/plain;charset=UTF-8", "Origin": origin, "User-Agent": agent,
        "X-Forwarded-For": ADDRESS})


def test_the_beacon_answers_as_the_flask_app_does(collector, client, make_site, db):
    base, _, _ = collector
    site = make_site(domains=("shop.example.com",))
    cases = {
        "accepted": {},
        "bot": {"agent": "Googlebot/2.1 (+http://www.google.com/bot.html)"},
        "foreign origin": {"origin": "https://elsewhere.example.org"},
        "unknown site": {"body": b'{"site": "6f1c1a52-0000-4000-8000-000000000000", "events": [{}]}'},
        "not JSON": {"body": b"{nope"},
        "bad shape": {"body": json.dumps({"site": site.site_id, "events": [], "extra": 1}).encode()},
        "too large": {"body": b" " * (96 * 1024 + 1)},
    }
    for name, case in cases.items():
        served, direct = _beacon(base, site.site_id, **case), _flask_beacon(client, site.site_id, **case)
        assert served.status_code == direct.status_code, name
        assert served.content == direct.get_data(), name
        assert served.headers.get("Access-Control-Allow-Origin") == direct.headers.get("Access-Control-Allow-Origin"), name
        assert served.headers.get("Vary") == direct.headers.get("Vary") == "Origin", name
    assert _beacon(base, site.site_id).status_code == 204
    stored = db.execute("select count(*) from raw.events where site_id = %s", (site.site_id,)).fetchone()[0]
    assert stored == 3  # the accepted beacon of each app, and the last one


def test_options_and_other_methods_on_the_beacon_path_stay_flasks(collector):
    base, _, _ = collector
    options = requests.options(base + "/collect", timeout=10)
    assert "POST" in options.headers["Allow"]
    refused = requests.put(base + "/collect", data=b"{}", timeout=10)
    assert refused.status_code == 405
    assert "POST" in refused.headers["Allow"]
    assert refused.json()["error"]["code"] == "method_not_allowed"


def test_successful_beacons_are_left_out_of_the_access_log_and_no_line_holds_an_address(collector, make_site):
    base, access_path, log_path = collector
    site = make_site(domains=("shop.example.com",))
    assert _beacon(base, site.site_id).status_code == 204
    assert _beacon(base, site.site_id, origin="https://elsewhere.example.org").status_code == 403
    server = requests.post(base + "/collect/server", timeout=10, headers=site.auth,
                           json={"events": [{"type": "pageview", "url": "https://shop.example.com/",
                                             "ip": ADDRESS, "user_agent": AGENT}]})
    assert server.status_code == 202
    assert requests.get(base + f"/collect?site={site.site_id}", timeout=10,
                        headers={"X-Forwarded-For": ADDRESS}).status_code == 200
    def logged() -> list[str]:
        return [line for line in access_path.read_text().splitlines() if "/healthz" not in line]

    deadline = time.monotonic() + 10
    while len(logged()) < 3 and time.monotonic() < deadline:  # the log is written after the answer
        time.sleep(0.05)
    lines = logged()
    assert [line.split('"')[1] for line in lines] == ["POST /collect HTTP/1.1", "POST /collect/server HTTP/1.1",
                                                       "GET /collect HTTP/1.1"]
    assert " 403 " in lines[0] and " 202 " in lines[1] and " 200 " in lines[2]
    assert ADDRESS not in log_path.read_text()
    access = access_path.read_text()
    assert ADDRESS not in access and "127.0.0.1" not in access  # neither the visitor nor the peer


def test_a_request_line_over_the_limit_is_a_structured_414(collector):
    base, _, _ = collector
    just_under = requests.get(base + "/healthz?" + "a" * (4094 - len("GET /healthz? HTTP/1.1")), timeout=10)
    assert just_under.status_code == 200
    for method, path in (("GET", "/api/v1/sites"), ("POST", "/collect")):
        refused = requests.request(method, base + path + "?q=" + "a" * 4100, timeout=10)
        assert refused.status_code == 414
        assert refused.json()["error"]["code"] == "uri_too_long"


def _raw_exchange(base: str, head: bytes, chunks: int = 1) -> bytes:
    """Send a request head over a raw socket (`chunks` times, as a slow client would) and read
    the answer until the server closes the connection."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        try:
            for _ in range(chunks):
                connection.sendall(head)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused and closed before the rest was sent
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def test_header_fields_are_held_to_gunicorns_limits_with_a_structured_431(collector):
    base, _, _ = collector
    # At the limit: 8,190 bytes for name, ": " and value, 100 fields (requests and http.client add 5 of their own).
    at_limit = {"X-Big": "v" * (8190 - len("X-Big: ")), **{f"X-F{n}": "1" for n in range(94)}}
    assert requests.get(base + "/healthz", headers=at_limit, timeout=10).status_code == 200
    for headers in ({"X-Big": "v" * (8191 - len("X-Big: "))}, {f"X-F{n}": "1" for n in range(101)}):
        refused = requests.get(base + "/api/v1/sites", headers=headers, timeout=10)
        assert refused.status_code == 431
        assert refused.json()["error"]["code"] == "headers_too_large"
        assert refused.headers["Connection"] == "close"
    # A header that never ends is refused once the head passes what 100 full fields could hold,
    # instead of being kept in memory; the worker goes on serving.
    answer = _raw_exchange(base, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Endless: " + b"v" * 65536, chunks=20)
    assert answer.startswith(b"HTTP/1.1 431 ")
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "headers_too_large"
    assert requests.get(base + "/healthz", timeout=10).status_code == 200


def test_a_keep_alive_connection_is_closed_after_its_thousandth_request(collector):
    """So that long-lived connections even out across the workers (analytics_cli/collector_http.py)."""
    base, _, _ = collector
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    for n in range(1, MAX_REQUESTS_PER_CONNECTION + 1):
        connection.request("GET", "/healthz")
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200
        assert (answer.getheader("Connection") == "close") == (n == MAX_REQUESTS_PER_CONNECTION), n
    connection.close()


def test_past_its_connections_a_worker_answers_a_structured_503(database_url, tmp_path):
    process, base, _, _ = start_collector(database_url, tmp_path, ANALYTICS_COLLECTOR_CONNECTIONS="2")
    try:
        host, port = base.removeprefix("http://").split(":")
        first = http.client.HTTPConnection(host, int(port), timeout=10)
        first.request("GET", "/healthz")
        answer = first.getresponse()
        assert answer.status == 200  # one connection, left open and idle
        answer.read()
        second = http.client.HTTPConnection(host, int(port), timeout=10)
        second.request("GET", "/api/v1/sites")
        refused = second.getresponse()  # uvicorn counts this one too: two of two
        assert refused.status == 503 and refused.getheader("Retry-After") == "1"
        assert json.loads(refused.read())["error"]["code"] == "overloaded"
        for connection in (first, second):
            connection.close()
    finally:
        process.terminate()
        process.wait(30)
