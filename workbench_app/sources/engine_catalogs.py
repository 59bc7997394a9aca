"""The engine of one worker process, kept in step with the sources of the metadata database.

Before each statement a worker reads `source_catalog_version` (one row); when it moved, the
worker reads the sources, attaches the new or changed ones and detaches the removed ones, so a
source added through the API is a catalog of every worker without a restart. A source that
cannot be attached (server down, bad password) is left out and reported, without stopping the
others.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

import psycopg

from pipelines.key_derivation import derive_key
from pipelines.settings import Settings
from workbench_app.engine import CatalogSource, EngineError, EngineSettings, WorkbenchEngine
from workbench_app.sources import catalogs, registry

log = logging.getLogger(__name__)

DEFAULT_CATALOG = "warehouse"
RETRY_SECONDS = 30.0
# How often a worker looks at the lake's state files (a refresh after a build, a new day).
LAKE_CHECK_SECONDS = 5.0


def engine_settings(settings: Settings) -> EngineSettings:
    """The engine of one worker, with the limits of the environment (ANALYTICS_WORKBENCH_*)."""
    return EngineSettings(
        timeout_seconds=settings.workbench_query_timeout_seconds,
        row_limit=settings.workbench_row_limit,
        memory_limit=settings.workbench_memory_limit,
        default_catalog=DEFAULT_CATALOG,
        default_schema=catalogs.WAREHOUSE_SCHEMA,
        # Key of `hash` masks: derived for this use, so masked values cannot be reversed by guessing.
        mask_salt=derive_key(settings.server_secret(), "workbench-mask-salt").hex(),
        temp_directory=str(settings.home / "workbench" / "engine-spill"),
    )


@dataclass
class EngineCatalogs:
    """One worker's engine and the sources attached to it."""

    settings: Settings
    engine_config: EngineSettings | None = None
    engine: WorkbenchEngine | None = None
    version: int | None = None
    attached: dict[str, CatalogSource] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    synced_at: float = 0.0
    lake_seen: tuple | None = None
    lake_checked_at: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def current(self, conn: psycopg.Connection) -> WorkbenchEngine:
        """The engine, after attaching or detaching whatever changed since the last statement."""
        version = registry.current_version(conn)
        lake_moved = self._lake_moved()
        if self.engine is not None and version == self.version and not self._retry_due() and not lake_moved:
            return self.engine
        with self._lock:
            if self.engine is None or version != self.version or self._retry_due() or lake_moved:
                self._sync(conn, version, rebuild=lake_moved and self.engine is not None)
        return self.engine

    def _lake_moved(self) -> bool:
        """Whether the lake's tables changed since the engine's views were made (checked every few seconds)."""
        now = time.monotonic()
        if now - self.lake_checked_at < LAKE_CHECK_SECONDS:
            return False
        self.lake_checked_at = now
        signature = catalogs.lake_signature(self.settings)
        moved, self.lake_seen = self.lake_seen is not None and signature != self.lake_seen, signature
        return moved

    def _retry_due(self) -> bool:
        """A source that failed to attach (server down) is tried again now and then."""
        return bool(self.failures) and time.monotonic() - self.synced_at > RETRY_SECONDS

    def _desired(self, conn: psycopg.Connection) -> dict[str, CatalogSource]:
        desired: dict[str, CatalogSource] = {}
        failures: dict[str, str] = {}
        for row in registry.stored_sources(conn):
            try:
                desired[row["name"].lower()] = catalogs.catalog_source(self.settings, row)
            except Exception as error:  # noqa: BLE001 - one unusable source must not stop the others
                log.warning("source %s cannot be prepared: %s", row["name"], type(error).__name__)
                failures[row["name"]] = "The source could not be prepared (unreadable credentials or files)."
        self.failures = failures
        return desired

    def _sync(self, conn: psycopg.Connection, version: int, rebuild: bool = False) -> None:
        desired = self._desired(conn)
        if self.engine is None:
            self.engine = WorkbenchEngine(self.engine_config or engine_settings(self.settings))
        try:
            changed = self.engine.set_catalogs(list(desired.values()))
            self.attached = dict(desired)
        except EngineError:
            # One source does not attach: find it, keep the others.
            changed = True
            self._attach_one_by_one(desired)
        if not changed and ((self.version is not None and version != self.version) or rebuild):
            self.engine.refresh_schema()  # a refresh request or a new lake state: the tables may have changed
        self.version = version
        self.synced_at = time.monotonic()

    def _attach_one_by_one(self, desired: dict[str, CatalogSource]) -> None:
        working = {key: source for key, source in self.attached.items() if desired.get(key) == source}
        self.engine.set_catalogs(list(working.values()))
        for key, source in desired.items():
            if key in working:
                continue
            try:
                self.engine.attach_catalog(source)
                working[key] = source
            except EngineError as error:
                self.failures[source.name] = error.message
        self.attached = working

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
