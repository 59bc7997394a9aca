"""The embedded PostgreSQL server that runs under ANALYTICS_HOME.

It uses the PostgreSQL binaries shipped in the `pgserver` wheel but drives them with `pg_ctl`
directly, so that the server outlives the command that started it (`analytics db start`) and its
data survives restarts. It listens on a Unix socket only: nothing on the network can reach it.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import warnings

with warnings.catch_warnings():
    # pgserver's package import looks up an XDG runtime dir we do not use, and warns without one.
    warnings.simplefilter("ignore")
    from pgserver._commands import POSTGRES_BIN_PATH

SUPERUSER = "postgres"
# Unix socket paths are limited to 107 bytes; keep room for "/.s.PGSQL.5432".
_MAX_SOCKET_DIR_LENGTH = 90
_SYSTEM_USER = "pgserver"


class EmbeddedDatabaseError(RuntimeError):
    """The embedded server could not be initialised, started or stopped."""


@dataclass(frozen=True)
class EmbeddedStatus:
    running: bool
    pid: int | None
    socket_dir: Path | None
    port: int | None

    def url(self, database: str, user: str = SUPERUSER) -> str:
        if not self.running or self.socket_dir is None:
            raise EmbeddedDatabaseError("the embedded PostgreSQL is not running")
        return f"postgresql://{user}@/{database}?host={self.socket_dir}&port={self.port}"


def binary(name: str) -> Path:
    """Path of one of the bundled PostgreSQL programs (psql, pg_dump, ...)."""
    return POSTGRES_BIN_PATH / name


def _as_root() -> bool:
    return os.geteuid() == 0


def _run_kwargs() -> dict:
    # PostgreSQL refuses to run as root: run it as an unprivileged system user instead.
    return {"user": _SYSTEM_USER} if _as_root() else {}


def _prepare_for_system_user(pgdata: Path) -> None:
    from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists
    import pwd
    import stat

    ensure_user_exists(_SYSTEM_USER)
    ensure_prefix_permissions(pgdata)
    ensure_prefix_permissions(POSTGRES_BIN_PATH)
    read = stat.S_IRGRP | stat.S_IROTH
    execute = stat.S_IXGRP | stat.S_IXOTH
    ensure_folder_permissions(POSTGRES_BIN_PATH, read | execute)
    ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", read)
    entry = pwd.getpwnam(_SYSTEM_USER)
    # initdb runs as the system user, so everything it creates inside is already theirs.
    os.chown(pgdata, entry.pw_uid, entry.pw_gid)


def socket_dir_for(pgdata: Path) -> Path:
    """A socket directory next to the data, or a short one in the temp dir when the path is long."""
    preferred = pgdata.parent / "run"
    if len(str(preferred)) <= _MAX_SOCKET_DIR_LENGTH:
        return preferred
    digest = hashlib.sha256(str(pgdata).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"analytics-pg-{digest}"


def status(pgdata: Path) -> EmbeddedStatus:
    """Read postmaster.pid: is a server running on this data directory, and where."""
    pid_file = pgdata / "postmaster.pid"
    try:
        lines = pid_file.read_text().splitlines()
    except (FileNotFoundError, PermissionError):
        return EmbeddedStatus(False, None, None, None)
    try:
        pid = int(lines[0])
        port = int(lines[3])
        socket_dir = Path(lines[4]) if len(lines) > 4 and lines[4] else None
        ready = len(lines) > 7 and lines[7].strip() == "ready"
    except (IndexError, ValueError):
        return EmbeddedStatus(False, None, None, None)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return EmbeddedStatus(False, None, None, None)
    except PermissionError:
        pass  # alive, owned by the system user
    return EmbeddedStatus(ready, pid, socket_dir, port)


def initialise(pgdata: Path) -> bool:
    """Create the cluster if the data directory is empty. Returns True when it was created."""
    if (pgdata / "PG_VERSION").exists():
        return False
    pgdata.mkdir(parents=True, exist_ok=True)
    os.chmod(pgdata, 0o700)
    if _as_root():
        _prepare_for_system_user(pgdata)
    _pg_program(
        "initdb",
        ["-D", str(pgdata), "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "-U", SUPERUSER],
    )
    return True


def start(pgdata: Path, extra_settings: dict[str, str] | None = None, timeout: float = 60) -> EmbeddedStatus:
    """Start the server (initialising it first if needed); a running server is left as it is."""
    current = status(pgdata)
    if current.running:
        return current
    initialise(pgdata)
    socket_dir = socket_dir_for(pgdata)
    socket_dir.mkdir(parents=True, exist_ok=True)
    if _as_root():
        _prepare_for_system_user(pgdata)
        os.chmod(socket_dir, 0o777)
    options = {
        "listen_addresses": "''",
        "unix_socket_directories": f"'{socket_dir}'",
        "max_connections": "200",
        **(extra_settings or {}),
    }
    option_text = " ".join(f"-c {name}={value}" for name, value in options.items())
    log_file = pgdata / "server.log"
    _pg_program(
        "pg_ctl",
        ["-D", str(pgdata), "-w", "-t", str(int(timeout)), "-l", str(log_file), "-o", option_text, "start"],
        timeout=timeout + 10,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        current = status(pgdata)
        if current.running:
            return current
        time.sleep(0.05)
    raise EmbeddedDatabaseError(f"PostgreSQL did not become ready; see {log_file}")


def stop(pgdata: Path, timeout: float = 60) -> bool:
    """Stop the server with a fast shutdown. Returns False when it was not running."""
    if not status(pgdata).running and not (pgdata / "postmaster.pid").exists():
        return False
    try:
        _pg_program("pg_ctl", ["-D", str(pgdata), "-w", "-t", str(int(timeout)), "-m", "fast", "stop"],
                    timeout=timeout + 10)
    except EmbeddedDatabaseError:
        if status(pgdata).running:
            raise
        return False
    return True


def _pg_program(name: str, args: list[str], timeout: float = 120) -> str:
    # Output goes to temporary files: pg_ctl keeps pipes open through the server it forks.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        try:
            subprocess.run([str(binary(name)), *args], check=True, stdout=out, stderr=err, text=True,
                           timeout=timeout, cwd="/", **_run_kwargs())
        except subprocess.CalledProcessError as exc:
            err.seek(0)
            out.seek(0)
            raise EmbeddedDatabaseError(f"{name} failed ({exc.returncode}): {err.read() or out.read()}") from None
        except subprocess.TimeoutExpired:
            raise EmbeddedDatabaseError(f"{name} did not finish within {timeout:.0f} s") from None
        out.seek(0)
        return out.read()
