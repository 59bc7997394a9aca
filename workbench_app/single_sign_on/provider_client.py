"""The OpenID provider seen from the workbench, with Authlib: discovery, the authorization request
(code flow with PKCE, `state`, `nonce`), the code exchange and the ID token's checks.

The ID token's signature is checked against the provider's JWKS; a key id not in the cached set
fetches the set again once (the provider rotated its keys), so rotation needs no restart. `iss`,
`aud`, `exp`, `iat` and `nonce` are checked by Authlib's `CodeIDToken` rules. Every failure is a
`SignOnRefused` with a stable code the sign-in page translates.
"""
from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass
from typing import Any

import requests
from authlib.common.security import generate_token
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt
from authlib.jose.errors import JoseError
from authlib.oidc.core import CodeIDToken

from workbench_app.single_sign_on.configuration import SingleSignOn

TIMEOUT_SECONDS = 10
# Seconds of clock difference tolerated on `exp` and `iat` between the provider and this server.
LEEWAY_SECONDS = 60


class SignOnRefused(Exception):
    """A sign-in that did not go through; `code` names why (the sign-in page translates it)."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class Started:
    """An authorization request: where to send the browser, and what its answer must match."""

    url: str
    state: str
    nonce: str
    code_verifier: str


_discovered: dict[str, dict[str, Any]] = {}
_key_sets: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


def _get_json(url: str) -> dict[str, Any]:
    try:
        answer = requests.get(url, timeout=TIMEOUT_SECONDS, headers={"Accept": "application/json"})
        answer.raise_for_status()
        document = answer.json()
    except (requests.RequestException, ValueError) as error:
        raise SignOnRefused("provider_unreachable", f"{url}: {error.__class__.__name__}") from None
    if not isinstance(document, dict):
        raise SignOnRefused("provider_unreachable", f"{url}: not a JSON object")
    return document


def discover(issuer: str) -> dict[str, Any]:
    """The provider's metadata (`/.well-known/openid-configuration`), cached per worker. Its `issuer`
    must be the one configured, character for character (OpenID Connect Discovery, 4.3)."""
    with _lock:
        if issuer in _discovered:
            return _discovered[issuer]
    metadata = _get_json(f"{issuer}/.well-known/openid-configuration")
    if metadata.get("issuer") != issuer:
        raise SignOnRefused("issuer_mismatch", f"the provider calls itself {str(metadata.get('issuer'))[:200]!r}")
    for endpoint in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        if not isinstance(metadata.get(endpoint), str):
            raise SignOnRefused("provider_unreachable", f"the discovery document has no {endpoint}")
    with _lock:
        _discovered[issuer] = metadata
    return metadata


def forget(issuer: str) -> None:
    """Drop what is cached of a provider (its configuration changed)."""
    with _lock:
        metadata = _discovered.pop(issuer, None)
        if metadata:
            _key_sets.pop(metadata["jwks_uri"], None)


def _session(config: SingleSignOn, redirect_uri: str) -> OAuth2Session:
    return OAuth2Session(config.client_id, config.client_secret, scope=config.scopes, redirect_uri=redirect_uri,
                         code_challenge_method="S256", timeout=TIMEOUT_SECONDS)


def start(config: SingleSignOn, redirect_uri: str) -> Started:
    """A new authorization request (code flow, PKCE S256, fresh `state` and `nonce`)."""
    metadata = discover(config.issuer)
    state, nonce, code_verifier = generate_token(43), generate_token(43), generate_token(64)
    url, _ = _session(config, redirect_uri).create_authorization_url(
        metadata["authorization_endpoint"], state=state, nonce=nonce, code_verifier=code_verifier)
    return Started(url, state, nonce, code_verifier)


def _key_set(jwks_uri: str, refresh: bool) -> dict[str, Any]:
    with _lock:
        cached = _key_sets.get(jwks_uri)
    if cached is None or refresh:
        cached = _get_json(jwks_uri)
        with _lock:
            _key_sets[jwks_uri] = cached
    return cached


def _header(token: str) -> dict[str, Any]:
    try:
        encoded = token.split(".")[0]
        return json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except (ValueError, IndexError):
        raise SignOnRefused("token_invalid", "the ID token is not a JWT") from None


def _signing_keys(jwks_uri: str, kid: str | None):
    """The provider's keys, fetched again once when the token names a key id the cache lacks."""
    keys = _key_set(jwks_uri, refresh=False)
    if kid is not None and kid not in {key.get("kid") for key in keys.get("keys", [])}:
        keys = _key_set(jwks_uri, refresh=True)
    try:
        return JsonWebKey.import_key_set(keys)
    except (JoseError, ValueError, TypeError) as error:
        raise SignOnRefused("token_invalid", f"the provider's JWKS is unusable: {error}") from None


