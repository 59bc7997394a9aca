"""Configuration of inbound sources: chat webhook receivers, database webhook receivers and
database stream followers, each tied to a site or to the whole instance.

Signing secrets and integration tokens are sealed (AES-256-GCM, `pipelines.sealing`) under a key
derived from the server secret for this use only, bound to their row by the associated data.
They are accepted once and never returned: records show a hint (prefix and last four characters).
"""
from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from pipelines import audit
from pipelines.admin._records import parse_id, require_site
from pipelines.admin.errors import InvalidInput, NotFound
from pipelines.key_derivation import derive_key
from pipelines.sealing import UnsealError, seal, unseal
from pipelines.settings import Settings

_log = logging.getLogger(__name__)
KINDS = ("chat_webhook", "db_webhook", "db_stream")
SEALING_PURPOSE = "inbound-source-secrets"
CHAT_SECRET_PREFIX = "whsec_"
# The database service's spec does not give the path of its REST read of rows: this default
# follows its `/api/v1/<tenant>/...` layout; a source may set its own `read_path`.
DEFAULT_READ_PATH = "/api/v1/{tenant}/{base}/tables/{table}/records"
DEFAULT_POLL_SECONDS = 60
DEFAULT_OVERLAP_SECONDS = 5
DEFAULT_PAGE_SIZE = 200
MAX_SECRETS = 5
MAX_TABLES = 50

_NAME_CHARS = re.compile(r"^[A-Za-z0-9_.~-]{1,200}$")
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_SETTINGS_FIELDS = {
    "chat_webhook": (),
    "db_webhook": (),
    "db_stream": ("base_url", "tenant", "base", "tables", "poll_seconds", "use_stream", "read_path",
                  "overlap_seconds", "page_size"),
}


def sealing_key(settings: Settings) -> bytes:
    """The key that seals inbound secrets and tokens (and nothing else)."""
    return derive_key(settings.server_secret(), SEALING_PURPOSE)


def _associated_data(source_id: uuid.UUID, secret_id: uuid.UUID, purpose: str) -> str:
    return f"inbound-source:{source_id}:{secret_id}:{purpose}"


def _hint(secret: str) -> str:
    prefix = CHAT_SECRET_PREFIX if secret.startswith(CHAT_SECRET_PREFIX) else ""
    return f"{prefix}…{secret[-4:]}" if len(secret) >= 12 else "…"


# -- validation ---------------------------------------------------------------------------------

def _require_object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InvalidInput("the body must be a JSON object", {"field": "body"})
    return body


