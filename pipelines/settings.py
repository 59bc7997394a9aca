"""All configuration, read from the environment in one place.

Every component receives a `Settings` object; nothing else reads `os.environ` for configuration.
"""
from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit

SECRET_FILE_NAME = "server-secret"


SMTP_SECURITY = ("starttls", "tls", "none")


class SettingsError(ValueError):
    """A configuration value is present but unusable."""


def _parsed(env: Mapping[str, str], name: str, default, convert, kind: str, valid, requirement: str):
    """`env[name]` converted (default when unset or empty); SettingsError naming the variable
    when it is not `kind` or fails `valid`."""
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        value = convert(raw)
    except ValueError:
        raise SettingsError(f"{name} must be {kind}, got {raw!r}") from None
    if not valid(value):
        raise SettingsError(f"{name} must be {requirement}, got {raw!r}")
    return value


def _port(env: Mapping[str, str], name: str, default: int) -> int:
    return _parsed(env, name, default, int, "a port number", lambda port: 0 < port < 65536, "between 1 and 65535")


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    return _parsed(env, name, default, int, "a whole number", lambda value: value > 0, "positive")


def _whole(env: Mapping[str, str], name: str, default: int) -> int:
    return _parsed(env, name, default, int, "a whole number", lambda value: value >= 0, "0 or more")


def _positive_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    return _parsed(env, name, default, float, "a number of seconds", lambda value: 0 < value < float("inf"),
                   "a positive number of seconds")


_MEMORY_SIZE = re.compile(r"\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)", re.IGNORECASE)


def _memory_size(env: Mapping[str, str], name: str, default: str) -> str:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    value = raw.strip()
    if not _MEMORY_SIZE.fullmatch(value) or float(re.match(r"[\d.]+", value).group()) <= 0:
        raise SettingsError(f"{name} must be a memory size such as 512MB or 2GB, got {raw!r}")
    return value


def _spark_memory(env: Mapping[str, str], name: str, default: str) -> str:
    """A JVM memory size as Spark takes it (512m, 2g)."""
    raw = (env.get(name) or default).strip().lower()
    if not re.fullmatch(r"[1-9]\d*[mg]", raw):
        raise SettingsError(f"{name} must be a memory size such as 512m or 2g, got {env.get(name)!r}")
    return raw


def _spark_master(env: Mapping[str, str], name: str) -> str | None:
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    if not re.fullmatch(r"spark://[A-Za-z0-9.-]+:\d{1,5}", raw):
        raise SettingsError(f"{name} must be a master address such as spark://10.0.0.5:7077, got {raw!r}")
    return raw


