"""Schemathesis as its command line runs it (`--checks all`, every phase: examples, coverage,
fuzzing and the stateful phase), over real HTTP to the app served in a thread.

Each suite passes the checks it cannot satisfy with the reason; the rest must all pass.
"""
from __future__ import annotations

import contextlib
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator

import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events, from_schema
from werkzeug.serving import make_server


@contextlib.contextmanager
def serving(app) -> Iterator[str]:
    """The app on a free local port, for as long as the block runs; yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()


@dataclass
class FuzzReport:
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    phases: set[str] = field(default_factory=set)


def fuzz_every_phase(app, document_path: str, *, headers: dict[str, str], excepted_checks: dict[str, str],
                     examples: int, stateful_steps: int, include_path_regex: str | None = None,
                     exclude: tuple[tuple[str, str], ...] = (),
                     excepted_per_operation: dict[tuple[str, str], dict[str, str]] | None = None) -> FuzzReport:
    """Run every phase and every check but `excepted_checks` (name -> why) and, for the operations
    `(methods as "PUT|PATCH", path regex)` of `excepted_per_operation`, its checks (name -> why); returns what it found."""
    operations = [{"include-method-regex": f"^({method})$", "include-path-regex": path,
                   "checks": {name: {"enabled": False} for name in checks}}
                  for (method, path), checks in (excepted_per_operation or {}).items()]
    config = SchemathesisConfig.from_dict({
        "operations": operations,
        "headers": headers,
        "seed": 1,
        "checks": {name: {"enabled": False} for name in excepted_checks},
        "phases": {"examples": {"enabled": True}, "coverage": {"enabled": True}, "fuzzing": {"enabled": True},
                   "stateful": {"enabled": True, "max-steps": stateful_steps}},
        "generation": {"max-examples": examples, "mode": "all", "database": "none"},
    })
    report = FuzzReport()
    with serving(app) as base_url:
        schema = schemathesis.openapi.from_url(base_url + document_path, config=config)
        if include_path_regex:
            schema = schema.include(path_regex=include_path_regex)
        for method, path in exclude:
            schema = schema.exclude(method=method, path=path)
        for event in from_schema(schema).execute():
            _record(event, report)
    return report


def _record(event, report: FuzzReport) -> None:
    if isinstance(event, events.PhaseStarted):
        report.phases.add(event.phase.name.value)
    elif isinstance(event, events.ScenarioFinished):
        for case_id, interaction in event.recorder.interactions.items():
            if interaction.response is not None:
                report.statuses[interaction.response.status_code] += 1
        for case_id, checks in event.recorder.checks.items():
            for check in checks:
                if check.failure_info is not None:
                    case = event.recorder.cases[case_id].value
                    report.failures.append(f"{check.name}: {case.method} {case.formatted_path} "
                                           f"query={case.query} body={str(case.body)[:200]} -> "
                                           f"{check.failure_info.failure.title}: "
                                           f"{str(check.failure_info.failure.message)[:300]}")
    elif isinstance(event, (events.NonFatalError, events.FatalError)):
        report.errors.append(str(getattr(event, "info", event))[:500])