def _reject_unknown(body: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise InvalidInput(f"unknown field{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}",
                           {"field": unknown[0], "unknown": unknown})


def _text(body: dict[str, Any], name: str, *, required: bool = False, max_length: int = 200) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise InvalidInput(f"{name} is required", {"field": name})
        return None
    if not isinstance(value, str) or not 0 < len(value.strip()) <= max_length or "\x00" in value:
        raise InvalidInput(f"{name} must be a string of 1 to {max_length} characters", {"field": name})
    return value.strip()


def _secret_value(value: Any, kind: str, where: str) -> str:
    if not isinstance(value, str) or not 8 <= len(value) <= 500 or _CONTROL.search(value) or not value.isascii():
        raise InvalidInput(f"{where} must be 8 to 500 printable ASCII characters without spaces", {"field": where})
    if kind == "chat_webhook" and not value.startswith(CHAT_SECRET_PREFIX):
        raise InvalidInput(f"{where} must be the whole chat signing secret, beginning with {CHAT_SECRET_PREFIX}",
                           {"field": where})
    return value


def _secrets_of(body: dict[str, Any], kind: str, *, required: bool) -> list[str]:
    if "secret" in body and "secrets" in body:
        raise InvalidInput("give either secret or secrets", {"field": "secrets"})
    if "secret" in body:
        return [_secret_value(body["secret"], kind, "secret")]
    if "secrets" in body:
        values = body["secrets"]
        if not isinstance(values, list) or not 1 <= len(values) <= MAX_SECRETS:
            raise InvalidInput(f"secrets must be a list of 1 to {MAX_SECRETS} secrets", {"field": "secrets"})
        return [_secret_value(value, kind, f"secrets[{i}]") for i, value in enumerate(values)]
    if required:
        raise InvalidInput("secret is required: the signing secret shown when the webhook was created",
                           {"field": "secret"})
    return []


def _base_url(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 500:
        raise InvalidInput("base_url must be an http(s) URL", {"field": "base_url"})
    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:
        raise InvalidInput("base_url must be an http(s) URL", {"field": "base_url"}) from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password \
            or parts.query or parts.fragment:
        raise InvalidInput("base_url must be an http(s) URL without credentials, query or fragment",
                           {"field": "base_url"})
    return value.strip().rstrip("/")


def _int(body: dict[str, Any], name: str, minimum: int, maximum: int, default: int | None) -> int | None:
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InvalidInput(f"{name} must be a whole number from {minimum} to {maximum}", {"field": name})
    return value


def _stream_settings(body: dict[str, Any], current: dict[str, Any] | None = None) -> dict[str, Any]:
    merged = dict(current or {})
    merged.update({k: v for k, v in body.items() if k in _SETTINGS_FIELDS["db_stream"]})
    if "base_url" not in merged:
        raise InvalidInput("base_url is required", {"field": "base_url"})
    result: dict[str, Any] = {"base_url": _base_url(merged["base_url"])}
    for name in ("tenant", "base"):
        value = merged.get(name)
        if not isinstance(value, str) or not _NAME_CHARS.match(value):
            raise InvalidInput(f"{name} is required: letters, digits, '.', '_', '~' or '-'", {"field": name})
        result[name] = value
    tables = merged.get("tables")
    if not isinstance(tables, list) or not 1 <= len(tables) <= MAX_TABLES or len(set(map(str, tables))) != len(tables):
        raise InvalidInput(f"tables must be a list of 1 to {MAX_TABLES} distinct table names", {"field": "tables"})
    for i, table in enumerate(tables):
        if not isinstance(table, str) or not 0 < len(table) <= 200 or re.search(r"[\x00-\x1f\x7f]", table):
            raise InvalidInput("a table name is 1 to 200 characters", {"field": f"tables[{i}]"})
    result["tables"] = list(tables)
    use_stream = merged.get("use_stream", True)
    if not isinstance(use_stream, bool):
        raise InvalidInput("use_stream must be true or false", {"field": "use_stream"})
    result["use_stream"] = use_stream
    poll = _int(merged, "poll_seconds", 5, 86400, None)
    result["poll_seconds"] = poll if poll is not None else (None if use_stream else DEFAULT_POLL_SECONDS)
    read_path = merged.get("read_path") or DEFAULT_READ_PATH
    if not isinstance(read_path, str) or not read_path.startswith("/") or len(read_path) > 500 \
            or "{table}" not in read_path or _CONTROL.search(read_path):
        raise InvalidInput("read_path must be a path beginning with / that contains {table}"
                           " (and may contain {tenant} and {base})", {"field": "read_path"})
    try:
        read_path.format(tenant="t", base="b", table="x")
    except (KeyError, IndexError, ValueError):
        raise InvalidInput("read_path may only use the placeholders {tenant}, {base} and {table}",
                           {"field": "read_path"}) from None
    result["read_path"] = read_path
    result["overlap_seconds"] = _int(merged, "overlap_seconds", 0, 3600, DEFAULT_OVERLAP_SECONDS)
    result["page_size"] = _int(merged, "page_size", 1, 1000, DEFAULT_PAGE_SIZE)
    return result


# -- records ------------------------------------------------------------------------------------

def _record(conn: psycopg.Connection, row: dict[str, Any]) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        secrets = cur.execute(
            """select secret_id as id, purpose, hint, created_at, retired_at from collect.inbound_secrets
                where source_id = %s order by created_at, secret_id""",
            (row["source_id"],),
        ).fetchall()
    record = {
        "id": row["source_id"],
        "kind": row["kind"],
        "site_id": row["site_id"],
        "name": row["name"],
        "state": row["state"],
        "settings": row["settings"],
        "secrets": secrets,
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }
    if row["kind"] == "chat_webhook":
        record["endpoint"] = f"/ingest/chat/{row['source_id']}"
    elif row["kind"] == "db_webhook":
        record["endpoint"] = f"/ingest/db/{row['source_id']}"
    return record


def _load(conn: psycopg.Connection, source_id: object, *, lock: bool = False) -> dict[str, Any]:
    parsed = parse_id(source_id, "inbound source")
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute("select * from collect.inbound_sources where source_id = %s" + (" for update" if lock else ""),
                          (parsed,)).fetchone()
    if row is None:
        raise NotFound("inbound source not found", {"source_id": str(parsed)})
    return row


def _store_secret(conn: psycopg.Connection, key: bytes, source_id: uuid.UUID, purpose: str, value: str) -> uuid.UUID:
    secret_id = uuid.uuid4()
    conn.execute(
        # clock_timestamp: secrets added in one transaction keep the order they were given in.
        """insert into collect.inbound_secrets (secret_id, source_id, purpose, sealed, hint, created_at)
           values (%s, %s, %s, %s, %s, clock_timestamp())""",
        (secret_id, source_id, purpose, seal(key, value, _associated_data(source_id, secret_id, purpose)), _hint(value)),
    )
    return secret_id


def create_source(conn: psycopg.Connection, key: bytes, body: Any, *, actor: str) -> dict[str, Any]:
    """Create a source from an administration request body. Returns its record (no secrets)."""
    body = _require_object(body)
    kind = body.get("kind")
    if kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}", {"field": "kind"})
    allowed = ("kind", "site_id", "name") + (("token",) + _SETTINGS_FIELDS[kind] if kind == "db_stream"
                                             else ("secret", "secrets"))
    _reject_unknown(body, allowed)
    site_id = require_site(conn, body["site_id"]) if body.get("site_id") is not None else None
    name = _text(body, "name") or ""
    if kind == "db_stream":
        settings = _stream_settings(body)
        token = _secret_value(body.get("token"), kind, "token") if body.get("token") is not None else None
        if token is None:
            raise InvalidInput("token is required: an integration token of the database", {"field": "token"})
        secrets, purpose = [token], "token"
    else:
        settings = {}
        secrets, purpose = _secrets_of(body, kind, required=True), "signing"
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            """insert into collect.inbound_sources (kind, site_id, name, settings) values (%s, %s, %s, %s)
               returning *""",
            (kind, site_id, name, Jsonb(settings)),
        ).fetchone()
    for value in secrets:
        _store_secret(conn, key, row["source_id"], purpose, value)
    audit.record(conn, actor, "inbound_source.created", str(row["source_id"]),
                 {"kind": kind, "site_id": str(site_id) if site_id else None, "name": name})
    return _record(conn, row)