def _spark_metastore(env: Mapping[str, str], name: str) -> str | None:
    """A PostgreSQL URL the Thrift server reaches over TCP (JDBC has no Unix socket)."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    parts = urlsplit(raw)
    if (parts.scheme not in ("postgresql", "postgres") or not parts.hostname or not parts.path.strip("/")
            or "host=" in parts.query):
        # Not echoed: it may hold a password.
        raise SettingsError(f"{name} must be a PostgreSQL URL with a host reached over TCP (not a socket folder) "
                            "and a database, such as postgresql://hive:PASSWORD@10.0.0.5:5432/metastore")
    return raw


DEFAULT_DOWNLOAD_EXTENSIONS = ("pdf", "zip", "csv", "docx", "xlsx", "pptx", "txt", "dmg", "exe", "gz", "mp3", "mp4")


def _list(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    return tuple(item.strip() for item in raw.split(",") if item.strip())


def _choice(env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = (env.get(name) or default).strip().lower()
    if raw not in choices:
        raise SettingsError(f"{name} must be one of {', '.join(choices)}, got {env.get(name)!r}")
    return raw


_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


def _name_map(env: Mapping[str, str], name: str, value_pattern: re.Pattern | None = None,
              ) -> tuple[tuple[str, str], ...]:
    """A JSON object of names to names (up to 100 pairs), as sorted pairs: the settings stay hashable."""
    raw = env.get(name)
    if raw in (None, ""):
        return ()
    example = '{"region": "region"}'
    try:
        value = json.loads(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a JSON object such as {example}, got {raw!r}") from None
    if not isinstance(value, dict) or len(value) > 100 or not all(
            isinstance(key, str) and isinstance(item, str) and 0 < len(key) <= 200 and 0 < len(item) <= 200
            and (value_pattern is None or value_pattern.fullmatch(item)) for key, item in value.items()):
        requirement = "attribute names (letters, digits, _)" if value_pattern else "names"
        raise SettingsError(f"{name} must be a JSON object of up to 100 claim names to {requirement}, got {raw!r}")
    return tuple(sorted(value.items()))


def _path(env: Mapping[str, str], name: str, default: str) -> str:
    raw = env.get(name) or default
    if not re.fullmatch(r"(/[A-Za-z0-9._~-]+)+", raw):
        raise SettingsError(f"{name} must be a path such as {default}, got {raw!r}")
    return raw


@dataclass(frozen=True)
class Settings:
    """Typed configuration of every component.

    `database_url` is None when the embedded PostgreSQL under `home` is to be used.
    """

    home: Path
    database_url: str | None = None
    database_name: str = "analytics"
    workbench_database_name: str = "workbench"
    bind_host: str = "127.0.0.1"
    collector_port: int = 8000
    workbench_port: int = 8080
    dagster_port: int = 3000
    collector_workers: int = 2
    workbench_workers: int = 2
    # Connections one collector worker serves at once: requests mostly wait on the shared commit.
    collector_connections: int = 1000
    server_secret_value: str | None = field(default=None, repr=False)
    # Collection: renamable paths (ad blockers list the usual names), proxies whose
    # X-Forwarded-For is believed, and the script's download extensions and search parameters.
    script_path: str = "/a.js"
    collect_path: str = "/collect"
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    download_extensions: tuple[str, ...] = DEFAULT_DOWNLOAD_EXTENSIONS
    search_params: tuple[str, ...] = ("q", "s", "search", "query")
    # Workbench engine limits, per statement (timeout, rows returned) and per worker (DuckDB memory).
    workbench_query_timeout_seconds: float = 30.0
    workbench_row_limit: int = 10_000
    workbench_export_row_limit: int = 1_000_000
    workbench_memory_limit: str = "1GB"
    # Browser sessions (workbench and collector administration): idle and absolute lifetimes.
    session_idle_seconds: float = 8 * 3600.0
    session_max_seconds: float = 7 * 86400.0
    # The AI assistant's provider (any OpenAI-compatible Chat Completions endpoint): off unless a base
    # URL and a model are set, here or by an administrator (whose settings take precedence).
    assistant_base_url: str | None = None
    assistant_api_key: str | None = field(default=None, repr=False)
    assistant_model: str | None = None
    assistant_organization: str | None = None
    # Per answer: tool rounds, rows and characters of a tool result sent to the provider; per person
    # and hour: requests and tokens (0 turns a quota off); per provider call: seconds.
    assistant_max_tool_rounds: int = 6
    assistant_max_rows: int = 50
    assistant_max_result_chars: int = 8000
    assistant_requests_per_hour: int = 30
    assistant_tokens_per_hour: int = 200_000
    assistant_timeout_seconds: int = 60
    # Dashboard PDFs: the Chromium that prints them (Debian's package; no browser is downloaded).
    chromium_path: str = "/usr/bin/chromium"
    # Single sign-on with OpenID Connect: off unless an issuer and a client id are set, here or by an
    # administrator (whose settings take precedence). The claims mapping is set in the Settings screen.
    oidc_issuer: str | None = None
    oidc_client_id: str | None = None
    oidc_client_secret: str | None = field(default=None, repr=False)
    oidc_scopes: str = "openid email profile"
    oidc_display_name: str = "OpenID Connect"
    #: Claim -> user attribute, and directory group -> workbench group (JSON objects in the environment).
    oidc_attribute_claims: tuple[tuple[str, str], ...] = ()
    oidc_group_mapping: tuple[tuple[str, str], ...] = ()
    # Outgoing mail (subscriptions and alerts): off unless a host is set, here or by an administrator
    # in the Settings screen (whose values take precedence). "starttls" upgrades a plain connection
    # (port 587), "tls" opens one (port 465), "none" is for a relay on the same machine only.
    smtp_host: str | None = None
    smtp_port: int | None = None
    smtp_security: str = "starttls"
    smtp_username: str | None = None
    smtp_password: str | None = field(default=None, repr=False)
    smtp_from: str | None = None
    smtp_timeout_seconds: int = 30
    # The workbench's address as its people reach it (behind a proxy, its public one): the links of
    # delivered reports and their unsubscribe links start with it. None: this machine's own address.
    workbench_url: str | None = None
    # The lake (Parquet beside PostgreSQL): its folder (a mounted shared filesystem on a cluster; None:
    # $ANALYTICS_HOME/lake) and where the workbench reads the analytics views ("lake" or "postgres").
    lake_dir: Path | None = None
    workbench_reads: str = "lake"
    # The engine that builds the dbt models: this PostgreSQL, or a Spark standalone cluster that
    # `analytics up` starts (master, workers, Thrift server; docs/data-engineer/spark.md). `spark_master_url` set:
    # the master runs elsewhere and only the workers and the Thrift server start here.
    engine: str = "postgres"
    spark_workers: int = 2
    spark_worker_cores: int = 1
    spark_worker_memory: str = "1g"
    spark_master_port: int = 7077
    spark_master_ui_port: int = 7080
    spark_thrift_port: int = 10000
    # The Thrift server's own Spark UI (its jobs and SQL): on a port of its own, so that a busy 4040
    # is not a warning at every start.
    spark_thrift_ui_port: int = 4040
    spark_master_url: str | None = None
    # Partitions of a shuffle (spark.sql.shuffle.partitions); 0: Spark's own default (200). Small data
    # (the tests' shop) takes far fewer.
    spark_shuffle_partitions: int = 0
    # How long a dbt run on Spark waits while the master counts no alive worker before it is
    # interrupted and fails with that reason (its statements would wait for an executor forever).
    spark_worker_wait_seconds: int = 120
    # The Hive metastore's database: a PostgreSQL URL (a cluster's Thrift server may move between
    # machines); None: embedded Derby under the home.
    spark_metastore_url: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """Build settings from environment variables (defaults suit a laptop)."""
        env = os.environ if env is None else env
        home = Path(env.get("ANALYTICS_HOME") or "./.analytics").expanduser().resolve()
        return cls(
            home=home,
            database_url=env.get("ANALYTICS_DATABASE_URL") or None,
            database_name=env.get("ANALYTICS_DATABASE_NAME") or "analytics",
            workbench_database_name=env.get("ANALYTICS_WORKBENCH_DATABASE_NAME") or "workbench",
            bind_host=env.get("ANALYTICS_BIND_HOST") or "127.0.0.1",
            collector_port=_port(env, "ANALYTICS_COLLECTOR_PORT", 8000),
            workbench_port=_port(env, "ANALYTICS_WORKBENCH_PORT", 8080),
            dagster_port=_port(env, "ANALYTICS_DAGSTER_PORT", 3000),
            collector_workers=_positive_int(env, "ANALYTICS_COLLECTOR_WORKERS", 2),
            workbench_workers=_positive_int(env, "ANALYTICS_WORKBENCH_WORKERS", 2),
            collector_connections=_positive_int(env, "ANALYTICS_COLLECTOR_CONNECTIONS", 1000),
            server_secret_value=env.get("ANALYTICS_SECRET") or None,
            script_path=_path(env, "ANALYTICS_SCRIPT_PATH", "/a.js"),
            collect_path=_path(env, "ANALYTICS_COLLECT_PATH", "/collect"),
            trusted_proxies=_list(env, "ANALYTICS_TRUSTED_PROXIES", ("127.0.0.1", "::1")),
            download_extensions=_list(env, "ANALYTICS_DOWNLOAD_EXTENSIONS", DEFAULT_DOWNLOAD_EXTENSIONS),
            search_params=_list(env, "ANALYTICS_SEARCH_PARAMS", ("q", "s", "search", "query")),
            workbench_query_timeout_seconds=_positive_seconds(env, "ANALYTICS_WORKBENCH_QUERY_TIMEOUT_SECONDS", 30.0),
            workbench_row_limit=_positive_int(env, "ANALYTICS_WORKBENCH_ROW_LIMIT", 10_000),
            workbench_export_row_limit=_positive_int(env, "ANALYTICS_WORKBENCH_EXPORT_ROW_LIMIT", 1_000_000),
            workbench_memory_limit=_memory_size(env, "ANALYTICS_WORKBENCH_MEMORY_LIMIT", "1GB"),
            session_idle_seconds=_positive_seconds(env, "ANALYTICS_SESSION_IDLE_SECONDS", 8 * 3600.0),
            session_max_seconds=_positive_seconds(env, "ANALYTICS_SESSION_MAX_SECONDS", 7 * 86400.0),
            assistant_base_url=env.get("ANALYTICS_ASSISTANT_BASE_URL") or None,
            assistant_api_key=env.get("ANALYTICS_ASSISTANT_API_KEY") or None,
            assistant_model=env.get("ANALYTICS_ASSISTANT_MODEL") or None,
            assistant_organization=env.get("ANALYTICS_ASSISTANT_ORGANIZATION") or None,
            assistant_max_tool_rounds=_positive_int(env, "ANALYTICS_ASSISTANT_MAX_TOOL_ROUNDS", 6),
            assistant_max_rows=_positive_int(env, "ANALYTICS_ASSISTANT_MAX_ROWS", 50),
            assistant_max_result_chars=_positive_int(env, "ANALYTICS_ASSISTANT_MAX_RESULT_CHARS", 8000),
            assistant_requests_per_hour=_whole(env, "ANALYTICS_ASSISTANT_REQUESTS_PER_HOUR", 30),
            assistant_tokens_per_hour=_whole(env, "ANALYTICS_ASSISTANT_TOKENS_PER_HOUR", 200_000),
            assistant_timeout_seconds=_positive_int(env, "ANALYTICS_ASSISTANT_TIMEOUT_SECONDS", 60),
            chromium_path=env.get("ANALYTICS_CHROMIUM_PATH") or "/usr/bin/chromium",
            oidc_issuer=(env.get("ANALYTICS_OIDC_ISSUER") or "").rstrip("/") or None,
            oidc_client_id=env.get("ANALYTICS_OIDC_CLIENT_ID") or None,
            oidc_client_secret=env.get("ANALYTICS_OIDC_CLIENT_SECRET") or None,
            oidc_scopes=env.get("ANALYTICS_OIDC_SCOPES") or "openid email profile",
            oidc_display_name=env.get("ANALYTICS_OIDC_PROVIDER_NAME") or "OpenID Connect",
            oidc_attribute_claims=_name_map(env, "ANALYTICS_OIDC_ATTRIBUTE_CLAIMS", _ATTRIBUTE_NAME),
            oidc_group_mapping=_name_map(env, "ANALYTICS_OIDC_GROUP_MAPPING"),
            smtp_host=env.get("ANALYTICS_SMTP_HOST") or None,
            smtp_port=_port(env, "ANALYTICS_SMTP_PORT", 0) or None,
            smtp_security=_choice(env, "ANALYTICS_SMTP_SECURITY", "starttls", SMTP_SECURITY),
            smtp_username=env.get("ANALYTICS_SMTP_USERNAME") or None,
            smtp_password=env.get("ANALYTICS_SMTP_PASSWORD") or None,
            smtp_from=env.get("ANALYTICS_SMTP_FROM") or None,
            smtp_timeout_seconds=_positive_int(env, "ANALYTICS_SMTP_TIMEOUT_SECONDS", 30),
            workbench_url=(env.get("ANALYTICS_WORKBENCH_URL") or "").rstrip("/") or None,
            lake_dir=Path(env["ANALYTICS_LAKE_PATH"]).expanduser().resolve() if env.get("ANALYTICS_LAKE_PATH") else None,
            workbench_reads=_choice(env, "ANALYTICS_WORKBENCH_READS", "lake", ("lake", "postgres")),
            engine=_choice(env, "ANALYTICS_ENGINE", "postgres", ("postgres", "spark")),
            spark_workers=_whole(env, "ANALYTICS_SPARK_WORKERS", 2),
            spark_worker_cores=_positive_int(env, "ANALYTICS_SPARK_WORKER_CORES", 1),
            spark_worker_memory=_spark_memory(env, "ANALYTICS_SPARK_WORKER_MEMORY", "1g"),
            spark_master_port=_port(env, "ANALYTICS_SPARK_MASTER_PORT", 7077),
            spark_master_ui_port=_port(env, "ANALYTICS_SPARK_MASTER_UI_PORT", 7080),
            spark_thrift_port=_port(env, "ANALYTICS_SPARK_THRIFT_PORT", 10000),
            spark_thrift_ui_port=_port(env, "ANALYTICS_SPARK_THRIFT_UI_PORT", 4040),
            spark_master_url=_spark_master(env, "ANALYTICS_SPARK_MASTER_URL"),
            spark_shuffle_partitions=_whole(env, "ANALYTICS_SPARK_SHUFFLE_PARTITIONS", 0),
            spark_worker_wait_seconds=_positive_int(env, "ANALYTICS_SPARK_WORKER_WAIT_SECONDS", 120),
            spark_metastore_url=_spark_metastore(env, "ANALYTICS_SPARK_METASTORE_URL"),
        )

    @property
    def embedded(self) -> bool:
        """True when the project runs its own PostgreSQL under `home`."""
        return self.database_url is None

    @property
    def workbench_address(self) -> str:
        """Where people reach the workbench: the configured address, else this machine's."""
        return self.workbench_url or f"http://{self.bind_host}:{self.workbench_port}"

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"

    @property
    def dagster_home(self) -> Path:
        return self.home / "dagster"

    @property
    def spool_dir(self) -> Path:
        return self.home / "spool"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def lake_path(self) -> Path:
        """The lake's folder (pipelines/lake/layout.py says what it holds)."""
        return self.lake_dir or self.home / "lake"

    @property
    def spark_dir(self) -> Path:
        """The Spark engine's files on this machine: metastore (Derby), warehouse, workers' scratch."""
        return self.home / "spark"

    @property
    def spark_master(self) -> str:
        """The address workers and the Thrift server join."""
        return self.spark_master_url or f"spark://{self.bind_host}:{self.spark_master_port}"

    def server_secret(self) -> bytes:
        """The server secret, generated on first use and kept owner-only under `home`.

        Keys for sealing, signing and derived passwords are derived from it, each for one use.
        """
        if self.server_secret_value:
            return self.server_secret_value.encode()
        path = self.home / SECRET_FILE_NAME
        if not path.exists():
            self.home.mkdir(parents=True, exist_ok=True)
            # O_EXCL: two processes starting together must not write two different secrets.
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                pass
            else:
                with os.fdopen(fd, "w") as handle:
                    handle.write(secrets.token_urlsafe(48))
        os.chmod(path, 0o600)
        value = path.read_text().strip()
        if not value:
            raise SettingsError(f"{path} is empty; delete it to generate a new secret")
        return value.encode()