def verify_id_token(config: SingleSignOn, id_token: str, nonce: str, access_token: str | None) -> dict[str, Any]:
    """The ID token's claims once its signature, `iss`, `aud`, `exp`, `iat` and `nonce` are right."""
    metadata = discover(config.issuer)
    header = _header(id_token)
    if header.get("alg") in (None, "none") or str(header.get("alg")).startswith("HS"):
        # Only the provider's public keys are trusted: no unsigned token, no secret-keyed one.
        raise SignOnRefused("token_invalid", f"ID token algorithm {header.get('alg')!r} is not accepted")
    keys = _signing_keys(metadata["jwks_uri"], header.get("kid"))
    try:
        claims = jwt.decode(
            id_token, keys, claims_cls=CodeIDToken,
            claims_options={"iss": {"essential": True, "value": config.issuer},
                            "aud": {"essential": True, "value": config.client_id}},
            claims_params={"nonce": nonce, "client_id": config.client_id, "access_token": access_token})
        claims.validate(leeway=LEEWAY_SECONDS)
    except JoseError as error:
        description = str(getattr(error, "description", "") or error)
        # A wrong nonce or issuer says more than "invalid" (another sign-in's answer, another
        # provider); everything else (signature, audience, expiry) is an unverifiable token.
        claim = getattr(error, "claim_name", None) or ("nonce" if "'nonce'" in description else None)
        code = {"nonce": "nonce_mismatch", "iss": "issuer_mismatch"}.get(claim, "token_invalid")
        raise SignOnRefused(code, f"{error.error}: {description}") from None
    except ValueError as error:  # a key the token names is absent even after fetching the set again
        raise SignOnRefused("token_invalid", str(error)) from None
    return dict(claims)


def finish(config: SingleSignOn, redirect_uri: str, code: str, code_verifier: str, nonce: str) -> dict[str, Any]:
    """Exchange the code (with the PKCE verifier) and answer the person's checked claims: those of
    the ID token, completed by the userinfo endpoint's when the provider has one."""
    metadata = discover(config.issuer)
    session = _session(config, redirect_uri)
    try:
        token = session.fetch_token(metadata["token_endpoint"], code=code, code_verifier=code_verifier,
                                    grant_type="authorization_code")
    except OAuthError as error:
        raise SignOnRefused("code_refused", f"{error.error}: {error.description}") from None
    except requests.RequestException as error:
        raise SignOnRefused("provider_unreachable", error.__class__.__name__) from None
    if not token.get("id_token"):
        raise SignOnRefused("token_invalid", "the token answer has no ID token")
    claims = verify_id_token(config, token["id_token"], nonce, token.get("access_token"))
    userinfo_endpoint = metadata.get("userinfo_endpoint")
    if userinfo_endpoint and token.get("access_token"):
        try:
            answer = session.get(userinfo_endpoint, timeout=TIMEOUT_SECONDS)
            extra = answer.json() if answer.ok else {}
        except (requests.RequestException, ValueError):
            extra = {}
        # Userinfo about someone else is ignored (OpenID Connect Core, 5.3.2).
        if isinstance(extra, dict) and extra.get("sub") == claims.get("sub"):
            claims = {**extra, **claims}
    return claims
