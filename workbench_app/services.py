"""What every request of one worker shares: settings, the metadata pool, the engine.

Built lazily (after gunicorn forks) and kept in `app.extensions`; the agent tool server uses the
same object, so the API and the tools run statements the same way.
"""
from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import psycopg
from psycopg_pool import ConnectionPool

from pipelines.settings import Settings
from pipelines.web_auth.sessions import SessionStore
from pipelines.web_auth.throttle import SignInThrottle
from workbench_app import metadata_database
from workbench_app.accounts import web_sessions
from workbench_app.engine import EngineSettings
from workbench_app.running_statements import RunningStatements
from workbench_app.sources.engine_catalogs import EngineCatalogs

log = logging.getLogger(__name__)


@dataclass
class WorkbenchServices:
    settings: Settings
    engine_config: EngineSettings | None = None
    _pool: ConnectionPool | None = None
    _catalogs: EngineCatalogs | None = None
    _migrated: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Repeated sign-in failures per account and address: in this worker's memory only.
    sign_in_throttle: SignInThrottle = field(default_factory=SignInThrottle)
    _running_statements: RunningStatements | None = None

    @property
    def session_store(self) -> SessionStore:
        return web_sessions.session_store(self.settings)

    @property
    def pool(self) -> ConnectionPool:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    try:
                        if not self._migrated:
                            # Idempotent and locked: the first request of each worker makes sure
                            # the metadata schema is current (`analytics up` starts us after migrate).
                            metadata_database.prepare_metadata_database(self.settings)
                            self._migrated = True
                        self._pool = metadata_database.open_pool(metadata_database.metadata_url(self.settings))
                    except Exception as exc:
                        log.exception("the workbench metadata database cannot be used")
                        raise metadata_database.unavailable() from exc
        return self._pool

    @property
    def catalogs(self) -> EngineCatalogs:
        if self._catalogs is None:
            with self._lock:
                if self._catalogs is None:
                    self._catalogs = EngineCatalogs(self.settings, self.engine_config)
        return self._catalogs

    @property
    def running_statements(self) -> RunningStatements:
        """The statements this worker runs under a screen's statement id (cancellable from any worker)."""
        if self._running_statements is None:
            with self._lock:
                if self._running_statements is None:
                    self._running_statements = RunningStatements(
                        lambda: metadata_database.metadata_url(self.settings))
        return self._running_statements

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        with metadata_database.transaction(self.pool) as conn:
            yield conn

    def close(self) -> None:
        if self._running_statements is not None:
            self._running_statements.close()
        if self._catalogs is not None:
            self._catalogs.close()
        if self._pool is not None:
            self._pool.close()
            self._pool = None
