"""OpenID providers for the single sign-on tests, over real HTTP on 127.0.0.1.

* `real_provider(directory, redirect_uris)`: `server.js` (panva's oidc-provider, installed by
  `make test-servers` with npm ci). `provider_sign_in` goes through its own sign-in and consent
  pages with an HTTP client, as a browser would; the browser test uses Chromium instead.
* `ForgedProvider`: a hand-made provider (discovery, JWKS, authorization, token endpoints) whose ID
  tokens the test chooses: expired, signed by a key not in its JWKS, for another audience or
  issuer, or signed by a key it publishes only after a rotation. A certified provider never issues
  these, and the workbench must refuse them all the same.
"""
from __future__ import annotations

import contextlib
import html
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import requests
from authlib.jose import JsonWebKey, jwt

from analytics_cli.node_toolchain import node_bin_dir
from tests.workbench_sources.servers import _answers, _running, free_port

HERE = Path(__file__).parent
CLIENT_ID = "workbench"
CLIENT_SECRET = "workbench-test-secret"


@dataclass
class RealProvider:
    issuer: str
    directory_file: Path

    def set_directory(self, directory: dict[str, dict]) -> None:
        """Replace the people the provider knows (login -> claims); read at the next sign-in."""
        self.directory_file.write_text(json.dumps(directory))


@contextlib.contextmanager
def real_provider(directory: dict[str, dict], redirect_uris: list[str], folder: Path) -> Iterator[RealProvider]:
    if not (HERE / "node_modules").is_dir():
        raise RuntimeError("tests/oidc_provider/node_modules is missing: run make test-servers")
    port = free_port()
    provider = RealProvider(f"http://127.0.0.1:{port}", folder / "directory.json")
    provider.set_directory(directory)
    with _running([str(Path(node_bin_dir()) / "node"), "server.js", str(port), str(provider.directory_file),
                   ",".join(redirect_uris)],
                  lambda: _answers(provider.issuer + "/.well-known/openid-configuration"),
                  "the OpenID provider", cwd=HERE):
        yield provider


def _form(page: str, base: str) -> tuple[str, dict[str, str]]:
    action = re.search(r'<form[^>]*action="([^"]+)"[^>]*method="post"', page)
    assert action, page[:2000]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    return urljoin(base, html.unescape(action.group(1))), fields


def provider_sign_in(authorization_url: str, login: str, callback_prefix: str,
                     session: requests.Session | None = None) -> str:
    """Sign in at the provider's pages as `login` (login page, then consent page when asked) and
    answer the URL the provider sends the browser back to (the workbench's callback)."""
    session = session or requests.Session()
    url, method, data = authorization_url, "GET", None
    for _ in range(20):
        answer = session.request(method, url, data=data, allow_redirects=False, timeout=30)
        if answer.is_redirect:
            url, method, data = urljoin(url, answer.headers["Location"]), "GET", None
            if url.startswith(callback_prefix):
                return url
            continue
        assert answer.status_code == 200, (answer.status_code, answer.text[:2000])
        action, fields = _form(answer.text, url)
        if fields.get("prompt") == "login":
            fields.update(login=login, password="any password")
        url, method, data = action, "POST", fields
    raise AssertionError("the provider never sent the browser back")


def callback_query(callback_url: str) -> str:
    return urlsplit(callback_url).query


def _private_key(kid: str):
    return JsonWebKey.generate_key("RSA", 2048, {"kid": kid, "alg": "RS256", "use": "sig"}, is_private=True)


@dataclass
class ForgedProvider:
    """A provider whose next ID token is what `token_claims` and `signing_key` say."""

    issuer: str = ""
    published: list = field(default_factory=list)  # keys in the JWKS
    signing_key: Any = None
    token_claims: dict[str, Any] = field(default_factory=dict)
    nonces: dict[str, str] = field(default_factory=dict)  # code -> nonce of its authorization request
    jwks_fetches: int = 0

    def new_key(self, kid: str):
        return _private_key(kid)

    def id_token(self, code: str) -> str:
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": CLIENT_ID, "sub": "forged-1", "email": "forged@example.org",
                  "iat": now, "exp": now + 300, "nonce": self.nonces.get(code, "")}
        claims.update(self.token_claims)
        kid = self.signing_key.as_dict()["kid"]
        return jwt.encode({"alg": "RS256", "kid": kid}, claims, self.signing_key).decode()


def _handler(provider: ForgedProvider):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def _json(self, document: dict, status: int = 200) -> None:
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path, _, query = self.path.partition("?")
            if path == "/.well-known/openid-configuration":
                self._json({"issuer": provider.issuer, "authorization_endpoint": provider.issuer + "/authorize",
                            "token_endpoint": provider.issuer + "/token", "jwks_uri": provider.issuer + "/jwks",
                            "response_types_supported": ["code"], "subject_types_supported": ["public"],
                            "id_token_signing_alg_values_supported": ["RS256"]})
            elif path == "/jwks":
                provider.jwks_fetches += 1
                self._json({"keys": [key.as_dict(is_private=False) for key in provider.published]})
            elif path == "/authorize":
                params = {name: values[0] for name, values in parse_qs(query).items()}
                code = uuid.uuid4().hex
                provider.nonces[code] = params.get("nonce", "")
                self.send_response(302)
                self.send_header("Location", params["redirect_uri"] + "?" + urlencode(
                    {"code": code, "state": params.get("state", "")}))
                self.end_headers()
            else:
                self._json({"error": "not_found"}, 404)

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            form = {name: values[0] for name, values in parse_qs(self.rfile.read(length).decode()).items()}
            if self.path == "/token" and form.get("grant_type") == "authorization_code":
                self._json({"access_token": uuid.uuid4().hex, "token_type": "Bearer", "expires_in": 300,
                            "id_token": provider.id_token(form.get("code", ""))})
            else:
                self._json({"error": "invalid_request"}, 400)

    return Handler


@contextlib.contextmanager
def forged_provider() -> Iterator[ForgedProvider]:
    provider = ForgedProvider()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(provider))
    provider.issuer = f"http://127.0.0.1:{server.server_address[1]}"
    key = provider.new_key("forged-key-1")
    provider.published.append(key)
    provider.signing_key = key
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
