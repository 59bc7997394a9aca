"""Each component's output in `$ANALYTICS_HOME/logs/<component>.log`, rotated; the console gets
only its warnings and errors that a person must act on (everything with `--verbose`).

`analytics up` reads each child's stdout and stderr through a pipe in a thread: one writer per file,
so rotation is safe (a child writing to the file itself would keep writing to the rotated one).
"""
from __future__ import annotations

import logging
import re
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import IO, Callable

import click

MAX_BYTES = 10 * 1024 * 1024
BACKUPS = 5
# Warnings and errors as gunicorn ([WARNING]), Dagster (- WARNING -), dbt and Python print them.
_NOTEWORTHY = re.compile(r"\b(WARNING|WARN|ERROR|CRITICAL|FATAL|Traceback)\b|\[(warning|error|critical)\]", re.I)
# Lines that look like warnings or errors but ask nothing of a person: they stay in the
# component's log. Each is named by where it comes from and why it is harmless.
_ROUTINE = re.compile("|".join((
    # dbt's summary of a build that went well (its "WARN=0 ERROR=0" is not a warning).
    r"\bDone\. PASS=\d+ WARN=0 ERROR=0\b",
    # Dagster logging a dbt test outside its asset-check selection (dbt's eager indirect selection).
    r"Logging an `?AssetObservation`? instead of an `?AssetCheckResult`?",
    # dagster-postgres: the webserver and the daemon create the same tables at start; one retries.
    r"Retrying failed database creation",
    # gunicorn at stop: a worker closes a listening socket its arbiter closed already.
    r"Error while closing socket \[Errno 9\]",
    # Java, at the start of every Spark process: Spark 4 asks for the incubating vector API itself.
    r"WARNING: Using incubator modules: jdk\.incubator\.vector",
)))


def logs_directory(home: Path) -> Path:
    return home / "logs"


def log_path(home: Path, component: str) -> Path:
    return logs_directory(home) / f"{component}.log"


def component_logger(home: Path, component: str) -> logging.Logger:
    """A logger that appends raw lines to the component's rotating file."""
    logger = logging.getLogger(f"analytics.components.{component}")
    if not logger.handlers:
        logs_directory(home).mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(log_path(home, component), maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                      encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger


class ConsoleFilter:
    """Decides which lines of a component reach the console: warnings, errors and whole tracebacks."""

    def __init__(self, verbose: bool):
        self.verbose = verbose
        self.in_traceback = False

    def shows(self, line: str) -> bool:
        if self.verbose:
            return True
        if self.in_traceback:
            # A traceback ends with its first unindented line (the exception), shown too.
            self.in_traceback = line[:1] in (" ", "\t")
            return True
        if line.startswith("Traceback"):
            self.in_traceback = True
            return True
        return bool(_NOTEWORTHY.search(line)) and not _ROUTINE.search(line)


def pump(component: str, stream: IO[bytes], logger: logging.Logger, verbose: bool,
         echo: Callable[[str], None] | None = None) -> threading.Thread:
    """Copy a child's output to its log file, line by line, echoing what the console should show."""
    echo = echo or (lambda text: click.echo(text, err=True))
    console = ConsoleFilter(verbose)

    def run() -> None:
        with stream:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\n")
                logger.info(line)
                if console.shows(line):
                    echo(f"{component:<18} | {line}")

    thread = threading.Thread(target=run, name=f"log-{component}", daemon=True)
    thread.start()
    return thread