def list_sources(conn: psycopg.Connection) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute("select * from collect.inbound_sources order by created_at, source_id").fetchall()
    return [_record(conn, row) for row in rows]


def get_source(conn: psycopg.Connection, source_id: object) -> dict[str, Any]:
    return _record(conn, _load(conn, source_id))


def update_source(conn: psycopg.Connection, key: bytes, source_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    """Change the name, state (active/paused), stream settings, or replace the integration token."""
    body = _require_object(body)
    row = _load(conn, source_id, lock=True)
    kind = row["kind"]
    _reject_unknown(body, ("name", "state") + ((("token",) + _SETTINGS_FIELDS[kind]) if kind == "db_stream" else ()))
    name = _text(body, "name") if "name" in body else row["name"]
    state = body.get("state", row["state"])
    if state not in ("active", "paused"):
        raise InvalidInput("state must be active or paused", {"field": "state"})
    settings = _stream_settings(body, row["settings"]) if kind == "db_stream" else row["settings"]
    changed = sorted(set(body) - {"token"})
    if kind == "db_stream" and body.get("token") is not None:
        token = _secret_value(body["token"], kind, "token")
        conn.execute("update collect.inbound_secrets set retired_at = now() where source_id = %s and retired_at is null",
                     (row["source_id"],))
        _store_secret(conn, key, row["source_id"], "token", token)
        # A new token is the operator's answer to a refused one: stopped followers run again.
        conn.execute("""update raw.db_follow_state set state = 'running', last_error = null, updated_at = now()
                         where source_id = %s""", (row["source_id"],))
        changed.append("token")
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            """update collect.inbound_sources set name = %s, state = %s, settings = %s, updated_at = now()
                where source_id = %s returning *""",
            (name, state, Jsonb(settings), row["source_id"]),
        ).fetchone()
    audit.record(conn, actor, "inbound_source.updated", str(row["source_id"]), {"fields": changed})
    return _record(conn, row)


def delete_source(conn: psycopg.Connection, source_id: object, *, actor: str) -> None:
    """Delete a source and its secrets (received data stays in raw)."""
    row = _load(conn, source_id, lock=True)
    conn.execute("delete from collect.inbound_sources where source_id = %s", (row["source_id"],))
    conn.execute("delete from raw.db_follow_state where source_id = %s", (row["source_id"],))
    audit.record(conn, actor, "inbound_source.deleted", str(row["source_id"]), {"kind": row["kind"]})


