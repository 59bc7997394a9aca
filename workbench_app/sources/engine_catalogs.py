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
from dataclasses import dataclass, field

import psycopg

from pipelines.key_derivation import derive_key
from pipelines.settings import Settings
from workbench_app.engine import CatalogSource, EngineError, EngineSettings, WorkbenchEngine
from workbench_app.sources import catalogs, registry

log = logging.getLogger(__name__)

DEFAULT_CATALOG = "warehouse"


def engine_settings(settings: Settings) -> EngineSettings:
    return EngineSettings(
        default_catalog=DEFAULT_CATALOG,
        default_schema=catalogs.WAREHOUSE_SCHEMA,
        # Key of `hash` masks: derived for this use, so masked values cannot be reversed by guessing.
        mask_salt=derive_key(settings.server_secret(), "workbench-mask-salt").hex(),
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
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def current(self, conn: psycopg.Connection) -> WorkbenchEngine:
        """The engine, after attaching or detaching whatever changed since the last statement."""
        version = registry.current_version(conn)
        if self.engine is not None and version == self.version:
            return self.engine
        with self._lock:
            if self.engine is None or version != self.version:
                self._sync(conn, version)
        return self.engine

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

    def _sync(self, conn: psycopg.Connection, version: int) -> None:
        desired = self._desired(conn)
        if self.engine is None:
            config = self.engine_config or engine_settings(self.settings)
            try:
                self.engine = WorkbenchEngine(config, list(desired.values()))
                self.attached = dict(desired)
                self.version = version
                return
            except EngineError:
                # One source does not attach: start empty and attach them one by one below.
                self.engine = WorkbenchEngine(config)
                self.attached = {}
        changed = False
        for key in list(self.attached):
            if key not in desired:
                self.engine.detach_catalog(self.attached.pop(key).name)
                changed = True
        for key, source in desired.items():
            if self.attached.get(key) == source:
                continue
            try:
                self.engine.attach_catalog(source)
                self.attached[key] = source
                self.failures.pop(source.name, None)
            except EngineError as error:
                self.failures[source.name] = error.message
                if key in self.attached:
                    self.engine.detach_catalog(self.attached.pop(key).name)
            changed = True
        if not changed and self.version is not None:
            self.engine.refresh_schema()  # a refresh request: the sources' tables may have changed
        self.version = version

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
