"""The assistant's provider: what an administrator set (API), else the environment (Settings).

The API key is sealed at rest with AES-256-GCM (the sealing of source passwords, with a key derived
for this use only) and never leaves the server: reading the configuration says whether a key is
set, nothing more. The assistant is off until a base URL and a model are known.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from pipelines.settings import Settings
from workbench_app.accounts.identity import Identity
from workbench_app.errors import WorkbenchError
from workbench_app.settings_over_environment import SettingsOverEnvironment

_ROW = SettingsOverEnvironment("assistant_provider", "assistant_", secret_purpose="workbench-assistant-provider-key",
                               secret_bound_to="assistant-provider:1")
# Limits an administrator may set, with their bounds (the migration's checks say the same).
LIMITS = {"max_tool_rounds": (1, 20), "max_rows": (1, 1000), "max_result_chars": (500, 200_000),
          "requests_per_hour": (0, 1_000_000), "tokens_per_hour": (0, 2_000_000_000), "timeout_seconds": (1, 600)}
# Headers the SDK sets itself: an extra one must not replace the key or the content type.
RESERVED_HEADERS = {"authorization", "content-type", "content-length", "host", "openai-organization"}


@dataclass(frozen=True)
class ProviderConfig:
    """The effective configuration (administrator's values over the environment's)."""

    base_url: str | None
    model: str | None
    api_key: str | None = field(repr=False)
    organization: str | None
    headers: dict[str, str]
    max_tool_rounds: int
    max_rows: int
    max_result_chars: int
    requests_per_hour: int
    tokens_per_hour: int
    timeout_seconds: int
    source: str  # "settings", "environment" or "none": where the base URL came from

    @property
    def enabled(self) -> bool:
        return bool(self.base_url and self.model)




def effective(conn: psycopg.Connection, settings: Settings) -> ProviderConfig:
    stored = _ROW.stored(conn)
    pick = _ROW.picker(stored, settings)

    api_key = _ROW.secret(settings, stored, "api_key_sealed")
    source = _ROW.source(stored, settings, "base_url")
    return ProviderConfig(base_url=pick("base_url"), model=pick("model"), api_key=api_key,
                          organization=pick("organization"), headers=dict(stored.get("headers") or {}),
                          source=source, **{name: pick(name) for name in LIMITS})


def describe(config: ProviderConfig) -> dict[str, Any]:
    """The configuration as the API shows it to administrators: never the key itself."""
    return {"enabled": config.enabled, "source": config.source, "base_url": config.base_url, "model": config.model,
            "api_key_set": bool(config.api_key), "organization": config.organization,
            "header_names": sorted(config.headers), **{name: getattr(config, name) for name in LIMITS}}


def update(conn: psycopg.Connection, settings: Settings, who: Identity, given: dict) -> ProviderConfig:
    """Apply an administrator's change, the fields the request gave (assistant/shapes.py's
    `ProviderChange`, validated): a field given replaces the stored one; null clears it (the
    environment's value applies again); `api_key` "" or null clears the key."""
    changes: dict[str, Any] = {}
    if "base_url" in given:
        changes["base_url"] = given["base_url"].rstrip("/") if given["base_url"] else None
    for name in ("model", "organization"):
        if name in given:
            changes[name] = given[name] or None
    changes.update(_ROW.sealed_change(settings, given, "api_key"))
    if given.get("headers") is not None:
        changes["headers"] = Jsonb(given["headers"])
    for name in LIMITS:
        if name in given:
            changes[name] = given[name]
    _ROW.write(conn, who, changes, "assistant.provider_changed")
    return effective(conn, settings)


def clear(conn: psycopg.Connection, settings: Settings, who: Identity) -> ProviderConfig:
    """Forget the administrator's settings (the environment's, if any, apply again)."""
    _ROW.clear(conn, who, "assistant.provider_cleared")
    return effective(conn, settings)


def require_enabled(config: ProviderConfig) -> ProviderConfig:
    if not config.enabled:
        raise WorkbenchError(409, "assistant_not_configured",
                             "The assistant is off: an administrator has not configured a provider.")
    return config