def add_secret(conn: psycopg.Connection, key: bytes, source_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    """Add a signing secret (rotation: old and new are both accepted until the old is retired)."""
    body = _require_object(body)
    row = _load(conn, source_id, lock=True)
    if row["kind"] == "db_stream":
        raise InvalidInput("a stream follower has a token, not signing secrets: change it with PATCH",
                           {"field": "secret"})
    _reject_unknown(body, ("secret",))
    value = _secrets_of(body, row["kind"], required=True)[0]
    active = conn.execute("""select count(*) from collect.inbound_secrets
                              where source_id = %s and retired_at is null""", (row["source_id"],)).fetchone()[0]
    if active >= MAX_SECRETS:
        raise InvalidInput(f"a source has at most {MAX_SECRETS} active secrets: retire one first", {"field": "secret"})
    secret_id = _store_secret(conn, key, row["source_id"], "signing", value)
    audit.record(conn, actor, "inbound_source.secret_added", str(row["source_id"]), {"secret_id": str(secret_id)})
    return _record(conn, row)


def retire_secret(conn: psycopg.Connection, source_id: object, secret_id: object, *, actor: str) -> dict[str, Any]:
    """Stop accepting a signing secret. The last active one cannot be retired (add its successor first)."""
    row = _load(conn, source_id, lock=True)
    secret = parse_id(secret_id, "secret")
    found = conn.execute("""select retired_at from collect.inbound_secrets
                             where source_id = %s and secret_id = %s and purpose = 'signing'""",
                         (row["source_id"], secret)).fetchone()
    if found is None:
        raise NotFound("secret not found", {"secret_id": str(secret)})
    if found[0] is None:
        active = conn.execute("""select count(*) from collect.inbound_secrets
                                  where source_id = %s and purpose = 'signing' and retired_at is null""",
                              (row["source_id"],)).fetchone()[0]
        if active <= 1:
            raise InvalidInput("this is the last active secret: add its successor before retiring it",
                               {"field": "secret_id"})
        conn.execute("update collect.inbound_secrets set retired_at = now() where secret_id = %s", (secret,))
        audit.record(conn, actor, "inbound_source.secret_retired", str(row["source_id"]), {"secret_id": str(secret)})
    return _record(conn, row)


# -- what receivers and followers need ----------------------------------------------------------

@dataclass(frozen=True)
class ReceiverSource:
    """A webhook source as a receiver sees it: its active secrets, opened."""

    source_id: uuid.UUID
    kind: str
    site_id: uuid.UUID | None
    active: bool
    secrets: tuple[str, ...] = field(repr=False)


def receiver_source(conn: psycopg.Connection, key: bytes, source_id: str, kind: str) -> ReceiverSource | None:
    """The source with this id and kind, or None (unknown id, other kind, malformed id)."""
    try:
        parsed = uuid.UUID(source_id)
    except (ValueError, TypeError, AttributeError):
        return None
    row = conn.execute("select kind, site_id, state from collect.inbound_sources where source_id = %s and kind = %s",
                       (parsed, kind)).fetchone()
    if row is None:
        return None
    sealed = conn.execute("""select secret_id, sealed from collect.inbound_secrets
                              where source_id = %s and purpose = 'signing' and retired_at is null""",
                          (parsed,)).fetchall()
    opened = tuple(unseal(key, value, _associated_data(parsed, secret_id, "signing")) for secret_id, value in sealed)
    return ReceiverSource(parsed, row[0], row[1], row[2] == "active", opened)


@dataclass(frozen=True)
class FollowerConfig:
    """One followed table of a stream source."""

    source_id: uuid.UUID
    site_id: uuid.UUID | None
    base_url: str
    tenant: str
    base: str
    table: str
    token: str = field(repr=False)
    use_stream: bool = True
    poll_seconds: int | None = None
    read_path: str = DEFAULT_READ_PATH
    overlap_seconds: int = DEFAULT_OVERLAP_SECONDS
    page_size: int = DEFAULT_PAGE_SIZE

    @property
    def stream_url(self) -> str:
        return f"{self.base_url}/api/v1/{quote(self.tenant, safe='')}/events"

    @property
    def read_url(self) -> str:
        path = self.read_path.format(tenant=quote(self.tenant, safe=""), base=quote(self.base, safe=""),
                                     table=quote(self.table, safe=""))
        return self.base_url + path

    @property
    def name(self) -> str:
        return f"{self.source_id}/{self.table}"


def follower_configs(conn: psycopg.Connection, key: bytes, source_id: object | None = None) -> list[FollowerConfig]:
    """Every followed table of the active stream sources (or of one source), tokens opened."""
    query = """select s.source_id, s.site_id, s.settings, t.secret_id, t.sealed
                 from collect.inbound_sources s
                 join collect.inbound_secrets t on t.source_id = s.source_id and t.purpose = 'token'
                                               and t.retired_at is null
                where s.kind = 'db_stream' and s.state = 'active'"""
    params: tuple = ()
    if source_id is not None:
        query += " and s.source_id = %s"
        params = (parse_id(source_id, "inbound source"),)
    configs = []
    for sid, site_id, settings, secret_id, sealed in conn.execute(query + " order by s.created_at", params):
        try:
            token = unseal(key, sealed, _associated_data(sid, secret_id, "token"))
        except UnsealError:
            # The server secret changed since the token was stored: this source waits for a new
            # token (PATCH), the others go on.
            _log.error("inbound source %s: its token cannot be opened with the current server secret", sid)
            continue
        for table in settings["tables"]:
            configs.append(FollowerConfig(
                source_id=sid, site_id=site_id, base_url=settings["base_url"], tenant=settings["tenant"],
                base=settings["base"], table=table, token=token, use_stream=settings.get("use_stream", True),
                poll_seconds=settings.get("poll_seconds"), read_path=settings.get("read_path") or DEFAULT_READ_PATH,
                overlap_seconds=settings.get("overlap_seconds", DEFAULT_OVERLAP_SECONDS),
                page_size=settings.get("page_size", DEFAULT_PAGE_SIZE)))
    return configs


def has_followers(conn: psycopg.Connection) -> bool:
    """True when at least one active stream source is configured (`analytics up` then starts the follower)."""
    return conn.execute("""select exists (select 1 from collect.inbound_sources
                                           where kind = 'db_stream' and state = 'active')""").fetchone()[0]


def source_figures(conn: psycopg.Connection, source_id: object) -> dict[str, Any]:
    """Check figures of a source: deliveries and events received, refusals by reason, inbox backlog,
    quarantined payloads, and for a follower the state of each table (with its last error)."""
    row = _load(conn, source_id)
    sid = row["source_id"]
    deliveries, events, pending, failed, last_delivery = conn.execute(
        """select count(*), coalesce(sum(event_count), 0), count(*) filter (where processed_at is null),
                  count(*) filter (where processed_at is null and attempts >= 5), max(received_at)
             from raw.inbound_inbox where source_id = %s and received_at > now() - interval '24 hours'""",
        (sid,)).fetchone()
    refusals = dict(conn.execute(
        """select reason, sum(count)::bigint from collect.inbound_refusals
            where source_id = %s and minute > now() - interval '24 hours' group by reason order by reason""",
        (sid,)).fetchall())
    quarantined = conn.execute("select count(*) from raw.inbound_quarantine where source_id = %s", (sid,)).fetchone()[0]
    figures: dict[str, Any] = {
        "source_id": sid,
        "kind": row["kind"],
        "state": row["state"],
        "deliveries_last_24h": deliveries,
        "events_last_24h": int(events),
        "inbox_pending": pending,
        "inbox_failing": failed,
        "last_delivery_at": last_delivery,
        "refused_last_24h": sum(refusals.values()),
        "refused_last_24h_by_reason": refusals,
        "quarantined": quarantined,
    }
    if row["kind"] == "db_stream":
        with conn.cursor(row_factory=dict_row) as cur:
            followers = cur.execute(
                """select table_name as table, state, cursor_at, last_event_id, last_error, last_error_at,
                          last_signal_at, last_read_at, rows_read, changes_recorded, connections
                     from raw.db_follow_state where source_id = %s order by table_name""", (sid,)).fetchall()
        known = {f["table"] for f in followers}
        followers += [{"table": t, "state": "not_started"} for t in row["settings"].get("tables", []) if t not in known]
        figures["followers"] = followers
    return figures


def quarantined_payloads(conn: psycopg.Connection, source_id: object, limit: int = 20) -> list[dict[str, Any]]:
    """The latest refused payloads of a source, for an operator to inspect."""
    row = _load(conn, source_id)
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            """select quarantine_id as id, received_at, reason, headers, body, body_bytes, truncated
                 from raw.inbound_quarantine where source_id = %s order by quarantine_id desc limit %s""",
            (row["source_id"], limit)).fetchall()
    for item in rows:
        body = bytes(item.pop("body"))
        item["body_text"] = body.decode("utf-8", errors="replace")
    return rows
